"""The answer to any prompt when no script says otherwise: a deterministic multiple choice.

So a whole GPQA run can be driven by the fake server: each response streams `tokens` chunks
over `duration` seconds (filler, then `Answer: X`), with usage and cost in the last frame.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from bench_runner.fake_model.script import RecordedRequest, Reply

_OPTION = re.compile(r"^\s*\(?([A-J])[).:]\s", re.MULTILINE)
FILLER = "think "


def choose_letter(prompt: str) -> str:
    """A letter among the options the prompt lists (A-D when it lists none), fixed per prompt."""
    letters: list[str] = sorted(set(_OPTION.findall(prompt))) or ["A", "B", "C", "D"]
    return letters[zlib.crc32(prompt.encode()) % len(letters)]


@dataclass(frozen=True)
class MultipleChoiceResponder:
    """Streams `tokens` chunks over `duration` seconds and ends with `Answer: X`.

    Attributes:
        tokens: content chunks per response (at least 1: the answer line itself).
        duration: seconds from the first to the last chunk.
        provider: top-level `provider` of the chunks.
        cost: `usage.cost` of each response.
    """

    tokens: int = 16
    duration: float = 0.0
    provider: str = "FakeProvider"
    cost: float = 0.00012

    def __call__(self, request: RecordedRequest) -> Reply:
        """The reply to one request."""
        letter = choose_letter(request.last_user_text)
        chunks = [FILLER] * max(self.tokens - 1, 0) + [f"\n\nAnswer: {letter}"]
        return Reply(content=chunks, duration=self.duration, provider=self.provider, cost=self.cost)
