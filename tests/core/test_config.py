from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from auditor.core.config import config_from_mapping, load_config
from auditor.core.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "audit.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


def test_unknown_key_names_line_column_and_closest_key(tmp_path: Path) -> None:
    p = write(tmp_path, "version: 1\nmanifest:\n  path: m.csv\n  split: split\nkeys:\n  grups: [writer]\n")
    msg = error_of(p)
    assert f"{p}:6:3" in msg
    assert "unknown key 'keys.grups'" in msg
    assert "did you mean 'groups'?" in msg


def test_an_accept_column_the_config_does_not_name_is_refused_where_it_is_written(tmp_path: Path) -> None:
    text = (
        "manifest: {path: m.csv, split: split}\nkeys: {groups: [writer, [patient, eye]]}\naccept:\n"
        "  - {code: GRP001, key: x1, column: writer, reason: ok}\n"
        "  - {code: GRP001, key: [p1, l], column: [patient, eyes], reason: ok}\n"
        "  - {code: GRP001, key: x1, column: writr, reason: ok}\n"
    )
    msg = error_of(write(tmp_path, text))
    assert ":5:" in msg and "accept.1.column: 'eyes' is not a column the config names" in msg
    assert ":6:" in msg and "'writr'" in msg and "expected one of: split, writer, patient, eye" in msg
    assert "'writer' is not" not in msg  # the column it names is fine
    in_code = {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"groups": ["writer"]}}
    with pytest.raises(ConfigError, match="accept.0.column: 'source'"):
        config_from_mapping({**in_code, "accept": [{"code": "GRP001", "key": "x", "column": "source", "reason": "r"}]})


def test_unknown_top_level_section_suggests(tmp_path: Path) -> None:
    msg = error_of(write(tmp_path, "version: 1\nmanifest: {path: m.csv, split: s}\nreprot: {}\n"))
    assert ":3:1" in msg and "did you mean 'report'?" in msg


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "True"])
def test_a_name_yaml_reads_as_a_boolean_is_named_with_the_fix(tmp_path: Path, word: str) -> None:
    """A column called 'yes' or 'on', unquoted, is a boolean to YAML: the message said only "got True"."""
    msg = error_of(write(tmp_path, f"manifest: {{path: m.csv, split: split}}\nkeys: {{groups: [{word}]}}\n"))
    assert ":2:17" in msg and "keys.groups.0" in msg
    assert f"YAML reads an unquoted {word} as a boolean; to name a column or value, quote it: '{word}'" in msg


def test_a_boolean_value_of_a_flow_mapping_key_is_quoted_as_written_once(tmp_path: Path) -> None:
    """`key: NO` in `{code: ..., key: NO}`: the position is the key's, the word to quote the value after it; and
    a key that takes a text or a list is one problem, said once, without pydantic's member types."""
    accept = "accept:\n  - {code: GRP001, key: NO, reason: r}\n"
    msg = error_of(write(tmp_path, f"manifest: {{path: m.csv, split: split}}\nkeys: {{groups: [w]}}\n{accept}"))
    assert "quote it: 'NO'" in msg and "accept.0.key: Input should be a valid string" in msg
    assert ".str" not in msg and "list[str]" not in msg and len(msg.splitlines()) == 1


def test_a_quoted_yes_is_a_name(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "manifest: {path: m.csv, split: split}\nkeys: {groups: ['yes']}\n"))
    assert config.config.keys.groups == ["yes"]


def test_wrong_type_says_what_was_expected(tmp_path: Path) -> None:
    msg = error_of(write(tmp_path, "manifest: {path: m.csv, split: s}\nreport:\n  fail_on: sometimes\n"))
    assert ":3:3" in msg and "report.fail_on" in msg and "'error', 'warning' or 'never'" in msg
    assert "sometimes" in msg


def test_yaml_syntax_error_has_line(tmp_path: Path) -> None:
    msg = error_of(write(tmp_path, "manifest:\n  path: m.csv\n  split: [a, b\n"))
    assert "YAML syntax error" in msg and str(tmp_path / "audit.yaml") in msg
    assert ":4:" in msg or ":3:" in msg


