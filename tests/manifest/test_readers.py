"""Manifest formats and every bad-input case the loader must explain (file, line/column, expectation)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditor.core.config import config_from_mapping
from auditor.core.errors import ManifestError
from auditor.manifest.table import check_columns, load_manifest
from tests.conftest import write_config, write_table

ROWS = {
    "sid": ["a1", "a2", "b1", "c1"],
    "split": ["train", "train", "test", "test"],
    "writer": ["w1", "w1", "w2", "w1"],
}


def load(tmp_path: Path, manifest: dict, **sections):  # type: ignore[no-untyped-def]
    return load_manifest(config_from_mapping({"manifest": manifest, **sections}, base_dir=tmp_path))


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl"])
def test_each_format_loads_only_named_columns(tmp_path: Path, fmt: str) -> None:
    data = {**ROWS, "unused": [1, 2, 3, 4]}
    write_table(tmp_path / f"m.{fmt}", data)
    m = load(tmp_path, {"path": f"m.{fmt}", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert m.n_rows == 4
    assert "unused" not in m.table.column_names
    assert m.rows_per_split() == {"train": 2, "test": 2}
    assert m.key("writer").labels(m.key("writer").codes) == ROWS["writer"]


def test_gzipped_csv(tmp_path: Path) -> None:
    text = "sid,split\na,train\nb,test\n"
    with gzip.open(tmp_path / "m.csv.gz", "wt") as fh:
        fh.write(text)
    assert load(tmp_path, {"path": "m.csv.gz", "split": "split"}).n_rows == 2


def test_directory_and_glob_of_parquet_shards(tmp_path: Path) -> None:
    write_table(tmp_path / "shards" / "part-0.parquet", {"sid": ["a", "b"], "split": ["train", "test"]})
    write_table(tmp_path / "shards" / "part-1.parquet", {"sid": ["c"], "split": ["test"]})
    (tmp_path / "shards" / "_SUCCESS").write_text("")
    assert load(tmp_path, {"path": "shards", "split": "split"}).n_rows == 3
    m = load(tmp_path, {"path": "shards/part-*.parquet", "split": "split", "id": "sid"})
    assert m.n_rows == 3 and len(m.files) == 2
    assert m.ids([0, 2]) == ["a", "c"]


def test_one_file_per_split(tmp_path: Path) -> None:
    write_table(tmp_path / "train.csv", {"sid": ["a", "b"], "writer": ["w1", "w2"]})
    write_table(tmp_path / "test.csv", {"sid": ["c"], "writer": ["w1"]})
    m = load(
        tmp_path,
        {"paths": {"train": "train.csv", "test": "test.csv"}, "id": "sid"},
        keys={"groups": ["writer"]},
    )
    assert m.rows_per_split() == {"train": 2, "test": 1}
    assert m.split.labels(m.split.codes) == ["train", "train", "test"]


def test_csv_ids_keep_leading_zeros(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid,split\n007,train\n7,test\n")
    m = load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"})
    assert m.ids([0, 1]) == ["007", "7"]
    assert len(m.repeated_ids()[0]) == 0


def test_blank_and_null_split_values_are_data_not_errors(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid,split\na,train\nb,\nc,  \nd,test\n")
    m = load(tmp_path, {"path": "m.csv", "split": "split"})
    assert list(m.split.codes < 0) == [False, True, True, False]


def test_missing_manifest_shows_resolved_path_config_dir_and_cwd(tmp_path: Path) -> None:
    with pytest.raises(ManifestError) as info:
        load(tmp_path, {"path": "data/missing.csv", "split": "split"})
    msg = str(info.value)
    assert str(tmp_path / "data" / "missing.csv") in msg and "working directory" in msg
    assert "relative to the config's directory" in msg


def test_glob_matching_nothing(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="matches no files"):
        load(tmp_path, {"path": "shards/*.parquet", "split": "split"})


def test_missing_column_lists_available_and_suggests(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", ROWS)
    with pytest.raises(ManifestError) as info:
        load(tmp_path, {"path": "m.csv", "split": "split"}, keys={"groups": ["writr"]})
    msg = str(info.value)
    assert "no column 'writr' (did you mean 'writer'?)" in msg
    assert "available columns: sid, split, writer" in msg
    assert "keys.groups" not in msg or "named at" in msg


def test_missing_column_found_by_validate_without_reading_rows(tmp_path: Path) -> None:
    write_table(tmp_path / "m.parquet", ROWS)
    loaded = config_from_mapping({"manifest": {"path": "m.parquet", "split": "split", "id": "id"}}, tmp_path)
    with pytest.raises(ManifestError, match="no column 'id'"):
        check_columns(loaded)


def test_empty_csv_file(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("")
    with pytest.raises(ManifestError, match="the file is empty"):
        load(tmp_path, {"path": "m.csv", "split": "split"})


HEADER = "sid,writer,split\n1,w1,train\n2,w2,test\n"


@pytest.mark.parametrize(
    ("content", "name", "expected"),
    [
        (
            b"\n \r\n" + HEADER.encode(),
            "m.csv",
            r"m\.csv:1: blank line before the header \(2 blank line\(s\), then the header on line 3\)",
        ),
        (b"\n\n  \n", "m.csv", r"m\.csv: the file is empty"),
        (
            HEADER.replace("\n", "\r").encode(),
            "m.csv",
            r"m\.csv:1:17: the file ends its lines with a carriage return alone",
        ),
        (HEADER.encode("utf-16-le"), "m.csv", r"m\.csv:1:2: the header holds NUL bytes; the file looks like UTF-16"),
        (HEADER.encode("utf-16"), "m.csv", r"m\.csv:1:1: the file starts with a UTF-16 byte order mark"),
        (
            b'{"sid": 1, "writer": "a", "split": "train"}\n\n'
            b'{"sid": 2, "writer": "a", "writer": "b", "split": "test"}\n',
            "m.jsonl",
            r"m\.jsonl:3: key 'writer' occurs twice in one object",
        ),
    ],
)
def test_unreadable_text_is_named_with_its_line(tmp_path: Path, content: bytes, name: str, expected: str) -> None:
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ManifestError, match=expected):
        load(tmp_path, {"path": name, "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


def _parquet_bytes(tmp_path: Path) -> bytes:
    pq.write_table(pa.table({"sid": [1, 2], "writer": ["w1", "w2"], "split": ["train", "test"]}), tmp_path / "p")
    return (tmp_path / "p").read_bytes()


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (_parquet_bytes, r"m\.csv:1:1: the file is Parquet \(it starts with PAR1\), not text: name it \.parquet"),
        (lambda _: gzip.compress(HEADER.encode()), r"m\.csv:1:1: the file is gzip-compressed: name it with \.gz"),
    ],
)
def test_a_file_of_another_format_named_csv_is_named_for_what_it_is(tmp_path: Path, make, expected: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "m.csv").write_bytes(make(tmp_path))
    with pytest.raises(ManifestError, match=expected):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    renamed = "m.parquet" if "Parquet" in expected else "m.csv.gz"  # named as the message says, it is read
    (tmp_path / "m.csv").rename(tmp_path / renamed)
    assert load(tmp_path, {"path": renamed, "split": "split", "id": "sid"}).rows_per_split() == {"train": 1, "test": 1}


def test_a_nul_byte_in_a_csv_value_is_refused_at_its_line_and_column(tmp_path: Path) -> None:
    """'w\\x001' would be an invisible second spelling of 'w1'; a text manifest holds no NUL unless damaged."""
    (tmp_path / "m.csv").write_bytes(b"sid,writer,split\n1,w\x001,train\n2,w1,test\n")
    with pytest.raises(ManifestError, match=r"m\.csv:2:4: a NUL byte \(\\x00\) in a value"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    (tmp_path / "m.csv").write_bytes(b"sid,writer,split\n1,w1,train\n2,w1,te\x00st\n")  # the split: a dictionary
    with pytest.raises(ManifestError, match=r"m\.csv:3:8: a NUL byte"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"})


def test_a_carriage_return_inside_a_quoted_header_name_is_part_of_it(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_bytes(b'"a\rb",split\r\n1,train\r\n')
    assert load(tmp_path, {"path": "m.csv", "split": "split"}, keys={"groups": ["a\rb"]}).n_rows == 1


def test_header_only_csv_has_no_rows(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid,split\n")
    with pytest.raises(ManifestError, match="no rows"):
        load(tmp_path, {"path": "m.csv", "split": "split"})


def test_zero_row_parquet(tmp_path: Path) -> None:
    pq.write_table(pa.table({"split": pa.array([], pa.string())}), tmp_path / "m.parquet")
    with pytest.raises(ManifestError, match=r"m\.parquet: the manifest has no rows"):
        load(tmp_path, {"path": "m.parquet", "split": "split"})


def test_csv_with_duplicate_column_names(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid,split,writer,split\na,train,w,test\n")
    with pytest.raises(ManifestError, match=r"m\.csv:1: duplicate column name 'split' \(columns 2 and 4\)"):
        load(tmp_path, {"path": "m.csv", "split": "split"})


def test_non_utf8_csv_names_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_bytes("sid,split,writer\na,train,w1\nb,test,Jos\xe9\n".encode("latin-1"))
    with pytest.raises(ManifestError, match=r"m\.csv:3:11: not UTF-8"):
        load(tmp_path, {"path": "m.csv", "split": "split"}, keys={"groups": ["writer"]})


def test_ragged_csv_row_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid,split\na,train\nb,test,extra\n")
    with pytest.raises(ManifestError, match=r"m\.csv:3: expected 2 fields like the header, found 3"):
        load(tmp_path, {"path": "m.csv", "split": "split"})


def test_repeated_header_line_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid,split\na,train\nsid,split\nb,test\n")
    with pytest.raises(ManifestError, match=r"m\.csv:3: this line repeats the header"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"})


def test_mixed_type_ids_in_jsonl_name_both_lines(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_text('{"sid": 1, "split": "train"}\n{"sid": "b2", "split": "test"}\n')
    with pytest.raises(ManifestError) as info:
        load(tmp_path, {"path": "m.jsonl", "split": "split", "id": "sid"})
    msg = str(info.value)
    assert "m.jsonl:2" in msg and "'sid'" in msg and "line 1" in msg


def test_jsonl_integers_a_double_cannot_hold_stay_distinct(tmp_path: Path) -> None:
    """Integers beyond int64, or beside a float, are read by Arrow as doubles, which would merge neighbours:
    such a column is read as the numbers' text, as a CSV's is."""
    lines = [
        '{"sid": 12345678901234567890, "writer": 9007199254740993, "split": "train"}',
        '{"sid": 12345678901234567891, "writer": 9007199254740992, "split": "test"}',
        '{"sid": 3, "writer": 5.5, "split": "test"}',
        "",
        '{"sid": 4, "split": "test"}',
    ]
    (tmp_path / "m.jsonl").write_text("\n".join(lines) + "\n")
    m = load(tmp_path, {"path": "m.jsonl", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert m.table["sid"].to_pylist() == ["12345678901234567890", "12345678901234567891", "3", "4"]
    assert m.table["writer"].to_pylist() == ["9007199254740993", "9007199254740992", "5.5", None]
    # Numbers a double holds exactly stay numbers.
    exact = '{"w": 9007199254740992, "split": "a"}\n{"w": 5.5, "split": "b"}\n'
    (tmp_path / "m.jsonl").write_text(exact)
    m = load(tmp_path, {"path": "m.jsonl", "split": "split"}, keys={"groups": ["w"]})
    assert m.table["w"].to_pylist() == [9007199254740992.0, 5.5]


def test_mixed_type_ids_across_parquet_shards_are_read_as_text(tmp_path: Path) -> None:
    write_table(tmp_path / "s" / "a.parquet", {"sid": [1, 2], "split": ["train", "test"]})
    write_table(tmp_path / "s" / "b.parquet", {"sid": ["x", "1"], "split": ["test", "test"]})
    m = load(tmp_path, {"path": "s", "split": "split", "id": "sid"})
    assert m.table["sid"].to_pylist() == ["1", "2", "x", "1"]


def _typed_shards(tmp_path: Path, *columns: pa.Array) -> Path:
    """Parquet shards in folder `s`, shard i holding column `w` as ``columns[i]`` (a train shard, then test)."""
    (tmp_path / "s").mkdir()
    for i, w in enumerate(columns):
        split = ["train" if i == 0 else "test"] * len(w)
        pq.write_table(
            pa.table({"sid": [f"{i}-{j}" for j in range(len(w))], "split": split, "w": w}),
            tmp_path / "s" / f"{i}.parquet",
        )
    return tmp_path / "s"


def test_float32_and_float64_shards_keep_every_float64_value(tmp_path: Path) -> None:
    """The column is read as float64 in every shard: a float64 0.1 is not rounded to the float32 nearest it."""
    _typed_shards(tmp_path, pa.array([1.5], pa.float32()), pa.array([0.1, 2.5], pa.float64()))
    m = load(tmp_path, {"path": "s", "split": "split", "id": "sid"}, keys={"groups": ["w"]})
    assert m.column_type("w") == pa.float64()
    assert m.table["w"].to_pylist() == [1.5, 0.1, 2.5]


def test_timestamps_in_ms_and_us_shards_are_one_time_column(tmp_path: Path) -> None:
    """Times in ms in one shard and in us in another stay times (in us): the same instant is one value, not two
    texts spelled with 3 and 6 decimals."""
    at = pa.array([1_700_000_000_000], pa.timestamp("ms"))
    _typed_shards(tmp_path, at, at.cast(pa.timestamp("us")))
    m = load(tmp_path, {"path": "s", "split": "split", "id": "sid"}, keys={"groups": ["w"]})
    assert m.column_type("w") == pa.timestamp("us")
    assert m.key("w").n_values == 1


def test_a_time_beside_text_in_another_shard_is_refused_naming_both_files(tmp_path: Path) -> None:
    """A time written as text has many spellings: beside a time column it would match some and miss others, so the
    manifest is refused with both files, the column and both types."""
    folder = _typed_shards(tmp_path, pa.array(["2023-11-14 22:13:20"]), pa.array([1_700_000_000], pa.timestamp("ms")))
    with pytest.raises(ManifestError) as raised:
        load(tmp_path, {"path": "s", "split": "split", "id": "sid"}, keys={"groups": ["w"]})
    assert str(raised.value).startswith(
        f"{folder / '1.parquet'}: column 'w' holds timestamp[ms] values, but string in {folder / '0.parquet'}"
    )


def test_string_view_columns_are_read_as_text(tmp_path: Path) -> None:
    """Parquet written from string_view columns (as polars may write it) holds text: ids, keys and splits."""
    view = pa.string_view()
    table = pa.table(
        {
            "sid": pa.array(["a", "b", "c", "d"], view),
            "writer": pa.array(["w1", "w2", "w1", None], view),
            "split": pa.array(["train", "train", "test", "test"], view),
        }
    )
    pq.write_table(table, tmp_path / "m.parquet")
    m = load(tmp_path, {"path": "m.parquet", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert pa.types.is_large_string(m.column_type("sid"))
    assert m.rows_per_split() == {"train": 2, "test": 2}
    assert m.key("writer").labels(m.key("writer").codes[:3]) == ["w1", "w2", "w1"]
    assert m.ids([3, 0]) == ["d", "a"]


def test_float_id_column_is_rejected(tmp_path: Path) -> None:
    write_table(tmp_path / "m.parquet", {"sid": [1.0, None], "split": ["train", "test"]})
    with pytest.raises(ManifestError, match="expected integer or string ids"):
        load(tmp_path, {"path": "m.parquet", "split": "split", "id": "sid"})


def test_float_ids_in_one_file_of_several_name_that_file(tmp_path: Path) -> None:
    # integer ids in train, floats in test (as pandas writes an integer column with a missing value): the error
    # names the file whose own ids are floats, whichever is listed first
    pq.write_table(pa.table({"sid": pa.array([1, 2], pa.int64())}), tmp_path / "train.parquet")
    pq.write_table(pa.table({"sid": pa.array([3.0, 4.0], pa.float64())}), tmp_path / "test.parquet")
    for order in (["train", "test"], ["test", "train"]):
        paths = {split: f"{split}.parquet" for split in order}
        with pytest.raises(ManifestError) as info:
            load(tmp_path, {"paths": paths, "id": "sid"})
        message = str(info.value)
        assert message.startswith(f"{tmp_path / 'test.parquet'} (double): id column 'sid' has type double"), message
        assert "train.parquet" not in message


def test_unknown_extension(tmp_path: Path) -> None:
    (tmp_path / "m.xlsx").write_text("x")
    with pytest.raises(ManifestError, match="unknown manifest format '.xlsx'"):
        load(tmp_path, {"path": "m.xlsx", "split": "split"})


def test_format_override(tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text("sid\tsplit\na\ttrain\n")
    assert load(tmp_path, {"path": "m.txt", "split": "split", "format": "tsv"}).n_rows == 1


def test_input_files_are_not_modified(tmp_path: Path) -> None:
    path = write_table(tmp_path / "m.csv", ROWS)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"})
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_repeated_header_in_another_case_or_spacing(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid,split\na,train\nSID, Split\nb,test\n")
    with pytest.raises(ManifestError, match=r"m\.csv:3: this line repeats the header"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"})


def test_repeated_header_after_a_byte_order_mark_is_rejected(tmp_path: Path) -> None:
    """Two CSVs saved with a BOM and CRLF, concatenated: the second header starts with U+FEFF."""
    part = "\ufeffsid,writer,split\r\n{}\r\n"
    text = part.format("a,w1,train") + part.format("b,w2,test")
    (tmp_path / "m.csv").write_bytes(text.encode())
    with pytest.raises(ManifestError, match=r"m\.csv:3: this line repeats the header"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


def test_semicolon_separated_csv_gets_a_hint(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("sid;split\na;train\n")
    with pytest.raises(ManifestError, match="semicolons but no commas"):
        load(tmp_path, {"path": "m.csv", "split": "split"})


def test_a_list_of_labels_per_row_is_refused_with_how_to_write_it_for_label_separator(tmp_path: Path) -> None:
    pq.write_table(pa.table({"w": [["cat", "dog"], ["dog"]], "split": ["train", "test"]}), tmp_path / "m.parquet")
    with pytest.raises(ManifestError, match="column 'w' holds list<element: string> values") as info:
        load(tmp_path, {"path": "m.parquet", "split": "split"}, keys={"label": "w"})
    # A list of labels per row: how to write it so that label_coverage reads it as a set of labels.
    assert "';'.join(items)" in str(info.value) and "label_separator" in str(info.value)


_COMPARED_ACROSS_SPLITS = [
    ({"groups": ["w"]}, "groups", "group_overlap"),
    ({"groups": [["w", "site"]]}, "groups", "group_overlap"),  # one column of a compound group
    ({"sources": ["w"]}, "sources", "shared_upstream"),
    ({"entity": "w", "time": "t"}, "entity", "temporal_order"),
]


@pytest.mark.parametrize(("keys", "role", "stage"), _COMPARED_ACROSS_SPLITS)
def test_a_list_of_groups_per_row_is_refused_saying_what_finds_a_shared_item_not_to_join_it(
    tmp_path: Path, keys: dict, role: str, stage: str
) -> None:
    """Joined into one text, [a, b] and [b, c] share no value, so the shared 'b' would pass: the refusal says so and
    what finds it (was: the label advice, ';'.join(items), for a group key too)."""
    rows = {"w": [[1, 2], [2, 3]], "site": ["s1", "s2"], "t": [1, 2], "split": ["train", "test"]}
    pq.write_table(pa.table(rows), tmp_path / "m.parquet")
    with pytest.raises(ManifestError, match="column 'w' holds list<element: int64> values") as info:
        load(tmp_path, {"path": "m.parquet", "split": "split"}, keys=keys)
    message = str(info.value)
    assert "join(items)" not in message and "label_separator" not in message
    assert f"not read as several keys.{role} values, and neither one text of its items" in message
    assert "DataFrame.explode('w')" in message and f"--only {stage}" in message
    assert f"name in keys.{role} a column holding each row's connected component" in message


@pytest.mark.parametrize("keys", [{"content_hash": "w"}, {"features": ["w"]}])
def test_a_list_in_another_key_is_refused_with_no_advice_of_the_group_or_label_kind(tmp_path: Path, keys: dict) -> None:
    pq.write_table(pa.table({"w": [[1, 2], [2, 3]], "split": ["train", "test"]}), tmp_path / "m.parquet")
    with pytest.raises(ManifestError, match="column 'w' holds list<element: int64> values") as info:
        load(tmp_path, {"path": "m.parquet", "split": "split"}, keys=keys)
    message = str(info.value)
    assert message.endswith("which must hold one text, number or time value per row"), message


# -- files that disagree on a column's type, and other hostile files -------------------------------------


def _cli(command: str, config: Path):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from auditor.cli import app

    return CliRunner().invoke(app, [command, str(config)], env={"COLUMNS": "300"})


def _config(tmp_path: Path, manifest: dict) -> Path:  # type: ignore[type-arg]
    from tests.conftest import write_config

    return write_config(tmp_path, {"version": 1, "manifest": manifest, "report": {"formats": ["json"]}})


def test_id_1_in_one_split_file_and_text_1_in_another_are_the_same_id(tmp_path: Path) -> None:
    (tmp_path / "train.jsonl").write_text('{"sid": 1}\n{"sid": 2}\n')
    (tmp_path / "test.jsonl").write_text('{"sid": "x"}\n{"sid": "1"}\n')
    manifest = {"paths": {"train": "train.jsonl", "test": "test.jsonl"}, "id": "sid"}
    assert load(tmp_path, manifest).table["sid"].to_pylist() == ["1", "2", "x", "1"]
    config = _config(tmp_path, manifest)
    assert _cli("validate", config).exit_code == 0
    result = _cli("run", config)
    assert result.exit_code == 1 and "SPL001" in result.output and "Traceback" not in result.output


def test_csv_train_and_parquet_test_with_numeric_ids(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("sid\n1\n2\n")
    pq.write_table(pa.table({"sid": pa.array([3, 1], pa.int64())}), tmp_path / "test.parquet")
    manifest = {"paths": {"train": "train.csv", "test": "test.parquet"}, "id": "sid"}
    assert load(tmp_path, manifest).table["sid"].to_pylist() == ["1", "2", "3", "1"]
    result = _cli("run", _config(tmp_path, manifest))
    assert result.exit_code == 1 and "SPL001" in result.output


def test_glob_of_jsonl_files_with_different_types(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "1.jsonl").write_text('{"sid": 1, "split": "train", "w": 7}\n')
    (tmp_path / "p" / "2.jsonl").write_text('{"sid": "1", "split": "test", "w": 7.5}\n')
    m = load(tmp_path, {"path": "p/*.jsonl", "split": "split", "id": "sid"}, keys={"groups": ["w"]})
    assert m.table["sid"].to_pylist() == ["1", "1"]
    assert m.table["w"].to_pylist() == [7.0, 7.5]  # numbers stay numbers


def test_parquet_with_duplicate_column_names(tmp_path: Path) -> None:
    table = pa.Table.from_arrays(
        [pa.array(["a", "b"]), pa.array(["train", "test"]), pa.array(["w", "w"]), pa.array(["v", "v"])],
        names=["sid", "split", "writer", "writer"],
    )
    pq.write_table(table, tmp_path / "m.parquet")
    manifest = {"path": "m.parquet", "split": "split", "id": "sid"}
    with pytest.raises(ManifestError, match=r"m\.parquet: duplicate column name 'writer' \(columns 3 and 4\)"):
        load(tmp_path, manifest, keys={"groups": ["writer"]})
    config = _config(tmp_path, manifest)
    for command in ("run", "validate"):
        result = _cli(command, config)
        assert result.exit_code == 2 and "duplicate column name 'writer'" in result.output, command
        assert "Traceback" not in result.output


def test_csv_cell_larger_than_a_read_block_is_read(tmp_path: Path) -> None:
    big = "x" * (3 * 1024 * 1024 + 17)
    (tmp_path / "m.csv").write_text(f"sid,split,note\na,train,{big}\nb,test,short\n")
    m = load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["note"]})
    assert m.table["note"].to_pylist() == [big, "short"]
    result = _cli("run", _config(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}))
    assert result.exit_code == 0, result.output


def test_csv_row_beyond_the_largest_block_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from auditor.manifest import readers

    monkeypatch.setattr(readers, "_CSV_MAX_BLOCK", 1 << 20)
    (tmp_path / "m.csv").write_text("sid,split\n" + "a" * (3 << 20) + ",train\nb,test\n")
    with pytest.raises(ManifestError, match=r"m\.csv: a row is longer than 1 MB"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"})


def _wide_csv(path: Path, columns: int) -> int:
    """A manifest whose header names ``columns`` columns, three of them used; its header's length in bytes."""
    names = ["sid", "split", "writer", *(f"feature_{i:07d}" for i in range(columns - 3))]
    blanks = "," * (columns - 3)
    header = ",".join(names) + "\n"
    path.write_text(header + f"a,train,w1{blanks}\nb,test,w2{blanks}\nc,test,w1{blanks}\n")
    return len(header)


