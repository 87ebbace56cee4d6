"""TAU airline options, the simulated customer's endpoint, and the pre-run readiness check.

The simulated customer has its own OpenAI-compatible endpoint (default: `openai-gpt-5.4-mini`
on DigitalOcean inference). Where its settings come from:

- benchmark options `userModel`, `userBaseUrl`, `userTemperature` (recorded in the run config);
- in the CLI, `TAU_AIRLINE_USER_SIMULATOR_BASE_URL` / `_MODEL` as defaults for those options
  (`options_from_env`, merged under the run's explicit options) and
  `TAU_AIRLINE_USER_SIMULATOR_API_KEY` as the key (`simulator_credentials`);
- in the API, `simulatorApiKey` in the request, passed as credential `simulator_api_key`.

`evaluate` never reads the environment: it takes the key from `ctx.credentials`. Call
`check_ready(options, credentials)` before a run starts so a missing key fails at once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from pydantic import Field, JsonValue

from bench_runner.benchmarks.base import BenchmarkOptions

DEFAULT_USER_BASE_URL = "https://inference.do-ai.run/v1"
DEFAULT_USER_MODEL = "openai-gpt-5.4-mini"
ENV_BASE_URL = "TAU_AIRLINE_USER_SIMULATOR_BASE_URL"
ENV_MODEL = "TAU_AIRLINE_USER_SIMULATOR_MODEL"
ENV_API_KEY = "TAU_AIRLINE_USER_SIMULATOR_API_KEY"
SIMULATOR_KEY = "simulator_api_key"
"""The `ctx.credentials` name of the simulated customer's API key."""


class TauAirlineOptions(BenchmarkOptions):
    """Benchmark keys: `userModel`, `userBaseUrl`, `userTemperature`, `maxSteps`, `maxErrors`.

    `userTemperature` null sends no temperature (for simulator models that refuse one).
    """

    user_model: str = Field(default=DEFAULT_USER_MODEL, min_length=1)
    user_base_url: str = Field(default=DEFAULT_USER_BASE_URL, pattern=r"^https?://")
    user_temperature: float | None = Field(default=0.0, ge=0, le=2)
    max_steps: int = Field(default=200, ge=1, le=1000)
    max_errors: int = Field(default=10, ge=1, le=1000)


def options_from_env(env: Mapping[str, str] | None = None) -> dict[str, JsonValue]:
    """Simulator options set by the environment (the CLI merges the run's own keys over them)."""
    environ = os.environ if env is None else env
    found: dict[str, JsonValue] = {}
    if environ.get(ENV_BASE_URL):
        found["userBaseUrl"] = environ[ENV_BASE_URL].rstrip("/")
    if environ.get(ENV_MODEL):
        found["userModel"] = environ[ENV_MODEL]
    return found


def simulator_credentials(
    *,
    user_base_url: str,
    candidate_base_url: str,
    candidate_api_key: str | None,
    env: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """`{simulator_api_key: …}` for the CLI: the env key, else the candidate's own key when the
    candidate is served by the simulator's host (one DigitalOcean key serves both); else empty.
    """
    environ = os.environ if env is None else env
    key = environ.get(ENV_API_KEY)
    if not key and candidate_api_key and _host(candidate_base_url) == _host(user_base_url):
        key = candidate_api_key
    return {SIMULATOR_KEY: key} if key else {}


def check_ready(options: BenchmarkOptions, credentials: Mapping[str, str]) -> None:
    """Refuse to start a run whose simulated customer has no API key.

    Raises:
        ValueError: the key is missing; the message says how to provide it.
    """
    opts = options if isinstance(options, TauAirlineOptions) else TauAirlineOptions()
    if not credentials.get(SIMULATOR_KEY):
        raise ValueError(
            "tau_bench_verified_airline needs an API key for the simulated customer "
            f"({opts.user_model} at {opts.user_base_url}): set {ENV_API_KEY} for the CLI, or "
            "`simulatorApiKey` in the API request. The simulator endpoint and model are set "
            f"by the userBaseUrl/userModel options or {ENV_BASE_URL}/{ENV_MODEL}."
        )


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()