def test_duplicate_key_is_an_error(tmp_path: Path) -> None:
    msg = error_of(write(tmp_path, "manifest: {path: m.csv, split: s}\nkeys:\n  label: a\n  label: b\n"))
    assert ":4:3" in msg and "duplicate key 'label'" in msg and "line 3" in msg


def test_missing_config_shows_resolved_path_and_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    msg = error_of(Path("nope/audit.yaml"))
    assert str(tmp_path / "nope" / "audit.yaml") in msg and f"working directory {tmp_path}" in msg


@pytest.mark.parametrize("name", ["train.csv", "train.tsv", "train.parquet", "train.jsonl", "train.csv.gz"])
def test_a_manifest_given_as_the_config_suggests_init(tmp_path: Path, name: str) -> None:
    manifest = tmp_path / name
    manifest.write_bytes(b"id,split\n1,train\n")
    msg = error_of(manifest)
    assert "a manifest" in msg and "not a config" in msg and f"`audit init {manifest}`" in msg
    assert "mapping of sections" not in msg
    assert manifest.read_bytes() == b"id,split\n1,train\n"


def test_a_folder_given_as_the_config_names_the_config_in_it(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.csv").write_text("id,split\n1,train\n")
    write(tmp_path / "data", "manifest: {path: train.csv, split: split}\n")
    assert f"did you mean {tmp_path / 'data' / 'audit.yaml'}?" in error_of(tmp_path / "data")


def test_a_folder_of_manifests_given_as_the_config_suggests_init(tmp_path: Path) -> None:
    one = tmp_path / "one"
    one.mkdir()
    (one / "train.csv").write_text("id,split\n1,train\n")
    assert f"`audit init {one / 'train.csv'}`" in error_of(one)
    (one / "test.csv").write_text("id,split\n2,test\n")
    assert f"`audit init {one}` writes an audit.yaml for its manifest (one file per split)" in error_of(one)
    empty = tmp_path / "empty"
    empty.mkdir()
    msg = error_of(empty)
    assert "is a directory" in msg and "audit init" not in msg and "expected an audit.yaml" in msg


def test_a_config_with_an_unusual_name_beside_its_manifest_still_loads(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("id,split\n1,train\n")
    config = tmp_path / "train.csv.yaml"  # named after its manifest, but a YAML file
    config.write_text("manifest: {path: train.csv, split: split}\n")
    assert load_config(config).config.manifest is not None


def test_empty_and_non_mapping_configs(tmp_path: Path) -> None:
    assert "empty" in error_of(write(tmp_path, "# nothing\n"))
    assert "expected a mapping" in error_of(write(tmp_path, "- a\n- b\n"))


def test_manifest_needs_path_or_paths(tmp_path: Path) -> None:
    msg = error_of(write(tmp_path, "manifest: {id: x}\n"))
    assert "either `path`" in msg and ":1:" in msg
    assert "needs `split`" in error_of(write(tmp_path, "manifest: {path: m.csv}\n"))


def test_split_in_train_and_holdout_is_rejected(tmp_path: Path) -> None:
    msg = error_of(write(tmp_path, "manifest: {path: m.csv, split: s}\nsplits: {train: [a], holdout: [a, b]}\n"))
    assert "both train and holdout" in msg


def test_a_benchmark_only_manifest_needs_its_holdout_named(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, "manifest: {path: m.csv, split: s}\nsplits: {train: [], holdout: [test]}\n"))
    assert loaded.config.splits.train == [] and loaded.config.splits.holdout == ["test"]
    msg = error_of(write(tmp_path, "manifest: {path: m.csv, split: s}\nsplits: {train: []}\n"))
    assert "train is empty: name the holdout splits" in msg


def test_numeric_only_config_is_valid(tmp_path: Path) -> None:
    p = write(tmp_path, "numeric:\n  model: pkg.m:build\n  batch: pkg.d:batch\n  loss: pkg.l:loss\n")
    loaded = load_config(p)
    assert loaded.config.manifest is None and loaded.config.numeric is not None


def test_numeric_reference_must_be_module_colon_attr(tmp_path: Path) -> None:
    msg = error_of(write(tmp_path, "numeric: {model: pkg.build, batch: a:b, loss: a:c}\n"))
    assert "numeric.model" in msg and "package.module:callable'; did you mean 'pkg:build'? (got 'pkg.build')" in msg


NUMERIC = "numeric:\n  model: pkg.m:build\n  batch: pkg.d:batch\n  loss: pkg.l:loss\n"


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("timeout_s", ".inf", "finite number"),
        ("timeout_s", "-.inf", "finite number"),
        ("timeout_s", ".nan", "finite number"),
        ("timeout_s", "-5", "greater than 0"),
        ("timeout_s", "0", "greater than 0"),
        ("timeout_s", "1.0e+300", "less than or equal to 3600"),
        ("timeout_s", "3601", "less than or equal to 3600"),
        ("memory_mb", "0", "greater than 0"),
        ("memory_mb", "1000000000000000000000", "less than or equal to 1048576"),
        ("language_model", "{pad_id: -1}", "greater than or equal to 0"),
        ("language_model", "{pad_id: 99999999999999999999}", "less than or equal to 9223372036854775807"),
        ("language_model", "{ignore_index: -99999999999999999999}", "greater than or equal to -9223372036854775808"),
    ],
)
def test_every_numeric_limit_is_finite_and_bounded(tmp_path: Path, option: str, value: str, expected: str) -> None:
    # An infinite time limit crashed the watchdog and let the code run unwatched; each bound names its line.
    p = write(tmp_path, f"{NUMERIC}  {option}: {value}\n")
    msg = error_of(p)
    assert msg.startswith(f"{p}:5:") and f": numeric.{option}" in msg and expected in msg and "\n" not in msg


