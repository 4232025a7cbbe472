"""Imports of the project's own modules read as their code: a leak made in prep.py, split and scored in
train.py, is found; correct helpers imported from a module stay quiet; nothing outside the importer's folder
(or the files named) is read."""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import pytest

from auditor.code.analysis import analyse, analyse_file
from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
"""

SCALED_ON_ALL = (
    HEAD
    + """
df = pd.read_csv("data.csv")
X = df.drop(columns=["label"])
y = df["label"]
X_scaled = StandardScaler().fit_transform(X)
"""
)

SPLIT_AND_SCORE = """\
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
{imports}
X_train, X_test, y_train, y_test = train_test_split({X}, {y}, test_size=0.2, random_state=0)
model = LogisticRegression().fit(X_train, y_train)
print(accuracy_score(y_test, model.predict(X_test)))
"""


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _found(
    folder: Path, script: str = "train.py", named: tuple[str, ...] = (), read: tuple[str, ...] = ("prep.py",)
) -> list[tuple[str, str, str]]:
    """(kind, where the finding is placed, its message) of each leak the reading of ``script`` finds; the
    modules ``read`` must have been read into it (a module that does not parse would pass unread)."""
    result = analyse_file(folder / script, [folder / n for n in named])
    assert result.skipped == ()
    assert result.program is not None
    assert sorted(m.path.name for m in result.program.modules) == sorted(read)
    return [(p.leak.kind.value, f"{p.place.path.name}:{p.place.line}", p.leak.message) for p in result.leaks]


@pytest.mark.parametrize(
    ("imports", "X", "y"),
    [
        ("from prep import X_scaled, y", "X_scaled", "y"),
        ("from prep import X_scaled as features, y as target", "features", "target"),
        ("import prep", "prep.X_scaled", "prep.y"),
        ("import prep as p", "p.X_scaled", "p.y"),
        ("from prep import *", "X_scaled", "y"),
    ],
)
def test_rows_scaled_in_an_imported_module_and_scored_here_leak(tmp_path: Path, imports: str, X: str, y: str) -> None:
    _write(tmp_path, {"prep.py": SCALED_ON_ALL, "train.py": SPLIT_AND_SCORE.format(imports=imports, X=X, y=y)})
    (found,) = _found(tmp_path)
    kind, where, message = found
    assert (kind, where) == ("preprocessing", "train.py:4")  # the import that brings the scaled rows
    # as docs/code.md quotes it
    assert message.startswith(
        "StandardScaler.fit_transform at prep.py line 7 (run from line 4) learns the scale and centre of every "
        "column from all rows of read_csv('data.csv') "
    )
    assert "the score at line 7 (accuracy_score)" in message


def test_a_function_of_the_module_that_scales_every_row_leaks_where_it_is_called(tmp_path: Path) -> None:
    prep = HEAD + textwrap.dedent("""
        def load(path):
            df = pd.read_csv(path)
            X = StandardScaler().fit_transform(df.drop(columns=["label"]))
            return X, df["label"]
        """)
    imports = 'from prep import load\nX, y = load("data.csv")'
    _write(tmp_path, {"prep.py": prep, "train.py": SPLIT_AND_SCORE.format(imports=imports, X="X", y="y")})
    (found,) = _found(tmp_path)
    assert found[:2] == ("preprocessing", "train.py:5")
    assert "at prep.py line 6 (run from line 5)" in found[2]


def test_a_module_imported_by_a_module_is_read_too(tmp_path: Path) -> None:
    features = "from prep import X_scaled, y\nX_more = X_scaled * 2\n"
    imports = "from features import X_more, y"
    _write(
        tmp_path,
        {
            "prep.py": SCALED_ON_ALL,
            "features.py": features,
            "train.py": SPLIT_AND_SCORE.format(imports=imports, X="X_more", y="y"),
        },
    )
    found = _found(tmp_path, read=("features.py", "prep.py"))
    assert [f[:2] for f in found] == [("preprocessing", "train.py:4")]


def test_a_package_s_relative_import_is_read_when_the_folder_is_audited(tmp_path: Path) -> None:
    imports = "from .prep import X_scaled, y"
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/prep.py": SCALED_ON_ALL,
            "pkg/train.py": SPLIT_AND_SCORE.format(imports=imports, X="X_scaled", y="y"),
        },
    )
    analysis = analyse([tmp_path])
    placed = [(r.path.name, p.leak.kind.value) for r in analysis.files for p in r.leaks]
    assert placed == [("train.py", "preprocessing")]


def test_a_module_of_a_package_run_from_the_project_root_is_read_when_named(tmp_path: Path) -> None:
    imports = "from pkg.prep import X_scaled, y"
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/prep.py": SCALED_ON_ALL,
            "scripts/train.py": SPLIT_AND_SCORE.format(imports=imports, X="X_scaled", y="y"),
        },
    )
    # Not beside the script: read only because it is among the files audited.
    assert _found(tmp_path, "scripts/train.py", read=()) == []
    found = _found(tmp_path, "scripts/train.py", named=("scripts/train.py", "pkg/prep.py"))
    assert [f[:2] for f in found] == [("preprocessing", "train.py:4")]


# Correct code that looks like the leaks above ------------------------------------------------------------


def test_a_helper_that_fits_on_the_training_rows_it_is_given_stays_quiet(tmp_path: Path) -> None:
    prep = HEAD + textwrap.dedent("""
    def scale(train, test):
        scaler = StandardScaler().fit(train)
        return scaler.transform(train), scaler.transform(test)
    """)
    train = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split
    from prep import scale

    df = pd.read_csv("data.csv")
    X_train, X_test, y_train, y_test = train_test_split(df.drop(columns=["label"]), df["label"], random_state=0)
    X_train, X_test = scale(X_train, X_test)
    model = LogisticRegression().fit(X_train, y_train)
    print(accuracy_score(y_test, model.predict(X_test)))
    """
    _write(tmp_path, {"prep.py": prep, "train.py": train})
    assert _found(tmp_path) == []


