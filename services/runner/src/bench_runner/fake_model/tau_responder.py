"""TAU airline conversations served by the fake model: both sides scripted from the bundled
tasks, so a CLI or managed TAU run can be driven offline, end to end, with no real model.

The simulated customer is recognised by its system prompt (the simulation guidelines followed
by the task's scenario, which names the task: every scenario is distinct) and the agent by the
tools in its request. The customer's first message carries a tag naming its task, `[tau task
N]`; the agent reads it back from the conversation and plays that task's oracle (its gold
actions, then the information the customer must hear), so every task earns reward 1. Each side
replies exactly as `OracleAgent` and `ScriptedCustomer` do in process.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bench_runner.benchmarks.tau_airline.data import load_bundle
from bench_runner.benchmarks.tau_airline.oracle import OracleAgent, ScriptedCustomer
from bench_runner.benchmarks.tau_airline.prompts import SIMULATION_GUIDELINES, STOP
from bench_runner.benchmarks.tau_airline.task_model import Task
from bench_runner.fake_model.script import RecordedRequest, Reply, ToolCallReply
from bench_runner.inference.types import ChatRequest

_TAG = re.compile(r"\[tau task ([^\]\s]+)\]")
_SCENARIO = re.compile(r"<scenario>\n(.*)\n</scenario>", re.DOTALL)


def opening_line(task_id: str) -> str:
    """The customer's first message for a task: a request for help, tagged with the task."""
    return f"Hi, I need help with my trip. [tau task {task_id}]"


def is_tau_request(body: Mapping[str, Any]) -> bool:
    """A request of a TAU airline conversation: the agent (it offers tools) or the customer."""
    if body.get("tools"):
        return True
    messages = body.get("messages") or []
    first = messages[0] if messages and isinstance(messages[0], dict) else {}
    content = first.get("content")
    return (
        first.get("role") == "system"
        and isinstance(content, str)
        and content.startswith(SIMULATION_GUIDELINES)
    )


@dataclass
class TauAirlineResponder:
    """Replies as the oracle agent or the scripted customer of whichever task is talking.

    Attributes:
        load_tasks: the tasks (the bundled ones by default), read on the first TAU request.
        duration: seconds over which each reply is streamed.
        provider: top-level `provider` of the chunks.
        cost: `usage.cost` of each reply.
    """

    load_tasks: Callable[[], list[Task]] = field(default=lambda: list(load_bundle().tasks))
    duration: float = 0.0
    provider: str = "FakeProvider"
    cost: float = 0.00012
    _tasks: dict[str, Task] | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __call__(self, request: RecordedRequest) -> Reply:
        """The next message of the agent or the customer."""
        messages: list[dict[str, Any]] = request.body.get("messages") or []
        if request.body.get("tools"):
            return self._agent(messages)
        return self._customer(messages)

    def _agent(self, messages: list[dict[str, Any]]) -> Reply:
        task = self._task_named_in(messages)
        if task is None:
            # no tagged customer (a real simulator on the other side): say so, as a model would
            return self._reply("I could not tell which booking this is about.")
        result = OracleAgent(task).answer(ChatRequest(messages=messages))
        calls = [
            ToolCallReply(name=c.name, arguments=c.arguments, id=c.id) for c in result.tool_calls
        ]
        return self._reply(result.content, tool_calls=calls)

    def _customer(self, messages: list[dict[str, Any]]) -> Reply:
        task = self._task_of_scenario(str(messages[0].get("content") or ""))
        if task is None:
            return self._reply(STOP)  # a scenario this bundle does not hold: end politely
        customer = ScriptedCustomer((opening_line(task.id), STOP))
        return self._reply(customer.answer(ChatRequest(messages=messages)).content)

    def _reply(self, content: str, *, tool_calls: list[ToolCallReply] | None = None) -> Reply:
        return Reply(
            content=content,
            tool_calls=tool_calls or (),
            duration=self.duration,
            provider=self.provider,
            cost=self.cost,
        )

    def _known(self) -> dict[str, Task]:
        with self._lock:  # the server may call from several requests at once
            if self._tasks is None:
                self._tasks = {task.id: task for task in self.load_tasks()}
            return self._tasks

    def _task_named_in(self, messages: list[dict[str, Any]]) -> Task | None:
        for message in messages:
            if message.get("role") == "user":
                found = _TAG.search(str(message.get("content") or ""))
                if found:
                    return self._known().get(found.group(1))
        return None

    def _task_of_scenario(self, system_prompt: str) -> Task | None:
        found = _SCENARIO.search(system_prompt)
        if found is None:
            return None
        scenario = found.group(1)
        return next(
            (task for task in self._known().values() if task.render_instructions() == scenario),
            None,
        )
