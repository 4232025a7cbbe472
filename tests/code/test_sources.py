"""Reading the code: notebooks as one program with their cells' places, magics blanked, a broken cell left out
with its cell and line, a folder walked without leaving it, and a file no part of which is Python refused."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from auditor.code.analysis import analyse_file
from auditor.code.sources import SourceError, find_sources, neutralise_magics, read_program


def _notebook(path: Path, cells: list[tuple[str, str]], language: str = "python") -> Path:
    nb = new_notebook(cells=[new_markdown_cell(s) if kind == "md" else new_code_cell(s) for kind, s in cells])
    nb.metadata["kernelspec"] = {"name": "k", "display_name": "k", "language": language}
    nbformat.write(nb, path)
    return path


def test_a_notebooks_cells_are_one_program_and_each_line_knows_its_cell_and_its_json_line(tmp_path: Path) -> None:
    path = _notebook(
        tmp_path / "nb.ipynb",
        [("md", "# title"), ("code", "import pandas as pd\ndf = pd.read_csv('a.csv')"), ("code", "x = df.mean()")],
    )
    program = read_program(path)
    place = program.place(3)  # the third program line: the third cell's first line
    assert (place.cell, place.cell_line) == (3, 1)
    assert path.read_text().split("\n")[place.line - 1].strip() == json.dumps("x = df.mean()")
    assert place.shown(tmp_path) == "nb.ipynb cell 3, line 1"
    assert program.place(2).at == f"{path}:{program.place(2).line}"


def test_magics_shell_lines_and_help_are_blanked_and_other_cell_languages_left_out(tmp_path: Path) -> None:
    path = _notebook(
        tmp_path / "nb.ipynb",
        [
            ("code", "%matplotlib inline\n!pip install xgboost\nimport os\nfiles = !ls\nos?"),
            ("code", "%%time\nx = 1"),
            ("code", "%%bash\necho hi > /tmp/x"),
        ],
    )
    program = read_program(path)
    assert program.skipped == ()
    assert neutralise_magics("%%bash\necho hi\nls") == "\n\n"
    assert neutralise_magics("files = !ls\n  %matplotlib inline") == "files = None\n  pass"


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("%time model.fit(X, y)", "model.fit(X, y)"),
        ("  %timeit -n 10 -r 3 f()", "  f()"),
        ("%timeit -n10 -q f()", "f()"),
        ("%prun -s cumulative main()", "main()"),
        ("%memit X = scaler.fit_transform(X)", "X = scaler.fit_transform(X)"),
        ("X = %time scaler.fit_transform(X)", "X = scaler.fit_transform(X)"),
        ("r = %timeit -o f()", "r = None"),  # the timing result, not f()'s value
        ("%time", "pass"),
        ("%time x = ", "pass"),
        ("%timer start", "pass"),  # another magic whose name begins alike
    ],
)
def test_a_timing_magic_keeps_the_statement_it_runs(line: str, read: str) -> None:
    """`%time X = scaler.fit_transform(X)` fits the scaler: blanking the line with its magic hid the fit."""
    assert neutralise_magics(line) == read


def test_a_cell_that_is_not_python_is_left_out_with_its_cell_and_line(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "nb.ipynb", [("code", "x = 1"), ("code", "y = 2\nprint 'python 2'"), ("code", "z = 3")])
    program = read_program(path)
    [skipped] = program.skipped
    assert (skipped.place.cell, skipped.place.cell_line) == (2, 2)
    assert not skipped.whole_file and "left out" in skipped.reason
    assert program.place(program.cells[-1].first).cell == 3  # the cells after it keep their places


def test_a_notebook_none_of_whose_cells_is_python_is_refused_not_read_as_empty(tmp_path: Path) -> None:
    """What is not read cannot pass: every cell left out is the whole notebook unread (markdown cells aside)."""
    cells = [("md", "# notes"), ("code", "print 'a'"), ("code", "x = = 1"), ("code", "")]
    path = _notebook(tmp_path / "nb.ipynb", cells)
    with pytest.raises(SourceError, match=r"no cell of the notebook is valid Python \(the first: not valid Python"):
        read_program(path)


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("broken.py", b"def f(:\n", "not valid Python"),
        ("latin.py", b"x = '\xe9'\n", "not readable as Python source text"),
        ("nul.py", b"x = 1\x00\n", "not valid Python"),
        ("bad.ipynb", b"{not json", "not a readable notebook"),
    ],
)
def test_a_file_no_part_of_which_is_python_is_refused_with_where(
    tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    (tmp_path / name).write_bytes(content)
    with pytest.raises(SourceError, match=reason):
        read_program(tmp_path / name)


@pytest.mark.parametrize(
    ("content", "reason", "at"),
    [
        (b'{"cells": [{"cell_type": "code", "source": 42}]}', "the 'source' of cell 1 is a number", "cell 1, line 1"),
        (b'{"cells": [{"cell_type": "code", "source": ["a", 1]}]}', "the 'source' of cell 1 is an array", "cell 1"),
        (b'{"cells": ["x = 1"]}', "cell 1 is a text, not an object", "cell 1, line 1"),
        (b'{"cells": {"a": 1}}', "its 'cells' is an object, where a list is", ":1"),
        (b'[{"cell_type": "code", "source": "x = 1"}]', "its JSON is an array, where a notebook is an object", ":1"),
        (b'{"cells": [\n  {"cell_type": "code" "source": "x"}]}', r"not JSON \(Expecting ',' delimiter\)", ":2:24"),
    ],
)
def test_a_notebook_whose_json_is_not_a_notebooks_is_refused_with_where(
    tmp_path: Path, content: bytes, reason: str, at: str
) -> None:
    """JSON of another shape is refused with what was found and where, not left to fail inside the reading."""
    path = tmp_path / "odd.ipynb"
    path.write_bytes(content)
    with pytest.raises(SourceError, match=reason) as raised:
        read_program(path)
    assert at in _shown(raised.value)


def _shown(error: SourceError) -> str:
    place = error.place
    return f"cell {place.cell}, line {place.cell_line}" if place.cell is not None else place.at


def test_a_notebook_of_another_language_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="another language"):
        read_program(_notebook(tmp_path / "r.ipynb", [("code", "x <- 1")], language="R"))


def test_an_encoding_cookie_is_honoured(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_bytes("# -*- coding: latin-1 -*-\nname = 'é'\n".encode("latin-1"))
    assert read_program(tmp_path / "old.py").lines == 3


def test_a_folder_is_walked_without_leaving_it(tmp_path: Path) -> None:
    project = tmp_path / "project"
    for part in ("src", ".hidden", "venv", "__pycache__", "notebooks/.ipynb_checkpoints"):
        (project / part).mkdir(parents=True)
    (project / "venv" / "pyvenv.cfg").write_text("")
    for name in (
        "src/train.py",
        ".hidden/x.py",
        "venv/lib.py",
        "__pycache__/c.py",
        "notebooks/.ipynb_checkpoints/a.ipynb",
    ):
        (project / name).write_text("x = 1\n")
    _notebook(project / "notebooks" / "eda.ipynb", [("code", "x = 1")])
    (project / "README.md").write_text("#")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n")
    (project / "src" / "link.py").symlink_to(outside)
    found = find_sources([project], exclude=[])
    assert [p.relative_to(project).as_posix() for p in found.files] == ["notebooks/eda.ipynb", "src/train.py"]
    # Not read, and said (CDL000): a linked script or folder leading out, and a link leading nowhere.
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "leaky.py").write_text("x = 1\n")
    (project / "lib").symlink_to(tmp_path / "shared")
    (project / "src" / "gone.py").symlink_to(project / "src" / "removed.py")
    (project / "inner").symlink_to(project / "src")  # a link inside the folder: its files are read where they are
    found = find_sources([project], exclude=[])
    assert [p.relative_to(project).as_posix() for p in found.files] == ["notebooks/eda.ipynb", "src/train.py"]
    assert {(link.path.relative_to(project).as_posix(), link.kind) for link in found.outside} == {
        ("lib", "folder"),
        ("src/gone.py", "broken"),
        ("src/link.py", "script"),
    }
    # A target read anyway, named beside the folder, hides nothing: no word of its link.
    beside = find_sources([project, outside, tmp_path / "shared"], exclude=[])
    assert {link.kind for link in beside.outside} == {"broken"}
    assert find_sources([project], exclude=["lib", "gone.py", "link.py"]).outside == []
    assert find_sources([project], exclude=["notebooks"]).files == [project / "src" / "train.py"]


def test_a_path_that_is_not_there_or_not_code_is_named(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("a\n1\n")
    found = find_sources([tmp_path / "missing.py", tmp_path / "data.csv"])
    assert found.files == []
    reasons = [p.reason for p in found.problems]
    assert reasons[0].startswith("not found (resolved to") and "working directory" in reasons[0]
    assert "not a .py script or an .ipynb notebook (.csv)" in reasons[1]


NOTEBOOK_HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
df = pd.read_csv("d.csv")
X = df.drop(columns=["y"])
y = df["y"]"""


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        (
            [
                NOTEBOOK_HEAD,
                "%time X = StandardScaler().fit_transform(X)",
                "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)",
                "%%time\nmodel = LogisticRegression().fit(X_tr, y_tr)",
                "print(model.score(X_te, y_te))",
            ],
            [("preprocessing", 2)],
        ),
        (
            [
                NOTEBOOK_HEAD,
                "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)",
                "%time model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)",
                "%timeit -n 3 model.predict(X_te)",
                "print(model.score(X_te, y_te))",
            ],
            [],
        ),
        (
            [
                NOTEBOOK_HEAD,
                "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)",
                "%time model = LogisticRegression().fit(X_te, y_te)",
                "print(model.score(X_te, y_te))",
            ],
            [("overlap", 3)],
        ),
    ],
)
def test_a_statement_after_a_timing_magic_is_read(
    tmp_path: Path, cells: list[str], expected: list[tuple[str, int]]
) -> None:
    """The leak or the correct fit behind `%time` is read, as `%%time` cells were: the fit is in the cell."""
    result = analyse_file(_notebook(tmp_path / "nb.ipynb", [("code", c) for c in cells]))
    assert result.skipped == ()
    assert sorted((p.leak.kind.value, p.place.cell) for p in result.leaks) == expected