def test_a_module_s_main_block_does_not_run_when_it_is_imported(tmp_path: Path) -> None:
    """prep.py scales every row in its own `__main__` block; train.py imports only its loader and scales after
    the split: the block does not run on import, so it is no leak of train.py (it is one of prep.py)."""
    prep = HEAD + textwrap.dedent("""
    def load(path):
        df = pd.read_csv(path)
        return df.drop(columns=["label"]), df["label"]

    if __name__ == "__main__":
        X, y = load("data.csv")
        X = StandardScaler().fit_transform(X)
    """)
    train = """\
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from prep import load

    X, y = load("data.csv")
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
    print(accuracy_score(y_test, model.predict(X_test)))
    """
    _write(tmp_path, {"prep.py": prep, "train.py": train})
    assert _found(tmp_path) == []


def test_a_module_s_names_do_not_replace_the_importer_s_own(tmp_path: Path) -> None:
    """prep.py has a module-level `X` scaled on every row; train.py has its own `X`, read before the import,
    and scales it after the split. Only the helper is imported: Python keeps prep's `X` in prep."""
    prep = SCALED_ON_ALL + "\ndef columns(frame):\n    return list(frame.columns)\n"
    train = """\
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = pd.read_csv("other.csv")
    from prep import columns

    y = X.pop("label")
    X_train, X_test, y_train, y_test = train_test_split(X[columns(X)], y, random_state=0)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
    print(accuracy_score(y_test, model.predict(X_test)))
    """
    _write(tmp_path, {"prep.py": prep, "train.py": train})
    assert _found(tmp_path) == []


def test_modules_that_import_each_other_are_read_once(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "a.py": "from b import helper\nVALUE = 1\n",
            "b.py": "from a import VALUE\n\ndef helper():\n    return VALUE\n",
            "train.py": SPLIT_AND_SCORE.format(
                imports="from a import VALUE\nfrom prep import X_scaled, y", X="X_scaled", y="y"
            ),
            "prep.py": SCALED_ON_ALL,
        },
    )
    found = _found(tmp_path, read=("a.py", "b.py", "prep.py"))
    assert [f[:2] for f in found] == [("preprocessing", "train.py:5")]


