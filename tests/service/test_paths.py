"""A config submitted to the server reads only under its data root: every way out is refused, nothing outside read."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.service.harness import LiveServer

# Every outside file carries this marker: it must never show up in anything the server answers.
MARK = "OUTSIDE_SECRET_7f3a"
MANIFEST = "version: 1\nmanifest:\n  {where}\n  id: id\n  split: split\n"
INSIDE = MANIFEST.format(where="path: manifest.csv")
STAGE_CPU_S = 2


def _csv(path: Path, rows: list[tuple[object, str, str]]) -> None:
    path.write_text("id,split,file\n" + "".join(f"{i},{s},{f}\n" for i, s, f in rows))


def _tree(tmp: Path) -> tuple[Path, Path]:
    """A data root with every kind of way out (symlinks to a file, a folder, in shards, globs, content files)."""
    root, out = tmp / "root", tmp / "outside"
    root.mkdir()
    out.mkdir()
    _csv(out / "secret.csv", [(f"{MARK}{i}", "train" if i % 2 else "test", "x") for i in range(6)])
    (out / "secret.bin").write_bytes(MARK.encode())
    pq.write_table(pa.table({"id": [f"{MARK}p"], "split": ["test"], "file": ["x"]}), out / "secret.parquet")
    _csv(root / "manifest.csv", [(i, "train" if i % 2 else "test", f"f{i}.bin") for i in range(6)])
    os.symlink(out / "secret.csv", root / "link_file.csv")
    os.symlink(out, root / "link_dir")
    (root / "shards").mkdir()
    shard = pa.table({"id": ["1", "2"], "split": ["train", "test"], "file": ["a", "b"]})
    pq.write_table(shard, root / "shards" / "part-0.parquet")
    os.symlink(out / "secret.parquet", root / "shards" / "part-1.parquet")
    (root / "globbed").mkdir()
    _csv(root / "globbed" / "a-1.csv", [(1, "train", "f"), (2, "test", "g")])
    os.symlink(out / "secret.csv", root / "globbed" / "a-2.csv")
    content = root / "content"
    content.mkdir()
    rows = [(1, "train", "one.bin"), (2, "test", "leak.bin"), (3, "test", "../../outside/secret.bin")]
    _csv(content / "manifest.csv", [*rows, (4, "train", "twin.bin")])
    (content / "one.bin").write_bytes(b"1")
    # The same bytes as the outside file: had it been read, the two would be reported as duplicates.
    (content / "twin.bin").write_bytes(MARK.encode())
    os.symlink(out / "secret.bin", content / "leak.bin")
    return root, out


@dataclass
class Served:
    server: LiveServer
    client: httpx.Client
    root: Path
    outside: Path

    def submit(self, config: str, base: str = "", data_root: str = "data") -> httpx.Response:
        body = {"config": config, "data_root": data_root, "base": base}
        return self.client.post("/api/projects/p/runs", json=body)

    def finished(self, run_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            run: dict[str, Any] = self.client.get(f"/api/projects/p/runs/{run_id}").json()
            if run["state"] not in ("queued", "running"):
                return run
            time.sleep(0.2)
        raise AssertionError(f"run {run_id} did not finish")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One SQLite server for the module: path checks do not depend on the database backend."""
    tmp = tmp_path_factory.mktemp("paths")
    root, out = _tree(tmp)
    # A small CPU budget per stage: a stage that spins must end as an error within seconds.
    live = LiveServer(tmp / "service", roots={"data": root}, extra=["--stage-cpu", str(STAGE_CPU_S)]).start()
    client = live.client(live.admin_token)
    try:
        assert client.post("/api/projects", json={"name": "p"}).status_code == 201
        yield Served(live, client, root, out)
    finally:
        client.close()
        live.stop()


