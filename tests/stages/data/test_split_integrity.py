from __future__ import annotations

from pathlib import Path

import pytest

from auditor import load_config, run_audit
from auditor.render import render_html, render_markdown, render_terminal
from auditor.stages.data.split_integrity import normalized_split_name
from tests.conftest import DIFFERENT_LOOKALIKES, SPELLING_VARIANT_KINDS, codes, finding, write_config, write_table

ONLY = ["split_integrity"]


def test_clean_manifest_has_only_the_sizes(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "b", "c"], "split": ["train", "train", "test"]}, manifest={"id": "sid"}, only=ONLY)
    assert codes(r) == ["SPL000"] and r.exit_code == 0
    sizes = finding(r, "SPL000")
    assert sizes.evidence["splits"] == {"train": 2, "test": 1}


def test_id_in_two_splits_is_an_error_with_examples(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"sid": ["a", "b", "a", "c"], "split": ["train", "train", "test", "test"]},
        manifest={"id": "sid"},
        only=ONLY,
    )
    f = finding(r, "SPL001")
    assert f.severity.value == "error" and f.evidence["ids"] == 1 and f.evidence["rows"] == 2
    assert f.evidence["pairs"] == {"train|test": 1}
    assert f.examples[0] == {"id": "a", "rows": [0, 2], "splits": ["train", "test"]}
    assert r.exit_code == 1


def test_id_repeated_within_one_split_is_a_warning(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "a", "b"], "split": ["train", "train", "test"]}, manifest={"id": "sid"}, only=ONLY)
    f = finding(r, "SPL002")
    assert f.severity.value == "warning" and f.evidence["rows_per_split"] == {"train": 2}
    assert "SPL001" not in codes(r)


def test_integer_ids(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"sid": [1, 2, 1], "split": ["train", "test", "test"]},
        fmt="parquet",
        manifest={"id": "sid"},
        only=ONLY,
    )
    assert finding(r, "SPL001").examples[0]["id"] == 1


def test_rows_without_split(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "b", "c"], "split": ["train", None, "test"]}, manifest={"id": "sid"}, only=ONLY)
    f = finding(r, "SPL003")
    assert f.evidence["rows"] == 1 and f.examples[0]["id"] == "b"


