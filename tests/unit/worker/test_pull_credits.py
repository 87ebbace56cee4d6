"""How many messages the worker asks its pull consumer for."""

from __future__ import annotations

import pytest

from bench_runner.worker.pull_credits import EXPIRY_MARGIN_S, PullCredits


def credits(capacity: int = 64, chunk: int = 16, max_open: int = 2) -> PullCredits:
    return PullCredits(capacity=capacity, chunk=chunk, max_open=max_open, expires_s=30.0)


def test_first_plan_opens_max_open_chunks() -> None:
    c = credits()
    assert c.plan(0.0) == [16, 16]
    assert c.requested == 32
    assert c.plan(0.0) == []  # nothing new until something is delivered and settled


def test_a_filled_request_is_replaced_while_capacity_lasts() -> None:
    c = credits()
    c.plan(0.0)
    for _ in range(16):
        c.delivered()
    assert (c.in_flight, c.requested, c.open_requests) == (16, 16, 1)
    assert c.plan(1.0) == [16]
    for _ in range(32):
        c.delivered()
    assert c.plan(2.0) == [16]  # 48 in flight: the last free chunk
    for _ in range(16):
        c.delivered()
    assert c.plan(3.0) == []
    assert c.in_flight == 64


def test_never_asks_beyond_capacity() -> None:
    c = credits(capacity=40)
    assert c.plan(0.0) == [16, 16]
    for _ in range(32):
        c.delivered()
    assert c.plan(1.0) == [8]  # nothing open: the remainder, not a chunk
    for _ in range(8):
        c.delivered()
    assert c.plan(2.0) == []
    c.settled()
    assert c.plan(3.0) == [1]
    assert c.in_flight + c.requested == 40


def test_settling_one_item_does_not_cost_a_request_while_one_is_open() -> None:
    c = credits(capacity=64)
    c.plan(0.0)
    for _ in range(20):
        c.delivered()
    c.plan(0.0)
    c.settled()
    assert c.open_requests == 2
    assert c.plan(1.0) == []


def test_expired_request_is_replaced() -> None:
    c = credits()
    c.plan(0.0)
    c.expired()
    assert c.open_requests == 1
    assert c.plan(1.0) == [16]


def test_request_without_status_is_forgotten_after_its_expiry() -> None:
    c = credits()
    c.plan(0.0)
    assert c.plan(30.0 + EXPIRY_MARGIN_S - 0.1) == []
    assert c.plan(30.0 + EXPIRY_MARGIN_S + 0.1) == [16, 16]


def test_reset_forgets_open_requests() -> None:
    c = credits()
    c.plan(0.0)
    c.reset()
    assert c.requested == 0
    assert c.plan(0.0) == [16, 16]


def test_capacity_one() -> None:
    c = credits(capacity=1)
    assert c.plan(0.0) == [1]
    c.delivered()
    assert c.plan(0.0) == []
    c.settled()
    assert c.plan(0.0) == [1]


def test_settled_never_goes_negative() -> None:
    c = credits()
    c.settled()
    assert c.in_flight == 0


def test_refuses_zero_capacity() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        PullCredits(capacity=0, chunk=1, max_open=1, expires_s=1.0)
