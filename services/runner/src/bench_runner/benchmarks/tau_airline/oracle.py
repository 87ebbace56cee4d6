"""Scripted models that solve a task perfectly, for tests, benchmarks and offline smoke runs.

`OracleAgent` performs the task's gold actions, one tool call per turn, then says every
`communicate_info` string; `ScriptedCustomer` asks for help and then says ###STOP###. Together
they earn reward 1 on every task without a network call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bench_runner.benchmarks.tau_airline.prompts import STOP
from bench_runner.benchmarks.tau_airline.task_model import Task
from bench_runner.inference.types import CallContext, ChatRequest, ChatResult, ToolCall


class OracleAgent:
    """A `ChatModel` that knows the answer: the gold actions, then the required information."""

    def __init__(self, task: Task) -> None:
        self._actions = [a for a in task.gold_actions if a.requestor == "assistant"]
        self._closing = " ".join(["Your request is complete.", *task.communicate_info])

    @property
    def model(self) -> str:
        return "oracle/tau-airline"

    def answer(self, request: ChatRequest) -> ChatResult:
        """The next gold action (by how many tool results the conversation holds), or the close."""
        made = sum(1 for message in request.messages if message.get("role") == "tool")
        if made < len(self._actions):
            action = self._actions[made]
            call = ToolCall(
                id=f"call_{made}", name=action.name, arguments=json.dumps(action.arguments)
            )
            return ChatResult(content="", tool_calls=[call], finish_reason="tool_calls")
        return ChatResult(content=self._closing, finish_reason="stop")

    async def complete(self, request: ChatRequest, *, call: CallContext) -> ChatResult:
        return self.answer(request)


class ScriptedCustomer:
    """A `ChatModel` customer: its n-th reply is `replies[n-1]`, the last one repeating."""

    def __init__(self, replies: Sequence[str] = ("Hi, I need help with my trip.", STOP)) -> None:
        self._replies = list(replies)

    @property
    def model(self) -> str:
        return "scripted/customer"

    def answer(self, request: ChatRequest) -> ChatResult:
        """The reply for the number of agent messages the customer has seen."""
        seen = sum(1 for message in request.messages if message.get("role") == "user")
        return ChatResult(content=self._replies[min(seen, len(self._replies)) - 1])

    async def complete(self, request: ChatRequest, *, call: CallContext) -> ChatResult:
        return self.answer(request)
