"""Copy-on-write views and the canonical state hash."""

from __future__ import annotations

import hashlib
import json

from bench_runner.benchmarks.tau_airline import db_diff
from bench_runner.benchmarks.tau_airline.data import AirlineBundle
from bench_runner.benchmarks.tau_airline.db import BaseDatabase

from .conftest import loose, stored
from .mini_db import mini_tables


def full_json_sha256(tables: object) -> str:
    return hashlib.sha256(json.dumps(tables, sort_keys=True).encode()).hexdigest()


def test_a_fresh_view_hashes_like_the_base(mini: BaseDatabase) -> None:
    assert mini.fresh().state_hash() == mini.state_hash()


def test_writes_are_private_to_the_view(mini: BaseDatabase) -> None:
    first, second = mini.fresh(), mini.fresh()
    first.writable("users", "bob_reg_2")["membership"] = "gold"
    assert stored(first, "users", "bob_reg_2")["membership"] == "gold"
    assert stored(second, "users", "bob_reg_2")["membership"] == "regular"
    assert mini.tables["users"]["bob_reg_2"]["membership"] == "regular"
    assert first.changed_keys("users") == ["bob_reg_2"]
    assert first.state_hash() != second.state_hash() == mini.state_hash()


def test_one_extra_write_changes_the_hash_and_undoing_it_restores_it(mini: BaseDatabase) -> None:
    view = mini.fresh()
    seats = view.writable("flights", "HAT100")["dates"]["2024-05-20"]["available_seats"]
    seats["economy"] -= 1
    assert view.state_hash() != mini.state_hash()
    seats["economy"] += 1
    assert view.state_hash() == mini.state_hash()


def test_the_hash_ignores_key_order_but_not_values(mini: BaseDatabase) -> None:
    view = mini.fresh()
    user = view.writable("users", "ann_gold_1")
    view.insert("users", "ann_gold_1", dict(reversed(list(user.items()))))
    assert view.state_hash() == mini.state_hash()
    view.writable("users", "ann_gold_1")["payment_methods"]["gift_card_1"]["amount"] = 500  # int
    assert view.state_hash() != mini.state_hash()


def test_the_hash_agrees_with_hashing_the_whole_sorted_json(mini: BaseDatabase) -> None:
    left, right = mini.fresh(), mini.fresh()
    left.insert("reservations", "HATHAT", {"reservation_id": "HATHAT", "n": 1})
    right.insert("reservations", "HATHAT", {"n": 1, "reservation_id": "HATHAT"})
    assert left.state_hash() == right.state_hash()
    assert full_json_sha256(left.materialize()) == full_json_sha256(right.materialize())
    right.writable("reservations", "HATHAT")["n"] = 2
    assert left.state_hash() != right.state_hash()
    assert full_json_sha256(left.materialize()) != full_json_sha256(right.materialize())


def test_values_keep_table_order_then_new_records(mini: BaseDatabase) -> None:
    view = mini.fresh()
    view.insert("reservations", "HATHAT", {"reservation_id": "HATHAT"})
    view.writable("reservations", "RES001")["cabin"] = "business"
    ids = [r["reservation_id"] for r in view.values("reservations")]
    assert ids == ["RES001", "RES002", "HATHAT"]
    assert next(iter(view.values("reservations")))["cabin"] == "business"


def test_the_bundled_database_matches_source_md_canonical_hash(bundle: AirlineBundle) -> None:
    # SOURCE.md: sha256(json.dumps(db, sort_keys=True)) of the initial database.
    expected = "a072e1ec3cde3bd0cbd5d1cee687b3ff3869b8d77c642e910c944f37ee2bf50e"
    assert full_json_sha256(dict(bundle.database.tables)) == expected
    assert full_json_sha256(bundle.database.fresh().materialize()) == expected


def test_changes_from_initial_are_small_leaf_diffs(mini: BaseDatabase) -> None:
    view = mini.fresh()
    view.writable("flights", "HAT100")["dates"]["2024-05-20"]["available_seats"]["economy"] = 1
    view.insert("reservations", "HATHAT", {"reservation_id": "HATHAT"})
    diff = db_diff.changes_from_initial(view)
    assert diff["entries"] == [
        {
            "table": "flights",
            "key": "HAT100",
            "path": "dates.2024-05-20.available_seats.economy",
            "before": 3,
            "after": 1,
        },
        {
            "table": "reservations",
            "key": "HATHAT",
            "path": "",
            "before": None,
            "after": {"reservation_id": "HATHAT"},
        },
    ]
    assert diff["total"] == 2
    assert diff["truncated"] is False


def test_mismatch_names_gold_and_agent_values(mini: BaseDatabase) -> None:
    gold, agent = mini.fresh(), mini.fresh()
    gold.writable("reservations", "RES001")["status"] = "cancelled"
    agent.writable("users", "ann_gold_1")["membership"] = "silver"
    entries = db_diff.mismatch(agent, gold)["entries"]
    assert entries == [
        {
            "table": "users",
            "key": "ann_gold_1",
            "path": "membership",
            "gold": "gold",
            "agent": "silver",
        },
        {
            "table": "reservations",
            "key": "RES001",
            "path": "status",
            "gold": "cancelled",
            "agent": None,
        },
    ]


def test_diffs_are_capped(mini: BaseDatabase) -> None:
    view = BaseDatabase.from_json(mini_tables()).fresh()
    for n in range(60):
        view.insert("reservations", f"NEW{n:03d}", {"n": n})
    diff = db_diff.changes_from_initial(view, limit=5)
    assert len(loose(diff["entries"])) == 5
    assert diff["total"] == 60
    assert diff["truncated"] is True
