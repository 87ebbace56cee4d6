"""One run's GPQA report, folded one evaluation at a time and rendered as the bytes the api
serves: exactly `json.dumps(gpqa_report(records), ensure_ascii=False).encode()`.

Encoding the items is most of the cost of a large report (10,000 items are about 47 MB of
JSON), so each item is encoded once, when its evaluation arrives, and rendering only joins
bytes. Two things in an item are not the evaluation's own:

- the question, the choices and the correct answer's text (`PARSED_KEYS`) come from the parsed
  prompt of the question's *first* evaluation in report order, which a later evaluation can
  change; they are left as holes in the encoded item and filled in at rendering;
- the prompt is the same for every epoch of a question, so its encoding is shared.

Prompts, their parses and the encodings of both are cached per prompt text, so a run holds
one copy of each question's prompt however many epochs it has.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from bench_api.json_text import dumps, member_start, value_json
from bench_common.evaluation import EvaluationRecord
from bench_common.reports.gpqa import gpqa_entry, gpqa_parts
from bench_common.reports.gpqa_analytics import Observation
from bench_common.reports.gpqa_items import PARSED_KEYS, ParsedPrompt, parse_prompt, parsed_values

Piece = bytes | int
"""Encoded JSON, or the index of a `PARSED_KEYS` value to fill in."""
_HOLES = {"prompt": -1, **{key: index for index, key in enumerate(PARSED_KEYS)}}
"""Item keys whose values are not encoded with the item: the shared prompt (-1) and the
`PARSED_KEYS` (their index)."""


class _Item(NamedTuple):
    order: tuple[int, str, int]
    prompt: str
    """The text the question's parse comes from (`input`, or "" without one)."""
    target: str | None
    pieces: tuple[Piece, ...]
    observation: Observation


class GpqaFold:
    """Evaluations folded so far (the first per sample and epoch), ready to render."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, int], _Item] = {}
        self._prompts: dict[str, str] = {}
        self._parses: dict[str, ParsedPrompt] = {}
        self._prompt_json: dict[str, bytes] = {}
        self._parsed_json: dict[tuple[str, str | None], tuple[bytes, ...]] = {}

    @property
    def evaluations(self) -> int:
        """Evaluations folded (after de-duplication)."""
        return len(self._items)

    def add(self, records: Iterable[EvaluationRecord]) -> None:
        """Fold evaluations in stream order; a repeated (sample, epoch) is ignored."""
        for record in records:
            key = (record.sample_id, record.epoch)
            if key not in self._items:
                self._items[key] = self._item(record)

    def render(self) -> bytes:
        """The report as served (the caller checks there is at least one evaluation)."""
        ordered = sorted(self._items.values(), key=lambda i: i.order)
        chosen: dict[str, str] = {}  # sample id -> the prompt its items show
        for item in ordered:
            chosen.setdefault(item.order[1], item.prompt)
        head, analytics = gpqa_parts(
            [i.observation for i in ordered],
            {sample: self._parse(prompt).question for sample, prompt in chosen.items()},
        )
        out: list[bytes] = [dumps(head)[:-1], b', "items": [']
        for index, item in enumerate(ordered):
            if index:
                out.append(b", ")
            values = self._values(chosen[item.order[1]], item.target)
            out += [p if isinstance(p, bytes) else values[p] for p in item.pieces]
        out += [b'], "analytics": ', dumps(analytics), b"}"]
        return b"".join(out)

    def _item(self, record: EvaluationRecord) -> _Item:
        prompt = self._prompts.setdefault(record.input or "", record.input or "")
        entry = gpqa_entry(record, self._parse(prompt))
        target = entry.item["correctAnswer"]
        order = (record.sample_index, record.sample_id, record.epoch)
        return _Item(order, prompt, target, self._pieces(entry.item), entry.observation)

    def _parse(self, prompt: str) -> ParsedPrompt:
        parsed = self._parses.get(prompt)
        if parsed is None:
            parsed = self._parses[prompt] = parse_prompt(prompt)
        return parsed

    def _values(self, prompt: str, target: str | None) -> tuple[bytes, ...]:
        """The encoded `PARSED_KEYS` values of items showing `prompt`'s parse."""
        found = self._parsed_json.get((prompt, target))
        if found is None:
            values = parsed_values(self._parse(prompt), target)
            found = tuple(value_json(v) for v in values)
            self._parsed_json[(prompt, target)] = found
        return found

    def _pieces(self, item: dict[str, Any]) -> tuple[Piece, ...]:
        """The item's JSON (as `json.dumps` writes a dict) with holes for `PARSED_KEYS`."""
        pieces: list[Piece] = []
        text: list[bytes] = [b"{"]
        for (start, hole), value in zip(_layout(tuple(item)), item.values(), strict=True):
            text.append(start)
            if hole is None:
                text.append(value_json(value))
                continue
            pieces += [b"".join(text), self._encoded_prompt(value) if hole < 0 else hole]
            text = []
        text.append(b"}")
        pieces.append(b"".join(text))
        return tuple(pieces)

    def _encoded_prompt(self, prompt: str | None) -> bytes:
        if prompt is None:
            return b"null"
        found = self._prompt_json.get(prompt)
        if found is None:
            found = self._prompt_json[prompt] = value_json(prompt)
        return found


_layouts: dict[tuple[str, ...], tuple[tuple[bytes, int | None], ...]] = {}


def _layout(keys: tuple[str, ...]) -> tuple[tuple[bytes, int | None], ...]:
    """Per key of an item: what precedes its value, and its hole (`_HOLES`) or None. Items
    all have the same keys, so this is worked out once."""
    found = _layouts.get(keys)
    if found is None:
        found = _layouts[keys] = tuple(
            (member_start(key, first=not position), _HOLES.get(key))
            for position, key in enumerate(keys)
        )
    return found
