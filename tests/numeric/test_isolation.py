"""The user's code runs in a child process: whatever it does, the verdict and the exit code are the auditor's.

Each test runs the real `audit` command in a subprocess, because what is checked is how processes end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from auditor import load_config, run_audit
from auditor.core.findings import Finding, Severity
from auditor.core.output import written_here
from auditor.numeric import isolation
from auditor.numeric.isolation import UserProcess, _read_results
from auditor.pipeline.isolated import check_user_code
from auditor.pipeline.stage import AuditContext, StageOptions
from auditor.stages.numeric.base import NumericStage
from tests import forked
from tests.conftest import write_config, write_table

# How a child is started and ended is what these guard: the default path, never a warm child.
pytestmark = pytest.mark.usefixtures("cold_children")

if TYPE_CHECKING:
    from auditor.numeric.program import Program

AUDIT = str(Path(sys.executable).parent / "audit")
ONLY = "group_overlap,batch_inspect,broadcast"
PROGRAM = """
import torch

def m():
    return torch.nn.Linear(2, 1)

def b():
    return torch.ones(3, 2), torch.ones(3)

def l(out, y):
    return ((out.squeeze(1) - y) ** 2).mean()
"""


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None

    def stage(self, name: str) -> dict[str, Any]:
        assert self.report is not None
        return next(s for s in self.report["stages"] if s["stage"] == name)

    def codes(self) -> set[str]:
        assert self.report is not None
        return {f["code"] for s in self.report["stages"] for f in s["findings"]}


def project(tmp_path: Path, source: str, **numeric: Any) -> Path:
    """A leaking manifest (writer w1 in train and test) and the user's module `mod` with ``source``."""
    write_table(tmp_path / "manifest.csv", {"sid": ["a", "b"], "split": ["train", "test"], "writer": ["w1", "w1"]})
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text(textwrap.dedent(source), encoding="utf-8")
    section = {"python_path": ["src"], "model": "mod:m", "batch": "mod:b", "loss": "mod:l", **numeric}
    return write_config(
        tmp_path,
        {
            "version": 1,
            "manifest": {"path": "manifest.csv", "id": "sid", "split": "split"},
            "keys": {"groups": ["writer"]},
            "numeric": section,
            "report": {"formats": ["json", "markdown"]},
        },
    )


def audit(*args: str, cwd: Path) -> Run:
    """`audit ARGS` in a subprocess; a run that does not end within the bound is a failure (a hang, not a speed)."""
    done = forked.run(
        [AUDIT, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "300"}
    )
    path = cwd / "audit-report" / "report.json"
    report = json.loads(path.read_text()) if path.exists() else None
    return Run(done.returncode, done.stdout, done.stderr, report)


def run(tmp_path: Path, source: str, **numeric: Any) -> Run:
    return audit("run", str(project(tmp_path, source, **numeric)), "--only", ONLY, cwd=tmp_path)


def gone(pid: int, within_s: float = 10) -> bool:
    """Whether ``pid`` ends within a few seconds (a zombie nobody has reaped yet counts as ended)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (ProcessLookupError, FileNotFoundError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def assert_not_audited(r: Run, *, reason: str) -> None:
    """Exit 2, the report says so, every code stage says why, and the data stages' findings are all there."""
    assert r.code == 2, (r.stdout, r.stderr)
    assert r.report is not None and r.report["exit_code"] == 2
    for name in ("batch_inspect", "broadcast"):
        assert r.stage(name)["status"] == "error" and reason in r.stage(name)["error"]["message"]
    assert r.stage("group_overlap")["status"] == "failed" and "GRP001" in r.codes()


def test_os_exit_0_at_import_is_not_a_pass(tmp_path: Path) -> None:
    r = run(tmp_path, "import os\nos._exit(0)\n")
    assert_not_audited(r, reason="ended its process with exit status 0")
    valid = audit("validate", str(tmp_path / "audit.yaml"), cwd=tmp_path)
    assert valid.code == 2 and "exit status 0" in valid.stderr


def test_os_exit_0_in_the_loss_is_not_a_pass(tmp_path: Path) -> None:
    r = run(tmp_path, PROGRAM.replace("    return ((out", "    import os\n    os._exit(0)\n    return ((out"))
    assert_not_audited(r, reason="exit status 0")


def test_atexit_handler_cannot_change_the_exit_code(tmp_path: Path) -> None:
    r = run(tmp_path, "import atexit, os\natexit.register(os._exit, 0)\n" + PROGRAM)
    assert r.code == 1 and r.report is not None and r.report["exit_code"] == 1  # GRP001; the code itself is clean
    assert r.stage("batch_inspect")["status"] == "passed"


