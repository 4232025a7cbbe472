"""The customer-churn sample: the planted label proxy is the one error, and the 20 near-copied customers are
what its README says they are."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pandas as pd

from auditor.core.findings import Report
from tests.conftest import REPO, SampleReports

SAMPLE = REPO / "sample_data" / "customer_churn"


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_churn_sample", SAMPLE / "make_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report(sample_report: SampleReports) -> Report:
    return sample_report("customer_churn")


def test_the_manifest_is_what_the_builder_writes() -> None:
    committed = pd.read_csv(SAMPLE / "manifest.csv", dtype=str, keep_default_na=False)
    built = _builder().manifest().astype(str)
    pd.testing.assert_frame_equal(committed, built)


def test_the_audit_fails_on_the_proxy_and_the_near_copied_customers_and_on_nothing_else(
    sample_report: SampleReports,
) -> None:
    report = _report(sample_report)
    assert report.exit_code == 1
    failing = [(f.code, f.key) for f in report.findings if f.severity.value != "info"]
    assert failing == [("FLK001", "closed_account_date"), ("NDP009", "features")]
    (near,) = [f for f in report.findings if f.code == "NDP009"]
    assert near.scope is not None
    assert sorted(near.scope.values) == sorted(f"{original} ~ {copy}" for copy, original in _builder().copies())
    (proxy,) = [f for f in report.findings if f.code == "FLK001"]
    assert proxy.evidence["score"] == 1.0 and proxy.evidence["best_legitimate"]["column"] == "support_calls"
    assert "'support_calls', reaches 0.637" in proxy.message and "30.9% 'yes'" in proxy.message


def test_the_twenty_test_customers_copy_training_customers_as_the_readme_says() -> None:
    df = pd.read_csv(SAMPLE / "manifest.csv", dtype={"closed_account_date": str}, keep_default_na=False)
    by_id = df.set_index("customer_id")
    pairs = _builder().copies()
    assert len(pairs) == 20 and pairs[:2] == [("CU-20001", "CU-10398"), ("CU-20002", "CU-10745")]
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    assert "`CU-20001` copies `CU-10398`" in readme and "`CU-20002` copies `CU-10745`" in readme
    same = ["signup_date", "region", "plan", "tenure_months", "support_calls", "closed_account_date", "churned"]
    for copy, original in pairs:
        a, b = by_id.loc[copy], by_id.loc[original]
        assert a["split"] == "test" and b["split"] == "train"
        assert (a[same] == b[same]).all(), copy
        assert a["annual_income"] == round(b["annual_income"] / 1000) * 1000
        assert abs(a["monthly_charges"] / b["monthly_charges"] - 1) < 0.04
    # No other test customer matches a training customer on every one of those columns.
    test, train = df[df["split"] == "test"], df[df["split"] == "train"]
    matched = test.merge(train, on=same, suffixes=("", "_train"))
    assert sorted(zip(matched["customer_id"], matched["customer_id_train"], strict=True)) == sorted(pairs)
