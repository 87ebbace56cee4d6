"""Options, the simulator's endpoint and key, readiness, and the plugin's identity."""

from __future__ import annotations

import pytest

from bench_runner.benchmarks.base import Sample
from bench_runner.benchmarks.registry import benchmark_ids, get_benchmark
from bench_runner.benchmarks.tau_airline.benchmark import TauAirline
from bench_runner.benchmarks.tau_airline.data import AirlineBundle
from bench_runner.benchmarks.tau_airline.settings import (
    TauAirlineOptions,
    check_ready,
    options_from_env,
    simulator_credentials,
)

from .fakes import customer, make_context, scripted, text


def test_plugin_identity_and_defaults() -> None:
    benchmark = get_benchmark("tau_bench_verified_airline")
    assert isinstance(benchmark, TauAirline)
    assert "tau_bench_verified_airline" in benchmark_ids()
    info = benchmark.info
    assert (info.default_epochs, info.default_concurrency, info.temperature) == (3, 3, 0.0)
    assert info.dataset_size == 50
    assert not info.needs_sandbox


def test_options_use_camel_case_keys_and_refuse_unknown_ones() -> None:
    benchmark = TauAirline()
    options = benchmark.parse_options(
        {"userModel": "m", "userBaseUrl": "https://sim.example/v1", "userTemperature": None}
    )
    assert isinstance(options, TauAirlineOptions)
    assert (options.user_model, options.user_base_url, options.user_temperature) == (
        "m",
        "https://sim.example/v1",
        None,
    )
    defaults = benchmark.parse_options({})
    assert isinstance(defaults, TauAirlineOptions)
    assert (defaults.max_steps, defaults.max_errors, defaults.user_temperature) == (200, 10, 0.0)
    with pytest.raises(ValueError, match="Valid benchmark keys: maxErrors, maxSteps, userBaseUrl"):
        benchmark.parse_options({"usrModel": "x"})


def test_options_from_env_reads_base_url_and_model_only() -> None:
    env = {
        "TAU_AIRLINE_USER_SIMULATOR_BASE_URL": "https://sim.example/v1/",
        "TAU_AIRLINE_USER_SIMULATOR_MODEL": "sim-model",
        "TAU_AIRLINE_USER_SIMULATOR_API_KEY": "sk-secret",
    }
    assert options_from_env(env) == {
        "userBaseUrl": "https://sim.example/v1",
        "userModel": "sim-model",
    }
    assert options_from_env({}) == {}


def test_simulator_key_from_env_or_from_a_candidate_on_the_same_host() -> None:
    do = "https://inference.do-ai.run/v1"
    with_env = simulator_credentials(
        user_base_url=do,
        candidate_base_url="https://openrouter.ai/api/v1",
        candidate_api_key="sk-or",
        env={"TAU_AIRLINE_USER_SIMULATOR_API_KEY": "sk-sim"},
    )
    assert with_env == {"simulator_api_key": "sk-sim"}
    same_host = simulator_credentials(
        user_base_url=do, candidate_base_url=do + "/", candidate_api_key="sk-do", env={}
    )
    assert same_host == {"simulator_api_key": "sk-do"}
    other_host = simulator_credentials(
        user_base_url=do,
        candidate_base_url="https://openrouter.ai/api/v1",
        candidate_api_key="sk-or",
        env={},
    )
    assert other_host == {}


def test_check_ready_refuses_a_run_without_a_simulator_key() -> None:
    with pytest.raises(ValueError, match="TAU_AIRLINE_USER_SIMULATOR_API_KEY") as caught:
        check_ready(TauAirlineOptions(), {})
    assert "simulatorApiKey" in str(caught.value)
    assert "openai-gpt-5.4-mini at https://inference.do-ai.run/v1" in str(caught.value)
    check_ready(TauAirlineOptions(), {"simulator_api_key": "sk"})
    with pytest.raises(ValueError, match="simulated customer"):
        TauAirline().check_ready(TauAirlineOptions(), {"simulator_api_key": ""})


async def test_evaluate_uses_the_configured_simulator_and_temperatures(
    bundle: AirlineBundle,
) -> None:
    task = bundle.tasks[0]
    sample = Sample(id="tau_bench_verified_airline-0", index=0, input="", payload=task)
    agent, sim = scripted([text("No.")]), customer()
    options = TauAirlineOptions(
        user_model="sim-model", user_base_url="https://sim.example/v1", user_temperature=None
    )
    ctx, auxiliary = make_context(agent, sim, options=options, temperature=0.7)
    record = await TauAirline().evaluate(sample, 1, ctx)
    role, endpoint = auxiliary.endpoints[0]
    assert (role, endpoint.base_url, endpoint.model) == (
        "simulator",
        "https://sim.example/v1",
        "sim-model",
    )
    assert all(r.temperature == 0.7 for r in agent.requests)
    assert all(r.temperature is None for r in sim.requests)
    assert record.metadata["simulator"] == {
        "model": "sim-model",
        "base_url": "https://sim.example/v1",
    }


async def test_agent_temperature_defaults_to_zero(bundle: AirlineBundle) -> None:
    sample = Sample(id="s", index=0, input="", payload=bundle.tasks[0])
    agent = scripted([text("No.")])
    ctx, _ = make_context(agent, customer())
    await TauAirline().evaluate(sample, 0, ctx)
    assert {r.temperature for r in agent.requests} == {0.0}


async def test_evaluate_without_a_simulator_key_fails_clearly(bundle: AirlineBundle) -> None:
    sample = Sample(id="s", index=0, input="", payload=bundle.tasks[0])
    ctx, _ = make_context(scripted([text("No.")]), customer(), credentials={})
    with pytest.raises(ValueError, match="needs an API key for the simulated customer"):
        await TauAirline().evaluate(sample, 0, ctx)
