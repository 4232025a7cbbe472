"""The hostile corpus: bad, odd and adversarial inputs a new user (or a careless script) gives the audit.

Each case is generated in code under a temp dir. Groups: configs, manifests, artifacts, user code, the
command line, and interrupted runs. What each must produce is stated with it; the shared promises (no
traceback, no hang, no false pass, no stale verdict) are checked for all by the harness.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tests import forked
from tests.hostile.harness import CLEAN_CSV, LEAKY_CSV, Case, Outcome, project, raw_config

CASES: list[Case] = []
LEAK = frozenset({1, 2})  # a planted leak: found (1) or the audit could not run (2), never 0
FOUND = frozenset({1})


def case(name: str, build: Callable[[Path], list[str]], **kw: Any) -> None:
    CASES.append(Case(name=name, build=build, **kw))


def run_args(config: Path, *extra: str) -> list[str]:
    return ["run", str(config), *extra]


def has_codes(*wanted: str) -> Callable[[Outcome], None]:
    def check(outcome: Outcome) -> None:
        found = outcome.codes()
        for code in wanted:
            assert code in found, f"expected {code} in the report, found {found}"

    return check


def no_report(outcome: Outcome) -> None:
    assert not (outcome.out_dir / "report.json").exists() or outcome.report().get("status") != "completed"  # type: ignore[union-attr]


# --------------------------------------------------------------------------------------------- configs
def _yaml(text: str, manifest: str | None = LEAKY_CSV) -> Callable[[Path], list[str]]:
    return lambda tmp: run_args(raw_config(tmp, textwrap.dedent(text), manifest))


FEATURES = "sample_id,split,writer,f1\na,train,w1,1.0\nb,train,w2,2.0\nc,test,w3,3.0\nd,test,w4,4.0\n"
BASE = "version: 1\nmanifest: {path: manifest.csv, id: sample_id, split: split}\nkeys: {groups: [writer]}\n"
case("config-empty", _yaml(""), says=("empty",))
case("config-only-comment", _yaml("# nothing\n"), says=("empty",))
case("config-a-list", _yaml("- a\n- b\n"), says=("mapping",))
case("config-a-scalar", _yaml("hello\n"), says=("mapping",))
case("config-invalid-yaml", _yaml("manifest: {path: [\n"), says=("audit.yaml",))
case("config-tab-indent", _yaml("manifest:\n\tpath: manifest.csv\n"), says=("audit.yaml",))
case("config-typo-section", _yaml(BASE + "keyz: {label: x}\n"), says=("keyz", "keys"))
case("config-typo-key", _yaml(BASE.replace("split: split", "splt: split")), says=("splt",))
case("config-wrong-type", _yaml(BASE + "report: {fail_on: 3}\n"), says=("fail_on",))
case("config-duplicate-key", _yaml(BASE + "keys: {label: x}\n"), says=("keys",))
case("config-version-2", _yaml(BASE.replace("version: 1", "version: 2")), says=("version",))
case("config-no-sections", _yaml("version: 1\n"), says=("manifest",))
case("config-not-utf8", lambda tmp: run_args(_bytes(tmp, b"version: 1\nmanifest: {path: \xff\xfe}\n")))
case("config-binary-junk", lambda tmp: run_args(_bytes(tmp, bytes(range(256)) * 4)))
case("config-missing-file", lambda tmp: run_args(tmp / "nope.yaml"), says=("nope.yaml", "not found"))
case("config-is-directory", lambda tmp: run_args(tmp), says=("directory",))
case("config-symlink-loop", lambda tmp: run_args(_loop(tmp)), says=("audit.yaml",))
case("config-nul-in-path", lambda tmp: ["run", str(tmp / "a\x00b.yaml")], says=("nul",))
case(
    "config-unknown-stage-options",
    _yaml(BASE + "stages: {group_overlapp: {enabled: false}}\n"),
    says=("group_overlapp",),
)
case("config-stage-option-typo", _yaml(BASE + "stages: {group_overlap: {max_exampels: 3}}\n"), says=("max_exampels",))
case(
    "config-negative-max-examples",
    _yaml(BASE + "stages: {group_overlap: {max_examples: -5}}\n"),
    says=("max_examples",),
)
case("config-accept-without-reason", _yaml(BASE + "accept: [{code: GRP001, key: w1}]\n"), says=("reason",))
case("config-bad-fail-on", _yaml(BASE + "report: {fail_on: sometimes}\n"), says=("fail_on",))
case("config-bad-format", _yaml(BASE + "report: {formats: [pdf]}\n"), says=("pdf",))
case("config-unknown-train-split", _yaml(BASE + "splits: {train: [trian]}\n"), exits=LEAK, leak=True)
case("config-group-column-missing", _yaml(BASE.replace("[writer]", "[wrter]")), says=("wrter",))
case("config-manifest-missing", _yaml(BASE, manifest=None), says=("manifest.csv",))
case("config-manifest-glob-nothing", _yaml(BASE.replace("manifest.csv", "shards/*.parquet")), says=("shards",))
case("config-numeric-bad-reference", _yaml(BASE + "numeric: {model: 'no colon', batch: 'a:b', loss: 'a:c'}\n"))
case(
    "config-alias-bomb-7",
    _yaml(
        "a: &a [x,x,x,x,x,x,x,x,x]\n"
        + "".join(
            f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
            for p, c in zip("abcdef", "bcdefg", strict=True)
        )
    ),
    timeout=15,
)
case(
    "config-alias-bomb-9",
    _yaml(
        "a: &a [x,x,x,x,x,x,x,x,x]\n"
        + "".join(
            f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        )
    ),
    timeout=15,
)
case("config-huge-string", _yaml(BASE + "report: {out_dir: '" + "x" * 300 + "'}\n"))
case("config-allow-train-test", _yaml(BASE + "splits: {allow: [[train, test]]}\n"), exits=frozenset({0, 1}))
case(
    "config-fitted-missing-artifact",
    _yaml(
        BASE + "fitted: [{name: s, kind: standardize, artifact: nope.json, columns: [f1], fitted_on: [train]}]\n",
        manifest=FEATURES,
    ),
    says=("nope.json",),
)


def _bytes(tmp: Path, data: bytes) -> Path:
    (tmp / "manifest.csv").write_text(LEAKY_CSV)
    path = tmp / "audit.yaml"
    path.write_bytes(data)
    return path


def _loop(tmp: Path) -> Path:
    (tmp / "audit.yaml").symlink_to(tmp / "other.yaml")
    (tmp / "other.yaml").symlink_to(tmp / "audit.yaml")
    return tmp / "audit.yaml"


# ------------------------------------------------------------------------------------------- manifests
def _manifest(text: str | bytes, name: str = "manifest.csv", **sections: Any) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        path = tmp / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return run_args(project(tmp, None, name=name, **sections))

    return build


case("csv-empty-file", _manifest(""), says=("manifest.csv",))
case("csv-header-only", _manifest("sample_id,split,writer\n"))
case(
    "csv-stray-header-mid-file",
    _manifest(LEAKY_CSV + "sample_id,split,writer,sha\ne,train,w9,d9\n"),
    says=("manifest.csv",),
)
case(
    "csv-header-repeated-in-another-order",
    _manifest(LEAKY_CSV.replace("c,test", "split,sample_id,writer,sha\ntest,c", 1)),
    says=("manifest.csv:4", "another column order"),
)
case("csv-bom", _manifest("\ufeff" + LEAKY_CSV), exits=FOUND, leak=True)
case("csv-crlf", _manifest(LEAKY_CSV.replace("\n", "\r\n")), exits=FOUND, leak=True)
case("csv-ragged-row", _manifest(LEAKY_CSV + "e,train\n"), says=("manifest.csv",))
case("csv-too-many-fields", _manifest(LEAKY_CSV + "e,train,w1,d1,extra\n"), says=("manifest.csv",))
case(
    "csv-duplicate-columns", _manifest("sample_id,split,writer,writer\na,train,w1,w1\nb,test,w1,w1\n"), says=("writer",)
)
case("csv-missing-split-column", _manifest("sample_id,writer\na,w1\n"), says=("split",))
case(
    "csv-null-splits",
    _manifest("sample_id,split,writer,sha\na,train,w1,d\nb,,w1,d\nc,test,w1,d\n"),
    exits=LEAK,
    leak=True,
)
case("csv-one-split", _manifest("sample_id,split,writer,sha\na,train,w1,d\nb,train,w1,d\n"), exits=frozenset({0, 1, 2}))
case("csv-binary-junk", _manifest(os.urandom(0) + bytes(range(256)) * 20), says=("manifest.csv",))
case(
    "csv-not-utf8", _manifest(b"sample_id,split,writer,sha\na,train,w\xe91,d\nb,test,w\xe91,d\n"), exits=LEAK, leak=True
)
case(
    "csv-quoted-newlines",
    _manifest('sample_id,split,writer,sha\n"a\nb",train,w1,d\nc,test,w1,e\n'),
    exits=LEAK,
    leak=True,
)
case(
    "csv-unclosed-quote-swallows-rows",
    _manifest('sample_id,split,writer,sha\na,train,w1,d1\nb,train,"w2,d2\nc,test,w1,d1\nd,test,w3",d3\n'),
    exits=LEAK,
    leak=True,
    says=("manifest.csv:3", "quote"),
)
case("csv-semicolon-named-csv", _manifest(LEAKY_CSV.replace(",", ";")), says=("manifest.csv",))
case(
    "csv-huge-cell",
    _manifest("sample_id,split,writer,sha\na,train,w1," + "d" * 3_500_000 + "\nb,test,w1,e\n"),
    exits=LEAK,
    leak=True,
    timeout=60,
)
case(
    "csv-ids-float-vs-int",
    _manifest("sample_id,split,writer,sha\n1,train,w1,d1\n1.0,test,w2,d2\n"),
    exits=frozenset({0, 1}),
    check=lambda o: _spelling_flagged(o, "1.0"),
)
case(
    "csv-trailing-space-writer",
    _manifest("sample_id,split,writer,sha\na,train,w1,d1\nb,test,w1 ,d2\n"),
    exits=frozenset({0, 1}),
    check=lambda o: _spelling_flagged(o, "w1"),
)
case(
    "csv-case-writer",
    _manifest("sample_id,split,writer,sha\na,train,W2,d1\nb,test,w2,d2\n"),
    exits=frozenset({0, 1}),
    check=lambda o: _spelling_flagged(o, "w2"),
)
case(
    "csv-nfd-writer",
    _manifest("sample_id,split,writer,sha\na,train,Jos\u00e9,d1\nb,test,Jose\u0301,d2\n"),
    exits=frozenset({0, 1}),
    check=lambda o: _spelling_flagged(o, "jos"),
)
case(
    "csv-hex-case-digest",
    _manifest(
        "sample_id,split,writer,sha\na,train,w1,9f86d0\nb,test,w2,9F86D0\n",
        keys={"groups": ["writer"], "content_hash": "sha"},
    ),
    exits=frozenset({0, 1}),
    check=lambda o: _spelling_flagged(o, "9f86d0"),
)
case(
    "csv-id-trailing-space",
    _manifest("sample_id,split,writer,sha\na,train,w1,d1\na ,test,w2,d2\n"),
    exits=frozenset({0, 1}),
    check=lambda o: _spelling_flagged(o, "a"),
)
case(
    "csv-column-under-two-spellings",
    _manifest("sample_id,split,writer,Writer,sha\na,train,w1,,d1\nb,train,w2,,d2\nc,test,,w1,d3\n"),
    exits=LEAK,
    leak=True,
    says=("manifest.csv:4", "'Writer'"),
)
case(
    "jsonl-key-spelled-differently-in-one-row",
    _manifest(
        '{"sample_id": "a", "split": "train", "writer": "w1"}\n{"sample_id": "c", "split": "test", "Writer": "w1"}\n',
        name="m.jsonl",
    ),
    exits=LEAK,
    leak=True,
    says=("m.jsonl:2", "'Writer'"),
)
case("csv-gz-truncated", lambda tmp: _gz_truncated(tmp), says=("manifest.csv.gz",))
case(
    "jsonl-bad-line",
    _manifest('{"sample_id": "a", "split": "train", "writer": "w1"}\n{oops\n', name="m.jsonl"),
    says=("m.jsonl",),
)
case(
    "jsonl-nested-value",
    _manifest('{"sample_id": "a", "split": "train", "writer": {"x": 1}}\n', name="m.jsonl"),
    says=("writer",),
)
case(
    "jsonl-mixed-id-types",
    lambda tmp: _per_split(
        tmp,
        {
            "train.jsonl": '{"sample_id": 1, "split": "train", "writer": "w1"}\n',
            "test.jsonl": '{"sample_id": "x", "split": "test", "writer": "w1"}\n',
        },
    ),
    exits=LEAK,
    leak=True,
)
case("csv-and-parquet-per-split", lambda tmp: _csv_and_parquet(tmp), exits=LEAK, leak=True)
case("parquet-duplicate-columns", lambda tmp: _parquet_dup(tmp), says=("writer",))
case("parquet-not-parquet", _manifest(b"PAR1 not really", name="m.parquet"), says=("m.parquet",))
case("parquet-empty-table", lambda tmp: _parquet(tmp, {"sample_id": [], "split": [], "writer": []}))
case("manifest-is-fifo", lambda tmp: _fifo_manifest(tmp), timeout=20, says=("manifest.csv",))
case("manifest-dev-zero", lambda tmp: run_args(project(tmp, None, name="/dev/zero")), timeout=20)
case("manifest-outside-dotdot", lambda tmp: _outside(tmp, "../outside/manifest.csv"), says=("outside",))
case("manifest-outside-absolute", lambda tmp: _outside(tmp, "ABS"), says=("outside",))
case("manifest-symlink-out", lambda tmp: _symlink_out(tmp), says=("manifest.csv",))
case(
    "manifest-1000-splits",
    lambda tmp: _many_splits(tmp, 1000),
    exits=LEAK,
    leak=True,
    timeout=60,
    check=lambda o: _report_small(o, 5_000_000),
)
case("manifest-time-epoch-seconds", lambda tmp: _epoch(tmp), exits=frozenset({0, 1}), check=has_codes("TMP001"))
case(
    "manifest-time-mixed-tz",
    lambda tmp: _mixed_tz(tmp),
    exits=frozenset({0, 1, 2}),
    check=lambda o: _mentions(o, "naive", "time zone", "timezone"),
)
case("manifest-time-garbage", lambda tmp: _garbage_time(tmp), exits=frozenset({1, 2}), leak=True)


def _spelling_flagged(outcome: Outcome, needle: str) -> None:
    """A spelling variant of a value in two splits (or twice as an id) is named in the report."""
    report = json.dumps(outcome.report() or {}, ensure_ascii=False).lower()
    assert "spelling" in report or "variant" in report, "no finding names the spelling variant"
    assert needle.lower() in report


def _mentions(outcome: Outcome, *words: str) -> None:
    text = (json.dumps(outcome.report() or {}) + outcome.output).lower()
    assert any(w in text for w in words), f"none of {words} is said"


def _report_small(outcome: Outcome, limit: int) -> None:
    size = sum(p.stat().st_size for p in outcome.out_dir.iterdir())
    assert size < limit, f"reports take {size} bytes"


def _gz_truncated(tmp: Path) -> list[str]:
    data = gzip.compress(LEAKY_CSV.encode() * 200)
    (tmp / "manifest.csv.gz").write_bytes(data[: len(data) // 2])
    return run_args(project(tmp, None, name="manifest.csv.gz"))


def _per_split(tmp: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp / name).write_text(text)
    paths = {name.split(".")[0]: name for name in files}
    return run_args(project(tmp, None, manifest={"paths": paths, "path": None, "split": None}))


def _csv_and_parquet(tmp: Path) -> list[str]:
    (tmp / "train.csv").write_text("sample_id,writer\n1,w1\n2,w2\n")
    pq.write_table(pa.table({"sample_id": ["3", "4"], "writer": ["w1", "w3"]}), tmp / "test.parquet")
    return run_args(
        project(
            tmp,
            None,
            manifest={"paths": {"train": "train.csv", "test": "test.parquet"}, "path": None, "split": None},
        )
    )


def _parquet_dup(tmp: Path) -> list[str]:
    table = pa.Table.from_arrays(
        [pa.array(["a", "b"]), pa.array(["train", "test"]), pa.array(["w1", "w1"]), pa.array(["w1", "w1"])],
        names=["sample_id", "split", "writer", "writer"],
    )
    pq.write_table(table, tmp / "m.parquet")
    return run_args(project(tmp, None, name="m.parquet"))


def _parquet(tmp: Path, data: dict[str, list[Any]]) -> list[str]:
    pq.write_table(pa.table({k: pa.array(v, pa.string()) for k, v in data.items()}), tmp / "m.parquet")
    return run_args(project(tmp, None, name="m.parquet"))


def _fifo_manifest(tmp: Path) -> list[str]:
    os.mkfifo(tmp / "manifest.csv")
    return run_args(project(tmp, None))


def _outside(tmp: Path, where: str) -> list[str]:
    inner = tmp / "inner"
    inner.mkdir()
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "manifest.csv").write_text(LEAKY_CSV)
    name = str(outside / "manifest.csv") if where == "ABS" else where
    return run_args(project(inner, None, name=name))


def _symlink_out(tmp: Path) -> list[str]:
    inner = tmp / "inner"
    inner.mkdir()
    (tmp / "secret.csv").write_text(LEAKY_CSV)
    (inner / "manifest.csv").symlink_to(tmp / "secret.csv")
    return run_args(project(inner, None))


def _many_splits(tmp: Path, n: int) -> list[str]:
    lines = ["sample_id,split,writer,sha"]
    for i in range(n):
        lines += [f"s{i}-{j},split{i},w{j % 100},d{i}-{j}" for j in range(5)]
    lines += ["t0,train,w1,x", "t1,train,w2,y"]
    (tmp / "manifest.csv").write_text("\n".join(lines) + "\n")
    return run_args(project(tmp, None, splits={"train": ["train"]}))


def _epoch(tmp: Path) -> list[str]:
    text = "sample_id,split,writer,t\na,train,w1,1704067200\nb,train,w2,1704153600\nc,test,w3,1600000000\n"
    (tmp / "manifest.csv").write_text(text)
    return run_args(project(tmp, None, keys={"groups": ["writer"], "time": "t"}))


def _mixed_tz(tmp: Path) -> list[str]:
    text = (
        "sample_id,split,writer,t\na,train,w1,2024-01-01 10:00\nb,train,w2,2024-01-02T10:00:00+02:00\n"
        "c,test,w3,2024-02-01 10:00\n"
    )
    (tmp / "manifest.csv").write_text(text)
    return run_args(project(tmp, None, keys={"groups": ["writer"], "time": "t"}))


def _garbage_time(tmp: Path) -> list[str]:
    text = "sample_id,split,writer,t\na,train,w1,yesterday\nb,test,w1,tomorrow\n"
    (tmp / "manifest.csv").write_text(text)
    return run_args(project(tmp, None, keys={"groups": ["writer"], "time": "t"}))


# ------------------------------------------------------------------------------------------- artifacts
def _fitted(
    artifact_name: str, content: str | bytes | None, kind: str = "standardize", **spec: Any
) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        if content is not None:
            target = tmp / artifact_name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content if isinstance(content, bytes) else content.encode())
        entry = {"name": "a", "kind": kind, "artifact": artifact_name, "fitted_on": ["train"], **spec}
        if "columns" not in entry and "text" not in entry:
            entry["columns"] = ["f1"]
        return run_args(project(tmp, FEATURES, fitted=[entry]))

    return build


case("artifact-missing", _fitted("nope.json", None), says=("nope.json",))
case("artifact-pickle", _fitted("scaler.pkl", b"\x80\x04junk"), says=("scaler.pkl",))
case("artifact-empty-json", _fitted("s.json", ""), says=("s.json",))
case("artifact-not-json", _fitted("s.json", "{mean: 1"), says=("s.json",))
case("artifact-json-list", _fitted("s.json", "[1, 2]"), says=("s.json",))
case("artifact-deep-nesting", _fitted("s.json", "[" * 100_000 + "]" * 100_000), says=("s.json",), timeout=20)
case("artifact-wrong-kind-keys", _fitted("s.json", '{"vocabulary": ["a"]}'), says=("s.json",))
case("artifact-string-mean", _fitted("s.json", '{"mean_": ["a"], "scale_": [1]}'), says=("s.json",))
case("artifact-nan-mean", _fitted("s.json", '{"mean_": [NaN], "scale_": [1.0]}'), exits=frozenset({0, 1, 2}))
case("artifact-wrong-length", _fitted("s.json", '{"mean_": [1, 2, 3], "scale_": [1, 1, 1]}'), says=("s.json",))
case(
    "artifact-fit-on-all",
    _fitted("s.json", '{"mean_": [2.5], "scale_": [1.118033988749895], "var_": [1.25]}'),
    exits=FOUND,
    leak=True,
    check=has_codes("FIT001"),
)
case("artifact-is-directory", lambda tmp: (tmp / "d.json").mkdir() or _fitted("d.json", None)(tmp), says=("d.json",))
case(
    "artifact-fifo", lambda tmp: os.mkfifo(tmp / "f.json") or _fitted("f.json", None)(tmp), says=("f.json",), timeout=20
)
case("artifact-dev-zero", _fitted("/dev/zero", None), timeout=20)
case("artifact-outside-dotdot", lambda tmp: _secret_vocab(tmp), check=lambda o: _secret_absent(o))
case("artifact-empty-vocab", _fitted("vocab.txt", "", kind="vocabulary", text="writer"), says=("vocab.txt",))
case(
    "artifact-huge-token",
    _fitted("vocab.txt", "w1\n" + "t" * 100_000 + "\n", kind="vocabulary", text="writer"),
    exits=frozenset({0, 1}),
    check=lambda o: _report_small(o, 200_000),
)
case(
    "artifact-unknown-split-claim",
    _fitted("s.json", '{"mean_": [1.5], "scale_": [0.5]}', fitted_on=["trian"]),
    says=("trian",),
)


def _secret_vocab(tmp: Path) -> list[str]:
    inner = tmp / "project"
    inner.mkdir()
    (tmp / "secret.txt").write_text("API_KEY=sk-live-1234567890\nPASSWORD=hunter2\n")
    entry = {"name": "v", "kind": "vocabulary", "artifact": "../secret.txt", "text": "writer", "fitted_on": ["train"]}
    return run_args(project(inner, FEATURES, fitted=[entry], report={"out_dir": str(tmp / "out")}))


def _secret_absent(outcome: Outcome) -> None:
    assert outcome.exit_code == 2
    if outcome.out_dir.is_dir():
        for path in outcome.out_dir.iterdir():
            assert "sk-live" not in path.read_text(errors="replace"), f"the secret reached {path.name}"
    assert "sk-live" not in outcome.output


# ------------------------------------------------------------------------------------------- user code
PROGRAM = """
import torch