def test_rows_without_id(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", None, "c"], "split": ["train", "train", "test"]}, manifest={"id": "sid"}, only=ONLY)
    assert finding(r, "SPL007").evidence["rows"] == 1


def test_look_alike_split_names(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test", "Test ", "test"]}, only=ONLY)
    f = finding(r, "SPL004")
    assert f.evidence["names"] == ["Test ", "test"] and f.evidence["rows"] == {"Test ": 1, "test": 2}
    assert f.severity.value == "error"
    # The variant is reported once, as a look-alike, not again as an undeclared split.
    assert "SPL005" not in codes(r)


def test_look_alike_split_names_the_config_declares_in_one_role_are_audited_as_declared(audit) -> None:  # type: ignore[no-untyped-def]
    # as `audit init` writes them: every spelling listed, in one role; the rows are that role's, as meant
    data = {"split": ["train", "Train", "test", "TEST", "test"]}
    r = audit(data, splits={"train": ["Train", "train"], "holdout": ["TEST", "test"]}, only=ONLY)
    found = [f for f in r.findings if f.code == "SPL004"]
    assert [f.severity.value for f in found] == ["info", "info"] and r.exit_code == 0
    assert "the config declares each a holdout split" in found[0].message
    # one spelling in each role: the variant is not what was meant
    mixed = audit(data, splits={"train": ["train", "TEST"], "holdout": ["test", "Train"]}, only=ONLY)
    assert {f.severity.value for f in mixed.findings if f.code == "SPL004"} == {"error"}


def test_undeclared_split_when_holdout_is_explicit(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test", "extra"]}, splits={"train": ["train"], "holdout": ["test"]}, only=ONLY)
    assert finding(r, "SPL005").key == "extra"


def test_declared_split_with_no_rows(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test"]}, splits={"train": ["train"], "holdout": ["val", "test"]}, only=ONLY)
    f = finding(r, "SPL006")
    assert f.key == "val" and f.severity.value == "error"


def test_no_train_split_at_all(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["training", "test"]}, only=ONLY)
    f = finding(r, "SPL006")
    assert f.key == "train" and "the default; set splits.train" in f.message


@pytest.mark.parametrize(
    ("splits", "values"),
    [
        ({}, ["train", "train", "train"]),  # one split in the file, holdout by default: every other split, none
        ({"train": ["train", "test"]}, ["train", "test", "test"]),  # every split declared a train split
        ({"train": ["train"], "holdout": []}, ["train", "test", "test"]),  # no holdout declared
    ],
)
def test_nothing_held_out_is_an_error_not_a_pass(audit, splits: dict[str, list[str]], values: list[str]) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": values}, splits=splits, only=ONLY)
    f = finding(r, "SPL014")
    assert f.severity.value == "error" and r.exit_code == 1
    assert "no check between train and holdout compared anything" in f.message
    if "holdout" in splits:  # test is in no role: not said to be a train split
        assert "or in no role (test: `splits.holdout` names none of them)" in f.message
    else:
        assert "is a train split" in f.message


def test_a_holdout_with_rows_is_not_nothing_held_out(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "train", "val"]}, only=ONLY)  # the default holdout: 'val'
    assert "SPL014" not in codes(r) and r.exit_code == 0


def _paths_audit(tmp_path: Path, files: dict[str, str], splits: dict[str, list[str]] | None = None):  # type: ignore[no-untyped-def]
    """An audit of one CSV per split (manifest.paths), each written as given."""
    for split, text in files.items():
        (tmp_path / f"{split}.csv").write_text(text, encoding="utf-8")
    config = {"version": 1, "manifest": {"paths": {s: f"{s}.csv" for s in files}, "id": "sample_id"}}
    if splits is not None:
        config["splits"] = splits
    return run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


def test_a_paths_file_with_only_a_header_is_a_holdout_split_with_no_rows(tmp_path: Path) -> None:
    """A split `manifest.paths` names is declared by its file: a test file with a header and no row is SPL006 (an
    error, nothing of the holdout was audited), not a split the report never mentions."""
    r = _paths_audit(
        tmp_path,
        {
            "train": "sample_id,writer\n1,w1\n2,w2\n",
            "test": "sample_id,writer\n",
            "val": "writer,sample_id\nw8,3\nw9,4\n",
        },
    )
    f = finding(r, "SPL006")
    assert f.key == "test" and f.severity.value == "error" and f.evidence["role"] == "holdout"
    assert "manifest.paths: test.csv" in f.message and r.exit_code == 1


def test_paths_files_that_all_hold_rows_declare_no_empty_split(tmp_path: Path) -> None:
    """Files of `manifest.paths` whose columns come in another order, one of them a single row: every split has
    rows, so no SPL006 and a pass."""
    r = _paths_audit(
        tmp_path,
        {
            "train": "sample_id,writer\n1,w1\n2,w2\n",
            "test": "writer,sample_id\nw7,5\n",
            "val": "writer,sample_id\nw8,3\nw9,4\n",
        },
    )
    assert "SPL006" not in codes(r) and r.exit_code == 0
    assert finding(r, "SPL000").evidence["splits"] == {"train": 2, "test": 1, "val": 2}


def test_a_paths_file_with_only_a_header_outside_the_declared_splits_is_not_a_holdout(tmp_path: Path) -> None:
    """splits.holdout given: a header-only file of a split it leaves out is neither train nor holdout (as that
    split with rows would be), so no SPL006 for it; the holdout named still has its rows."""
    r = _paths_audit(
        tmp_path,
        {"train": "sample_id\n1\n", "test": "sample_id\n", "val": "sample_id\n3\n"},
        splits={"train": ["train"], "holdout": ["val"]},
    )
    assert "SPL006" not in codes(r) and r.exit_code == 0


def test_allow_naming_a_missing_split(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test"]}, splits={"allow": [["train", "vall"]]}, only=ONLY)
    assert finding(r, "SPL008").key == "vall"


def test_normalized_split_name() -> None:
    assert normalized_split_name(" Test_") == normalized_split_name("test") == "test"
    assert normalized_split_name("val") != normalized_split_name("test")


def test_no_id_column_means_no_duplicate_check(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "a"], "split": ["train", "test"]}, only=ONLY)
    assert "SPL001" not in codes(r)


def test_allowing_a_pair_with_a_holdout_split_is_a_warning_with_the_config_line(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"sid": ["a", "a", "b"], "split": ["train", "test", "val"]})
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(
        "manifest: {path: m.csv, id: sid, split: split}\n"
        "splits:\n"
        "  train: [train, val]\n"
        "  holdout: [test]\n"
        "  allow:\n"
        "    - [train, val]\n"
        "    - [train, test]\n",
        encoding="utf-8",
    )
    r = run_audit(load_config(cfg), only=ONLY)
    f = finding(r, "SPL009")  # train and val are both train splits: no finding for that pair
    assert f.severity == "warning" and f.key == "train|test"
    assert f.evidence["pair"] == ["train", "test"] and f.evidence["roles"] == ["train", "holdout"]
    assert f.evidence["config"] == f"{cfg.resolve()}:7:7" and "splits.allow[1]" in f.message