REFUSED_AT_SUBMIT = {
    "dotdot": (MANIFEST.format(where="path: ../outside/secret.csv"), "", "'../outside/secret.csv'"),
    "absolute": (MANIFEST.format(where="path: {outside}/secret.csv"), "", "/secret.csv' leads outside the data root"),
    "symlink_to_file": (
        MANIFEST.format(where="path: link_file.csv"),
        "",
        "'link_file.csv' leads outside the data root",
    ),
    "symlink_to_folder": (MANIFEST.format(where="path: link_dir/secret.csv"), "", "'link_dir/secret.csv'"),
    "roots_outside": (
        MANIFEST.format(where="path: manifest.csv") + "roots: [../outside]\n",
        "",
        "roots[0] '../outside'",
    ),
    "split_paths_entry": (
        "version: 1\nmanifest:\n  paths: {train: manifest.csv, test: link_file.csv}\n  id: id\n",
        "",
        "manifest.paths.test: 'link_file.csv'",
    ),
    "ledger_absolute": (
        INSIDE + "stages:\n  test_exposure: {ledger: '{outside}/ledger.sqlite'}\n",
        "",
        "stages.test_exposure.ledger: '",
    ),
    "ledger_dotdot": (
        INSIDE + "stages:\n  test_exposure: {ledger: ../../../x/ledger.sqlite}\n",
        "",
        "stages.test_exposure.ledger: '../../../x/ledger.sqlite' leads outside the data root",
    ),
    "ledger_symlink": (
        INSIDE + "stages:\n  test_exposure: {ledger: link_dir/ledger.sqlite}\n",
        "",
        "stages.test_exposure.ledger: 'link_dir/ledger.sqlite' leads outside the data root",
    ),
    "duplicate_content_cache_absolute": (
        INSIDE + "stages:\n  duplicate_content: {cache_dir: '{outside}/made-by-server'}\n",
        "",
        "stages.duplicate_content.cache_dir: '",
    ),
    "near_duplicates_cache_dotdot": (
        INSIDE + "stages:\n  near_duplicates: {cache_dir: ../outside/made-by-server}\n",
        "",
        "stages.near_duplicates.cache_dir: '../outside/made-by-server' leads outside the data root",
    ),
    "base_dotdot": (MANIFEST.format(where="path: secret.csv"), "../outside", "base '../outside'"),
    "base_absolute": (MANIFEST.format(where="path: secret.csv"), "{outside}", "base '{outside}'"),
    "base_symlink_out": (MANIFEST.format(where="path: secret.csv"), "link_dir", "base 'link_dir'"),
    "base_home": (MANIFEST.format(where="path: secret.csv"), "~", "base '~'"),
}


@pytest.mark.parametrize("case", sorted(REFUSED_AT_SUBMIT))
def test_a_path_leading_out_of_the_data_root_is_refused(served: Served, case: str) -> None:
    config, base, named = (s.replace("{outside}", str(served.outside)) for s in REFUSED_AT_SUBMIT[case])
    answer = served.submit(config, base)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert named in detail, detail
    assert MARK not in answer.text
    if not case.startswith("base"):  # the config's own place: line:column of the path
        assert "outside" in detail and "audit.yaml:" in detail, detail
    # Where the server keeps its data is its own: the root appears by name only, and where a link leads is
    # not told (a submitter could probe the server's files with links).
    assert str(served.root.resolve()) not in detail, detail
    if "absolute" not in case:
        assert str(served.outside.resolve()) not in detail, detail


@pytest.mark.parametrize(
    ("case", "where", "named"),
    [
        ("parquet_shards", "path: shards", "'shards' leads outside the data root"),
        ("glob", "path: globbed/a-*.csv", "'globbed/a-*.csv' leads outside the data root"),
    ],
)
def test_a_shard_or_glob_match_leading_out_fails_the_run(served: Served, case: str, where: str, named: str) -> None:
    made = served.submit(MANIFEST.format(where=where))
    assert made.status_code in (201, 422), made.text
    if made.status_code == 422:  # refused before it is queued: as good
        assert named.format(outside=served.outside) in made.json()["detail"]
        return
    run = served.finished(made.json()["id"])
    assert run["state"] == "failed" and run["exit_code"] in (None, 2), run
    assert named.format(outside=served.outside) in run["error"], run["error"]
    assert MARK not in str(run)
    # The server ran no user code, and keeps where its data lies to itself.
    assert "user's code" not in run["error"] and str(served.root.resolve()) not in run["error"], run["error"]
    assert str(served.outside.resolve()) not in run["error"], run["error"]
    assert served.client.get(f"/api/projects/p/runs/{run['id']}/report").status_code == 409


