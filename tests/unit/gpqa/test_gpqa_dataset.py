"""GPQA samples from local files and from the rows API (synthetic rows only)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench_runner.benchmarks.base import DatasetContext, Sample
from bench_runner.benchmarks.gpqa.benchmark import GpqaDiamond, GpqaOptions
from bench_runner.benchmarks.gpqa.dataset import GpqaPayload, row_to_sample, rows_to_samples
from bench_runner.benchmarks.gpqa.prompt import render_user_prompt
from bench_runner.benchmarks.gpqa.shuffle import correct_letter, seeded_permutation
from bench_runner.datasets import DatasetError, DatasetRow, HfRowsClient, RetryPolicy
from bench_runner.datasets.fake_rows_server import FakeRowsServer

SYNTHETIC = Path(__file__).resolve().parents[2] / "fixtures" / "gpqa"
ANSWERS = ["Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3"]


async def _load(path: Path | None, cache: Path | None = None, client: Any = None) -> list[Sample]:
    benchmark = GpqaDiamond(rows_client=client) if client else GpqaDiamond()
    context = DatasetContext(cache_dir=cache, dataset_file=path)
    return await benchmark.load_samples(context, GpqaOptions())


def _check_samples(samples: list[Sample], rows: list[dict[str, Any]]) -> None:
    assert [s.id for s in samples] == [f"gpqa_diamond-{i}" for i in range(len(rows))]
    for index, (sample, row) in enumerate(zip(samples, rows, strict=True)):
        permutation = seeded_permutation(index)
        assert sample.index == index
        assert sample.target == correct_letter(permutation)
        assert sample.metadata == {"subdomain": row["Subdomain"]}
        assert sample.payload == GpqaPayload(tuple(permutation))
        shown = [row[ANSWERS[i]] for i in permutation]
        assert sample.input == render_user_prompt(row["Question"], shown)
        # The correct answer's text sits on the target letter's line.
        assert f"\n{sample.target}) {row['Correct Answer']}" in sample.input


async def test_csv_jsonl_and_parquet_give_the_same_samples(
    synthetic_rows: list[dict[str, Any]], synthetic_parquet: Path
) -> None:
    from_csv = await _load(SYNTHETIC / "gpqa_synthetic.csv")
    from_jsonl = await _load(SYNTHETIC / "gpqa_synthetic.jsonl")
    from_parquet = await _load(synthetic_parquet)
    _check_samples(from_jsonl, synthetic_rows)
    assert from_csv == from_jsonl == from_parquet


async def test_special_characters_survive(synthetic_rows: list[dict[str, Any]]) -> None:
    samples = await _load(SYNTHETIC / "gpqa_synthetic.csv")
    prompt, row = samples[1].input, synthetic_rows[1]
    assert f"\n\n{row['Question']}\n\nA) " in prompt  # multi-line and untrimmed
    for column in ANSWERS:
        assert f") {row[column]}" in prompt  # "$&", "$1", "$$", "{}" stay literal
    assert prompt.count("'Answer: $LETTER'") == 1


async def test_row_order_is_file_order(
    tmp_path: Path, synthetic_rows: list[dict[str, Any]]
) -> None:
    path = tmp_path / "reversed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in reversed(synthetic_rows)))
    samples = await _load(path)
    _check_samples(samples, list(reversed(synthetic_rows)))


async def test_rows_api_through_the_cache(
    tmp_path: Path, synthetic_rows: list[dict[str, Any]]
) -> None:
    async with FakeRowsServer(synthetic_rows) as server:
        client = HfRowsClient(base_url=server.url, page_size=4)
        samples = await _load(None, cache=tmp_path, client=client)
        assert [r.query["offset"] for r in server.requests] == ["0", "4"]
    _check_samples(samples, synthetic_rows)
    # The server is gone: the second run reads the cache.
    client = HfRowsClient(base_url=server.url, retry=RetryPolicy(retries=0))
    assert await _load(None, cache=tmp_path, client=client) == samples


def test_recorded_page_maps_like_the_file(synthetic_rows: list[dict[str, Any]]) -> None:
    page = json.loads((SYNTHETIC / "rows_page_offset0.json").read_text())
    rows = [DatasetRow(item["row_idx"], item["row"]) for item in page["rows"]]
    assert page["num_rows_total"] == len(rows) == len(synthetic_rows)
    samples = rows_to_samples(rows, origin="page")
    _check_samples(samples, synthetic_rows)


def _row(**changes: object) -> DatasetRow:
    values: dict[str, object] = {
        "Question": "Q",
        "Correct Answer": "a",
        "Incorrect Answer 1": "b",
        "Incorrect Answer 2": "c",
        "Incorrect Answer 3": "d",
        "Subdomain": "S",
    }
    values.update(changes)
    return DatasetRow(7, {k: v for k, v in values.items() if v is not ...})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"Question": 3}, "row 7: column 'Question' must be text, got int 3"),
        (
            {"Incorrect Answer 2": None},
            "row 7: column 'Incorrect Answer 2' must be text, got NoneType",
        ),
        ({"Correct Answer": 1.5}, "row 7: column 'Correct Answer' must be text, got float"),
        ({"Incorrect Answer 3": ["x"]}, "column 'Incorrect Answer 3' must be text, got list"),
        ({"Incorrect Answer 1": ...}, "row 7: missing column 'Incorrect Answer 1'"),
        ({"Subdomain": ...}, "row 7: missing column 'Subdomain'"),
        ({"Subdomain": 4}, "row 7: column 'Subdomain' must be text, got int"),
    ],
)
def test_malformed_rows_name_the_row_and_column(changes: dict[str, object], message: str) -> None:
    with pytest.raises(DatasetError, match=message.replace("(", r"\(").replace(")", r"\)")):
        row_to_sample(_row(**changes), origin="file.jsonl")


def test_a_null_subdomain_is_kept_as_null() -> None:
    assert row_to_sample(_row(Subdomain=None)).metadata == {"subdomain": None}


def test_truncated_text_is_refused() -> None:
    row = DatasetRow(2, _row().values, truncated=("Question",))
    with pytest.raises(DatasetError, match="truncated column 'Question'"):
        row_to_sample(row)


def test_other_columns_are_ignored() -> None:
    sample = row_to_sample(_row(Explanation=12, **{"Canary String": None}))
    assert sample.id == "gpqa_diamond-7"


async def test_non_string_cell_in_parquet(
    tmp_path: Path, synthetic_rows: list[dict[str, Any]]
) -> None:
    rows = [dict(r) for r in synthetic_rows]
    for row in rows:
        row["Incorrect Answer 2"] = 42
    path = tmp_path / "numbers.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(
        DatasetError, match="row 0: column 'Incorrect Answer 2' must be text, got int"
    ):
        await _load(path)


async def test_short_csv_row(tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    header = (
        "Question,Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3,Subdomain"
    )
    path.write_text(f"{header}\nQ,a,b,c,d,S\nQ,a,b\n")
    with pytest.raises(
        DatasetError, match=r"short\.csv row 1: column 'Incorrect Answer 2' must be text"
    ):
        await _load(path)


async def test_missing_column_in_csv(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("Question,Correct Answer,Wrong 1,Wrong 2,Wrong 3,Subdomain\nQ,a,b,c,d,S\n")
    with pytest.raises(DatasetError, match="row 0: missing column 'Incorrect Answer 1'"):
        await _load(path)


async def test_bad_file_type(tmp_path: Path) -> None:
    path = tmp_path / "rows.xlsx"
    path.write_text("x")
    with pytest.raises(DatasetError, match=r"unsupported dataset file type; use one of \.csv"):
        await _load(path)


async def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    with pytest.raises(DatasetError, match="has no rows"):
        await _load(path)


@pytest.mark.parametrize(
    ("offset", "length", "recorded"),
    [
        (0, 100, "rows_page_offset0.json"),
        (0, 4, "rows_page_offset0_length4.json"),
        (4, 4, "rows_page_offset4_length4.json"),
    ],
)
async def test_the_fake_server_answers_like_the_recorded_pages(
    synthetic_rows: list[dict[str, Any]], offset: int, length: int, recorded: str
) -> None:
    page = json.loads((SYNTHETIC / recorded).read_text(encoding="utf-8"))
    async with (
        FakeRowsServer(synthetic_rows, features=page["features"]) as server,
        aiohttp.ClientSession() as session,
    ):
        query = {
            "dataset": "nmayorga7/gpqa_diamond",
            "config": "default",
            "split": "train",
            "offset": str(offset),
            "length": str(length),
        }
        async with session.get(server.url, params=query) as response:
            assert response.status == 200
            assert await response.json() == page
