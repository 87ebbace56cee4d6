"""End to end through the plugin: an oracle agent earns reward 1 on every task; a chatty one
earns 0 wherever the gold actions change the database."""

from __future__ import annotations

import hashlib
import json

import pytest

from bench_runner.benchmarks.base import DatasetContext, Sample
from bench_runner.benchmarks.tau_airline.benchmark import TauAirline
from bench_runner.benchmarks.tau_airline.data import AirlineBundle
from bench_runner.benchmarks.tau_airline.reward import replay_gold
from bench_runner.benchmarks.tau_airline.settings import TauAirlineOptions
from bench_runner.benchmarks.tau_airline.task_model import Task

from .conftest import loose
from .fakes import AGENT_USAGE, CUSTOMER_USAGE, chatty_agent, customer, make_context, oracle_agent

SOURCE_MD_CANONICAL_SHA256 = "a072e1ec3cde3bd0cbd5d1cee687b3ff3869b8d77c642e910c944f37ee2bf50e"


@pytest.fixture
async def samples() -> list[Sample]:
    return await TauAirline().load_samples(DatasetContext(cache_dir=None), TauAirlineOptions())


def task_of(sample: Sample) -> Task:
    assert isinstance(sample.payload, Task)
    return sample.payload


async def test_samples_follow_tasks_json(samples: list[Sample], bundle: AirlineBundle) -> None:
    assert len(samples) == 50
    assert [s.index for s in samples] == list(range(50))
    assert samples[7].id == "tau_bench_verified_airline-7"
    assert samples[7].target == "7"
    assert samples[7].metadata == {"task_id": "7"}
    assert samples[7].input == bundle.tasks[7].render_instructions()


async def test_oracle_scores_reward_one_on_all_fifty_tasks(
    samples: list[Sample], bundle: AirlineBundle
) -> None:
    benchmark = TauAirline()
    failures = []
    for sample in samples:
        ctx, _ = make_context(oracle_agent(task_of(sample)), customer())
        record = await benchmark.evaluate(sample, 0, ctx)
        if record.score != "C":
            failures.append((sample.id, record.explanation))
        assert record.answer == ("1" if record.score == "C" else record.answer)
    assert failures == []
    # fifty conversations later, the shared database is still the bundled one
    canonical = json.dumps(dict(bundle.database.tables), sort_keys=True).encode()
    assert hashlib.sha256(canonical).hexdigest() == SOURCE_MD_CANONICAL_SHA256


async def test_chatty_agent_scores_zero_where_gold_changes_the_database(
    samples: list[Sample], bundle: AirlineBundle
) -> None:
    benchmark = TauAirline()
    initial = bundle.database.state_hash()
    writing = 0
    for sample in samples:
        task = task_of(sample)
        ctx, _ = make_context(chatty_agent(), customer())
        record = await benchmark.evaluate(sample, 0, ctx)
        assert record.metadata["termination_reason"] == "user_stop"
        if replay_gold(task, bundle.database).state_hash() != initial:
            writing += 1
            assert record.score == "I", sample.id
            assert loose(record.metadata["reward_breakdown"])["DB"] == 0.0
        elif not task.communicate_info:
            assert record.score == "C", sample.id  # refusal tasks: saying no is right
    assert writing == 26  # the tasks whose gold actions include a successful write


async def test_record_is_small_and_carries_what_the_reports_need(samples: list[Sample]) -> None:
    sample = next(s for s in samples if task_of(s).id == "14")
    ctx, auxiliary = make_context(oracle_agent(task_of(sample)), customer())
    record = await TauAirline().evaluate(sample, 2, ctx)
    assert (record.sample_id, record.sample_index, record.epoch) == (sample.id, 14, 2)
    assert record.score == "C"
    assert record.answer == "1"
    assert record.target == "14"
    assert record.input == sample.input
    assert record.explanation is not None
    assert "db_match=True" in record.explanation
    assert "communicate_met=True" in record.explanation
    assert "termination=user_stop" in record.explanation
    metadata = record.metadata
    assert metadata["task_id"] == "14"
    assert metadata["termination_reason"] == "user_stop"
    assert metadata["reward"] == 1.0
    assert metadata["reward_breakdown"] == {"DB": 1.0, "COMMUNICATE": 1.0}
    assert metadata["db_mismatch"] is None
    actions = len(task_of(sample).gold_actions)
    assert metadata["step_count"] == 1 + 2 * actions + 2  # hello, (call, result) × n, closing, stop
    agent_calls = actions + 1
    assert record.usage.input_tokens == agent_calls * AGENT_USAGE.input_tokens
    simulator = loose(metadata["auxiliary_usage"])["simulator"]
    assert simulator["input_tokens"] == 2 * CUSTOMER_USAGE.input_tokens
    assert auxiliary.endpoints[0][0] == "simulator"
    assert auxiliary.endpoints[0][1].model == "openai-gpt-5.4-mini"
    assert auxiliary.endpoints[0][1].base_url == "https://inference.do-ai.run/v1"
    assert auxiliary.endpoints[0][1].api_key == "sk-sim"
    assert record.messages[0] == {"role": "assistant", "content": "Hi! How can I help you today?"}
    assert all(m["role"] != "system" for m in record.messages)
    assert len(json.dumps(record.metadata)) < 10_000
    assert "sk-sim" not in record.model_dump_json()


async def test_db_diff_lists_the_agents_changes(samples: list[Sample]) -> None:
    sample = next(
        s for s in samples if any(a.name == "book_reservation" for a in task_of(s).gold_actions)
    )
    ctx, _ = make_context(oracle_agent(task_of(sample)), customer())
    record = await TauAirline().evaluate(sample, 0, ctx)
    entries = loose(record.metadata["db_diff"])["entries"]
    assert any(e["key"] == "HATHAT" and e["path"] == "" for e in entries)
