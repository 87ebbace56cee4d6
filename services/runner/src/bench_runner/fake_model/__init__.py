"""A fake OpenAI-compatible model server (real HTTP and SSE on loopback) for tests and benchmarks.

`FakeModelServer` runs in-process with scripted `Reply`s and faults; `FakeModelProcess` runs
the default responder in a child process; `python -m bench_runner.fake_model` serves it from
the command line.
"""

from bench_runner.fake_model.default_responder import MultipleChoiceResponder, choose_letter
from bench_runner.fake_model.process import FakeModelProcess
from bench_runner.fake_model.script import (
    Drop,
    ErrorBody,
    Fault,
    HttpError,
    MidStreamError,
    NonJsonBody,
    RecordedRequest,
    Reply,
    Responder,
    Stall,
    ToolCallReply,
)
from bench_runner.fake_model.server import FakeModelServer

__all__ = [
    "Drop",
    "ErrorBody",
    "FakeModelProcess",
    "FakeModelServer",
    "Fault",
    "HttpError",
    "MidStreamError",
    "MultipleChoiceResponder",
    "NonJsonBody",
    "RecordedRequest",
    "Reply",
    "Responder",
    "Stall",
    "ToolCallReply",
    "choose_letter",
]