@pytest.mark.parametrize(
    "first_line",
    ["#!/usr/bin/env python3", "#!/usr/bin/python", "#!/usr/bin/env -S python3.11 -u", "#! /opt/conda/bin/python3.12"],
)
def test_a_named_script_without_py_whose_first_line_runs_python_is_read(tmp_path: Path, first_line: str) -> None:
    """An executable `train` that starts `#!/usr/bin/env python3` is a Python script (pre-commit's `python` type
    passes it to `audit code`): it was refused as 'not a .py script', exit 2, or an error beside other files."""
    script = tmp_path / "train"
    script.write_text(f"{first_line}\nimport pandas as pd\ndf = pd.read_csv('a.csv')\n")
    found = find_sources([script])
    assert (found.files, found.problems) == ([script], [])
    program = read_program(script)
    assert not program.is_notebook and program.lines == 4


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("run", '#!/bin/sh\nexec python train.py "$@"\n'),  # a shell script that starts python
        ("notes", "python train.py, then look at the scores\n"),
        ("deploy", "#!/usr/bin/env bash\n# python3 is installed by the image\n"),
        ("data.csv", "#!/usr/bin/env python3\n"),  # what its name says it is, whatever its first line
    ],
)
def test_a_named_file_that_only_mentions_python_is_still_not_a_script(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    found = find_sources([tmp_path / name])
    assert found.files == []
    assert [p.reason for p in found.problems] == [
        f"not a .py script or an .ipynb notebook ({Path(name).suffix or 'no suffix'})"
    ]


def test_a_folder_still_holds_only_its_py_and_ipynb_files(tmp_path: Path) -> None:
    """Only a script named on the command line is read by its first line; a folder's files go by their names."""
    (tmp_path / "train").write_text("#!/usr/bin/env python3\nx = 1\n")
    (tmp_path / "prep.py").write_text("x = 1\n")
    assert find_sources([tmp_path]).files == [tmp_path / "prep.py"]


def test_a_lines_context_is_the_functions_and_classes_around_it_not_its_line(tmp_path: Path) -> None:
    """Part of a code finding's identity: it names where the line is in a way a line added above keeps."""
    source = (
        "x = 1\n"  # 1
        "class Trainer:\n"  # 2
        "    def fit(self):\n"  # 3
        "        if True:\n"  # 4
        "            def inner():\n"  # 5
        "                return 2\n"  # 6
        "        return 3\n"  # 7
        "    y = 4\n"  # 8
        "@decorated\n"  # 9
        "async def serve():\n"  # 10
        "    pass\n"  # 11
    )
    (tmp_path / "t.py").write_text(source)
    program = read_program(tmp_path / "t.py")
    expected = {1: "", 3: "Trainer.fit", 6: "Trainer.fit.inner", 7: "Trainer.fit", 8: "Trainer", 9: "", 11: "serve"}
    assert {line: program.context(line) for line in expected} == expected
    (tmp_path / "t.py").write_text("import os\n\n" + source)
    assert read_program(tmp_path / "t.py").context(8) == "Trainer.fit.inner"


LEAKY = (
    "import pandas as pd\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.linear_model import LogisticRegression\n"
    'df = pd.read_csv("d.csv")\n'
    'X = StandardScaler().fit_transform(df.drop(columns="y"))\n'
    'X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"])\n'
    "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n"
)


@pytest.mark.parametrize("name", ["gui.pyw", "tool.pyt", "app.tac", "app.wsgi", "wscript"])
def test_every_python_program_pre_commit_passes_is_read_named_or_in_a_folder(tmp_path: Path, name: str) -> None:
    """pre-commit's `python` type gives `audit code` a `.pyw` too: it was refused ('not a .py script'), an error
    that blocked the commit, while a `#!` script without a suffix was read. Its leak is found as a `.py`'s is."""
    script = tmp_path / "src" / name
    script.parent.mkdir()
    script.write_text(LEAKY)
    for given in (script, script.parent):
        found = find_sources([given])
        assert (found.files, found.problems) == ([script], [])
    assert [p.leak.kind.value for p in analyse_file(script).leaks] == ["preprocessing"]


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("types.pyi", "a type stub"),
        ("build.gyp", "a GYP build file"),
        ("common.gypi", "a GYP build file"),
        (".pdbrc", "pdb's commands"),
    ],
)
def test_a_named_file_of_python_syntax_that_runs_no_code_is_passed_over_without_a_word(
    tmp_path: Path, name: str, what: str
) -> None:
    """A stub declares, a GYP file is data, .pdbrc holds debugger commands: no leak can be in them, so naming one
    (pre-commit names the last three as `python` files) is neither read nor a problem."""
    (tmp_path / name).write_text("def fit(x: int) -> int: ...\n")
    (tmp_path / "ok.py").write_text("x = 1\n")
    found = find_sources([tmp_path / name, tmp_path / "ok.py"])
    assert found.files == [tmp_path / "ok.py"] and found.problems == []
    assert [(p, w.split(" (")[0]) for p, w in found.passed_over] == [(tmp_path / name, what)]
    assert find_sources([tmp_path]).files == [tmp_path / "ok.py"]  # nor read in a folder


