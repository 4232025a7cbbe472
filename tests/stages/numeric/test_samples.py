"""The numeric samples: each buggy program is found out, its fixed twin passes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from auditor import run_audit
from auditor.core.findings import Severity
from tests.conftest import REPO

SAMPLES = REPO / "sample_data" / "numeric"


def audit_copy(tmp_path: Path, name: str):  # type: ignore[no-untyped-def]
    target = tmp_path / name
    shutil.copytree(SAMPLES / name, target, ignore=shutil.ignore_patterns("audit-report", "__pycache__"))
    return run_audit(target / "audit.yaml")


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        ("regression/buggy", {"BAT002", "BRD001", "BRD003", "GRD004", "NAN001"}),
        ("language_model/buggy", {"SMX001", "TOK001", "TOK002", "TOK003", "TOK006"}),
        ("sequence_mixing/buggy", {"BIX001"}),
        ("eval_dropout/buggy", {"EVM001"}),
        ("classifier/buggy", {"ACT001", "STP001", "STP004"}),
        ("binary_classifier/buggy", {"ACT002", "ACT005", "STP003", "STP006"}),
        ("dqn/buggy", {"STP002", "STP004"}),
        ("ticket_router/buggy", {"ACT004", "STP005"}),
        ("demand_alarm/buggy", {"ACT003", "EVM002", "GRD002", "GRD003", "STP004"}),
        ("self_attention/buggy", {"SMX005"}),
        ("vae/buggy", {"ACT005", "EVM001"}),
        ("padding_mask/buggy", {"GRD003", "TOK006"}),
    ],
)
def test_buggy_programs_are_found_out(tmp_path: Path, sample: str, expected: set[str]) -> None:
    report = audit_copy(tmp_path, sample)
    found = {f.code for f in report.findings if f.severity >= Severity.WARNING}
    assert found == expected and report.exit_code == 1


@pytest.mark.parametrize(
    "sample",
    [
        "regression/fixed",
        "language_model/fixed",
        "sequence_mixing/fixed",
        "eval_dropout/fixed",
        "classifier/fixed",
        "binary_classifier/fixed",
        "dqn/fixed",
        "ticket_router/fixed",
        "demand_alarm/fixed",
        "self_attention/fixed",
        "vae/fixed",
        "padding_mask/fixed",
    ],
)
def test_fixed_programs_pass(tmp_path: Path, sample: str) -> None:
    report = audit_copy(tmp_path, sample)
    assert [f.code for f in report.findings if f.severity >= Severity.WARNING] == []
    assert report.exit_code == 0 and all(s.status in ("passed", "skipped") for s in report.stages)


def test_the_batch_mixing_view_is_named_with_its_line(tmp_path: Path) -> None:
    report = audit_copy(tmp_path, "sequence_mixing/buggy")
    f = next(f for f in report.findings if f.code == "BIX001")
    source = (SAMPLES / "sequence_mixing" / "buggy" / "src" / "tagger.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source, start=1) if "h = h.view(t, n, WIDTH)" in text)
    assert f.evidence["op"] == "view" and f.evidence["at"].endswith(f"tagger.py:{line}")
    assert f.evidence["input_shapes"] == [[4, 6, 16]] and f.evidence["op_output_shape"] == [6, 4, 16]


def test_dropout_left_on_is_named_with_its_line(tmp_path: Path) -> None:
    report = audit_copy(tmp_path, "eval_dropout/buggy")
    f = next(f for f in report.findings if f.code == "EVM001")
    source = (SAMPLES / "eval_dropout" / "buggy" / "src" / "sentiment.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source, start=1) if "training=True" in text)
    assert f.evidence["op"] == "dropout" and f.evidence["at"].endswith(f"sentiment.py:{line}")
    assert f.evidence["first"] != f.evidence["second"]


@pytest.mark.parametrize("sample", ["dqn/buggy", "dqn/fixed"])
def test_the_target_network_and_batch_norm_are_infos_in_both_dqn_twins(tmp_path: Path, sample: str) -> None:
    report = audit_copy(tmp_path, sample)
    codes = {f.code: f for f in report.findings}
    held = codes["GRD007"]
    assert held.severity == Severity.INFO and held.evidence["modules"] == ["target.0", "target.1", "target.3"]
    assert codes["BIX002"].severity == Severity.INFO and "online.1, target.1" in codes["BIX002"].message
    assert not {"GRD002", "GRD004", "BIX001"} & set(codes)


def test_the_mixed_reduction_names_the_sum_and_the_mean(tmp_path: Path) -> None:
    report = audit_copy(tmp_path, "binary_classifier/buggy")
    f = next(f for f in report.findings if f.code == "ACT005")
    source = (SAMPLES / "binary_classifier" / "buggy" / "src" / "spam.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source, start=1) if "scores.pow(2).sum()" in text)
    summed, averaged = f.examples
    assert summed["op"] == "sum" and summed["at"].endswith(f"spam.py:{line}")
    assert averaged["op"] == "binary_cross_entropy_with_logits" and averaged["at"].endswith(f"spam.py:{line + 1}")
    assert f.evidence["loss_twice"] > f.evidence["loss_once"]


def test_the_stuck_q_network_is_named_and_the_missing_call_said(tmp_path: Path) -> None:
    report = audit_copy(tmp_path, "dqn/buggy")
    f = next(f for f in report.findings if f.code == "STP002")
    assert all(name.startswith("online.") for name in f.evidence["parameters"])
    assert "never called optimizer.step()" in f.message


def test_the_unscaled_attention_scores_are_named_with_their_lines(tmp_path: Path) -> None:
    report = audit_copy(tmp_path, "self_attention/buggy")
    f = next(f for f in report.findings if f.code == "SMX005")
    source = (SAMPLES / "self_attention" / "buggy" / "src" / "intent.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source, start=1) if "scores = q @ k.transpose(-2, -1)" in text)
    assert f.evidence["product_at"].endswith(f"intent.py:{line}") and f.evidence["softmax_at"].endswith(
        f"intent.py:{line + 1}"
    )
    # What the sample's README says of it.
    assert f.evidence["d"] == 64 and f.evidence["keys"] == 12
    assert round(f.evidence["spread"], 1) == 2.6 and round(f.evidence["scaled_spread"], 2) == 0.33
    assert round(f.evidence["peak"], 1) == 0.6 and round(f.evidence["scaled_peak"], 2) == 0.14


def test_the_vae_mixes_its_reductions_and_samples_in_eval(tmp_path: Path) -> None:
    report = audit_copy(tmp_path, "vae/buggy")
    codes = {f.code: f for f in report.findings}
    source = (SAMPLES / "vae" / "buggy" / "src" / "digits_vae.py").read_text().splitlines()
    summed = next(i for i, text in enumerate(source, start=1) if 'reduction="sum"' in text)
    sampled = next(i for i, text in enumerate(source, start=1) if "torch.randn_like(std)" in text)
    mixed = codes["ACT005"]
    assert [e["op"] for e in mixed.examples] == ["binary_cross_entropy_with_logits", "mean"]
    assert mixed.examples[0]["at"].endswith(f"digits_vae.py:{summed}")
    assert mixed.examples[1]["at"].endswith(f"digits_vae.py:{summed + 1}")
    assert "(here the averaged term is 0.0014% of the loss at initialisation)" in mixed.message
    assert codes["EVM001"].evidence["op"] == "randn_like"
    assert codes["EVM001"].evidence["at"].endswith(f"digits_vae.py:{sampled}")


def test_the_inverted_padding_mask_of_a_classifier_is_found(tmp_path: Path) -> None:
    report = audit_copy(tmp_path, "padding_mask/buggy")
    f = next(f for f in report.findings if f.code == "TOK006")
    assert f.evidence["mask"] == "attention_mask" and f.evidence["pad_id"] == 0
    assert f.evidence["real_tokens_masked"] is True and f.evidence["unpadded"] == "nan"
    assert "attention_mask == 0" in f.remediation
