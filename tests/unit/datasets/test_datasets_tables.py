"""Local dataset files: CSV, JSONL and Parquet, in file order."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench_runner.datasets import SUPPORTED_SUFFIXES, DatasetError, read_table

RECORDS = [
    {"Question": "Line one\nline two", "Answer": "$1 & {x}", "Other": "a,b"},
    {"Question": "  spaced  ", "Answer": "ü", "Other": ""},
]


def _write_csv(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def test_csv_keeps_quoted_line_breaks_and_spaces(tmp_path: Path) -> None:
    text = 'Question,Answer,Other\r\n"Line one\nline two",$1 & {x},"a,b"\r\n  spaced  ,ü,\r\n'
    rows = read_table(_write_csv(tmp_path / "d.csv", text))
    assert [r.index for r in rows] == [0, 1]
    assert [dict(r.values) for r in rows] == RECORDS


def test_csv_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    rows = read_table(_write_csv(tmp_path / "d.csv", "\ufeffQuestion\nq\n"))
    assert dict(rows[0].values) == {"Question": "q"}


def test_jsonl_skips_blank_lines_and_keeps_types(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(RECORDS[0]) + "\n\n" + json.dumps({"n": 3, "x": None}) + "\n")
    rows = read_table(path)
    assert [(r.index, dict(r.values)) for r in rows] == [(0, RECORDS[0]), (1, {"n": 3, "x": None})]


def test_parquet(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pylist(RECORDS), path)
    assert [dict(r.values) for r in read_table(path)] == RECORDS


def test_suffixes_are_case_insensitive(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "D.CSV", "a\n1\n")
    assert dict(read_table(path)[0].values) == {"a": "1"}
    assert SUPPORTED_SUFFIXES == (".csv", ".jsonl", ".ndjson", ".parquet", ".pq")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("d.xlsx", b"x", "unsupported dataset file type; use one of .csv, .jsonl"),
        ("d.json", b"[]", "unsupported dataset file type"),
        ("d.jsonl", b'{"a": 1}\n{oops\n', r"d.jsonl:2: invalid JSON"),
        ("d.jsonl", b"[1, 2]\n", r"d.jsonl:1: expected a JSON object, got list"),
        ("d.jsonl", b"\xff\xfe\x00", "not UTF-8 text"),
        ("d.csv", b"a\n\xff\n", "not UTF-8 text"),
        ("d.parquet", b"not parquet", "cannot read Parquet"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DatasetError, match=message):
        read_table(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        read_table(tmp_path / "nope.csv")
