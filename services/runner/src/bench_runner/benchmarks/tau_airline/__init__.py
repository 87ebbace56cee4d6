"""TAU Bench Verified — Airline: 50 τ² airline tasks, 14 tools, a simulated customer.

Modules: `data` (bundle, checksums), `task_model` (typed tasks), `db` (copy-on-write database,
canonical hash), `tools`/`tool_schemas`/`environment` (the 14 tools), `prompts`, `simulator`
(the customer), `agent_loop` (the conversation), `reward` (τ²'s reward), `settings` (options,
simulator endpoint and key, `check_ready`), `oracle` (scripted perfect models), `benchmark`
(the plugin).
"""

from bench_runner.benchmarks.tau_airline.benchmark import BENCHMARK_ID, TauAirline
from bench_runner.benchmarks.tau_airline.data import AirlineBundle, DataError, load_bundle
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment, ToolOutcome
from bench_runner.benchmarks.tau_airline.settings import (
    TauAirlineOptions,
    check_ready,
    options_from_env,
    simulator_credentials,
)
from bench_runner.benchmarks.tau_airline.tool_schemas import TOOL_SCHEMAS

__all__ = [
    "BENCHMARK_ID",
    "TOOL_SCHEMAS",
    "AirlineBundle",
    "AirlineEnvironment",
    "DataError",
    "TauAirline",
    "TauAirlineOptions",
    "ToolOutcome",
    "check_ready",
    "load_bundle",
    "options_from_env",
    "simulator_credentials",
]