def test_sys_exit_in_the_model_is_an_error(tmp_path: Path) -> None:
    r = run(tmp_path, PROGRAM.replace("    return torch.nn.Linear(2, 1)", "    import sys\n    sys.exit(0)"))
    assert_not_audited(r, reason="raised sys.exit(0)")


@pytest.mark.parametrize(
    "source",
    [
        "while True:\n    pass\n",
        PROGRAM.replace("    return ((out", "    while True:\n        pass\n    return ((out"),
    ],
    ids=["at-import", "in-the-loss"],
)
def test_endless_loop_is_killed_at_the_time_limit(tmp_path: Path, source: str) -> None:
    r = run(tmp_path, source, timeout_s=3)
    assert_not_audited(r, reason="still running after 3 s (numeric.timeout_s)")  # and it ended: no hang


def test_validate_applies_the_time_limit(tmp_path: Path) -> None:
    project(tmp_path, "import time\ntime.sleep(600)\n", timeout_s=2)
    r = audit("validate", str(tmp_path / "audit.yaml"), cwd=tmp_path)
    assert r.code == 2 and "still running after 2 s (numeric.timeout_s)" in r.stderr


def test_threads_and_processes_left_running_neither_block_the_exit_nor_outlive_the_audit(tmp_path: Path) -> None:
    marker = tmp_path / "sleeper.pid"
    source = (
        f"""
import subprocess, threading, time
threading.Thread(target=time.sleep, args=(600,)).start()
open({str(marker)!r}, "w").write(str(subprocess.Popen(["sleep", "600"]).pid))
"""
        + PROGRAM
    )
    r = run(tmp_path, source)
    # It ended though a thread and a process sleep for 600 s (audit() fails a run that outlasts its bound).
    assert r.code == 1 and r.stage("batch_inspect")["status"] == "passed"
    assert gone(int(marker.read_text()))  # killed with the child's process group


# A process that waits for the audit's verdict, then replaces it with a clean one and leaves a file behind.
SLEEPER = """
import json, os, sys, time
from pathlib import Path
pidfile, report, late = map(Path, sys.argv[1:4])
pidfile.write_text(str(os.getpid()))
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        if "exit_code" in json.loads(report.read_text()):
            break
    except (OSError, ValueError):
        pass
    time.sleep(0.05)
time.sleep(0.5)
report.write_text(json.dumps({"exit_code": 0, "stages": []}))
late.write_text("written after the audit")
"""
# Two ways out of the child's session: a double fork with setsid (a daemon), and a new session by Popen.
DETACH = {
    "setsid double fork": """
import os, sys
def _daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", SLEEPER, *ARGS])
        os._exit(0)
    os.wait()
_daemon()
""",
    "Popen start_new_session": """
import subprocess, sys

subprocess.Popen([sys.executable, "-c", SLEEPER, *ARGS], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
""",
}


@pytest.mark.parametrize("detach", DETACH, ids=list(DETACH))
def test_a_process_that_left_the_session_is_killed_before_the_verdict(tmp_path: Path, detach: str) -> None:
    pidfile, late = tmp_path / "sleeper.pid", tmp_path / "late.txt"
    args = [str(pidfile), str(tmp_path / "audit-report" / "report.json"), str(late)]
    source = f"SLEEPER = {SLEEPER!r}\nARGS = {args!r}\n" + DETACH[detach] + PROGRAM
    r = run(tmp_path, source)
    assert r.code == 1 and r.stage("batch_inspect")["status"] == "passed", (r.stdout, r.stderr)
    assert pidfile.exists(), "the user's code did not start its process"
    assert gone(int(pidfile.read_text()), within_s=0.2), "a process the user's code started outlived the audit"
    time.sleep(1.5)  # the sleeper would have written by now
    assert not late.exists()
    after = json.loads((tmp_path / "audit-report" / "report.json").read_text())
    assert after["exit_code"] == 1 and after == r.report


# The user's code writes forged reports into the report directory while the audit runs.
FORGER = """
from pathlib import Path
for name in ("report.html", "report.sarif", "report.junit.xml"):
    (Path(OUT) / name).write_text("FORGED split-auditor report: exit 0, every check passed")
"""


def test_reports_the_users_code_forged_are_replaced_or_the_run_says_it_could_not_write(tmp_path: Path) -> None:
    out = tmp_path / "audit-report"
    source = PROGRAM.replace("def m():\n", f"def m():\n    OUT = {str(out)!r}\n    exec({FORGER!r})\n")
    config = project(tmp_path, source)
    every = audit("run", str(config), "--only", ONLY, "--format", "json,html,sarif,junit", cwd=tmp_path)
    assert every.code == 1 and every.stage("batch_inspect")["status"] == "passed", every.stderr
    for name in ("report.html", "report.sarif", "report.junit.xml"):  # each format written is the run's own
        text = (out / name).read_text(encoding="utf-8")
        assert "FORGED" not in text and written_here(out / name), name
    # Formats the run does not write: the forged files would stand beside its verdict as its reports.
    json_only = audit("run", str(config), "--only", ONLY, "--format", "json", cwd=tmp_path)
    assert json_only.code == 2 and json_only.report is None
    said = " ".join(json_only.stderr.split())
    assert "appeared in the report directory while the audit ran, and split-auditor did not write them" in said
    assert all(str(out / name) in said for name in ("report.html", "report.sarif", "report.junit.xml")), said