def test_content_files_leading_out_are_errors_and_never_read(served: Served) -> None:
    config = MANIFEST.format(where="path: manifest.csv") + "keys:\n  content_path: file\n"
    made = served.submit(config, "content")
    assert made.status_code == 201, made.text
    run = served.finished(made.json()["id"])
    assert run["state"] == "completed" and run["exit_code"] == 2, run  # no verdict, never a pass
    report = served.client.get(f"/api/projects/p/runs/{run['id']}/report").json()
    stages = {s["stage"]: s for s in report["stages"]}
    for name in ("duplicate_content", "shared_upstream"):
        assert stages[name]["status"] == "error", stages[name]
        message = str(stages[name]["error"])
        assert "'leak.bin' leads outside the data root" in message, message
        assert "'../../outside/secret.bin' leads outside the data root" in message, message
        assert not stages[name]["findings"]  # twin.bin would duplicate the outside file, had it been read
    assert MARK not in str(report)


def test_a_numeric_section_is_refused_with_the_way_to_run_it(served: Served) -> None:
    numeric = "numeric:\n  model: a.b:c\n  batch: a.b:d\n  loss: a.b:e\n"
    answer = served.submit(MANIFEST.format(where="path: manifest.csv") + numeric)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert "audit.yaml:6:1" in detail and "`numeric`" in detail
    assert "audit run CONFIG --submit URL --project P" in detail and "your own machine" in detail


def test_an_unknown_data_root_is_refused_naming_the_known_ones(served: Served) -> None:
    answer = served.submit(MANIFEST.format(where="path: manifest.csv"), data_root="elsewhere")
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"] == "data root 'elsewhere': no such data root; the server has data"


def test_a_config_inside_the_root_is_accepted(served: Served) -> None:
    """The refusals above are about the paths: the same config with an inside manifest runs."""
    made = served.submit(MANIFEST.format(where="path: manifest.csv"))
    assert made.status_code == 201, made.text
    assert served.finished(made.json()["id"])["state"] == "completed"
    report = served.client.get(f"/api/projects/p/runs/{made.json()['id']}/report").text
    # The report names the data root, never where it lies on the server.
    assert str(served.root.resolve()) not in report and "<data root data>/manifest.csv" in report


def test_no_cache_folder_is_made_outside_the_data_root(served: Served) -> None:
    for stage in ("duplicate_content", "near_duplicates", "shared_upstream"):
        for written in (f"{served.outside}/made-by-server", "../outside/made-by-server"):
            config = INSIDE + f"keys:\n  content_path: file\nstages:\n  {stage}: {{cache_dir: '{written}'}}\n"
            assert served.submit(config, "content" if written.startswith("..") else "").status_code == 422
    assert not (served.outside / "made-by-server").exists()


def test_an_outside_ledger_is_refused_alike_whether_or_not_the_file_exists(served: Served) -> None:
    details = []
    for name in ("/etc/passwd", "/etc/no-such-file-on-this-server"):
        answer = served.submit(INSIDE + f"stages:\n  test_exposure: {{ledger: {name}}}\n")
        assert answer.status_code == 422, answer.text
        details.append(answer.json()["detail"].replace(name, "<ledger>"))
    assert details[0] == details[1]
    assert "database" not in details[0] and "Traceback" not in details[0]


def test_a_ledger_in_the_root_that_is_not_one_is_a_stage_error_without_traceback(served: Served) -> None:
    (served.root / "not-a-ledger.sqlite").write_text("plain text\n")
    made = served.submit(INSIDE + "stages:\n  test_exposure: {ledger: not-a-ledger.sqlite}\n")
    assert made.status_code == 201, made.text
    run = served.finished(made.json()["id"])
    assert run["state"] == "completed" and run["exit_code"] == 2, run
    report = served.client.get(f"/api/projects/p/runs/{run['id']}/report").json()
    (stage,) = [s for s in report["stages"] if s["stage"] == "test_exposure"]
    assert stage["error"]["type"] == "ledger" and stage["error"]["traceback"] == "", stage
    assert "<data root data>/not-a-ledger.sqlite is not a readable ledger" in stage["error"]["message"], stage
    assert str(served.root.resolve()) not in str(report) and "site-packages" not in str(report)


