"""TAU airline: the environment's own cost per conversation step (target: <= 2 ms).

For each of the 50 tasks, the oracle conversation (gold actions as tool calls, then the
required information, then the customer's ###STOP###) is run once with scripted models to
get its step count. The environment work of that conversation is then timed on its own:
the per-evaluation database copy, every tool call (JSON arguments parsed, validated, run,
result serialised), the agent's state hash, the gold replay and its hash, and the record's
database diff. The figure is that time divided by the conversation steps, summed over the
50 tasks, median of `--repeat` runs. For comparison it also prints what a deep copy of the
whole database per evaluation would add, the cost of the heavier read tools, and the whole
loop with scripted models. One-off process costs (loading and verifying the bundle, the
shared record digests) are printed apart: they are paid once per process, not per step.

Run: uv run python benchmarks/tau_env_step_cost.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench_runner.benchmarks.tau_airline import db_diff
from bench_runner.benchmarks.tau_airline.agent_loop import ConversationLoop
from bench_runner.benchmarks.tau_airline.data import AirlineBundle, read_bundle
from bench_runner.benchmarks.tau_airline.data import locate_bundle as find_bundle
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment
from bench_runner.benchmarks.tau_airline.oracle import OracleAgent, ScriptedCustomer
from bench_runner.benchmarks.tau_airline.prompts import agent_system_prompt, customer_system_prompt
from bench_runner.benchmarks.tau_airline.reward import replay_gold, score_conversation
from bench_runner.benchmarks.tau_airline.simulator import SimulatedCustomer
from bench_runner.benchmarks.tau_airline.task_model import Task

READ_CALLS: list[tuple[str, dict[str, str]]] = [
    ("search_direct_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}),
    ("search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}),
    ("get_user_details", {"user_id": "mia_li_3668"}),
    ("get_reservation_details", {"reservation_id": "4WQ150"}),
]


@dataclass
class Parts:
    """Milliseconds spent in each kind of environment work, summed over the 50 tasks."""

    copy: float = 0.0
    tools: float = 0.0
    hashes: float = 0.0
    gold: float = 0.0
    diff: float = 0.0

    @property
    def total(self) -> float:
        return self.copy + self.tools + self.hashes + self.gold + self.diff


def _ms(start: int) -> float:
    return (time.perf_counter_ns() - start) / 1e6


def environment_work(bundle: AirlineBundle) -> Parts:
    """The environment's share of the 50 oracle conversations."""
    parts = Parts()
    for task in bundle.tasks:
        start = time.perf_counter_ns()
        environment = AirlineEnvironment(bundle.database.fresh())
        parts.copy += _ms(start)
        start = time.perf_counter_ns()
        for action in task.gold_actions:
            environment.execute(action.name, json.dumps(action.arguments))
        parts.tools += _ms(start)
        start = time.perf_counter_ns()
        environment.db.state_hash()
        parts.hashes += _ms(start)
        start = time.perf_counter_ns()
        replay_gold(task, bundle.database).state_hash()
        parts.gold += _ms(start)
        start = time.perf_counter_ns()
        db_diff.changes_from_initial(environment.db)
        parts.diff += _ms(start)
    return parts


async def oracle_conversation(bundle: AirlineBundle, task: Task) -> int:
    """Run the whole loop with scripted models and score it; returns the step count."""
    customer = SimulatedCustomer(
        ScriptedCustomer(),
        system_prompt=customer_system_prompt(task.render_instructions()),
        temperature=0.0,
        sample_id=task.id,
        epoch=0,
        base_url="scripted",
    )
    environment = AirlineEnvironment(bundle.database.fresh())
    loop = ConversationLoop(
        agent=OracleAgent(task),
        customer=customer,
        environment=environment,
        system_prompt=agent_system_prompt(bundle.policy),
        temperature=0.0,
        sample_id=task.id,
        epoch=0,
    )
    conversation = await loop.run()
    result = score_conversation(task, conversation, environment.db, bundle.database)
    if result.reward != 1.0:
        raise SystemExit(f"oracle failed task {task.id}: {result}")
    return conversation.steps


def median_of(repeat: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    start = time.perf_counter_ns()
    bundle = read_bundle(find_bundle())
    load_ms = _ms(start)
    start = time.perf_counter_ns()
    bundle.database.state_hash()
    index_ms = _ms(start)

    steps = sum(asyncio.run(oracle_conversation(bundle, task)) for task in bundle.tasks)
    runs = [environment_work(bundle) for _ in range(args.repeat)]
    parts = sorted(runs, key=lambda p: p.total)[len(runs) // 2]

    def whole_loop() -> float:
        start = time.perf_counter_ns()
        for task in bundle.tasks:
            asyncio.run(oracle_conversation(bundle, task))
        return _ms(start)

    loop_ms = median_of(args.repeat, whole_loop)
    deepcopy_ms = median_of(3, lambda: _deepcopy_ms(bundle))
    tasks = len(bundle.tasks)

    print(
        f"TAU airline environment cost: {tasks} oracle conversations, {steps} steps, "
        f"median of {args.repeat} runs"
    )
    print(
        f"  one-off per process: load + verify bundle {load_ms:.0f} ms, "
        f"shared record digests {index_ms:.0f} ms"
    )
    per_eval = {
        name: getattr(parts, name) / tasks for name in ("copy", "tools", "hashes", "gold", "diff")
    }
    print("  per evaluation (ms): " + ", ".join(f"{k} {v:.3f}" for k, v in per_eval.items()))
    print(f"  ENVIRONMENT COST PER STEP: {parts.total / steps:.4f} ms/step (target <= 2 ms)")
    print(f"  whole loop with scripted models and scoring: {loop_ms / steps:.4f} ms/step")
    print(
        f"  for comparison, a deep copy of the database per evaluation: {deepcopy_ms:.0f} ms "
        f"= {deepcopy_ms * tasks / steps:.2f} ms/step over these conversations"
    )
    for name, arguments in READ_CALLS:
        print(f"  read tool {name}: {_tool_ms(bundle, name, arguments):.3f} ms/call")


def _deepcopy_ms(bundle: AirlineBundle) -> float:
    start = time.perf_counter_ns()
    copy.deepcopy(dict(bundle.database.tables))
    return _ms(start)


def _tool_ms(
    bundle: AirlineBundle, name: str, arguments: dict[str, str], calls: int = 200
) -> float:
    environment = AirlineEnvironment(bundle.database.fresh())
    text = json.dumps(arguments)
    start = time.perf_counter_ns()
    for _ in range(calls):
        environment.execute(name, text)
    return _ms(start) / calls


if __name__ == "__main__":
    main()
