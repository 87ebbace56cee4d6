"""The airline database: one parsed copy per process, a cheap copy-on-write view per evaluation.

A deep copy of the 7 MB database per evaluation costs about as much as a whole conversation's
tool calls, so an evaluation gets an `AirlineDB` that reads the shared records and copies a
record (one flight, user or reservation) only when a tool first writes to it. Records of the
shared `BaseDatabase` are never mutated.

The state hash is canonical: every record is hashed as sorted-key JSON (Python's default
separators), and the records of a table, in key order, are hashed together with their keys.
Two databases have equal hashes iff they have the same keys and each record's sorted-key JSON
is equal, so hashing the gold database and the agent's with this one function decides the DB
reward. Digests of the shared records are computed once, so hashing an evaluation's view costs
only its changed records and one pass over the table digests.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

Record = dict[str, Any]
TABLES = ("flights", "users", "reservations")


def record_digest(record: Record) -> bytes:
    """sha256 of the record's sorted-key JSON."""
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode("utf-8")).digest()


def _table_digest(keys: list[str], digest_of: Mapping[str, bytes]) -> bytes:
    hasher = hashlib.sha256()
    for key in keys:
        hasher.update(key.encode("utf-8"))
        hasher.update(b"\x00")
        hasher.update(digest_of[key])
    return hasher.digest()


def _combine(table_digests: Mapping[str, bytes]) -> str:
    hasher = hashlib.sha256()
    for table in TABLES:
        hasher.update(table.encode("ascii") + b"\x00" + table_digests[table])
    return hasher.hexdigest()


class _TableIndex:
    """Digests of one shared table: per record, the sorted keys, and the table as a whole."""

    def __init__(self, records: Mapping[str, Record]) -> None:
        self.digests = {key: record_digest(record) for key, record in records.items()}
        self.sorted_keys = sorted(records)
        self.digest = _table_digest(self.sorted_keys, self.digests)


class BaseDatabase:
    """The initial database, parsed once per process. Treat every record as read-only."""

    def __init__(self, tables: Mapping[str, dict[str, Record]]) -> None:
        self.tables = tables
        self._index: dict[str, _TableIndex] | None = None

    @classmethod
    def from_json(cls, raw: Any) -> BaseDatabase:
        """Wrap the parsed `db.json` (`{flights, users, reservations}`, each keyed by id).

        Raises:
            ValueError: a table is missing or not an object.
        """
        if not isinstance(raw, dict) or any(not isinstance(raw.get(t), dict) for t in TABLES):
            raise ValueError(f"the airline database must be an object with tables {TABLES}")
        return cls({table: raw[table] for table in TABLES})

    def index(self, table: str) -> _TableIndex:
        """Digests of a shared table (computed on first use, about 0.1 s for all three)."""
        if self._index is None:
            self._index = {t: _TableIndex(self.tables[t]) for t in TABLES}
        return self._index[table]

    def state_hash(self) -> str:
        """The canonical hash of the initial state."""
        return _combine({t: self.index(t).digest for t in TABLES})

    def fresh(self) -> AirlineDB:
        """A new evaluation's view of the initial state."""
        return AirlineDB(self)


class AirlineDB:
    """One evaluation's database: shared records plus the records this evaluation changed."""

    def __init__(self, base: BaseDatabase) -> None:
        self.base = base
        self._changed: dict[str, dict[str, Record]] = {t: {} for t in TABLES}

    def get(self, table: str, key: str) -> Record | None:
        """The current record, or None. Do not mutate it: use `writable`."""
        changed = self._changed[table].get(key)
        return changed if changed is not None else self.base.tables[table].get(key)

    def has(self, table: str, key: str) -> bool:
        """Whether a record with this key exists."""
        return key in self._changed[table] or key in self.base.tables[table]

    def writable(self, table: str, key: str) -> Record:
        """The record, copied out of the shared database on first write.

        Raises:
            KeyError: no such record.
        """
        changed = self._changed[table]
        record = changed.get(key)
        if record is None:
            record = copy.deepcopy(self.base.tables[table][key])
            changed[key] = record
        return record

    def insert(self, table: str, key: str, record: Record) -> None:
        """Add a new record (or replace one)."""
        self._changed[table][key] = record

    def values(self, table: str) -> Iterator[Record]:
        """Current records in the order of the shared table, then new ones in insertion order."""
        changed = self._changed[table]
        shared = self.base.tables[table]
        for key, record in shared.items():
            yield changed.get(key, record)
        for key, record in changed.items():
            if key not in shared:
                yield record

    def changed_keys(self, table: str) -> list[str]:
        """Keys of records written or added by this evaluation, in write order."""
        return list(self._changed[table])

    def state_hash(self) -> str:
        """The canonical hash of the current state (see the module docstring)."""
        return _combine({t: self._table_digest(t) for t in TABLES})

    def materialize(self) -> dict[str, dict[str, Record]]:
        """The whole current state as plain dicts (shares unchanged records; for tests/tools)."""
        return {t: dict(self._items(t)) for t in TABLES}

    def _items(self, table: str) -> Iterator[tuple[str, Record]]:
        changed = self._changed[table]
        shared = self.base.tables[table]
        for key, record in shared.items():
            yield key, changed.get(key, record)
        for key, record in changed.items():
            if key not in shared:
                yield key, record

    def _table_digest(self, table: str) -> bytes:
        index = self.base.index(table)
        changed = self._changed[table]
        if not changed:
            return index.digest
        digests = dict(index.digests)
        digests.update({key: record_digest(record) for key, record in changed.items()})
        new_keys = [key for key in changed if key not in index.digests]
        keys = sorted(index.sorted_keys + new_keys) if new_keys else index.sorted_keys
        return _table_digest(keys, digests)