def test_allowed_holdout_pairs_are_in_every_report_header(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "val", "test"]}, splits={"allow": [["val", "test"]]}, only=ONLY)
    assert finding(r, "SPL009").evidence["roles"] == ["holdout", "holdout"]
    header = "splits.allow exempts holdout pair(s)"
    markdown = render_markdown(r).split("### Findings")[0]
    assert header in markdown and "val–test" in markdown
    assert header in render_html(r).split("<h2>Stages</h2>")[0]
    assert render_terminal(r, width=200).splitlines()[1].startswith(header)
    plain = audit({"split": ["train", "test"]}, only=ONLY)
    assert header not in render_markdown(plain) + render_html(plain) + render_terminal(plain)


def test_allowed_pair_of_missing_split_is_not_an_exemption_warning(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test"]}, splits={"allow": [["train", "tset"]]}, only=ONLY)
    assert "SPL008" in codes(r) and "SPL009" not in codes(r)


SPELLINGS = [
    ("a", "a "),
    ("w1", "w1 "),
    ("w2", "W2"),
    ("9f86d0", "9F86D0"),
    ("Jos\u00e9", "Jose\u0301"),
    ("1.0", "1"),
    *SPELLING_VARIANT_KINDS,
]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(("a", "b"), SPELLINGS)
def test_id_spellings_across_splits_are_one_sample(audit, fmt: str, a: str, b: str) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": [a, "x", b, "w10"], "split": ["train", "train", "test", "test"]}
    r = audit(data, fmt=fmt, manifest={"id": "sid"}, only=["split_integrity"])
    f = finding(r, "SPL010")
    # One sample spelt two ways, trained on and evaluated: it fails like an exact repeat does.
    assert f.severity.value == "error" and f.evidence["ids"] == 1 and r.exit_code == 1
    spellings = f.examples[0]["spellings"]
    assert [s["spelling"] for s in spellings] == [a, b]
    assert [list(s["splits"]) for s in spellings] == [["train"], ["test"]]
    assert "SPL001" not in codes(r) and "SPL011" not in codes(r)


def test_id_spellings_across_two_holdout_splits_are_a_warning(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["x", "w1", "W1"], "split": ["train", "val", "test"]}
    r = audit(data, manifest={"id": "sid"}, only=["split_integrity"])
    assert finding(r, "SPL010").severity.value == "warning" and r.exit_code == 0


HOLDOUTS = {"train": ["train"], "holdout": ["val", "test"]}


@pytest.mark.parametrize(
    ("splits", "severity", "said"),
    [
        (HOLDOUTS, "warning", "in two holdout splits: the same sample is evaluated in both"),
        ({**HOLDOUTS, "allow": [["val", "test"]]}, "info", "in a split pair that splits.allow exempts"),
    ],
)
def test_id_spellings_across_holdout_splits_are_not_said_to_be_trained_on(  # type: ignore[no-untyped-def]
    audit, splits: dict[str, object], severity: str, said: str
) -> None:
    """`007` in val and `7` in test: no training row holds it, so 'trained on and evaluated' was wrong."""
    data = {"sid": ["1", "007", "7", "2"], "split": ["train", "val", "test", "val"]}
    r = audit(data, manifest={"id": "sid"}, splits=splits, only=ONLY)
    (f,) = [f for f in r.findings if f.code == "SPL010"]
    assert f.severity.value == severity and said in f.message and "trained on" not in f.message
    assert "'007' / '7'" in f.message


def test_id_spellings_across_several_kinds_of_pair_say_each(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["a1", "A1", "7", "007"], "split": ["train", "test", "val", "test"]}
    r = audit(data, manifest={"id": "sid"}, splits=HOLDOUTS, only=ONLY)
    f = finding(r, "SPL010")
    assert f.severity.value == "error" and f.evidence["pair_kinds"] == {"train-holdout": 1, "holdout-holdout": 1}
    assert "1 in a training and a holdout split: the same sample is trained on and evaluated" in f.message
    assert "1 in two holdout splits" in f.message


def test_an_id_repeated_in_two_holdout_splits_is_not_said_to_be_trained_on(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["1", "7", "7"], "split": ["train", "val", "test"]}
    f = finding(audit(data, manifest={"id": "sid"}, splits=HOLDOUTS, only=ONLY), "SPL001")
    assert "evaluated in two holdout splits" in f.message and "trained on" not in f.message
    # Across train and test, it still is.
    data = {"sid": ["1", "7", "7"], "split": ["train", "train", "test"]}
    f = finding(audit(data, manifest={"id": "sid"}, splits=HOLDOUTS, only=ONLY), "SPL001")
    assert f.message.endswith("the same sample is trained on and evaluated.") and f.severity.value == "error"


def test_id_spellings_within_a_split_are_a_repeat_in_disguise(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["w2", "W2", "w1", "w10", "t"], "split": ["train", "train", "train", "train", "test"]}
    r = audit(data, manifest={"id": "sid"}, only=["split_integrity"])
    f = finding(r, "SPL011")
    assert f.examples[0]["value"] == "w2" and "SPL010" not in codes(r)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_exact_and_distinct_ids_are_not_spelling_findings(audit, fmt: str) -> None:  # type: ignore[no-untyped-def]
    ids = ["a", "a", "w1", "w10"] + [v for pair in DIFFERENT_LOOKALIKES for v in pair if v not in ("w1", "1000")]
    data = {"sid": ids, "split": (["train", "test"] * len(ids))[: len(ids)]}
    r = audit(data, fmt=fmt, manifest={"id": "sid"}, only=["split_integrity"])
    assert "SPL010" not in codes(r) and "SPL011" not in codes(r) and "SPL001" in codes(r)


def test_accepted_id_spelling_is_shown_not_failing(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["a", "A", "b", "B "], "split": ["train", "test", "train", "test"]}
    accept = [{"code": "SPL010", "key": "A", "values": ["a", "A"], "reason": "two scans of one sample, on purpose"}]
    r = audit(data, manifest={"id": "sid"}, accept=accept, only=["split_integrity"])
    live = finding(r, "SPL010")
    assert live.evidence["ids"] == 1 and live.examples[0]["value"] == "b"
    accepted = [f for f in r.findings if f.code == "SPL010" and f.accepted]
    assert len(accepted) == 1 and accepted[0].key == "A"


def test_split_sizes_cost_no_copy_of_every_rows_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sizes come from the manifest's count made a block at a time: a mask, a copy and bincount's int64
    copy of a million rows' codes (13 MB) would be made here otherwise."""
    import tracemalloc

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    import yaml

    from auditor.stages.data.split_integrity import SplitIntegrity

    rows = 1_000_000
    split = np.array(["train", "val", "test"])[np.arange(rows) % 3]
    pq.write_table(pa.table({"split": split}), tmp_path / "m.parquet")
    config = tmp_path / "audit.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "manifest": {"path": "m.parquet", "split": "split"},
                "splits": {"train": ["train"], "holdout": ["val", "test"]},
            }
        )
    )
    peaks: list[int] = []
    real_run = SplitIntegrity.run

    def run(self: SplitIntegrity, context: object) -> object:
        context.require_manifest().rows_per_split()  # type: ignore[attr-defined]  # counted before, as the runner does
        # The files' digest is read in 4 MB blocks on a background thread, which tracemalloc would count too.
        assert context.require_manifest().sha256  # type: ignore[attr-defined]
        # Once untraced: the modules it imports are compiled then (where no bytecode was written), not counted.
        list(real_run(self, context))  # type: ignore[arg-type]
        tracemalloc.start()
        try:
            found = list(real_run(self, context))  # type: ignore[arg-type]
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        return iter(found)

    monkeypatch.setattr(SplitIntegrity, "run", run)
    report = run_audit(load_config(config), only=["split_integrity"])
    assert "SPL000" in codes(report)
    assert peaks and peaks[0] < 2_000_000  # a few bytes a split and finding, not bytes a row


