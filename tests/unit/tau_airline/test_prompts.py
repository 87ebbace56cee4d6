"""The fixed texts: τ²'s agent prompt around the policy, the customer's guidelines and scenario."""

from __future__ import annotations

from bench_runner.benchmarks.tau_airline.data import AirlineBundle
from bench_runner.benchmarks.tau_airline.prompts import (
    SIMULATION_GUIDELINES,
    agent_system_prompt,
    customer_stop_token,
    customer_system_prompt,
)


def test_agent_prompt_wraps_the_whole_policy(bundle: AirlineBundle) -> None:
    prompt = agent_system_prompt(bundle.policy)
    assert prompt.startswith(
        "<instructions>\nYou are a customer service agent that helps the user according to the "
        "<policy> provided below.\n"
    )
    assert "You cannot do both at the same time." in prompt
    assert f"</instructions>\n<policy>\n{bundle.policy}\n</policy>" in prompt
    assert prompt.endswith("</policy>")


def test_customer_prompt_is_the_guidelines_then_the_scenario(bundle: AirlineBundle) -> None:
    assert len(SIMULATION_GUIDELINES.encode()) == 1449  # the upstream file, byte for byte
    assert SIMULATION_GUIDELINES.startswith("# User Simulation Guidelines\n")
    scenario = bundle.tasks[0].render_instructions()
    prompt = customer_system_prompt(scenario)
    assert prompt == f"{SIMULATION_GUIDELINES}\n\n<scenario>\n{scenario}\n</scenario>"


def test_stop_tokens_are_found_anywhere_in_the_message() -> None:
    assert customer_stop_token("Thanks! ###STOP###") == "###STOP###"
    assert customer_stop_token("###TRANSFER###") == "###TRANSFER###"
    assert customer_stop_token("I can't say. ###OUT-OF-SCOPE###") == "###OUT-OF-SCOPE###"
    assert customer_stop_token("Please stop calling me STOP") is None