def test_a_module_that_is_not_python_leaves_its_import_as_it_was(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "prep.py": "def broken(:\n",
            "train.py": SPLIT_AND_SCORE.format(imports="from prep import X, y", X="X", y="y"),
        },
    )
    assert _found(tmp_path, read=()) == []


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_module_linked_from_outside_the_importer_s_folder_is_not_read(tmp_path: Path) -> None:
    outside, project = tmp_path / "outside", tmp_path / "project"
    _write(outside, {"prep.py": SCALED_ON_ALL})
    _write(project, {"train.py": SPLIT_AND_SCORE.format(imports="from prep import X_scaled, y", X="X_scaled", y="y")})
    (project / "prep.py").symlink_to(outside / "prep.py")
    assert _found(project, read=()) == []  # as if it were a library's: a path never leads outside what was named


# A helper whose code is not read (a library's, or a module not beside the script) ---------------------------

OPAQUE = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from helpers import scale

df = pd.read_csv("data.csv")
X_train, X_test, y_train, y_test = train_test_split(df.drop(columns=["label"]), df["label"], random_state=0)
{call}
model = LogisticRegression().fit(X_train, y_train)
print(accuracy_score(y_test, model.predict(X_test)))
"""


@pytest.mark.parametrize(
    "call",
    [
        "X_train, X_test = scale(X_train, X_test)",
        "X_train, X_test = scale(X_train, X_test, columns=['a'])",
        "X_train, X_test = scale(X_train, X_test, 'minmax')",
    ],
)
def test_an_unread_helper_given_the_two_parts_returns_each_in_its_place(tmp_path: Path, call: str) -> None:
    """It used to give both names every row of both parts: the model then trained "on the test rows put back"."""
    _write(tmp_path, {"train.py": OPAQUE.format(call=call)})
    assert _found(tmp_path, read=()) == []


@pytest.mark.parametrize(
    "call",
    [
        "X_train, X_test = scale(df.drop(columns=['label']), X_test)",  # every row, test rows among them
        "X_train = scale(pd.concat([X_train, X_test]))",
    ],
)
def test_an_unread_helper_given_rows_that_hold_the_test_rows_still_leaks(tmp_path: Path, call: str) -> None:
    _write(tmp_path, {"train.py": OPAQUE.format(call=call)})
    assert [f[0] for f in _found(tmp_path, read=())] == ["overlap"]


def test_a_module_in_a_subfolder_is_named_by_its_path_from_the_script(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "prep/__init__.py": "from .scaling import X_scaled, y\n",
            "prep/scaling.py": SCALED_ON_ALL,
            "train.py": SPLIT_AND_SCORE.format(imports="from prep import X_scaled, y", X="X_scaled", y="y"),
        },
    )
    (found,) = _found(tmp_path, read=("__init__.py", "scaling.py"))
    assert found[:2] == ("preprocessing", "train.py:4")
    assert "StandardScaler.fit_transform at prep/scaling.py line 7 (run from line 4)" in found[2]


def test_an_import_of_the_project_s_module_that_is_not_read_is_noted(tmp_path: Path) -> None:
    """scripts/train.py imports mylib.prep from the project's root (on sys.path when run from there): not beside
    the script, not named, so not read, and said, where a silent pass would be trusted."""
    _write(
        tmp_path,
        {
            "mylib/__init__.py": "",
            "mylib/prep.py": SCALED_ON_ALL,
            "scripts/train.py": SPLIT_AND_SCORE.format(
                imports="from mylib.prep import X_scaled, y", X="X_scaled", y="y"
            )
            + "import json\nimport numpy\n",
        },
    )
    result = analyse_file(tmp_path / "scripts" / "train.py")
    assert result.leaks == ()
    assert [(m, p.line, f.relative_to(tmp_path).as_posix()) for m, p, f in result.unread] == [
        ("mylib.prep", 4, "mylib/prep.py")
    ]


# A helper that changes the frame it is given, in place ------------------------------------------------------


IN_PLACE_HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
COLS = ["a", "b"]
"""

