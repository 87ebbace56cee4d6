"""Commands sent over core NATS request/reply. Unlike events they are never stored, which is
why admission may carry credentials: the scheduler seals them before anything is persisted."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from bench_common.events import RunKind
from bench_common.run_config import RunConfig


class AdmissionRequest(BaseModel):
    """Ask the scheduler to admit a run under the active-run cap.

    `credentials` maps names (`api_key`, `simulator_api_key`, `judge_api_key`) to secrets; the
    scheduler encrypts them under a per-run data key before publishing `RunRequested`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    config: RunConfig
    credentials: dict[str, SecretStr] = Field(default_factory=dict)
    triggered_by_email: str | None = None
    run_kind: RunKind = "benchmark"
    source_run_id: str | None = None
    judge_model: str | None = None

    def wire_json(self) -> bytes:
        """JSON with the secrets revealed, for the request body only (never logged)."""
        data = self.model_dump(mode="json")
        data["credentials"] = {k: v.get_secret_value() for k, v in self.credentials.items()}
        return json.dumps(data).encode()


class AdmissionReply(BaseModel):
    """The scheduler's answer: admitted, or why not (with the cap when that is the reason)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    admitted: bool
    active: int
    max_active: int
    reason: str | None = None
