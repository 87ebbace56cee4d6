"""The τ² reward of one conversation (evaluation type ALL: DB, ACTION, COMMUNICATE).

- A conversation that did not end with `user_stop` or `agent_stop` scores 0.
- A task without evaluation criteria scores 1.
- DB: replay the gold actions on a fresh copy of the initial database (a failing gold action
  is skipped, as in τ²) and compare its canonical hash with the agent's final database. A task
  whose `actions` and `env_assertions` are both null passes; an empty action list means the
  database must be left unchanged.
- COMMUNICATE: every `communicate_info` string, lowercased, occurs in some assistant text
  lowercased with commas removed.
- ACTION: every gold action matches some agent tool call by name and by the arguments in
  `compare_args` (the call's own argument names when null).
- The reward is the product over the task's reward basis (default DB × COMMUNICATE);
  NL_ASSERTION needs an LLM judge and is not evaluated (no airline task asks for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bench_runner.benchmarks.tau_airline.agent_loop import AgentToolCall, Conversation
from bench_runner.benchmarks.tau_airline.db import AirlineDB, BaseDatabase
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment
from bench_runner.benchmarks.tau_airline.task_model import Action, Task

PASSING_TERMINATIONS = frozenset({"user_stop", "agent_stop"})


@dataclass(frozen=True)
class RewardResult:
    """The reward and the checks behind it (None where a check does not apply)."""

    reward: float
    breakdown: dict[str, float]
    db_match: bool | None
    communicate_met: bool | None
    actions_matched: bool | None
    gold_db: AirlineDB | None
    note: str | None = None


def replay_gold(task: Task, base: BaseDatabase) -> AirlineDB:
    """The initial database after the task's gold actions (agent-side ones; airline has no
    user tools, so a user-side action fails and is skipped as in τ²)."""
    environment = AirlineEnvironment(base.fresh())
    for action in task.gold_actions:
        if action.requestor == "assistant":
            environment.call(action.name, action.arguments)
    return environment.db


def communicate_met(info: Sequence[str], assistant_texts: Sequence[str]) -> bool:
    """Whether every string was said by the agent (τ²'s case- and comma-insensitive check)."""
    said = [text.lower().replace(",", "") for text in assistant_texts]
    return all(any(item.lower() in text for text in said) for item in info)


def action_matches(action: Action, call: AgentToolCall) -> bool:
    """τ²'s `Action.compare_with_tool_call`."""
    if action.name != call.name or call.arguments is None:
        return False
    names = list(call.arguments) if action.compare_args is None else action.compare_args
    if not names:
        return True
    wanted = {k: v for k, v in action.arguments.items() if k in names}
    made = {k: v for k, v in call.arguments.items() if k in names}
    return wanted == made


def score_conversation(
    task: Task, conversation: Conversation, agent_db: AirlineDB, base: BaseDatabase
) -> RewardResult:
    """The reward of a finished conversation."""
    criteria = task.evaluation_criteria
    if criteria is None:
        passing = conversation.termination in PASSING_TERMINATIONS
        return RewardResult(1.0 if passing else 0.0, {}, None, None, None, None, "no criteria")
    gold_db: AirlineDB | None = None
    db_match = True
    if criteria.actions is not None or criteria.env_assertions is not None:
        gold_db = replay_gold(task, base)
        db_match = gold_db.state_hash() == agent_db.state_hash()
    told = communicate_met(task.communicate_info, conversation.assistant_texts())
    matched = all(
        any(action_matches(action, call) for call in conversation.tool_calls)
        for action in task.gold_actions
    )
    checks = {"DB": db_match, "ENV_ASSERTION": True, "COMMUNICATE": told, "ACTION": matched}
    breakdown: dict[str, float] = {
        basis: float(checks[basis]) for basis in task.reward_basis if basis in checks
    }
    reward = 1.0
    for value in breakdown.values():
        reward *= value
    note = None
    if conversation.termination not in PASSING_TERMINATIONS:
        reward = 0.0
        note = f"conversation ended with {conversation.termination}"
    return RewardResult(
        reward=reward,
        breakdown=breakdown,
        db_match=db_match,
        communicate_met=told,
        actions_matched=matched if "ACTION" in task.reward_basis else None,
        gold_db=gold_db,
        note=note,
    )