_CALLED_ON_EVERY_ROW = """
        {helper}

        df = pd.read_csv("d.csv")
        {call}
        X_tr, X_te, y_tr, y_te = train_test_split(df[COLS], df["y"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
_BODY = "\n            "  # a helper's next line, as the template indents it

IN_PLACE = {
    "LEAK: columns scaled in place on every row, then split": (
        _CALLED_ON_EVERY_ROW.format(
            helper="def standardize(df):" + _BODY + "df[COLS] = StandardScaler().fit_transform(df[COLS])",
            call="standardize(df)",
        ),
        [("preprocessing", 5)],
    ),
    "LEAK: gaps filled in place with the mean of every row": (
        _CALLED_ON_EVERY_ROW.format(
            helper="def fill(df):" + _BODY + 'df["a"].fillna(df["a"].mean(), inplace=True)', call="fill(df)"
        ),
        [("preprocessing", 5)],
    ),
    "a copy changed, not the caller's frame": (
        _CALLED_ON_EVERY_ROW.format(
            helper="def standardize(df):"
            + _BODY
            + "df = df.copy()"
            + _BODY
            + "df[COLS] = StandardScaler().fit_transform(df[COLS])"
            + _BODY
            + "return df",
            call="standardize(df)",
        ),
        [],
    ),
    "the training part changed in place, after the split": (
        """
        def standardize(df):
            df[COLS] = StandardScaler().fit_transform(df[COLS])

        df = pd.read_csv("d.csv")
        train, test = train_test_split(df, random_state=0)
        standardize(train)
        print(LogisticRegression().fit(train[COLS], train["y"]).score(test[COLS], test["y"]))
        """,
        [],
    ),
    "LEAK: an array standardised in place by augmented assignment, then split": (
        """
        def standardize_(a):
            a -= a.mean(axis=0)
            a /= a.std(axis=0)

        X = pd.read_csv("d.csv")[COLS].to_numpy()
        standardize_(X)
        X_tr, X_te = train_test_split(X, random_state=0)
        print(LogisticRegression().fit(X_tr, X_tr[:, 0] > 0).score(X_te, X_te[:, 0] > 0))
        """,
        # (the label, whether the first column is positive, is read from that column among the features too)
        [("label_in_features", 8), ("preprocessing", 6)],
    ),
    "LEAK: a method filling the frame it is given in place": (
        _CALLED_ON_EVERY_ROW.format(
            helper="class Cleaner:"
            + _BODY
            + "def run(self, df):"
            + _BODY
            + '    df["a"].fillna(df["a"].mean(), inplace=True)',
            call="Cleaner().run(df)",
        ),
        [("preprocessing", 6)],
    ),
    "a method filling the training part in place, the test part with its statistics": (
        """
        class Cleaner:
            def fit(self, df):
                self.means = df[COLS].mean()
                return self
            def run(self, df):
                df.fillna(self.means, inplace=True)

        df = pd.read_csv("d.csv")
        train, test = train_test_split(df, random_state=0)
        cleaner = Cleaner().fit(train)
        cleaner.run(train)
        cleaner.run(test)
        print(LogisticRegression().fit(train[COLS], train["y"]).score(test[COLS], test["y"]))
        """,
        [],
    ),
}


@pytest.mark.parametrize("case", list(IN_PLACE))
def test_a_helper_changing_its_frame_in_place_changes_the_caller_s(tmp_path: Path, case: str) -> None:
    body, expected = IN_PLACE[case]
    assert leaks_found(tmp_path, IN_PLACE_HEAD, body) == expected


def test_functions_of_a_module_that_nothing_imported_reaches_are_not_judged_in_the_importer(tmp_path: Path) -> None:
    """tuning.py's helper picks a model by its test score; train.py imports only a loader from it. The helper is
    tuning.py's to answer for (read as a file of its own), not train.py's: it was reported in both."""
    tuning = HEAD + textwrap.dedent("""
        from sklearn.linear_model import LogisticRegression

        def load(path):
            return pd.read_csv(path)

        def best_c(X_train, y_train, X_test, y_test):
            scores = {c: LogisticRegression(C=c).fit(X_train, y_train).score(X_test, y_test) for c in (0.1, 1, 10)}
            return max(scores, key=scores.get)
        """)
    train = """\
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from tuning import load

    df = load("d.csv")
    X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
    print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
    """
    _write(tmp_path, {"tuning.py": tuning, "train.py": train})
    assert _found(tmp_path, read=("tuning.py",)) == []
    alone = analyse_file(tmp_path / "tuning.py")
    assert [p.leak.kind.value for p in alone.leaks] == ["multi_test"]


def test_a_module_of_many_helpers_imported_for_one_is_walked_with_what_that_one_needs(tmp_path: Path) -> None:
    helpers = "".join(f"\ndef helper_{i}(df):\n    return df.assign(c{i}=df['a'] * {i})\n" for i in range(200))
    prep = (
        HEAD
        + helpers
        + textwrap.dedent("""
        REGISTRY = {}

        def register(fn):
            REGISTRY[fn.__name__] = fn
            return fn

        @register
        def scale_all(df):
            return StandardScaler().fit_transform(df)
        """)
    )
    imports = (
        "from prep import REGISTRY, helper_3\nimport pandas as pd\n"
        'X = REGISTRY["scale_all"](helper_3(pd.read_csv("d.csv")))'
    )
    _write(tmp_path, {"prep.py": prep, "train.py": SPLIT_AND_SCORE.format(imports=imports, X="X", y="X[:, 0] > 0")})
    result = analyse_file(tmp_path / "train.py", [])
    assert result.program is not None
    walked = {n.name for n in ast.walk(result.program.tree) if isinstance(n, ast.FunctionDef)}
    assert {"helper_3", "register", "scale_all"} <= walked and "helper_4" not in walked


def test_a_module_past_the_reading_s_limit_of_lines_is_left_unread_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(
        tmp_path,
        {
            "prep.py": SCALED_ON_ALL,
            "train.py": SPLIT_AND_SCORE.format(imports="from prep import X_scaled, y", X="X_scaled", y="y"),
        },
    )
    assert _found(tmp_path)  # read, it leaks
    monkeypatch.setattr("auditor.code.modules.MAX_LINES", 5)  # prep.py keeps 7 lines
    result = analyse_file(tmp_path / "train.py")
    assert result.leaks == () and result.modules == ()
    assert result.left == ((tmp_path / "prep.py").resolve(),)


def test_a_module_past_the_limit_of_modules_is_left_unread_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("auditor.code.modules.MAX_MODULES", 1)
    _write(
        tmp_path, {"a.py": "A = 1\n", "b.py": "B = 2\n", "train.py": "from a import A\nfrom b import B\nprint(A + B)\n"}
    )
    result = analyse_file(tmp_path / "train.py")
    assert [m.name for m in result.modules] == ["a.py"]
    assert result.left == ((tmp_path / "b.py").resolve(),)
    monkeypatch.setattr("auditor.code.modules.MAX_MODULES", 2)
    assert analyse_file(tmp_path / "train.py").left == ()


def test_files_sharing_what_one_pass_learnt_of_modules_read_as_files_read_alone(tmp_path: Path) -> None:
    scripts = {
        f"train_{i}.py": SPLIT_AND_SCORE.format(imports=imports, X=X, y=y)
        for i, (imports, X, y) in enumerate(
            [
                ("from prep import X_scaled, y", "X_scaled", "y"),
                ("import prep", "prep.X_scaled", "prep.y"),
                ("from helpers import load\nX, y = load()", "X", "y"),
            ]
        )
    }
    helpers = HEAD + "\ndef load():\n    df = pd.read_csv('d.csv')\n    return df.drop(columns=['y']), df['y']\n"
    _write(tmp_path, {"prep.py": SCALED_ON_ALL, "helpers.py": helpers, **scripts})

    def seen(files: list) -> list[tuple[str, int, tuple[str, ...]]]:
        return sorted(
            (r.path.name, len(r.leaks), tuple(sorted(m.name for m in r.modules)))
            for r in files
            if "train" in r.path.name
        )

    alone = seen([analyse_file(tmp_path / name, [tmp_path / name]) for name in scripts])
    assert alone == [
        ("train_0.py", 1, ("prep.py",)),
        ("train_1.py", 1, ("prep.py",)),
        ("train_2.py", 0, ("helpers.py",)),
    ]
    assert seen(analyse([tmp_path], workers=1).files) == alone
    assert seen(analyse([tmp_path], workers=2).files) == alone


def test_a_copied_tree_is_the_tree_moved_down_by_the_lines_given() -> None:
    from auditor.code.modules import _copied

    tree = ast.parse(SCALED_ON_ALL + SPLIT_AND_SCORE.format(imports="", X="X", y="y"))
    moved = _copied(tree, 1_000_000)
    expected = ast.parse(SCALED_ON_ALL + SPLIT_AND_SCORE.format(imports="", X="X", y="y"))
    ast.increment_lineno(expected, 1_000_000)
    assert ast.dump(moved, include_attributes=True) == ast.dump(expected, include_attributes=True)
    assert not any(a is b for a, b in zip(ast.walk(moved), ast.walk(tree), strict=True) if isinstance(a, ast.AST))


def test_the_limits_docs_code_md_states_are_the_reading_s() -> None:
    from auditor.code.modules import MAX_DEPTH, MAX_LINES, MAX_MODULES

    words = {4: "four"}
    text = " ".join((Path(__file__).parents[2] / "docs" / "code.md").read_text().split())
    assert (
        f"({MAX_MODULES} modules, {MAX_LINES:,} lines of the code they keep, imports {words[MAX_DEPTH]} deep)" in text
    )


LOADERS = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler


def load_scaled(path):
    df = pd.read_csv(path)
    return StandardScaler().fit_transform(df.drop(columns=["y"])), df["y"]


def load(path):
    df = pd.read_csv(path)
    return df.drop(columns=["y"]), df["y"]
"""