def test_csv_header_longer_than_a_read_block_is_read(tmp_path: Path) -> None:
    from auditor.manifest import readers

    # Over pyarrow's 1 MB default block, which was refused as "Empty CSV file or block".
    assert _wide_csv(tmp_path / "m.csv", 80_000) > readers._CSV_BLOCK
    manifest = {"path": "m.csv", "split": "split", "id": "sid"}
    m = load(tmp_path, manifest, keys={"groups": ["writer"]})
    assert not [c for c in m.table.column_names if c.startswith("feature_")]  # only the named columns
    assert m.table["sid"].to_pylist() == ["a", "b", "c"] and m.rows_per_split() == {"train": 1, "test": 2}
    assert m.key("writer").labels(m.key("writer").codes) == ["w1", "w2", "w1"]
    config = {"version": 1, "manifest": manifest, "keys": {"groups": ["writer"]}, "report": {"formats": ["json"]}}
    result = _cli("run", write_config(tmp_path, config))
    assert result.exit_code == 1 and "GRP001" in (tmp_path / "audit-report" / "report.json").read_text()
    assert "Empty CSV" not in result.output


def test_csv_header_beyond_the_longest_line_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from auditor.manifest import readers

    monkeypatch.setattr(readers, "_CSV_MAX_BLOCK", 1 << 20)
    _wide_csv(tmp_path / "m.csv", 80_000)
    manifest = {"path": "m.csv", "split": "split", "id": "sid"}
    with pytest.raises(ManifestError, match=r"m\.csv:1: the header line is longer than 1 MB, the longest line read"):
        load(tmp_path, manifest)
    for command in ("run", "validate"):
        result = _cli(command, _config(tmp_path, manifest))
        assert result.exit_code == 2 and "the header line is longer than 1 MB" in result.output, command
        assert "Traceback" not in result.output