def test_without_the_keeper_the_process_group_is_still_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Where there is no keeper (not Linux): the child alone, its time limit and its group kill still apply.
    monkeypatch.setattr(isolation, "USE_KEEPER", False)
    (tmp_path / "clean").mkdir()
    (tmp_path / "loop").mkdir()
    clean = run_audit(load_config(project(tmp_path / "clean", PROGRAM)), only=["batch_inspect"])
    assert clean.exit_code == 0
    looping = run_audit(
        load_config(project(tmp_path / "loop", "while True: pass\n", timeout_s=2)), only=["batch_inspect"]
    )
    assert looping.exit_code == 2 and looping.stages[0].error is not None
    assert "still running after 2 s" in looping.stages[0].error.message


def test_a_time_limit_that_cannot_be_kept_is_an_error_not_a_pass(tmp_path: Path) -> None:
    # The config refuses it; were one to reach the process anyway, its watchdog fails: no result counts.
    loaded = load_config(project(tmp_path, PROGRAM))
    assert loaded.config.numeric is not None
    unbounded = loaded.config.numeric.model_copy(update={"timeout_s": float("inf")})
    loaded = replace(loaded, config=loaded.config.model_copy(update={"numeric": unbounded}))
    report = run_audit(loaded, only=ONLY.split(","))
    assert report.exit_code == 2
    for name in ("batch_inspect", "broadcast"):
        result = next(s for s in report.stages if s.stage == name)
        assert result.status == "error" and result.error is not None
        assert "numeric.timeout_s = inf s) could not be kept (OverflowError" in result.error.message


def test_a_failure_of_the_isolation_itself_is_a_stage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: UserProcess) -> None:
        raise RuntimeError("the results could not be read")

    monkeypatch.setattr(UserProcess, "join", broken)
    report = run_audit(load_config(project(tmp_path, PROGRAM)), only=ONLY.split(","))
    assert report.exit_code == 2
    assert next(s for s in report.stages if s.stage == "group_overlap").status == "failed"
    for name in ("batch_inspect", "broadcast"):
        result = next(s for s in report.stages if s.stage == name)
        assert result.status == "error" and result.error is not None
        assert "failed (RuntimeError: the results could not be read)" in result.error.message


def test_validate_says_when_the_isolation_itself_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: UserProcess) -> None:
        raise OSError("no process could be started")

    monkeypatch.setattr(UserProcess, "start", broken)
    problems = check_user_code(load_config(project(tmp_path, PROGRAM)))
    assert problems == [
        "numeric: running the user's code in its own process failed (OSError: no process could be started), "
        "so its checks did not run"
    ]


def test_prints_and_a_replaced_stdout_stay_out_of_the_summary(tmp_path: Path) -> None:
    source = "import sys\nprint('hello from import')\nprint('complaint', file=sys.stderr)\n" + PROGRAM.replace(
        "    return ((out", "    print('hello from the loss')\n    sys.stdout = None\n    return ((out"
    )
    r = run(tmp_path, source)
    assert r.code == 1 and r.report is not None and r.report["exit_code"] == 1
    assert "hello" not in r.stdout and "complaint" not in r.stderr + r.stdout
    out = r.report["user_output"]
    assert "hello from import" in out["stdout"] and "hello from the loss" in out["stdout"]
    assert out["stderr"].strip() == "complaint" and out["stderr_bytes"] == len("complaint\n")
    assert "the user's code wrote" in r.stdout  # where to look is still said
    assert "hello from the loss" in (tmp_path / "audit-report" / "report.md").read_text()


def test_output_is_capped_with_a_note(tmp_path: Path) -> None:
    r = run(tmp_path, "import sys\nsys.stdout.write('x' * 200_000 + 'END')\n" + PROGRAM)
    assert r.report is not None
    out = r.report["user_output"]
    assert out["stdout_bytes"] == 200_003 and len(out["stdout"]) < 70_000
    assert "bytes cut" in out["stdout"] and out["stdout"].endswith("END")


def test_a_child_killed_by_a_signal_is_an_error(tmp_path: Path) -> None:
    kill = "    import os\n    os.kill(os.getpid(), 9)\n    return ((out"
    assert_not_audited(run(tmp_path, PROGRAM.replace("    return ((out", kill)), reason="killed by signal 9 (SIGKILL)")