def test_numeric_limits_within_bounds_are_valid(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        f"{NUMERIC}  timeout_s: 3600\n  memory_mb: 1048576\n  language_model: {{pad_id: 0, ignore_index: -100}}\n",
    )
    spec = load_config(p).config.numeric
    assert spec is not None and spec.timeout_s == 3600 and spec.memory_mb == 1048576


def test_config_needs_manifest_or_numeric(tmp_path: Path) -> None:
    assert "needs `manifest`" in error_of(write(tmp_path, "version: 1\n"))


def test_paths_resolve_relative_to_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = tmp_path / "project"
    sub.mkdir()
    p = write(sub, "manifest: {path: data/m.csv, split: s}\n")
    monkeypatch.chdir(tmp_path)
    loaded = load_config(os.path.relpath(p))
    assert loaded.resolve("data/m.csv") == (sub / "data" / "m.csv").resolve()


def test_config_records_sha256_of_its_bytes(tmp_path: Path) -> None:
    import hashlib

    p = write(tmp_path, "manifest: {path: m.csv, split: s}\n")
    assert load_config(p).sha256 == hashlib.sha256(p.read_bytes()).hexdigest()


def test_compound_accept_key_matches_report_label() -> None:
    loaded = config_from_mapping(
        {
            "manifest": {"path": "m.csv", "split": "s"},
            "accept": [{"code": "GRP001", "key": ["p1", "left"], "reason": "same eye imaged twice on purpose"}],
        }
    )
    assert loaded.config.accept[0].key_text == "p1 + left"


def test_accept_needs_a_reason() -> None:
    with pytest.raises(ConfigError, match="accept.0.reason"):
        config_from_mapping({"manifest": {"path": "m.csv", "split": "s"}, "accept": [{"code": "GRP001"}]})


def test_manifest_columns_lists_every_named_column_once() -> None:
    loaded = config_from_mapping(
        {
            "manifest": {"path": "m.csv", "split": "split", "id": "sid"},
            "keys": {"groups": ["writer", ["patient", "eye"]], "sources": ["writer"], "label": "y"},
        }
    )
    cols = loaded.config.manifest_columns()
    assert list(cols) == ["sid", "split", "writer", "patient", "eye", "y"]
    assert cols["eye"] == ("keys", "groups", 1, 1)


def test_numeric_split_names_and_keys_are_read_as_text() -> None:
    loaded = config_from_mapping(
        {
            "manifest": {"path": "m.csv", "split": "fold"},
            "splits": {"train": [0, 1], "holdout": [2]},
            "accept": [{"code": "GRP001", "key": 17, "reason": "r"}],
        }
    )
    assert loaded.config.splits.train == ["0", "1"] and loaded.config.accept[0].key == "17"


