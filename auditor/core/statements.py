"""The statement a finding is about, written canonically: what an acceptance of that finding binds to.

A finding is named by its file and line; a line can hold another statement tomorrow. The statement's text,
unparsed from its tree (so spacing, comments and line breaks do not count), is what a reviewer looked at. A line
no statement of the tree holds (a decorator's) is bound to its text as written (line_statement).
"""

from __future__ import annotations

import ast
import copy
import hashlib

MAX_STATEMENT = 300  # characters of a statement kept as written; a longer one is cut


def statement_at(tree: ast.Module, line: int, column: int | None = 0) -> str:
    """The innermost statement holding program ``line`` (1-based) and ``column`` (0-based), unparsed on one line;
    of a compound statement (a loop, a `with`, a function) only its header. '' when no statement holds it.

    ``column`` None (a place known by its line alone, as a run reports it): the statements that start on the line,
    joined by '; ' when there are several (which of them is meant is not known, so all bind), else the innermost
    one holding the line."""
    if column is None:
        starting = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line),
            key=lambda n: n.col_offset,
        )
        if len(starting) > 1:
            # Joined, the text is not one statement: canonical_statement keeps it as written, never one header.
            return _cut("; ".join(_header(n) for n in starting))
        column = starting[0].col_offset if starting else 0
    found: ast.stmt | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or not _holds(node, line, column):
            continue
        if found is None or _holds(found, node.lineno, node.col_offset):
            found = node  # within the one found so far: more inner
    if found is None:
        return ""
    return _cut(_header(found))


def line_statement(text: str) -> str:
    """A line's text as the statement bound at it, where no statement of the tree holds the line: as written,
    stripped of the whitespace around it (cut as statement_at cuts)."""
    return _cut(text.strip())


def canonical_statement(text: str) -> str:
    """``text`` written as statement_at writes a statement (unparsed, on one line), so that an `accept:` entry's
    statement copied from the source (other quotes, spacing) names the same one.

    Text that is not one simple statement (a cut one, a compound header, a line's text that does not parse alone,
    several statements) is kept exactly as written, only stripped: collapsing its spaces would merge two string
    literals that differ in them, and a compound statement with its body would be reduced to its header."""
    stripped = text.strip()
    try:
        tree = ast.parse(stripped)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return stripped
    if len(tree.body) != 1 or _compound(tree.body[0]):
        return stripped
    return _cut(_header(tree.body[0]))


def _holds(node: ast.stmt, line: int, column: int) -> bool:
    end_line = node.end_lineno or node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else 1 << 30
    if not node.lineno <= line <= end_line:
        return False
    if line == node.lineno and column < node.col_offset:
        return False
    return not (line == end_line and column > end_col)


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _compound(node: ast.stmt) -> bool:
    return any(hasattr(node, part) for part in _BODIES)


def _header(node: ast.stmt) -> str:
    """A simple statement whole; a compound one's first line (its bodies left out). Unparsed, it is on one line
    and spaced one way; the spaces inside a string literal are its value and stay as they are."""
    if not _compound(node):
        return ast.unparse(node)
    bare = copy.copy(node)
    for part in _BODIES:
        if hasattr(bare, part):
            setattr(bare, part, [ast.Pass()] if part == "body" else [])
    if isinstance(bare, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        bare.decorator_list = []
    return ast.unparse(bare).split("\n", 1)[0]


def _cut(text: str) -> str:
    if len(text) <= MAX_STATEMENT:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return f"{text[:MAX_STATEMENT]}… (sha256 {digest})"