def test_memory_limit(tmp_path: Path) -> None:
    hungry = PROGRAM.replace("    return torch.ones(3, 2)", "    bytearray(4 << 30)\n    return torch.ones(3, 2)")
    r = run(tmp_path, hungry, memory_mb=256)
    assert_not_audited(r, reason="MemoryError")
    assert "numeric.memory_mb allows the user's code 256 MiB" in r.stage("batch_inspect")["error"]["message"]


def test_the_auditor_never_imports_the_users_module(tmp_path: Path) -> None:
    marker = tmp_path / "imported-by.txt"
    source = f"import os\nwith open({str(marker)!r}, 'a') as f:\n    f.write(f'{{os.getpid()}}\\n')\n" + PROGRAM
    config = project(tmp_path, source)
    process = forked.popen([AUDIT, "run", str(config), "--only", ONLY], cwd=tmp_path, stdout=subprocess.DEVNULL)
    assert process.wait(timeout=120) == 1
    pids = marker.read_text().split()
    assert len(pids) == 1 and int(pids[0]) != process.pid
    marker.unlink()
    report = run_audit(load_config(config), only=["batch_inspect"])  # the library call isolates too
    assert report.exit_code == 0 and int(marker.read_text()) != os.getpid() and "mod" not in sys.modules


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_interrupted_audit_kills_the_users_process(tmp_path: Path, signum: int) -> None:
    marker = tmp_path / "child.pid"
    source = f"import os, time\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)\n"
    config = project(tmp_path, source)
    process = forked.popen([AUDIT, "run", str(config), "--only", ONLY], cwd=tmp_path, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(marker.read_text())
    assert child != process.pid
    process.send_signal(signum)
    assert process.wait(timeout=30) != 0
    assert gone(child), f"the user's process {child} outlived the interrupted audit"
    assert not (tmp_path / "audit-report" / "report.md").exists()


def test_an_auditor_killed_by_sigkill_takes_every_process_of_the_users_code_with_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "sleeper.pid"
    args = [str(pidfile), str(tmp_path / "audit-report" / "report.json"), str(tmp_path / "late.txt")]
    source = (
        f"SLEEPER = {SLEEPER!r}\nARGS = {args!r}\n" + DETACH["setsid double fork"] + "import time\ntime.sleep(600)\n"
    )
    config = project(tmp_path, source)
    process = forked.popen([AUDIT, "run", str(config), "--only", ONLY], cwd=tmp_path, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.kill()
    assert process.wait(timeout=30) == -signal.SIGKILL
    assert gone(int(pidfile.read_text())), "a process the user's code started outlived the killed audit"


class PidProbe(NumericStage):
    """A third-party numeric stage: rebuilt in the child from its import name and its options."""

    name = "pid_probe"
    summary = "says which process ran it"
    codes: ClassVar[dict[str, str]] = {"PID001": "the process that ran the stage"}

    class Options(StageOptions):
        label: str = "ran in"

    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        assert isinstance(self.options, PidProbe.Options)
        yield self.finding("PID001", Severity.WARNING, f"{self.options.label} {os.getpid()}", key="pid")


def test_a_plugin_stage_runs_in_the_child_with_its_options(tmp_path: Path) -> None:
    config = project(tmp_path, PROGRAM)
    config.write_text(config.read_text() + "stages:\n  pid_probe: {label: measured in}\naccept:\n"
                      "  - {code: PID001, key: pid, reason: known}\n")  # fmt: skip
    report = run_audit(load_config(config), classes=[PidProbe])
    (f,) = report.findings
    label, _, pid = f.message.rpartition(" ")
    assert label == "measured in" and int(pid) != os.getpid()
    assert f.accepted and f.accept_reason == "known" and report.exit_code == 0  # accept is the parent's


def test_a_plugin_stage_the_child_cannot_import_is_named(tmp_path: Path) -> None:
    class Local(PidProbe):
        name = "local_probe"

    report = run_audit(load_config(project(tmp_path, PROGRAM)), classes=[Local])
    (result,) = report.stages
    assert result.status == "error" and result.error is not None and report.exit_code == 2
    assert "define it at the top level of an importable module" in result.error.message
    assert report.user_output is None  # no process was started for it


def test_only_a_closing_line_with_the_token_and_the_count_completes_the_results(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    record = json.dumps({"record": "{}"})
    cases = {
        f'{record}\n{{"end": 1, "token": "t"}}\n': True,
        f'{record}\n{{"end": 1, "token": "forged"}}\n': False,
        f'{record}\n{{"end": 2, "token": "t"}}\n': False,
        f'{record}\n{{"end": 1, "tok': False,  # cut short by a kill
        f'{record}\n{{"failed": "boom"}}\n': False,
    }
    for text, complete in cases.items():
        path.write_text(text)
        records, done, _ = _read_results(path, "t")
        assert records == ("{}",) and done is complete, text
