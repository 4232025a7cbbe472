"""Fixtures that build tiny manifests and configs in a temp directory."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import settings

from auditor import load_config, run_audit
from auditor.core.findings import Report
from auditor.numeric import pool

# Property tests explore the same examples on every run: a failure is reproducible, never flaky; and no example
# fails for the machine's speed (no deadline), whatever a test's own settings say of the rest.
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.load_profile("deterministic")

REPO = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run the tests marked slow (CI=true runs them too)")


def runs_slow(run_slow: bool, ci: str | None) -> bool:
    """Whether the slow tests run: asked for with --run-slow, or in CI (CI set to anything but a false value)."""
    return run_slow or (ci or "").strip().lower() not in ("", "0", "false", "no")


def pytest_configure(config: pytest.Config) -> None:
    from tests.examples import full_runs

    full_runs(runs_slow(config.getoption("--run-slow"), os.environ.get("CI")))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long property and fuzz runs are for CI: skipped unless CI is set or --run-slow is given."""
    if runs_slow(config.getoption("--run-slow"), os.environ.get("CI")):
        return
    skip = pytest.mark.skip(reason="slow: runs in CI (CI=true) or with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _warm_children() -> Iterator[None]:
    """Numeric audits run in the test process take a warm child (auditor/numeric/pool.py): one audit each."""
    pool.warm_pool(int(os.environ.get(pool.POOL_ENV, "").strip() or "1"))
    yield
    pool.warm_pool(0)


SampleReports = Callable[[str], Report]


@pytest.fixture(scope="session")
def sample_report() -> SampleReports:
    """sample_report(name) -> the Report of sample_data/<name>, audited once per test run (reports are frozen)."""
    return cache(lambda name: run_audit(REPO / "sample_data" / name / "audit.yaml"))


@pytest.fixture
def cold_children() -> Iterator[None]:
    """The default path, no pool: for the tests that guard how a child is started and ended."""
    before = pool.current_pool()
    pool.warm_pool(0)
    yield
    pool.warm_pool(before.size if before is not None else 0)


# One value in two spellings, for each kind the spelling checks must see through: format characters, full-width
# forms, a ligature, other scripts' digits, full case folding, numbers with an exponent.
SPELLING_VARIANT_KINDS = [
    ("w1", "w\u200b1"),  # zero-width space inside
    ("w1", "w1\u200d"),  # zero-width joiner at the end
    ("w1", "w\ufeff1"),  # a byte-order mark inside
    ("coop", "co\u00adop"),  # soft hyphen
    ("w1", "\uff57\uff11"),  # full-width w1
    ("12", "\uff11\uff12"),  # full-width digits
    ("file", "\ufb01le"),  # the ligature ﬁ
    ("1", "\u0661"),  # Arabic-Indic digit one
    ("strasse", "stra\u00dfe"),  # sharp s folds to ss
    ("1000", "1e3"),  # an exponent, read by value
    ("1000.0", "\u0661\u0660\u0660\u0660"),  # Arabic-Indic 1000
]
# Different values that look alike: never one value in two spellings.
DIFFERENT_LOOKALIKES = [("w1", "w11"), ("w1", "w01"), ("A-1", "A1"), ("1e3", "1001"), ("0x10", "16"), ("1,000", "1000")]


def write_table(path: Path, data: dict[str, list[Any]] | pd.DataFrame) -> Path:
    """Write ``data`` in the format the file extension names."""
    df = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix
    if suffix == ".csv":
        df.to_csv(path, index=False)
    elif suffix == ".tsv":
        df.to_csv(path, index=False, sep="\t")
    elif suffix == ".parquet":
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
    elif suffix == ".jsonl":
        df.to_json(path, orient="records", lines=True)
    else:
        raise ValueError(suffix)
    return path


def write_config(directory: Path, config: dict[str, Any], name: str = "audit.yaml") -> Path:
    path = directory / name
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


AuditFn = Callable[..., Report]


@pytest.fixture
def audit(tmp_path: Path) -> AuditFn:
    """audit(data, fmt="csv", **sections) -> Report, for a manifest written under tmp_path."""

    def run(
        data: dict[str, list[Any]] | pd.DataFrame,
        fmt: str = "csv",
        only: list[str] | None = None,
        **sections: Any,
    ) -> Report:
        write_table(tmp_path / f"manifest.{fmt}", data)
        config: dict[str, Any] = {"version": 1, "manifest": {"path": f"manifest.{fmt}", "split": "split"}}
        manifest_extra = sections.pop("manifest", {})
        config["manifest"].update(manifest_extra)
        config.update(sections)
        path = write_config(tmp_path, config)
        return run_audit(load_config(path), only=only)

    return run


def report_of(stages: tuple[Any, ...], **fields: Any) -> Report:
    """A report of ``stages`` (StageResults) with fixed metadata; ``fields`` override any of it."""
    from auditor.core.findings import exit_code_for, summarize

    base: dict[str, Any] = {
        "tool_version": "0",
        "generated_at": "2024-01-01T00:00:00+00:00",
        "config_path": None,
        "config_sha256": None,
        "manifest": None,
        "fail_on": "error",
        "stages": stages,
        "summary": summarize(stages),
        "exit_code": exit_code_for(stages, "error"),
    }
    return Report(**{**base, **fields})


def with_stage_disabled(report: Report, stage: str) -> Report:
    """``report`` with ``stage`` skipped as a config's ``enabled: false`` skips it."""
    from auditor.core.findings import StageResult

    why = f"disabled in the config (stages.{stage}.enabled: false)"
    disabled = StageResult(stage=stage, status="skipped", duration_s=0.0, skip_reason=why)
    return report.model_copy(update={"stages": (*(r for r in report.stages if r.stage != stage), disabled)})


def codes(report: Report) -> list[str]:
    return [f.code for f in report.findings]


def finding(report: Report, code: str):  # type: ignore[no-untyped-def]
    matches = [f for f in report.findings if f.code == code and not f.accepted]
    assert len(matches) == 1, f"expected one {code}, got {[f.code for f in report.findings]}"
    return matches[0]
