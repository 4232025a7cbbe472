from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor import load_config, run_audit
from auditor.numeric.usercode import UserCodeError, load_user_code
from tests.conftest import REPO, write_config
from tests.stages.numeric.conftest import REGRESSION, result

LOSS = "\ndef loss(out, y):\n    return ((out.squeeze(1) - y) ** 2).mean()\n"


def config(tmp_path: Path, source: str, **numeric: str) -> Path:
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "prog.py").write_text("import torch\nimport torch.nn as nn\n" + source, encoding="utf-8")
    section = {"python_path": ["src"], "model": "prog:model", "batch": "prog:batch", "loss": "prog:loss", **numeric}
    return write_config(tmp_path, {"version": 1, "numeric": section, "report": {"formats": ["json"]}})


def test_callables_load_and_sys_path_is_restored(tmp_path: Path) -> None:
    before = list(sys.path)
    code = load_user_code(load_config(config(tmp_path, REGRESSION + LOSS)))
    assert sorted(code.functions) == ["batch", "loss", "model"]
    assert sys.path == before and "prog" not in sys.modules


def test_two_programs_with_the_same_module_name_do_not_mix(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    first = load_user_code(load_config(config(a, REGRESSION + LOSS)))
    second = load_user_code(load_config(config(b, REGRESSION.replace("nn.Linear(2, 1)", "nn.Linear(2, 4)") + LOSS)))
    assert first.call("model").out_features == 1 and second.call("model").out_features == 4


def test_attribute_typo_suggests_the_name(tmp_path: Path) -> None:
    with pytest.raises(
        UserCodeError, match=r"audit.yaml:\d+:\d+: prog:modle: .*has no attribute 'modle'; did you mean 'model'"
    ):
        load_user_code(load_config(config(tmp_path, REGRESSION + LOSS, model="prog:modle")))


def test_missing_module_names_the_search_path(tmp_path: Path) -> None:
    with pytest.raises(UserCodeError, match=r"no module named 'nowhere' \(searched python_path: .*src"):
        load_user_code(load_config(config(tmp_path, REGRESSION + LOSS, loss="nowhere:loss")))


def test_import_error_shows_the_users_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(UserCodeError) as info:
        load_user_code(load_config(config(tmp_path, "x = 1\ny = undefined_name\n")))
    message = str(info.value)
    assert "NameError: name 'undefined_name' is not defined" in message
    assert f"{tmp_path / 'src' / 'prog.py'}:4 in <module>" in message


def test_syntax_error_shows_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(UserCodeError, match=r"SyntaxError.*\n.*prog.py:3:\d+: def model\(:"):
        load_user_code(load_config(config(tmp_path, "def model(:\n    pass\n")))


def test_a_callable_that_raises_is_a_stage_error_with_a_short_traceback(tmp_path: Path) -> None:
    source = (
        REGRESSION + "\ndef helper(y):\n    raise ValueError('bad target')\n\ndef loss(out, y):\n    return helper(y)\n"
    )
    report = run_audit(config(tmp_path, source), only=["nonfinite_trace"])
    res = result(report, "nonfinite_trace")
    assert report.exit_code == 2 and res.status == "error" and res.error is not None
    assert "prog:loss (numeric.loss" in res.error.message and "ValueError: bad target" in res.error.message
    assert "prog.py:15 in loss" in res.error.message and "prog.py:12 in helper" in res.error.message
    assert "auditor" not in res.error.message.split("raised", 1)[1]  # only the user's frames


def test_not_a_module_and_not_callable(tmp_path: Path) -> None:
    source = REGRESSION + LOSS + "\nSCALE = 3\n"
    with pytest.raises(UserCodeError, match="prog:SCALE is a int, not a callable"):
        load_user_code(load_config(config(tmp_path, source, optimizer="prog:SCALE")))


def test_python_path_that_does_not_exist(tmp_path: Path) -> None:
    path = config(tmp_path, REGRESSION + LOSS)
    path.write_text(path.read_text().replace("- src", "- srcs"))
    with pytest.raises(UserCodeError, match=r"python_path entry .*srcs is not a directory"):
        load_user_code(load_config(path))


def test_without_torch_data_stages_run_and_numeric_ones_say_how_to_install(tmp_path: Path) -> None:
    """torch is blocked in a subprocess: importing the package and a data audit must not need it."""
    script = f"""
import sys
sys.modules["torch"] = None
from auditor import run_audit, load_config
from auditor.core.config import config_from_mapping
r = run_audit({str(REPO / "sample_data" / "handwriting" / "audit.yaml")!r})
assert r.exit_code == 1, r.exit_code
loaded = config_from_mapping({{"manifest": {{"path": "manifest.csv", "split": "split"}},
    "keys": {{"groups": ["writer"]}},
    "numeric": {{"model": "m:model", "batch": "m:batch", "loss": "m:loss"}}}},
    base_dir=__import__("pathlib").Path({str(REPO / "sample_data" / "handwriting")!r}))
r = run_audit(loaded, only=["group_overlap", "batch_inspect"])
status = {{s.stage: s for s in r.stages}}
assert status["group_overlap"].status == "failed"
assert status["batch_inspect"].status == "error"
print(status["batch_inspect"].error.message)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "need PyTorch" in done.stdout and "pip install" in done.stdout and "[torch]" in done.stdout


def test_callables_that_need_other_arguments_are_named_before_running(tmp_path: Path) -> None:
    source = REGRESSION.replace("def batch():", "def batch(split):") + LOSS
    with pytest.raises(
        UserCodeError, match=r"prog:batch\(split\) cannot be called as the checks call numeric.batch\(\) with no"
    ):
        load_user_code(load_config(config(tmp_path, source)))


def test_a_training_step_that_cannot_take_model_optimizer_batch_is_named(tmp_path: Path) -> None:
    source = REGRESSION + LOSS + "\ndef step(model, batch):\n    return 0.0\n"
    with pytest.raises(UserCodeError, match=r"prog:step\(model, batch\) cannot be called as the checks call "
                       r"numeric.step\(model, optimizer, batch\)"):  # fmt: skip
        load_user_code(load_config(config(tmp_path, source, step="prog:step")))


def test_syntax_error_traceback_has_no_import_machinery(tmp_path: Path) -> None:
    with pytest.raises(UserCodeError) as info:
        load_user_code(load_config(config(tmp_path, "def model(:\n    pass\n")))
    assert "<frozen" not in str(info.value)


def test_sys_exit_in_user_code_is_a_failure_of_that_code(tmp_path: Path) -> None:
    source = REGRESSION.replace("def batch():", "def batch():\n    import sys\n    sys.exit(0)") + LOSS
    report = run_audit(config(tmp_path, source), only=["batch_inspect"])
    res = result(report, "batch_inspect")
    assert report.exit_code == 2 and res.error is not None and "raised sys.exit(0)" in res.error.message
    (tmp_path / "src" / "prog.py").write_text("import sys\nsys.exit('no data')\n", encoding="utf-8")
    with pytest.raises(UserCodeError, match=r"importing prog failed: sys.exit\('no data'\)"):
        load_user_code(load_config(tmp_path / "audit.yaml"))


def test_import_failure_shows_no_frames_of_the_tool(tmp_path: Path) -> None:
    with pytest.raises(UserCodeError) as info:
        load_user_code(load_config(config(tmp_path, "x = 1\ny = undefined_name\n")))
    assert "usercode.py" not in str(info.value) and "importlib" not in str(info.value)


def test_a_module_rewritten_in_the_same_second_with_the_same_size_is_read_again(tmp_path: Path) -> None:
    # Python's bytecode cache trusts a source's mtime (whole seconds) and size: an edit of one character made
    # within the second (or a checkout that keeps mtimes) would be audited as the code it replaced.
    path = config(tmp_path, REGRESSION + LOSS)
    source = tmp_path / "src" / "prog.py"
    stamp = source.stat().st_mtime_ns
    subprocess.run(  # the user's own run leaves bytecode beside the source
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import prog", str(source.parent)],
        env={"PATH": "/usr/bin:/bin"},
        check=True,
    )
    (cached,) = (source.parent / "__pycache__").glob("prog.*.pyc")
    left = cached.read_bytes()
    assert load_user_code(load_config(path)).call("model").out_features == 1
    source.write_text(
        source.read_text(encoding="utf-8").replace("nn.Linear(2, 1)", "nn.Linear(2, 4)"), encoding="utf-8"
    )
    os.utime(source, ns=(stamp, stamp))
    assert load_user_code(load_config(path)).call("model").out_features == 4
    assert cached.read_bytes() == left  # the user's files are read, never written


def test_a_module_shipped_as_bytecode_alone_still_loads(tmp_path: Path) -> None:
    """Only bytecode kept beside a source is skipped: a .pyc with no source is the module itself."""
    import py_compile

    path = config(tmp_path, REGRESSION + LOSS)
    source = tmp_path / "src" / "prog.py"
    py_compile.compile(str(source), cfile=str(source.with_suffix(".pyc")), doraise=True)
    source.unlink()
    assert load_user_code(load_config(path)).call("model").out_features == 1