def test_an_accepted_spelling_binds_to_the_spellings_reviewed(audit) -> None:  # type: ignore[no-untyped-def]
    """`Test` and `test` reviewed as one split: an entry naming the value but no spellings accepts nothing (ACC002,
    naming the spellings to record); one recording them accepts; a new spelling (`TEST`) escalates the finding."""
    data = {"sid": ["a", "b", "c"], "split": ["train", "Test", "test"]}
    entry = {"code": "SPL004", "key": "test", "reason": "one export, two spellings"}
    bare = audit(data, manifest={"id": "sid"}, accept=[entry], only=["split_integrity"])
    (acc,) = [f for f in bare.findings if f.code == "ACC002"]
    assert bare.exit_code == 1 and not finding(bare, "SPL004").accepted
    assert 'values: ["Test", "test"]' in acc.message
    recorded = {**entry, "values": ["Test", "test"]}
    assert audit(data, manifest={"id": "sid"}, accept=[recorded], only=["split_integrity"]).exit_code == 0
    grown = {"sid": [*data["sid"], "d"], "split": [*data["split"], "TEST"]}
    report = audit(grown, manifest={"id": "sid"}, accept=[recorded], only=["split_integrity"])
    spelled = finding(report, "SPL004")
    assert report.exit_code == 1 and not spelled.accepted
    assert spelled.escalated is not None and spelled.escalated.new_values == ("TEST",)
