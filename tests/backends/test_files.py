from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.backends.engines import EngineSettings
from auditor.backends.files import MAYBE_NOT_NORMAL, FileManifest
from auditor.backends.load import load_for
from auditor.core.config import load_config
from auditor.manifest.keycodes import encode_column
from auditor.manifest.spelling import normalise
from auditor.manifest.table import SPLIT_COLUMN, load_manifest
from tests.examples import examples

# Characters each rule of the normal form looks at: number characters, hex digits, case, whitespace,
# punctuation and symbols, and non-ASCII forms (fullwidth digits, a ligature, a format character).
ALPHABET = "0123456789.e+-E abcdfxyzAZ\t_$,;'\u00a0\uff11\ufb01\u200b\u00e9\u0661#%()[]\"`?:!"

# Values written as numbers in every way the number rule rewrites (signs, zeros, points, exponents).
NUMBERS = st.from_regex(r"[+-]?0{0,2}[0-9]{0,3}(\.[0-9]{0,3}0?)?(e[+-]?[0-9]{1,2})?", fullmatch=True)


def flagged(values: list[str]) -> list[bool]:
    return pc.match_substring_regex(pa.array(values, pa.string()), MAYBE_NOT_NORMAL).to_pylist()


@settings(max_examples=examples(3000), deadline=None)
@given(st.lists(st.one_of(st.text(alphabet=ALPHABET, min_size=1, max_size=8), NUMBERS), min_size=1, max_size=50))
def test_every_value_the_normal_form_changes_is_read(values: list[str]) -> None:
    """The engines out of core read only the rows the pattern flags for spellings: a value whose normal form
    differs and is not flagged would be a spelling variant no engine but the in-memory one reports."""
    normal = normalise(pa.array(values, pa.string())).to_pylist()
    missed = [v for v, n, f in zip(values, normal, flagged(values), strict=True) if n != v and not f]
    assert missed == []


def test_numbers_written_differently_are_read_and_hex_digests_are_not() -> None:
    numbers = ["007", "0.5", "1.50", "10.", "1e3", "0", "+1", "-2", ".5"]
    assert flagged(numbers) == [True] * len(numbers)
    digests = ["0a9f3c", "3b0e10", "9fe0", "12ab0", "0abc.d"]
    assert flagged(digests) == [False] * len(digests)
    assert flagged(["12", "1.5", "abc", "w1"]) == [False] * 4


def test_a_symbol_at_an_end_is_part_of_a_value_and_not_read_but_a_quote_or_bracket_is() -> None:
    assert flagged(["a+", "c#", "5%", "$5", "a_", "x/y", "@u", "~a"]) == [False] * 8
    assert flagged(['"a', "a'", "(a)", "[a", "a}", "`a", "a.", "a,", "a;", "a:", "!a", "a?", "+1", "-0"]) == [True] * 14


def _manifest(tmp_path: Path, tables: list[pa.Table], config: dict[str, Any]) -> FileManifest:
    for i, table in enumerate(tables):
        pq.write_table(table, tmp_path / f"p{i}.parquet", row_group_size=7)
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump({"version": 1, **config}))
    manifest, used = load_for(load_config(tmp_path / "audit.yaml"), EngineSettings(engine="duckdb"))
    assert used == "duckdb" and isinstance(manifest, FileManifest)
    return manifest


def test_the_split_is_coded_a_row_group_at_a_time_as_encode_column_codes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Row groups with their own dictionaries (new values, blanks, nulls, a case variant): the same codes and
    values in the same order as encode_column of the whole column, without reading the whole column."""
    rng = np.random.default_rng(3)
    names = np.array(["train", "val", "test", " ", None, "Train"], dtype=object)
    tables = [
        pa.table(
            {
                "sample_id": [f"{i}-{j}" for j in range(40)],
                "split": pa.array(list(names[rng.integers(0, 6 if i else 3, 40)]), pa.string()),
                "writer": pa.array([f"w{j % 5}" for j in range(40)]).dictionary_encode(),
            }
        )
        for i in range(3)
    ]
    config = {"manifest": {"path": "p*.parquet", "id": "sample_id", "split": "split"}, "keys": {"groups": ["writer"]}}
    manifest = _manifest(tmp_path, tables, config)
    whole = pa.chunked_array(
        [pq.read_table(tmp_path / f"p{i}.parquet", read_dictionary=["split"])["split"] for i in range(3)]
    )
    codes, values = encode_column(pa.table({"c": whole.unify_dictionaries()})["c"])
    assert sorted(values.to_pylist()) == ["Train", "test", "train", "val"]  # blank and null rows: no split
    assert np.array_equal(manifest.split.codes, codes)
    assert manifest.split.parts[0][1].to_pylist() == values.to_pylist()
    expected_writer = encode_column(manifest.column("writer"))
    monkeypatch.setattr(manifest, "_read_column", lambda name: pytest.fail(f"{name} read whole"))
    writer_codes, writer_values = manifest._encode_dictionary("writer")
    assert np.array_equal(writer_codes, expected_writer[0])
    assert writer_values.to_pylist() == expected_writer[1].to_pylist()
    again_codes, _ = manifest._encode_dictionary(SPLIT_COLUMN)
    assert np.array_equal(again_codes, codes)
    manifest.close()


def test_string_view_columns_are_read_as_text_by_the_engines_out_of_core(tmp_path: Path) -> None:
    view = pa.string_view()
    table = pa.table(
        {
            "sid": pa.array([f"s{i}" for i in range(10)], view),
            "writer": pa.array([f"w{i % 3}" for i in range(10)], view),
            "split": pa.array(["train", "test"] * 5, view),
        }
    )
    config = {"manifest": {"path": "p0.parquet", "split": "split", "id": "sid"}, "keys": {"groups": ["writer"]}}
    manifest = _manifest(tmp_path, [table], config)
    try:
        assert manifest.column_type("sid") == pa.large_string()
        assert manifest.ids([9, 0]) == ["s9", "s0"]
        assert manifest.take("writer", [4, 1]).to_pylist() == ["w1", "w1"]
        assert manifest.rows_per_split() == {"train": 5, "test": 5}
    finally:
        manifest.close()


def test_a_split_given_by_paths_is_coded_from_the_files_alone(tmp_path: Path) -> None:
    tables = [
        pa.table({"sample_id": pa.array([f"{i}-{j}" for j in range(n)], pa.string())})
        for i, n in enumerate([9, 4, 0, 3])
    ]
    paths = {"train": "p0.parquet", "test": "p1.parquet", "val": "p2.parquet", "extra": "p3.parquet"}
    manifest = _manifest(tmp_path, tables, {"manifest": {"paths": paths, "id": "sample_id"}})
    assert sorted(manifest.split_names) == ["extra", "test", "train"]  # a file of no rows names no split
    in_memory = load_manifest(load_config(tmp_path / "audit.yaml"))
    assert manifest.split.labels(manifest.split.codes) == in_memory.split.labels(in_memory.split.codes)
    assert sorted(manifest.split.labels(manifest.split.codes)) == ["extra"] * 3 + ["test"] * 4 + ["train"] * 9
    manifest.close()