def test_huge_header_field_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text('"' + "h" * 200_000 + '",split\n1,train\n')
    with pytest.raises(ManifestError, match=r"m\.csv:1: cannot parse the header"):
        load(tmp_path, {"path": "m.csv", "split": "split"})


def test_a_parquet_file_with_unsigned_dictionary_indices_is_audited_as_its_texts(tmp_path: Path) -> None:
    """polars writes its Categorical with uint32 indices and Arrow reads them back so: a null must not overflow."""
    from auditor import run_audit

    def coded(values: list[str | None]) -> pa.DictionaryArray:
        return pa.array(values).dictionary_encode().cast(pa.dictionary(pa.uint32(), pa.string()))

    table = pa.table(
        {
            "id": [1, 2, 3, 4, 5],
            "split": coded(["train", "train", "test", "test", None]),
            "writer": coded(["w1", "w2", "w1", None, "w3"]),
            "label": coded(["x", "y", "x", "y", None]),
        }
    )
    pq.write_table(table, tmp_path / "m.parquet")
    assert pq.read_table(tmp_path / "m.parquet").schema.field("split").type.index_type == pa.uint32()
    manifest = {"path": "m.parquet", "id": "id", "split": "split"}
    config = write_config(tmp_path, {"manifest": manifest, "keys": {"groups": ["writer"], "label": "label"}})
    report = run_audit(config)
    assert [r.stage for r in report.stages if r.status == "error"] == []
    (overlap,) = [f for f in report.findings if f.code == "GRP001"]
    assert overlap.evidence["key"] == "writer" and list(overlap.scope.values) == ["w1"]


