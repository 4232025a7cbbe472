"""Property-based fuzz of the config loader and the manifest readers: typed errors only, never a crash.

The suite runs a small, derandomized count; `AUDITOR_FUZZ_EXAMPLES=10000 python -m pytest
tests/hostile/test_fuzz.py` is the large run (figures in bench/README.md).
"""

from __future__ import annotations

import os
import string
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import load_config, run_audit
from auditor.core.errors import AuditError
from auditor.manifest.table import load_manifest

EXAMPLES = int(os.environ.get("AUDITOR_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

SECTION_KEYS = {
    "manifest": ["path", "paths", "id", "split", "format", "pathz"],
    "splits": ["train", "holdout", "allow", "trian"],
    "keys": ["groups", "sources", "content_hash", "content_path", "label", "time", "entity", "text", "epoch_unit"],
    "report": ["out_dir", "formats", "fail_on"],
    "stages": ["group_overlap", "split_integrity", "temporal_order", "nope"],
    "numeric": ["python_path", "model", "batch", "loss", "timeout_s"],
    "accept": [],
    "fitted": [],
    "roots": [],
    "version": [],
}
WORDS = ["manifest.csv", "split", "sample_id", "writer", "train", "test", "val", "error", "json", "..", "/etc/passwd",
         "m.parquet", "*.csv", "a:b", "", " ", "-5", "Test", "enabled"]  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    st.sampled_from(WORDS),
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(WORDS) | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for section in draw(st.lists(st.sampled_from(sorted(SECTION_KEYS)), max_size=6, unique=True)):
        keys = SECTION_KEYS[section]
        if keys and draw(st.booleans()):
            config[section] = {k: draw(values) for k in draw(st.lists(st.sampled_from(keys), max_size=4, unique=True))}
        else:
            config[section] = draw(values)
    return config


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


VALID = _dump({"version": 1, "manifest": {"path": "manifest.csv", "split": "split"}, "keys": {"groups": ["writer"]}})


@st.composite
def mutated_yaml(draw: st.DrawFn) -> str:
    """A valid config with a few characters inserted, deleted or replaced: typos, stray brackets, tabs."""
    text = VALID
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        junk = draw(st.text(alphabet=string.printable + "&*!|>%@`\t\u00e9", max_size=3))
        cut = draw(st.integers(0, 3))
        text = text[:at] + junk + text[at + cut :]
    return text


MANIFEST = "sample_id,split,writer\na,train,w1\nb,test,w1\n"


def _load_text(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "manifest.csv").write_text(MANIFEST)
        path = Path(tmp) / "audit.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            loaded = load_config(path)
        except AuditError:
            return
        try:
            run_audit(loaded)
        except AuditError:
            return


@FUZZ
@given(configs())
def test_structured_configs_give_a_config_or_a_config_error(config: dict[str, Any]) -> None:
    _load_text(_dump(config))


@FUZZ
@given(mutated_yaml())
def test_mutated_yaml_gives_a_config_or_a_config_error(text: str) -> None:
    _load_text(text)


@FUZZ
@given(st.text(max_size=400))
def test_arbitrary_text_as_config(text: str) -> None:
    _load_text(text)


cells = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["train", "test", "val", "Test", "train ", "", "w1", "W1", "1", "1.0", "NaN", "null"]),
    st.text(max_size=8),
    st.booleans(),
)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[list[Any]]]:
    columns = [
        "sample_id",
        "split",
        "writer",
        *draw(st.lists(st.sampled_from(["writer", "x", "split", ""]), max_size=2)),
    ]
    rows = draw(st.lists(st.lists(cells, min_size=len(columns), max_size=len(columns)), max_size=12))
    return columns, rows


def _audit_manifest(tmp: Path, name: str) -> None:
    config = {"version": 1, "manifest": {"path": name, "id": "sample_id", "split": "split"},
              "keys": {"groups": ["writer"]}, "report": {"formats": []}}  # fmt: skip
    (tmp / "audit.yaml").write_text(_dump(config))
    try:
        loaded = load_config(tmp / "audit.yaml")
        load_manifest(loaded).close()
        run_audit(loaded)
    except AuditError:
        return


def _csv_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') else text


@FUZZ
@given(tables(), st.sampled_from(["csv", "tsv", "jsonl", "parquet"]))
def test_random_tables_give_a_manifest_or_a_manifest_error(table: tuple[list[str], list[list[Any]]], fmt: str) -> None:
    columns, rows = table
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        path = tmp / f"m.{fmt}"
        if fmt in ("csv", "tsv"):
            sep = "," if fmt == "csv" else "\t"
            lines = [sep.join(columns)] + [sep.join(_csv_cell(v) for v in row) for row in rows]
            path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        elif fmt == "jsonl":
            import json

            path.write_text("".join(json.dumps(dict(zip(columns, row, strict=True))) + "\n" for row in rows))
        else:
            arrays = [
                pa.array([None if v is None else str(v) for v in col], pa.string()) for col in zip(*rows, strict=True)
            ]
            if not rows:
                arrays = [pa.array([], pa.string()) for _ in columns]
            try:
                pq.write_table(pa.Table.from_arrays(arrays, names=columns), path)
            except (pa.ArrowException, UnicodeEncodeError):
                return
        _audit_manifest(tmp, path.name)


@FUZZ
@given(st.binary(max_size=600), st.sampled_from(["csv", "jsonl", "parquet", "csv.gz"]))
def test_arbitrary_bytes_as_a_manifest(data: bytes, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / f"m.{fmt}").write_bytes(data)
        _audit_manifest(tmp, f"m.{fmt}")
