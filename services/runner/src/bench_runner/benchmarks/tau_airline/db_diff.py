"""Small, readable database diffs for the record (never the whole database).

An entry names the table, the record key, a dotted path inside the record ("" for a whole
record that exists on one side only) and the two values. Lists of equal length are compared
item by item, other lists as a whole. Entries are capped so a row stays small.
"""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

from bench_runner.benchmarks.tau_airline.db import TABLES, AirlineDB

MAX_ENTRIES = 40
_ABSENT: Any = None


def changes_from_initial(db: AirlineDB, *, limit: int = MAX_ENTRIES) -> dict[str, JsonValue]:
    """What this evaluation changed: `{"entries": [{table, key, path, before, after}], ...}`."""
    entries: list[JsonValue] = []
    for table in TABLES:
        for key in db.changed_keys(table):
            before = db.base.tables[table].get(key, _ABSENT)
            _leaf_changes(entries, table, key, "", before, db.get(table, key), ("before", "after"))
    return _capped(entries, limit)


def mismatch(
    agent: AirlineDB, gold: AirlineDB, *, limit: int = MAX_ENTRIES
) -> dict[str, JsonValue]:
    """Where the agent's database differs from the gold one: `{table, key, path, gold, agent}`."""
    entries: list[JsonValue] = []
    for table in TABLES:
        keys = dict.fromkeys([*gold.changed_keys(table), *agent.changed_keys(table)])
        for key in keys:
            gold_record, agent_record = gold.get(table, key), agent.get(table, key)
            _leaf_changes(entries, table, key, "", gold_record, agent_record, ("gold", "agent"))
    return _capped(entries, limit)


def _leaf_changes(
    out: list[JsonValue],
    table: str,
    key: str,
    path: str,
    left: Any,
    right: Any,
    names: tuple[str, str],
) -> None:
    if type(left) is type(right) and left == right:
        return
    if isinstance(left, dict) and isinstance(right, dict):
        for field in dict.fromkeys([*left, *right]):
            child = f"{path}.{field}" if path else str(field)
            _leaf_changes(out, table, key, child, left.get(field), right.get(field), names)
        return
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            _leaf_changes(out, table, key, f"{path}.{index}" if path else str(index), a, b, names)
        return
    out.append({"table": table, "key": key, "path": path, names[0]: left, names[1]: right})


def _capped(entries: list[JsonValue], limit: int) -> dict[str, JsonValue]:
    return {"entries": entries[:limit], "total": len(entries), "truncated": len(entries) > limit}
