"""The statement an acceptance of a code finding binds to: at a line and column, at a line alone (as a run
places a leak), on a line no statement holds (its text as written), and the form two statements are compared in."""

from __future__ import annotations

import ast
from pathlib import Path

from auditor.code.sources import read_program
from auditor.core.statements import canonical_statement, line_statement, statement_at

SOURCE = """\
import pandas as pd
def main(df):
    X = scale(df)
    for C in Cs: fit(C)
    a = 1; b = fit(X)
    y = fit(X,
            df)
    return X
"""


def test_a_line_alone_binds_the_statement_that_starts_on_it_not_the_block_around_it() -> None:
    tree = ast.parse(SOURCE)
    assert statement_at(tree, 3, None) == "X = scale(df)"
    assert statement_at(tree, 7, None) == "y = fit(X, df)"  # a line inside a statement: that statement
    assert statement_at(tree, 2, None) == "def main(df):"


def test_a_line_alone_holding_several_statements_binds_them_all() -> None:
    """Which of them a run meant is not known: an acceptance of `a = 1` alone would cover `b = fit(X_test)`."""
    tree = ast.parse(SOURCE)
    assert statement_at(tree, 5, None) == "a = 1; b = fit(X)"
    assert statement_at(tree, 4, None) == "for C in Cs:; fit(C)"
    # Compared as written: never reduced to one statement (`for C in Cs:`), whatever the loop's body becomes.
    assert canonical_statement("a = 1; b = fit(X)") == "a = 1; b = fit(X)"
    assert canonical_statement("for C in Cs:; fit(C)") != canonical_statement("for C in Cs:; fit(D)")


def test_a_line_and_column_bind_as_before() -> None:
    tree = ast.parse(SOURCE)
    assert statement_at(tree, 5, 11) == "b = fit(X)"
    assert statement_at(tree, 3, 0) == "def main(df):"  # column 0 on an indented line: the block that holds it
    assert statement_at(tree, 3, 4) == "X = scale(df)"
    assert statement_at(tree, 9, None) == ""  # past the end


def test_a_compound_statement_with_its_body_is_compared_whole_not_as_its_header() -> None:
    """`for C in Cs: fit(C)` parsed alone is a loop whose header is `for C in Cs:`: compared in that form it would
    be one statement with `for C in Cs: fit(X_test)`."""
    assert canonical_statement("for C in Cs: fit(C)") == "for C in Cs: fit(C)"
    assert canonical_statement("for C in Cs: fit(C)") != canonical_statement("for C in Cs: fit(X_test)")
    # A simple statement is compared as code, as always: quotes, spacing and comments do not count.
    assert canonical_statement('X = f(df["y"])  # ok') == canonical_statement("X = f(df['y'])")
    assert canonical_statement('X = f(df["Y"])') != canonical_statement("X = f(df['y'])")


def test_text_that_does_not_parse_is_compared_exactly_as_written() -> None:
    """Collapsing its spaces would make `f("a  b"` the same as `f("a b"`."""
    assert canonical_statement('  X = f("a  b",  ') == 'X = f("a  b",'
    assert canonical_statement('X = f("a  b",') != canonical_statement('X = f("a b",')
    assert line_statement("\t@cache(maxsize=fit(X))  \r") == "@cache(maxsize=fit(X))"


def test_a_line_no_statement_holds_binds_its_text_as_written(tmp_path: Path) -> None:
    """A decorator's line is in no statement (a function starts at `def`); lines end as the parser ends them."""
    script = tmp_path / "s.py"
    script.write_bytes(
        b"import functools\r\n@functools.lru_cache(maxsize=fit(X,  y))  # cached\r\ndef f():\r\n  pass\r\n"
    )
    program = read_program(script)
    assert statement_at(program.tree, 2, None) == ""
    assert program.statement(2) == "@functools.lru_cache(maxsize=fit(X,  y))  # cached"
    assert program.statement(3) == "def f():"  # a line a statement holds: the statement, as before
    assert program.statement(1, 0) == "import functools"


def test_a_notebook_program_binds_the_text_of_its_own_lines(tmp_path: Path) -> None:
    """A notebook's program is its cells joined (magics blanked): a line's text is the program's line."""
    import json

    cells = ["import functools", "%matplotlib inline\n@functools.cache\ndef f():\n    return fit(X)"]
    notebook = {
        "cells": [
            {"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None} for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(notebook))
    program = read_program(path)
    assert program.statement(3) == "@functools.cache"
    assert program.place(3).cell == 2 and program.place(3).cell_line == 2


def test_two_statements_differing_only_inside_a_string_are_two_statements() -> None:
    """`df["a  b"]` and `df["a b"]` name two columns: the spaces inside a literal are kept, those around it not."""
    two = ast.parse('X = df[["a  b"]]\nX = df[["a b"]]\n')
    assert statement_at(two, 1) != statement_at(two, 2)
    assert statement_at(two, 1) == "X = df[['a  b']]"
    assert canonical_statement('X  =  df[ ["a  b"] ]  # copied') == statement_at(two, 1)
    assert canonical_statement("X = df[['a b']]") == statement_at(two, 2) != canonical_statement('X = df[["a  b"]]')
    several = ast.parse('a = "x  y"; b = 1\n')
    assert statement_at(several, 1, None) == "a = 'x  y'; b = 1"
