"""Logging set-up shared by the CLI and services: structlog to stderr, JSON or console."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(*, json_output: bool, level: int = logging.INFO) -> None:
    """Route structlog (and stdlib logging) to stderr; JSON lines for services."""
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json_output else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
