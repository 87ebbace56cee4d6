"""Everything `bench run` reads from the environment, read in one place."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bench_common.ids import new_id, validate_session_id


def default_cache_dir(env: Mapping[str, str]) -> Path:
    """`$BENCH_DATASET_CACHE_DIR`, else `$XDG_CACHE_HOME/bench-harness/datasets`."""
    explicit = env.get("BENCH_DATASET_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bench-harness" / "datasets"


@dataclass(frozen=True)
class CliEnvironment:
    """The CLI's environment-derived settings (`api_key` is never printed)."""

    api_key: str | None = field(repr=False)
    session_id: str
    results_dir: Path
    progress_file: Path | None
    request_log: Path | None
    cache_dir: Path
    cache_disabled: bool
    hf_token: str | None = field(repr=False)
    gpqa_dataset_file: Path | None
    tau_airline_data_url: str | None = None
    credentials: dict[str, str] = field(repr=False, default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CliEnvironment:
        """Read the environment.

        Raises:
            ValueError: an invalid `BENCH_CHILD_WORKFLOW_ID`.
        """
        e = os.environ if env is None else env
        session = e.get("BENCH_CHILD_WORKFLOW_ID") or new_id()
        request_log: Path | None = Path(e.get("REQUEST_LOG_FILE") or "logs/requests.jsonl")
        if e.get("REQUEST_LOG", "1").strip().lower() in {"0", "false", "no", "off"}:
            request_log = None
        credentials = {
            name: e[var]
            for name, var in (("judge_api_key", "SWE_ATLAS_JUDGE_API_KEY"),)
            if e.get(var)
        }
        progress = e.get("BENCH_PROGRESS_FILE")
        gpqa_file = e.get("BENCH_GPQA_DATASET_FILE")
        return cls(
            api_key=e.get("OPENROUTER_API_KEY") or e.get("BENCHMARKING_OPENROUTER_API_KEY"),
            session_id=validate_session_id(session),
            results_dir=Path(e.get("BENCH_RESULTS_DIR") or "bench-results"),
            progress_file=Path(progress) if progress else None,
            request_log=request_log,
            cache_dir=default_cache_dir(e),
            cache_disabled=e.get("BENCH_DATASET_CACHE_DISABLE", "").lower() in {"1", "true", "yes"},
            hf_token=e.get("HF_TOKEN") or None,
            gpqa_dataset_file=Path(gpqa_file) if gpqa_file else None,
            tau_airline_data_url=e.get("BENCH_TAU_AIRLINE_DATA_URL") or None,
            credentials=credentials,
        )
