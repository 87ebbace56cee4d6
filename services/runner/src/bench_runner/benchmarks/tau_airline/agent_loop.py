"""One conversation: customer -> agent -> environment, as τ²'s orchestrator runs it.

The agent opens with "Hi! How can I help you today?" (shown to the customer, not replayed to
the agent, as in τ²). Each step delivers one message: the customer's reply, the agent's turn
(text for the customer, or tool calls for the environment), or the environment's results. The
loop ends when the customer says a stop token (`user_stop`), the agent says ###STOP###
(`agent_stop`), 200 steps have run (`max_steps`), 10 tool calls have failed
(`too_many_errors`), or the agent keeps answering with neither text nor a tool call
(`agent_empty_response`). As in τ², the step and error limits are checked after every step and
override a stop that happened on the same step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import JsonValue

from bench_common.usage import Usage
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment, parse_arguments
from bench_runner.benchmarks.tau_airline.prompts import (
    FIRST_AGENT_MESSAGE,
    STOP,
    customer_stop_token,
)
from bench_runner.benchmarks.tau_airline.simulator import SimulatedCustomer
from bench_runner.benchmarks.tau_airline.tool_schemas import TOOL_SCHEMAS
from bench_runner.inference.types import CallContext, ChatModel, ChatRequest, ChatResult, ToolCall

TerminationReason = Literal[
    "user_stop", "agent_stop", "max_steps", "too_many_errors", "agent_empty_response"
]
Role = Literal["user", "agent", "env"]
EMPTY_RESPONSE_RETRIES = 3


@dataclass(frozen=True)
class Limits:
    """τ²'s defaults: 200 steps, 10 tool errors; plus retries after an empty agent answer."""

    max_steps: int = 200
    max_errors: int = 10
    empty_response_retries: int = EMPTY_RESPONSE_RETRIES


@dataclass(frozen=True)
class AgentToolCall:
    """A tool call the agent made, with its arguments parsed (None when not a JSON object)."""

    name: str
    arguments: dict[str, Any] | None


@dataclass
class Conversation:
    """What a finished conversation leaves for scoring and for the record."""

    transcript: list[dict[str, JsonValue]] = field(default_factory=list)
    termination: TerminationReason | None = None
    steps: int = 0
    tool_errors: int = 0
    tool_calls: list[AgentToolCall] = field(default_factory=list)
    agent_usage: Usage = field(default_factory=Usage)
    agent_latency_ms: int = 0
    agent_calls: int = 0
    generation_ids: list[str] = field(default_factory=list)

    def assistant_texts(self) -> list[str]:
        """Every non-empty text the agent said, the opening greeting included."""
        texts = []
        for message in self.transcript:
            content = message.get("content")
            if message.get("role") == "assistant" and isinstance(content, str) and content:
                texts.append(content)
        return texts


class ConversationLoop:
    """Drives one conversation. Build it, then `await run()` once."""

    def __init__(
        self,
        *,
        agent: ChatModel,
        customer: SimulatedCustomer,
        environment: AirlineEnvironment,
        system_prompt: str,
        temperature: float | None,
        sample_id: str,
        epoch: int,
        limits: Limits | None = None,
    ) -> None:
        self.agent = agent
        self.customer = customer
        self.environment = environment
        self.system_prompt = system_prompt
        self.temperature = temperature
        self.sample_id = sample_id
        self.epoch = epoch
        self.limits = limits or Limits()
        self._context: list[dict[str, JsonValue]] = []
        self._pending: list[ToolCall] = []
        self._last_agent_text = FIRST_AGENT_MESSAGE
        self._turn = 0

    async def run(self) -> Conversation:
        """Run until a termination reason is set; model failures propagate as `ModelError`."""
        conversation = Conversation(
            transcript=[{"role": "assistant", "content": FIRST_AGENT_MESSAGE}]
        )
        role: Role = "user"
        while conversation.termination is None:
            if role == "user":
                role = await self._customer_step(conversation)
            elif role == "agent":
                next_role = await self._agent_step(conversation)
                if next_role is None:
                    conversation.termination = "agent_empty_response"
                    break
                role = next_role
            else:
                role = self._environment_step(conversation)
            conversation.steps += 1
            if conversation.steps >= self.limits.max_steps:
                conversation.termination = "max_steps"
            if conversation.tool_errors >= self.limits.max_errors:
                conversation.termination = "too_many_errors"
        return conversation

    async def _customer_step(self, conversation: Conversation) -> Role:
        text = await self.customer.reply(self._last_agent_text)
        self._append(conversation, {"role": "user", "content": text})
        if customer_stop_token(text) is not None:
            conversation.termination = "user_stop"
        return "agent"

    async def _agent_step(self, conversation: Conversation) -> Role | None:
        result = await self._agent_turn(conversation)
        if result is None:
            return None
        calls = [
            replace(call, id=call.id or f"call_{self._turn}_{i}")
            for i, call in enumerate(result.tool_calls)
        ]
        message = replace(result, tool_calls=calls).assistant_message()
        self._context.append(message)
        conversation.transcript.append(
            {k: v for k, v in message.items() if k != "reasoning_details"}
        )
        if calls:
            self._pending = calls
            return "env"
        if STOP in result.content:
            conversation.termination = "agent_stop"
        self._last_agent_text = result.content
        return "user"

    async def _agent_turn(self, conversation: Conversation) -> ChatResult | None:
        """One agent answer with text or tool calls, retrying empty answers; None if all empty."""
        self._turn += 1
        for attempt in range(1 + self.limits.empty_response_retries):
            salt = f"turn-{self._turn}" if attempt == 0 else f"turn-{self._turn}-retry-{attempt}"
            request = ChatRequest(
                messages=[{"role": "system", "content": self.system_prompt}, *self._context],
                tools=TOOL_SCHEMAS,
                temperature=self.temperature,
            )
            call = CallContext(sample_id=self.sample_id, epoch=self.epoch, call_salt=salt)
            result = await self.agent.complete(request, call=call)
            conversation.agent_calls += 1
            conversation.agent_usage = conversation.agent_usage + result.usage
            conversation.agent_latency_ms += result.latency_ms
            if result.generation_id:
                conversation.generation_ids.append(result.generation_id)
            if result.tool_calls or result.content.strip():
                return result
        return None

    def _environment_step(self, conversation: Conversation) -> Role:
        for call in self._pending:
            parsed = parse_arguments(call.arguments)
            if isinstance(parsed, dict):
                outcome = self.environment.call(call.name, parsed)
                conversation.tool_calls.append(AgentToolCall(call.name, parsed))
            else:
                outcome = self.environment.execute(call.name, call.arguments)
                conversation.tool_calls.append(AgentToolCall(call.name, None))
            conversation.tool_errors += int(outcome.error)
            tool_message: dict[str, JsonValue] = {
                "role": "tool",
                "tool_call_id": call.id,
                "content": outcome.content,
            }
            self._append(conversation, tool_message)
        self._pending = []
        return "agent"

    def _append(self, conversation: Conversation, message: dict[str, JsonValue]) -> None:
        self._context.append(message)
        conversation.transcript.append(message)