def test_a_token_pattern_of_repeats_in_a_row_is_refused_before_it_is_queued(served: Served) -> None:
    """Ten `[\\w ]*` in a row and a character that fails: no nested repeat, yet time as the text's length to the
    tenth power; refused at submission, it never holds a worker."""
    pattern = "[\\w ]*" * 10 + "!"
    fitted = (
        "fitted:\n  - {name: v, kind: vocabulary, artifact: vocab.txt, text: text,\n"
        f"     tokenizer: {{token_pattern: '{pattern}'}}}}\n"
    )
    before = served.client.get("/api/projects/p/runs", params={"limit": 500}).json()
    refused = served.submit(INSIDE + fitted)
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"]
    assert "token_pattern" in detail and "10 repeats in a row" in detail and "to the power 10" in detail
    assert served.client.get("/api/projects/p/runs", params={"limit": 500}).json() == before


def test_a_stage_that_spins_is_an_error_of_that_stage_not_a_stalled_worker(served: Served) -> None:
    """A pattern that is not refused (one repeat: time as the square of a text's length) on texts long enough to
    spin: the per-stage CPU budget stops it."""
    folder = served.root / "spin"
    folder.mkdir()
    rows = [(i, "train" if i % 2 else "test", "a" * 100_000) for i in range(4)]
    (folder / "manifest.csv").write_text("id,split,text\n" + "".join(f"{i},{s},{t}\n" for i, s, t in rows))
    (folder / "vocab.txt").write_text("aaa\n")
    fitted = (
        "fitted:\n  - {name: v, kind: vocabulary, artifact: vocab.txt, text: text,\n"
        "     tokenizer: {token_pattern: '\\w*\\d'}}\n"
    )
    made = served.submit(INSIDE + fitted, "spin")
    assert made.status_code == 201, made.text
    run = served.finished(made.json()["id"])
    assert run["state"] == "completed" and run["exit_code"] == 2, run
    report = served.client.get(f"/api/projects/p/runs/{run['id']}/report").json()
    stages = {s["stage"]: s for s in report["stages"]}
    error = stages["fitted_statistics"]["error"]
    assert error["type"] == "cpu", error
    assert f"stopped after {STAGE_CPU_S} s of CPU" in error["message"] and "audit serve --stage-cpu" in error["message"]
    assert stages["split_integrity"]["status"] in ("passed", "failed")  # the other stages ran


def test_a_stage_error_is_stored_without_traceback_or_server_paths(tmp_path: Path) -> None:
    import sys

    from auditor import run_audit
    from auditor.core.config import config_from_mapping
    from auditor.core.findings import Finding
    from auditor.pipeline.stage import AuditContext, Stage
    from auditor.service.submitted import SERVER_PATH, DataRoots

    root = tmp_path / "root"
    root.mkdir()

    class Crashes(Stage):
        name = "crashes"
        summary = "raises with paths in its message"
        needs_manifest = False

        def run(self, context: AuditContext) -> list[Finding]:
            raise OSError(f"cannot read {sys.prefix}/lib/x.py nor {root}/data.csv (see http://example.org/a/b)")

    config = {"numeric": {"model": "m:f", "batch": "m:b", "loss": "m:l"}}
    report = run_audit(config_from_mapping(config, root), classes=[Crashes])
    assert report.stages[0].error is not None and sys.prefix in report.stages[0].error.traceback
    roots = DataRoots({"data": root.resolve()})
    error = roots.public_report(report).stages[0].error
    assert error is not None and error.traceback == ""
    assert error.message == (f"cannot read {SERVER_PATH} nor <data root data>/data.csv (see http://example.org/a/b)"), (
        error.message
    )