# Two frames saved with different spellings of one column and then concatenated (pd.concat keeps both, each
# empty in the other's rows): the rows under the second spelling would read as having no value at all.
CONCAT_CSV = "sid,split,writer,Writer\na,train,w1,\nb,train,w2,\nc,test,,w1\nd,test,,w3\n"


def _variant_parquet(path: Path) -> None:
    table = pa.table(
        {
            "sid": ["a", "b", "c"],
            "split": ["train", "train", "test"],
            "writer": ["w1", "w2", None],
            "writer ": [None, None, "w1"],
        }
    )
    pq.write_table(table, path)


@pytest.mark.parametrize(
    ("name", "build", "where"),
    [
        ("m.csv", lambda p: p.write_text(CONCAT_CSV), r"m\.csv:4: column 'writer' is empty here but 'Writer' holds"),
        (
            "m.tsv",
            lambda p: p.write_text(CONCAT_CSV.replace(",", "\t")),
            r"m\.tsv:4: column 'writer' is empty here but 'Writer' holds",
        ),
        (
            "m.jsonl",
            lambda p: p.write_text(
                '{"sid": "a", "split": "train", "writer": "w1"}\n\n'
                '{"sid": "b", "split": "train", "writer": "w2"}\n'
                '{"sid": "c", "split": "test", "Writer": "w1"}\n'
            ),
            r"m\.jsonl:4: column 'writer' is empty here but 'Writer' holds",
        ),
        ("m.parquet", _variant_parquet, r"m\.parquet: row 3: column 'writer' is empty here but 'writer ' holds"),
    ],
)
def test_a_column_split_between_two_spellings_is_refused(tmp_path: Path, name: str, build, where: str) -> None:  # type: ignore[no-untyped-def]
    build(tmp_path / name)
    with pytest.raises(ManifestError, match=where) as info:
        load(tmp_path, {"path": name, "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert "'w1'" in str(info.value)


def test_a_split_column_split_between_two_spellings_is_refused(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_text(
        '{"sid": "a", "split": "train", "writer": "w1"}\n{"sid": "c", "Split": "test", "writer": "w1"}\n'
    )
    with pytest.raises(ManifestError, match=r"m\.jsonl:2: column 'split' is empty here but 'Split' holds 'test'"):
        load(tmp_path, {"path": "m.jsonl", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


def test_two_columns_differing_in_case_that_are_both_filled_are_two_columns(tmp_path: Path) -> None:
    # "ID" and "id" side by side, each filled on the same rows, are two columns: only the named one is read.
    text = "id,ID,split,writer\na,X1,train,w1\nb,X2,test,w3\nc,X3,test,w2\n"
    (tmp_path / "m.csv").write_text(text)
    m = load(tmp_path, {"path": "m.csv", "split": "split", "id": "id"}, keys={"groups": ["writer"]})
    assert m.n_rows == 3
    assert "ID" not in m.table.column_names
    assert m.key("writer").labels(m.key("writer").codes) == ["w1", "w3", "w2"]


# A quote opened and never closed where meant: the quoted value runs on over the next lines, which are rows.
SWALLOWED = 'sid,split,writer,sha\na,train,w1,d1\nb,train,"w2,d2\nc,test,w1,d1\nd,test,w3",d3\ne,test,w4,d4\n'


def test_a_key_value_spanning_lines_is_refused_at_the_line_its_quote_opens(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text(SWALLOWED)
    with pytest.raises(ManifestError, match=r"m\.csv:3: the 'writer' value of this row spans lines 3-5") as info:
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert "quote" in str(info.value)


def test_a_split_or_id_spanning_lines_is_refused(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text('sid,split,writer\n"a\nb",train,w1\nc,"test\n",w2\n')
    with pytest.raises(ManifestError, match=r"m\.csv:2: the 'sid' value of this row spans lines 2-3"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


def test_a_text_value_spanning_lines_is_read(tmp_path: Path) -> None:
    # Free text (a prompt, an answer) holds line breaks, commas and all: quoted, it is one value.
    text = 'sid,split,writer,prompt\na,train,w1,"Dear Bob,\nhi, there, you, all\nBye"\nb,test,w2,plain\n'
    (tmp_path / "m.csv").write_text(text)
    m = load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"], "text": "prompt"})
    assert m.n_rows == 2
    assert m.table["prompt"][0].as_py() == "Dear Bob,\nhi, there, you, all\nBye"


# A stray quote in a column the audit does not read: the rows after it, one a leak, become text of that value.
SWALLOWED_UNREAD = (
    'sid,writer,split,label\n1,alice,train,1\n2,bob,train,2\n4,dan,test,"2\n5,alice,test,1\n6,x,test,3"\n'
)


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".tsv"])
def test_rows_swallowed_by_a_quote_in_a_column_not_read_are_refused(tmp_path: Path, suffix: str) -> None:
    text = SWALLOWED_UNREAD.replace(",", "\t") if suffix == ".tsv" else SWALLOWED_UNREAD
    name = f"m{suffix}"
    if suffix.endswith(".gz"):
        (tmp_path / name).write_bytes(gzip.compress(text.encode()))
    else:
        (tmp_path / name).write_text(text)
    with pytest.raises(
        ManifestError, match=r"m\.(csv|tsv)(\.gz)?:4: a quoted value runs from line 4 to line 6, and line 5"
    ):
        load(tmp_path, {"path": name, "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


@pytest.mark.parametrize(
    ("swallowed", "line"),
    [
        ("5,alice,test,x\n\n6,alice,test,y\nend", 5),  # a blank line and a short line among them
        ("5,alice,test,x,extra\nend", 5),  # a row with one field too many
        ('5,alice,test,""a, b""\n7,x,test,y', 5),  # a row whose own note was quoted
        ("\nstill the note\n5,alice,test,x", 7),  # the row after lines of text
    ],
)
def test_a_row_among_the_lines_a_stray_quote_swallows_is_refused(tmp_path: Path, swallowed: str, line: int) -> None:
    """One line of a quoted value that reads as a row (a split name where the split column is) is enough."""
    text = f'sid,writer,split,label\n1,alice,train,1\n2,bob,train,2\n4,dan,test,"2\n{swallowed}"\n9,z,test,3\n'
    (tmp_path / "m.csv").write_text(text)
    with pytest.raises(ManifestError, match=rf"m\.csv:4: a quoted value runs from line 4 .* line {line} inside it"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


def test_a_swallowed_row_of_a_split_only_the_config_names_is_refused(tmp_path: Path) -> None:
    # every test row is inside the quote: the file's own split column holds no `test`, the config does
    text = 'sid,writer,split,label\n1,alice,train,1\n2,bob,val,2\n4,dan,val,"2\n5,alice,test,1 and more\nend"\n'
    (tmp_path / "m.csv").write_text(text)
    with pytest.raises(ManifestError, match=r"m\.csv:4: .* line 5 inside it reads as a row"):
        load(
            tmp_path,
            {"path": "m.csv", "split": "split", "id": "sid"},
            keys={"groups": ["writer"]},
            splits={"train": ["train"], "holdout": ["val", "test"]},
        )


def test_a_note_whose_lines_hold_commas_but_no_split_name_is_read(tmp_path: Path) -> None:
    text = 'sid,writer,split,note\n1,a,train,x\n2,b,test,"csv dump:\na,b,c,d\ne,f\nend"\n3,c,test,z\n'
    (tmp_path / "m.csv").write_text(text)
    m = load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert m.n_rows == 3


def test_a_quote_never_closed_is_refused_where_it_opens(tmp_path: Path) -> None:
    # the lines after it are not shaped as rows (one field each), but no closing quote ends the value
    (tmp_path / "m.csv").write_text('sid,writer,split,note\n1,a,train,x\n2,b,test,"oops\nmore\nstill more\n')
    with pytest.raises(ManifestError, match=r"m\.csv:3: a quote opened on line 3 is never closed"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


def test_notes_spanning_lines_and_blank_lines_are_read(tmp_path: Path) -> None:
    """Values that span lines whose lines are not rows, and blank lines between rows: nothing is swallowed."""
    text = 'sid,writer,split,note\n1,a,train,"first line\nsecond, line"\n\n2,b,test,"x\ny"\n\r\n3,c,test,z\n\n'
    (tmp_path / "m.csv").write_text(text)
    m = load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert m.n_rows == 3


def test_a_repeated_header_in_another_column_order_is_refused(tmp_path: Path) -> None:
    """Files with their columns in different orders, concatenated: each row after the second header is read into
    the wrong columns (ids as splits), a garbled audit; the line is refused as a repeated header is."""
    text = "sid,split,writer\na,train,w1\nb,train,w2\nsplit,sid,writer\ntest,c,w1\ntest,d,w3\n"
    (tmp_path / "m.csv").write_text(text)
    with pytest.raises(ManifestError, match=r"m\.csv:4: this line repeats the header in another column order"):
        load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})


def test_values_that_are_column_names_in_some_columns_only_are_data(tmp_path: Path) -> None:
    # A writer called "split" and a split called "writer": each row also holds an id that names no column.
    (tmp_path / "m.csv").write_text("sid,split,writer\na,writer,split\nb,train,sid\nc,test,w1\n")
    m = load(tmp_path, {"path": "m.csv", "split": "split", "id": "sid"}, keys={"groups": ["writer"]})
    assert m.n_rows == 3


def _dictionary_chunks(*chunks: list[str]) -> pa.ChunkedArray:
    """One column, dictionary-encoded chunk by chunk as a Parquet read gives it (each chunk its own dictionary)."""
    return pa.chunked_array([pa.array(c).dictionary_encode() for c in chunks])


@pytest.mark.parametrize(
    ("split", "expected"),
    [
        (_dictionary_chunks(["train", "test"], ["test", " Split"]), [3]),  # the header in the second chunk's dictionary
        (_dictionary_chunks(["split", "test"], ["test", "train"]), []),  # "split" named, but not in the header's row
        (_dictionary_chunks(["train", "test"], ["test", "train"]), []),
    ],
)
def test_a_header_row_is_found_through_each_chunk_s_own_dictionary(split: pa.ChunkedArray, expected: list[int]) -> None:
    from auditor.manifest.readers import repeated_header_rows

    ids = pa.chunked_array([["a", "id"], ["c", "ID"]])
    table = pa.table({"id": ids, "split": split})
    assert repeated_header_rows(table, ["id", "split"]) == expected