@pytest.mark.parametrize("name", ["fast.pyx", "cache.pyc", "gui.pyw.bak", "setup.cfg"])
def test_a_named_file_near_python_in_name_is_still_not_a_script(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("x = 1\n")
    found = find_sources([tmp_path / name])
    assert found.files == [] and found.passed_over == []
    assert [p.reason for p in found.problems] == [f"not a .py script or an .ipynb notebook ({Path(name).suffix})"]


def test_every_kind_pre_commit_calls_python_is_read_or_passed_over() -> None:
    """The `identify` package is what pre-commit's `types_or: [python]` asks: each of its Python extensions and
    names is one `audit code` reads or passes over, never one it refuses."""
    identify = pytest.importorskip("identify.extensions")
    from auditor.code.sources import NOT_PROGRAM_NAMES, NOT_PROGRAMS, SCRIPT_NAMES, SUFFIXES

    extensions = {f".{e}" for e, tags in identify.EXTENSIONS.items() if "python" in tags}
    names = {n for n, tags in identify.NAMES.items() if "python" in tags}
    assert extensions <= {*SUFFIXES, *NOT_PROGRAMS} and names <= {*SCRIPT_NAMES, *NOT_PROGRAM_NAMES}


def test_a_project_folder_named_build_or_dist_is_read_but_setuptools_copies_are_not(tmp_path: Path) -> None:
    # pipelines/build/train.py is the project's own; build/lib/ and build/bdist.* are copies setuptools made
    project = tmp_path / "project"
    for name in (
        "pipelines/build/train.py",
        "pipelines/dist/train_dist.py",
        "build/lib/pkg/prep.py",
        "build/lib.linux-x86_64-3.11/pkg/prep.py",
        "build/bdist.linux-x86_64/pkg/prep.py",
        "build/make_features.py",
    ):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x = 1\n")
    found = find_sources([project], exclude=[])
    assert [p.relative_to(project).as_posix() for p in found.files] == [
        "build/make_features.py",
        "pipelines/build/train.py",
        "pipelines/dist/train_dist.py",
    ]
