"""The envelope every event carries, subject naming and the name -> class registry.

Subjects derive from the event class and the run: `bench.<area>.<run_id>.<event_name>`, so
`bench.runs.<run_id>.>` selects one run's history. Services never write subject literals; they
call `subject_for` (STYLE.md habit 3).
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from bench_common.ids import new_id

SCHEMA_VERSION = 1

STREAM_EVENTS = "BENCH_EVENTS"
STREAM_WORK = "BENCH_WORK"
STREAM_LIVE = "BENCH_LIVE"

_AREA_BY_STREAM = {STREAM_EVENTS: "runs", STREAM_WORK: "work", STREAM_LIVE: "live"}
_TOKEN_OK = re.compile(r"^[A-Za-z0-9_-]+$")
_CAMEL_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")

_REGISTRY: dict[str, type[Event]] = {}
_EVENT_NAMESPACE = uuid.UUID("6f1c9a52-3a51-4f0e-9d5e-2b0f3f1d8c11")

SUBJECT_ADMIT = "bench.control.admit"
"""Core NATS request/reply subject of admission (a command, not an event: never stored)."""

SUBJECT_ARTIFACT_URL = "bench.control.artifact_url"
"""Core NATS request/reply subject answered by the archiver: a presigned download URL for one
archived file of a run (`ArtifactUrlRequest` -> `ArtifactUrlReply`)."""


def utc_now() -> datetime:
    """The current time as an aware UTC datetime."""
    return datetime.now(UTC)


class Event(BaseModel):
    """Base of every message that crosses a process: an immutable past-tense fact.

    Attributes:
        event_id: UUID, also sent as `Nats-Msg-Id` so JetStream drops re-published duplicates.
        run_id: the run this fact belongs to (the originator id).
        occurred_at: aware UTC time the fact happened.
        schema_version: version of the envelope and payload shape.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    stream: ClassVar[str] = STREAM_EVENTS
    name: ClassVar[str] = ""

    event_id: str = Field(default_factory=new_id)
    run_id: str
    occurred_at: AwareDatetime = Field(default_factory=utc_now)
    schema_version: int = SCHEMA_VERSION

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.name = _CAMEL_BOUNDARY.sub("_", cls.__name__).lower()
        _REGISTRY[cls.name] = cls


def event_class(name: str) -> type[Event]:
    """The event class registered under `name` (e.g. `sample_completed`).

    Raises:
        KeyError: for an unknown event name.
    """
    return _REGISTRY[name]


def all_event_classes() -> list[type[Event]]:
    """Every registered event class, in definition order."""
    return list(_REGISTRY.values())


def check_token(value: str, what: str) -> str:
    """Refuse values that would break a NATS subject (dots, wildcards, spaces)."""
    if not _TOKEN_OK.match(value):
        raise ValueError(f"{what} {value!r} cannot be used in a NATS subject: use [A-Za-z0-9_-]")
    return value


def subject_for(event_type: type[Event], run_id: str, stream: str | None = None) -> str:
    """The subject an event of `event_type` for `run_id` is published on.

    `stream` overrides the class's home stream, e.g. to put a copy of `SampleDispatched` (whose
    record lives in BENCH_EVENTS) on the work queue.
    """
    area = _AREA_BY_STREAM[stream or event_type.stream]
    return f"bench.{area}.{check_token(run_id, 'run id')}.{event_type.name}"


def any_run_subject(event_type: type[Event], stream: str | None = None) -> str:
    """Subject filter selecting `event_type` events of every run (`bench.runs.*.<name>`),
    for consumers and core subscriptions that watch one kind of fact across runs."""
    return f"bench.{_AREA_BY_STREAM[stream or event_type.stream]}.*.{event_type.name}"


def deterministic_event_id(run_id: str, *parts: object) -> str:
    """A UUID derived from the run and `parts`: re-publishing the same fact gets the same id,
    so JetStream's duplicate window drops it and consumers can recognise it."""
    key = "/".join([run_id, *(str(p) for p in parts)])
    return str(uuid.uuid5(_EVENT_NAMESPACE, key))


def run_filter(run_id: str, stream: str = STREAM_EVENTS) -> str:
    """Subject filter selecting every event of one run in `stream`."""
    return f"bench.{_AREA_BY_STREAM[stream]}.{check_token(run_id, 'run id')}.>"


def stream_subjects(stream: str) -> list[str]:
    """The subjects a stream binds."""
    return [f"bench.{_AREA_BY_STREAM[stream]}.>"]


def decode_event(subject: str, data: bytes | str) -> Event:
    """Parse an event from its subject (which names its class) and JSON body.

    Raises:
        KeyError: the subject names no known event.
        pydantic.ValidationError: the body does not match the class.
    """
    name = subject.rsplit(".", 1)[-1]
    return event_class(name).model_validate_json(data)
