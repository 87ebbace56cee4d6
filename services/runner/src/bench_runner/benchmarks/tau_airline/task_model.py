"""Typed τ² tasks: the scenario the simulated customer plays and the criteria that score it.

The shapes follow τ²'s `Task` schema as the bundled `tasks.json` uses it. Unknown keys are
refused so a parsing mistake never silently drops a criterion.
"""

from __future__ import annotations

import textwrap
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

RewardType = Literal["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]
DEFAULT_REWARD_BASIS: tuple[RewardType, ...] = ("DB", "COMMUNICATE")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Action(_Frozen):
    """A gold tool call. `compare_args` None means every argument of the agent's call counts."""

    action_id: str
    requestor: Literal["assistant", "user"] = "assistant"
    name: str
    arguments: dict[str, JsonValue]
    info: str | None = None
    compare_args: list[str] | None = None


class EvaluationCriteria(_Frozen):
    """What the reward looks at; `reward_basis` defaults to DB × COMMUNICATE as in τ²."""

    actions: list[Action] | None = None
    env_assertions: list[JsonValue] | None = None
    communicate_info: list[str] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: tuple[RewardType, ...] = Field(default=DEFAULT_REWARD_BASIS)


class UserInstructions(_Frozen):
    """The structured scenario of the simulated customer."""

    domain: str
    reason_for_call: str
    known_info: str | None = None
    unknown_info: str | None = None
    task_instructions: str

    def render(self) -> str:
        """τ²'s text form: a heading per field, every line of a field indented by a tab."""
        lines = [f"Domain: {self.domain}", _section("Reason for call", self.reason_for_call)]
        if self.known_info is not None:
            lines.append(_section("Known info", self.known_info))
        if self.unknown_info is not None:
            lines.append(_section("Unknown info", self.unknown_info))
        lines.append(_section("Task instructions", self.task_instructions))
        return "\n".join(lines)


class UserScenario(_Frozen):
    persona: str | None = None
    instructions: UserInstructions | str


class Description(_Frozen):
    purpose: str | None = None
    relevant_policies: str | None = None
    notes: str | None = None


class Task(_Frozen):
    """One airline task (ids "0"…"49")."""

    id: str
    description: Description | None = None
    user_scenario: UserScenario
    ticket: str | None = None
    initial_state: None = None
    evaluation_criteria: EvaluationCriteria | None = None
    annotations: JsonValue = None

    def render_instructions(self) -> str:
        """The scenario text the simulated customer gets inside `<scenario>`."""
        instructions = self.user_scenario.instructions
        return instructions if isinstance(instructions, str) else instructions.render()

    @property
    def gold_actions(self) -> list[Action]:
        """The gold actions (empty when the task has none)."""
        criteria = self.evaluation_criteria
        return list(criteria.actions or []) if criteria is not None else []

    @property
    def communicate_info(self) -> list[str]:
        """Strings the agent must say (empty when none)."""
        criteria = self.evaluation_criteria
        return list(criteria.communicate_info or []) if criteria is not None else []

    @property
    def reward_basis(self) -> tuple[RewardType, ...]:
        """The task's reward basis (τ²'s default when there are no criteria)."""
        criteria = self.evaluation_criteria
        return criteria.reward_basis if criteria is not None else DEFAULT_REWARD_BASIS


def _section(title: str, text: str) -> str:
    return f"{title}:\n{textwrap.indent(text, chr(9))}"
