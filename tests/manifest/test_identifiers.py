"""Which columns look like identifiers, and the readings an identifier is scored by."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditor.manifest.featurepower import encode
from auditor.manifest.identifiers import identifier_kind, name_tokens, readings


def _kind(name: str, values: list[object]) -> str | None:
    column = pa.array(values)
    return identifier_kind(name, column, encode(column, name))


def test_name_tokens_split_every_case() -> None:
    assert name_tokens("customerID") == ["customer", "id"]
    assert name_tokens("file-path") == ["file", "path"]
    assert name_tokens("row_num") == ["row", "num"]


@pytest.mark.parametrize(
    ("name", "values", "why"),
    [
        ("image", [f"scans/a/{i}.png" for i in range(30)], "paths or file names"),
        ("image", [f"scan_{i:03d}.png" for i in range(30)], "paths or file names"),
        ("attachment", [f"report{i}.PDF" for i in range(30)], "paths or file names"),
        ("archive", [f"part{i}.7z" for i in range(30)], "paths or file names"),
        ("ref", [f"R{i:04d}x" for i in range(30)], "a high-cardinality code"),
        ("n", list(range(100, 130)), "a row number"),
        ("customer_id", [i % 3 for i in range(30)], "named like an identifier"),
    ],
)
def test_identifiers_are_recognised(name: str, values: list[object], why: str) -> None:
    found = _kind(name, values)
    assert found is not None and found.startswith(why)


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("number_of_calls", [i % 7 for i in range(30)]),
        ("price_index", list(np.linspace(90, 110, 30))),
        ("income", [int(v) for v in np.random.default_rng(0).integers(20_000, 90_000, 30)]),  # distinct, not rows
        ("plan", ["basic", "pro", "plus"] * 10),
        ("valid", [True, False] * 15),
        ("diagnosis", ["E11.9", "I10.0", "J45.2", "K21.9", "M54.5", "N39.0"] * 5),  # codes with a dot
        ("version", ["1.2", "1.10", "2.0"] * 10),
        ("weight", [f"{v:.1f}" if i % 7 else "?" for i, v in enumerate(np.linspace(50, 90, 30))]),
    ],
)
def test_features_that_look_a_little_like_identifiers_are_not(name: str, values: list[object]) -> None:
    assert _kind(name, values) is None


def test_an_identifier_is_read_by_its_digits_and_its_folder() -> None:
    column = pa.array([f"data/{'cat' if i % 2 else 'dog'}/img{i:03d}.jpg" for i in range(30)])
    found = dict(readings("path", column, encode(column, "path")))
    assert set(found) == {"value", "its digits", "its folder"}
    assert found["its digits"].kind == "numeric" and found["its folder"].n_levels == 2
