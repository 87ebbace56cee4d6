"""The inference client: OpenAI-compatible chat completions over SSE, with retries and records.

Build a client with `make_chat_model` on a session from `create_client_session`; records go
to an `AttemptSink` (`JsonlAttemptSink` in the CLI, `NullSink` when the log is off).
"""

from bench_runner.inference.client import ChatCompletionsModel, make_chat_model
from bench_runner.inference.errors import ModelError, RunAborted, is_retryable_status
from bench_runner.inference.recording import AttemptSink, JsonlAttemptSink, NullSink
from bench_runner.inference.retry import RetryNotice
from bench_runner.inference.session import create_client_session
from bench_runner.inference.types import (
    CallContext,
    ChatModel,
    ChatRequest,
    ChatResult,
    ToolCall,
)

__all__ = [
    "AttemptSink",
    "CallContext",
    "ChatCompletionsModel",
    "ChatModel",
    "ChatRequest",
    "ChatResult",
    "JsonlAttemptSink",
    "ModelError",
    "NullSink",
    "RetryNotice",
    "RunAborted",
    "ToolCall",
    "create_client_session",
    "is_retryable_status",
    "make_chat_model",
]