IN_MAIN = """\
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def main():
    {imports}
    X, y = {load}("data.csv")
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
    print(make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr).score(X_te, y_te))


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(
    ("imports", "load", "expected"),
    [
        ("from prep import load_scaled", "load_scaled", [("preprocessing", "train.py:9")]),
        ("import prep", "prep.load_scaled", [("preprocessing", "train.py:9")]),
        ("from prep import load", "load", []),
        ("import prep as p", "p.load", []),
    ],
)
def test_a_module_imported_inside_a_function_is_read_where_it_is_imported(
    tmp_path: Path, imports: str, load: str, expected: list[tuple[str, str]]
) -> None:
    _write(tmp_path, {"prep.py": LOADERS, "train.py": IN_MAIN.format(imports=imports, load=load)})
    assert [(kind, where) for kind, where, _ in _found(tmp_path)] == expected


# data.py read and cut once; features.py and train.py both import it, as a project split in three files does.
_DATA = """\
import pandas as pd
from sklearn.model_selection import train_test_split

FEATURES = ["temp", "humidity"]
TARGET = "kwh"
df = pd.read_csv("energy.csv")
train, test = train_test_split(df, test_size=0.25, random_state=1)
"""

_SCORED = """\
from sklearn.linear_model import Ridge
{imports}
model = Ridge().fit({X_train}, {y_train})
print(model.score({X_test}, {y_test}))
"""


@pytest.mark.parametrize("features_first", [False, True])
def test_a_module_imported_again_by_a_module_the_program_imports_gives_the_same_values(
    tmp_path: Path, features_first: bool
) -> None:
    """Python runs data.py once: features.py's `df` is train.py's. An imputer fitted there on every row, the rows
    then split in train.py, is found, whichever of the two imports comes first."""
    imports = ["from data import TARGET, df", "from features import X_imputed"]
    _write(
        tmp_path,
        {
            "data.py": _DATA,
            "features.py": "from sklearn.impute import SimpleImputer\n\nfrom data import FEATURES, df\n\n"
            "X_imputed = SimpleImputer().fit_transform(df[FEATURES])\n",
            "train.py": SPLIT_AND_SCORE.format(
                imports="\n".join(imports[::-1] if features_first else imports), X="X_imputed", y="df[TARGET]"
            ),
        },
    )
    found = _found(tmp_path, read=("data.py", "features.py"))
    assert [kind for kind, _, _ in found] == ["preprocessing"]
    assert "at features.py line 5" in found[0][2]


def test_a_scaler_fitted_in_a_module_on_the_training_part_of_a_split_made_in_another_is_clean(
    tmp_path: Path,
) -> None:
    """The same split seen from both modules: features.py fits on its training part, train.py scores its test part
    (read as two splits, the scaler's rows would seem to hold the scored ones)."""
    _write(
        tmp_path,
        {
            "data.py": _DATA,
            "features.py": "from sklearn.preprocessing import StandardScaler\n\nfrom data import FEATURES, train\n\n"
            "scaler = StandardScaler().fit(train[FEATURES])\n",
            "train.py": _SCORED.format(
                imports="from data import FEATURES, TARGET, test, train\nfrom features import scaler",
                X_train="scaler.transform(train[FEATURES])",
                y_train="train[TARGET]",
                X_test="scaler.transform(test[FEATURES])",
                y_test="test[TARGET]",
            ),
        },
    )
    assert _found(tmp_path, read=("data.py", "features.py")) == []