FITTED_BASE = {"manifest": {"path": "m.csv", "split": "split"}}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"kind": "vocabulary", "artifact": "v.txt"}, "a vocabulary needs `text`"),
        ({"kind": "standardize", "artifact": "s.json"}, "needs `columns`"),
        ({"kind": "standardize", "artifact": "s.json", "columns": ["a"], "tokenizer": {}}, "`tokenizer` applies to"),
        ({"kind": "minmax", "artifact": "s.json", "columns": ["a"], "strategy": "mean"}, "`strategy` applies to"),
        ({"kind": "impute", "artifact": "s.json", "columns": ["a", "a"]}, "names a column twice"),
        (
            {"kind": "vocabulary", "artifact": "v.txt", "text": "t", "tokenizer": {"token_pattern": "(unclosed"}},
            "not a valid regular expression",
        ),
        (
            {"kind": "vocabulary", "artifact": "v.txt", "text": "t", "tokenizer": {"split_pattern": "(?<=a)b"}},
            "not a valid RE2 expression",
        ),
        ({"kind": "scaler", "artifact": "s.json", "columns": ["a"]}, "fitted.0.kind"),
    ],
)
def test_fitted_entries_are_validated(entry: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        config_from_mapping({**FITTED_BASE, "fitted": [{"name": "x", **entry}]})


def test_fitted_names_are_unique_and_their_columns_are_read() -> None:
    entry = {"kind": "standardize", "artifact": "s.json", "columns": ["age"]}
    with pytest.raises(ConfigError, match="used twice"):
        config_from_mapping({**FITTED_BASE, "fitted": [{"name": "n", **entry}, {"name": "n", **entry}]})
    loaded = config_from_mapping(
        {
            **FITTED_BASE,
            "keys": {"label": "y"},
            "fitted": [
                {"name": "n", **entry},
                {"name": "s", "kind": "selected_features", "artifact": "s.txt", "columns": ["a"], "method": "anova_f"},
                {"name": "v", "kind": "vocabulary", "artifact": "v.txt", "text": "note"},
            ],
        }
    )
    cols = loaded.config.manifest_columns()
    assert list(cols) == ["split", "y", "age", "a", "note"]
    assert cols["note"] == ("fitted", 2, "text")


def test_a_config_larger_than_the_bound_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import auditor.core.config as config

    path = tmp_path / "audit.yaml"
    path.write_text("version: 1\nmanifest: {path: m.csv, split: split}\n# " + "x" * 2000 + "\n")
    monkeypatch.setattr(config, "MAX_CONFIG_BYTES", 1024)
    with pytest.raises(
        ConfigError, match=r"audit.yaml: larger than 1,024 bytes; expected an audit.yaml of ordinary size"
    ):
        load_config(path)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_config_that_is_a_fifo_or_device_is_named_as_such(tmp_path: Path, kind: str) -> None:
    path = Path("/dev/zero")
    if kind == "fifo":
        path = tmp_path / "audit.yaml"
        os.mkfifo(path)
    what = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    with pytest.raises(ConfigError, match=rf"config {path}: is {re.escape(what)}, not a regular file"):
        load_config(path)


def test_the_id_and_the_split_cannot_be_one_column(tmp_path: Path) -> None:
    # with the split as the id, every id repeats within its split and none crosses one: SPL001 could never fire
    msg = error_of(write(tmp_path, "version: 1\nmanifest: {path: m.csv, id: split, split: split}\n"))
    assert "`id` and `split` name the same column 'split'" in msg
    assert load_config(write(tmp_path, "version: 1\nmanifest: {path: m.csv, id: sid, split: split}\n"))


def test_an_accept_entry_with_an_empty_list_of_values_is_refused(tmp_path: Path) -> None:
    text = "version: 1\nmanifest: {path: m.csv, split: split}\naccept:\n  - {code: GRP001, values: [], reason: r}\n"
    msg = error_of(write(tmp_path, text))
    assert ":4:" in msg and "`values: []` accepts no value" in msg
