"""How a run's request maps onto `runs` columns, and the column limits values must fit.

A value the database would refuse (too long for its column) would make the projector retry
the same batch forever, so every free-text value is clipped here, and keys that cannot be
clipped are checked by the fold before it emits a row.
"""

from __future__ import annotations

import json

from bench_api.projection.changes import SqlValue
from bench_common.events import RunRequested
from bench_common.run_config import RunConfig

CANARY_EMAIL = "genai-temporal-worker@digitalocean.com"
"""The scheduled canary's identity: `hideCanary` / `canaryOnly` filter on it."""

FAILURE_REASON_LIMIT = 16_000
"""Characters kept of a failure reason (the original's limit; fits a TEXT column)."""

TEXT_LIMIT = 16_000
"""Characters kept in TEXT columns (65,535 bytes hold 16,383 four-byte characters)."""

MEDIUM_TEXT_LIMIT = 1_000_000
"""Characters kept in MEDIUMTEXT columns (answers, explanations)."""

JSON_LIMIT = 1_000_000
"""Characters of JSON kept per value; larger values are replaced by a truncation marker."""

KEY_LIMITS = {"run_id": 128, "sample_id": 255, "request_id": 128, "call_id": 128}
"""Lengths of key columns: events whose keys are longer cannot be projected."""


UINT32_MAX = 4_294_967_295
"""Largest value of the INT UNSIGNED columns (limits, ranges, timeouts, counts)."""


def fit_uint(value: int | None, limit: int = UINT32_MAX) -> int | None:
    """`value` held within [0, limit]: strict SQL mode refuses out-of-range numbers, and a
    refused row would stop the projection (the exact value stays in `config_json`)."""
    return None if value is None else min(max(value, 0), limit)


def clip(value: str | None, limit: int) -> str | None:
    """`value` cut to `limit` characters (None stays None)."""
    if value is None or len(value) <= limit:
        return value
    return value[:limit]


def json_text(value: object, limit: int = JSON_LIMIT) -> str:
    """Compact JSON, or a marker saying how long the value was when it is too long."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
    if len(text) <= limit:
        return text
    return json.dumps({"truncated": True, "original_characters": len(text)})


def key_problem(**keys: str | None) -> str | None:
    """Why these key values cannot be stored, or None when they fit their columns."""
    for name, value in keys.items():
        limit = KEY_LIMITS[name]
        if value is not None and (not value or len(value) > limit):
            return f"{name} must be 1 to {limit} characters, got {len(value)}"
    return None


def is_full_suite(config: RunConfig) -> bool:
    """The run covers the whole dataset: no limit, range or sample-id restriction."""
    unrestricted = config.limit is None and config.end is None and not config.sample_ids
    return unrestricted and config.start == 0


def request_columns(event: RunRequested) -> dict[str, SqlValue]:
    """The `runs` columns a `RunRequested` sets (everything but lifecycle and counts)."""
    config = event.config
    inference = config.inference
    email = clip(event.triggered_by_email, 320)
    source = event.source_run_id
    return {
        "benchmark": clip(config.benchmark, 64),
        "model": clip(config.model, 256),
        "base_url": clip(config.base_url, 2048),
        "epochs": fit_uint(config.epochs, 65_535),
        "concurrency": fit_uint(config.concurrency),
        "unordered": int(config.unordered),
        "row_limit": fit_uint(config.limit),
        "range_start": fit_uint(config.start),
        "range_end": fit_uint(config.end),
        "sample_ids_json": json_text(list(config.sample_ids)) if config.sample_ids else None,
        "max_retries": inference.max_retries,
        "temperature": inference.temperature,
        "max_tokens": fit_uint(inference.max_tokens),
        "reasoning_effort": inference.reasoning_effort,
        "timeout_ms": fit_uint(inference.timeout_ms),
        "completion_timeout_ms": fit_uint(inference.completion_timeout_ms),
        "endpoint_id": clip(inference.endpoint_id, 256),
        "cost_tier": inference.cost_tier,
        "provider_sort": inference.sort,
        "provider_only": (
            json_text(list(inference.provider_only), TEXT_LIMIT)
            if inference.provider_only is not None
            else None
        ),
        "allow_fallbacks": _flag(inference.allow_fallbacks),
        "cloudflare_version": clip(inference.cloudflare_version, 64),
        "cost_quality_tradeoff": inference.cost_quality_tradeoff,
        "pin_model": clip(inference.pin_model, 256),
        "config_json": json_text(config.model_dump(mode="json")),
        "triggered_by_email": email,
        "is_canary": int(email is not None and email.lower() == CANARY_EMAIL),
        "full_suite": int(is_full_suite(config) and event.run_kind == "benchmark"),
        "run_kind": event.run_kind,
        "source_run_id": source if key_problem(run_id=source) is None else None,
        "judge_model": clip(event.judge_model, 256),
    }


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)