def m():
    return torch.nn.Linear(2, 1)

def b():
    return torch.zeros(4, 2), torch.zeros(4, 1)

def l(out, y):
    return ((out - y) ** 2).mean()
"""


def _user(at_import: str = "", in_loss: str = "", tail: str = "", **numeric: Any) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        src = tmp / "src"
        src.mkdir()
        program = at_import + "\n" + PROGRAM + tail
        if in_loss:
            program = program.replace(
                "    return ((out - y)", textwrap.indent(textwrap.dedent(in_loss), "    ") + "\n    return ((out - y)"
            )
        (src / "mod.py").write_text(program)
        section = {"python_path": ["src"], "model": "mod:m", "batch": "mod:b", "loss": "mod:l", **numeric}
        return run_args(project(tmp, LEAKY_CSV, numeric=section))

    return build


USER = {"process": True, "exits": frozenset({2}), "leak": True, "timeout": 60}
case("user-os-exit-at-import", _user("import os; os._exit(0)"), **USER)
case("user-os-exit-in-loss", _user(in_loss="import os; os._exit(0)"), **USER)
case("user-os-exit-1-in-loss", _user(in_loss="import os; os._exit(1)"), **USER)
case(
    "user-atexit-os-exit",
    _user("import atexit, os; atexit.register(os._exit, 0)"),
    **{**USER, "exits": frozenset({1, 2})},
)
case("user-sys-exit-in-model", _user(tail="\ndef m():\n    raise SystemExit(0)\n"), **USER)
case("user-loop-at-import", _user("while True: pass", timeout_s=3), **USER)
case("user-sleep-in-loss", _user(in_loss="import time; time.sleep(600)", timeout_s=3), **USER)
case(
    "user-thread-at-import",
    _user("import threading, time; threading.Thread(target=time.sleep, args=(600,)).start()"),
    **{**USER, "exits": frozenset({1})},
)
case(
    "user-replaces-stdout",
    _user("import sys, io; sys.stdout = io.StringIO(); sys.stderr = None"),
    **{**USER, "exits": frozenset({1})},
)
case(
    "user-prints",
    _user("print('HELLO FROM USER CODE')", in_loss="print('LOSS SAYS HI')"),
    **{**USER, "exits": frozenset({1})},
    check=lambda o: _not_in_summary(o, "HELLO FROM USER CODE"),
)
case("user-kills-itself", _user(in_loss="import os, signal; os.kill(os.getpid(), signal.SIGKILL)"), **USER)
case("user-segfault", _user(in_loss="import ctypes; ctypes.string_at(0)"), **USER)
case("user-memory-hog", _user(in_loss="x = bytearray(8 * 1024 ** 3)", memory_mb=1024), **USER)
case("user-raises-at-import", _user("raise RuntimeError('broken import')"), **USER, says=("broken import",))
case("user-syntax-error", _user("def (:"), **USER)
case("user-missing-module", lambda tmp: _rename_module(tmp, _user()(tmp)), **USER)
case("user-keyboardinterrupt", _user(in_loss="raise KeyboardInterrupt"), **USER)
case(
    "user-softmax-numpy",
    _user(tail="\ndef sm(x, dim):\n    return x.detach().numpy()\n", softmax="mod:sm"),
    **{**USER, "exits": frozenset({1, 2})},
)
case("user-model-returns-none", _user(tail="\ndef m():\n    return None\n"), **USER)
case("user-batch-returns-string", _user(tail="\ndef b():\n    return 'batch'\n"), **USER)
case(
    "user-loss-returns-float", _user(tail="\ndef l(out, y):\n    return 0.0\n"), **{**USER, "exits": frozenset({1, 2})}
)
case("user-chdir-and-delete", _user("import os; os.chdir('/')"), **{**USER, "exits": frozenset({1, 2})})
case(
    "user-writes-fake-report",
    _user(in_loss="open('out/report.json', 'w').write('{\"exit_code\": 0}')"),
    **{**USER, "exits": frozenset({1, 2})},
)


def _rename_module(tmp: Path, args: list[str]) -> list[str]:
    (tmp / "src" / "mod.py").rename(tmp / "src" / "other.py")
    return args


def _not_in_summary(outcome: Outcome, text: str) -> None:
    assert text not in outcome.stdout, "user output is mixed into the terminal summary"
    assert text in json.dumps(outcome.report() or {}), "user output is not kept in the report"


# ------------------------------------------------------------------------------------------ command line
def _cli(*extra: str, manifest: str = LEAKY_CSV) -> Callable[[Path], list[str]]:
    return lambda tmp: run_args(project(tmp, manifest), *[e.replace("TMP", str(tmp)) for e in extra])


case("cli-only-empty", _cli("--only", ""), says=("--only",))
case("cli-only-blank-list", _cli("--only", " , "), says=("--only",))
case("cli-only-unknown", _cli("--only", "group_overlapp"), says=("group_overlapp",))
case("cli-format-empty", _cli("--format", ""), says=("--format",))
case("cli-format-unknown", _cli("--format", "pdf"), says=("pdf",))
case("cli-fail-on-bad", _cli("--fail-on", "sometimes"), says=("--fail-on",))
case("cli-out-long-component", _cli("--out", "TMP/" + "x" * 300), says=("x" * 20,))
case("cli-out-nul", _cli("--out", "TMP/a\x00b"), says=("nul",))
case("cli-out-is-file", lambda tmp: (tmp / "f").write_text("x") and run_args(project(tmp), "--out", str(tmp / "f")))
case("cli-fail-on-never-with-leak", _cli("--fail-on", "never"), exits=frozenset({0}))
case("cli-fail-on-warning-clean", _cli("--fail-on", "warning", manifest=CLEAN_CSV), exits=frozenset({0, 1}))
case("cli-clean-passes", _cli(manifest=CLEAN_CSV), exits=frozenset({0}))
case("cli-leak-found", _cli(), exits=FOUND, leak=True, check=has_codes("GRP001"))
case(
    "cli-validate-bad-config",
    lambda tmp: ["validate", str(raw_config(tmp, "version: 1\nmanifestt: {}\n"))],
    says=("manifestt",),
)
case("cli-validate-user-exit", lambda tmp: ["validate", _user("import os; os._exit(0)")(tmp)[1]], **USER)
case("cli-validate-user-loop", lambda tmp: ["validate", _user("while True: pass", timeout_s=3)(tmp)[1]], **USER)
case("cli-stages-bad-config", lambda tmp: ["stages", str(raw_config(tmp, "version: [\n"))])
case("cli-unknown-command", lambda tmp: ["runn"], exits=frozenset({2}))
case("cli-no-arguments", lambda tmp: ["run"], exits=frozenset({2}))


# Inputs that are not what their place expects, each refused in one line that names the file.
def _clean_report(tmp: Path) -> Path:
    """The report.json of a clean audit, written by a real run."""
    config = project(tmp / "clean", CLEAN_CSV) if (tmp / "clean").mkdir() is None else tmp
    forked.run([sys.executable, "-m", "auditor.cli", "run", str(config), "-q"], check=True, capture_output=True)
    return tmp / "clean" / "out" / "report.json"


def _diff_against(old: Callable[[Path], Path]) -> Callable[[Path], list[str]]:
    return lambda tmp: ["diff", str(old(tmp)), str(_clean_report(tmp))]


def _deep_json(tmp: Path) -> Path:
    (tmp / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    return tmp / "deep.json"


def _fifo(tmp: Path, name: str = "report.json") -> Path:
    os.mkfifo(tmp / name)
    return tmp / name


NOT_REGULAR = {"process": True, "timeout": 20}  # a real process: a read that blocks or never ends is killed
case("config-nested-10000-deep", _yaml(BASE + "x: " + "[" * 10_000 + "]" * 10_000 + "\n"), says=("nested", "levels"))
case(
    "config-block-nested-500-deep",
    _yaml(BASE + "x:\n" + "".join(" " * i + f"k{i}:\n" for i in range(500))),
    says=("audit.yaml", "nested"),
)
case(
    "config-5mb-string",
    _yaml(BASE + "accept: [{code: GRP001, reason: '" + "x" * 5_000_000 + "'}]\n"),
    says=("larger than 4 MiB",),
    check=lambda o: _short_output(o),
)
case(
    "config-1mb-string",
    _yaml(BASE + "report: {out_dir: '" + "x" * 1_000_000 + "'}\n"),
    says=("1,000,000 characters",),
    check=lambda o: _short_output(o),
)
case(
    "config-long-string-of-the-wrong-type",
    _yaml(BASE + "report: {fail_on: '" + "x" * 60_000 + "'}\n"),
    says=("fail_on", "60,002 characters"),
    check=lambda o: _short_output(o),
)
case(
    "config-manifest-name-too-long",
    _yaml(BASE.replace("manifest.csv", "m" * 1000)),
    says=("longer than the file system allows",),
)
case("config-is-fifo", lambda tmp: run_args(_fifo(tmp, "audit.yaml")), says=("FIFO",), **NOT_REGULAR)
case("config-dev-zero", lambda tmp: run_args(Path("/dev/zero")), says=("character device",), **NOT_REGULAR)
case(
    "config-cache-dir-symlink-loop",
    lambda tmp: _cache_loop(tmp),
    says=("cache_dir", "loop of symbolic links"),
    check=lambda o: _no_traceback_in_report(o),
)
case("diff-deeply-nested-json", _diff_against(_deep_json), says=("deep.json", "nested too deeply"))
case(
    "diff-dev-zero", _diff_against(lambda tmp: Path("/dev/zero")), says=("/dev/zero", "character device"), **NOT_REGULAR
)
case("diff-fifo", _diff_against(_fifo), says=("FIFO",), **NOT_REGULAR)
case(
    "baseline-fifo",
    lambda tmp: run_args(project(tmp, LEAKY_CSV), "--baseline", str(_fifo(tmp, "old.json"))),
    says=("old.json", "FIFO"),
    **NOT_REGULAR,
)


# Outputs that are inputs: the run is refused and the input stays byte for byte.
JSONL_LEAK = "".join(
    json.dumps({"sample_id": i, "split": sp, "writer": w}) + "\n"
    for i, sp, w in (("a", "train", "w1"), ("b", "test", "w1"))
)


def _manifest_named_report(tmp: Path) -> list[str]:
    (tmp / "report.json").write_text(JSONL_LEAK)
    manifest = {"path": "report.json", "format": "jsonl"}
    return run_args(project(tmp, None, manifest=manifest), "--out", str(tmp))


def _input_kept(name: str, text: str) -> Callable[[Outcome], None]:
    return lambda outcome: _file_is(outcome.out_dir / name, text)


case(
    "out-holds-the-manifest-as-report-json",
    _manifest_named_report,
    says=("is a manifest file of this command",),
    check=_input_kept("report.json", JSONL_LEAK),
)
case(
    "out-holds-my-report-md",
    lambda tmp: _with_file(tmp / "out" / "report.md", "mine\n", run_args(project(tmp))),
    says=("not a file split-auditor wrote",),
    check=_input_kept("report.md", "mine\n"),
)
case(
    "init-out-is-the-manifest",
    lambda tmp: ["init", str(tmp / "manifest.csv"), "--out", str(project(tmp).parent / "manifest.csv"), "--force"],
    says=("is the manifest of this command",),
    check=lambda o: _file_is(o.out_dir, LEAKY_CSV),  # --out names the manifest itself
)


def _with_file(path: Path, text: str, args: list[str]) -> list[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return args


def _file_is(path: Path, text: str) -> None:
    assert path.read_text() == text, f"{path.name} was replaced or removed"


def _cache_loop(tmp: Path) -> list[str]:
    (tmp / "files").mkdir()
    (tmp / "files" / "a.bin").write_bytes(b"a")
    (tmp / "files" / "b.bin").write_bytes(b"b")
    (tmp / "loop-a").symlink_to(tmp / "loop-b")
    (tmp / "loop-b").symlink_to(tmp / "loop-a")
    manifest = "sample_id,split,writer,file\na,train,w1,files/a.bin\nb,test,w2,files/b.bin\n"
    keys = {"groups": ["writer"], "content_path": "file"}
    return run_args(project(tmp, manifest, keys=keys, stages={"duplicate_content": {"cache_dir": "loop-a"}}))


def _short_output(outcome: Outcome) -> None:
    assert len(outcome.output) < 2_000, f"the message quotes the value: {len(outcome.output)} characters"


def _no_traceback_in_report(outcome: Outcome) -> None:
    report = json.dumps(outcome.report() or {})
    assert "Traceback" not in report and "RuntimeError" not in report, report[:2000]


def _head_one(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()


case("cli-broken-pipe-clean", _cli("-v", manifest=CLEAN_CSV), process=True, exits=frozenset({0}), stdout_pipe=_head_one)
case("cli-broken-pipe-leak", _cli("-v"), process=True, exits=FOUND, leak=True, stdout_pipe=_head_one)


# --------------------------------------------------------------------------------------------- interrupted
def _slow_after_clean(tmp: Path) -> list[str]:
    """A clean run leaves a verdict; then the data gains a leak and the next run is slow (user code sleeps)."""
    config = project(tmp, CLEAN_CSV)
    forked.run(
        [sys.executable, "-m", "auditor.cli", "run", str(config), "-q"], cwd=tmp, check=False, capture_output=True
    )
    (tmp / "stale.marker").write_text("")
    return _user(in_loss="import time; time.sleep(30)", timeout_s=60)(tmp)


def _running(tmp: Path) -> bool:
    try:
        return json.loads((tmp / "out" / "report.json").read_text()).get("status") == "running"
    except (OSError, ValueError):
        return False


for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):
    case(
        f"kill-{sig.name}-mid-run",
        _slow_after_clean,
        process=True,
        timeout=60,
        signal_after=(_running, sig),
        check=no_report,
    )


def _stale_tmp(tmp: Path) -> list[str]:
    out = tmp / "out"
    out.mkdir()
    (out / ".report.json.999999999.tmp").write_text("{}")
    (out / ".report.json.x.tmp").write_text("{}")
    os.utime(out / ".report.json.x.tmp", (1_000_000_000, 1_000_000_000))  # written long ago by a run now gone
    return run_args(project(tmp, CLEAN_CSV))


case("stale-tmp-files-removed", _stale_tmp, exits=frozenset({0}))
case(
    "old-verdict-replaced-on-config-error",
    lambda tmp: _old_verdict_then(tmp, "version: 1\nmanifest: [\n"),
    check=no_report,
)
case("digest-cache-touch-r", lambda tmp: _touch_r(tmp), exits=FOUND, leak=True)


def _old_verdict_then(tmp: Path, broken: str) -> list[str]:
    config = project(tmp, CLEAN_CSV)
    forked.run(
        [sys.executable, "-m", "auditor.cli", "run", str(config), "-q"], cwd=tmp, check=False, capture_output=True
    )
    config.write_text(broken)
    return run_args(config, "--out", str(tmp / "out"))


def _touch_r(tmp: Path) -> list[str]:
    files = tmp / "files"
    files.mkdir()
    (files / "train.bin").write_bytes(b"train bytes")
    (files / "test.bin").write_bytes(b"test bytes!")
    manifest = "sample_id,split,writer,file\na,train,w1,files/train.bin\nb,test,w2,files/test.bin\n"
    config = project(
        tmp,
        manifest,
        keys={"groups": ["writer"], "content_path": "file"},
        stages={"duplicate_content": {"cache_dir": ".cache"}},
    )
    forked.run(
        [sys.executable, "-m", "auditor.cli", "run", str(config), "-q"], cwd=tmp, check=False, capture_output=True
    )
    stat = (files / "test.bin").stat()
    (files / "test.bin").write_bytes(b"train bytes")
    os.utime(files / "test.bin", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return run_args(config)
