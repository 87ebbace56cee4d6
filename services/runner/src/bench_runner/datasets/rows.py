"""The row type every dataset loader returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class DatasetRow:
    """One record of a dataset.

    Attributes:
        index: the absolute 0-based row index (the datasets-server `row_idx`, or the position
            of the record in a local file).
        values: column name to value, as decoded (JSON types, or Arrow's Python values).
        truncated: columns the server cut short (datasets-server `truncated_cells`).
    """

    index: int
    values: Mapping[str, object]
    truncated: tuple[str, ...] = field(default=())
