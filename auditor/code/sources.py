"""The code to read: Python scripts and Jupyter notebooks, found in the paths given, each turned into one
program text with a map from its lines back to the file (a notebook's cell and line, the line in its JSON).

A notebook's code cells are read with nbformat and joined in file order; IPython magics and shell lines are
blanked (kept as `pass` so every line keeps its number), and a cell that still does not parse is left out with
the cell and line of the error, never the whole notebook.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import tokenize
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from auditor.core.paths import is_under, kind_of, path_problem

# Python programs by their names: every kind pre-commit's `python` type (the `identify` package) gives an
# `audit-code` hook whose files are code that runs: `.pyw` (a windowed script), `.pyt` (an ArcGIS toolbox), `.tac`
# (a Twisted application), `.wsgi`, and waf's `wscript`. Read when named and in a folder walked alike.
SCRIPT_SUFFIXES = (".py", ".pyw", ".pyt", ".tac", ".wsgi")
SCRIPT_NAMES = frozenset({"wscript"})
SUFFIXES = (*SCRIPT_SUFFIXES, ".ipynb")
# Named, these are passed over without a word: Python syntax, but no code of theirs runs, so no leak can be in
# them (`python` in pre-commit matches the last three; a `.pyi` stub may be named by hand).
NOT_PROGRAMS = {
    ".pyi": "a type stub (declarations only)",
    ".gyp": "a GYP build file (data written as a Python literal)",
    ".gypi": "a GYP build file (data written as a Python literal)",
}
NOT_PROGRAM_NAMES = {".pdbrc": "pdb's commands"}
MAX_SCRIPT_BYTES = 8 * 2**20  # a hand-written script; generated code beyond this is not a pipeline to read
MAX_NOTEBOOK_BYTES = 256 * 2**20  # notebooks carry their outputs (images): large, but not without bound
# Folders that hold installed or generated code, never a project's own pipeline. A folder named build or dist may
# be a project's own (pipelines/build/train.py): only setuptools' copies under build/ are passed over.
SKIPPED_DIRS = frozenset({"__pycache__", "site-packages", "node_modules", ".ipynb_checkpoints"})
_BUILD_COPIES = ("lib", "bdist.", "temp.", "scripts-")  # build/lib/, build/lib.linux-x86_64-3.11/, build/bdist.*
# Cell magics whose body is Python that runs as written (timed, captured, profiled).
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "memit", "debug"})
_MAGIC_ASSIGN = re.compile(r"^(?P<indent>\s*)(?P<target>[\w.\[\], ]+?)\s*=\s*[!%]")
# Line magics that run the Python statement after them (`%time model.fit(X, y)`), with the options of each that
# take a value (`%timeit -n 10 -r 3 f()`): the statement is read, not blanked with the magic.
_TIMING_LINE_MAGICS = {"time": "", "timeit": "nrp", "prun": "lrsTD", "memit": "rit"}
_TIMING_LINE = re.compile(r"%(?P<name>time|timeit|prun|memit)(?:\s+(?P<rest>.*))?$")
_MAGIC_OPTION = re.compile(r"-(?P<flag>\w)(?P<attached>\S*)\s*")
_FLAGS = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
# A line a notebook may hold that is not Python: a magic, a shell escape, a help request.
_MAGIC_LINE = re.compile(r"^\s*[%!?]|\?\s*$", re.M)
_NEWLINE = re.compile(r"\r\n|\r|\n")
# The interpreter of a `#!` line that makes a file without a suffix a Python script (python, python3, python3.12).
_PYTHON = re.compile(r"python[0-9.]*")
_SHEBANG_BYTES = 512


@dataclass(frozen=True)
class Place:
    """Where a line of the program is in its file: the line (in a notebook, the line of its JSON that holds
    the source line), the column, and for a notebook the cell (1-based among all cells) and its line."""

    path: Path
    line: int
    column: int | None = None
    cell: int | None = None
    cell_line: int | None = None

    @property
    def at(self) -> str:
        """'path:line[:column]', as the reports' code locations are written (SARIF reads it)."""
        return f"{self.path}:{self.line}" + (f":{self.column}" if self.column else "")

    def shown(self, base: Path | None = None) -> str:
        """How a reader finds it: 'prep.py:14:5' or 'eda.ipynb cell 4, line 2' (relative to ``base``)."""
        name = _relative(self.path, base)
        if self.cell is not None:
            return f"{name} cell {self.cell}, line {self.cell_line}"
        return f"{name}:{self.line}" + (f":{self.column}" if self.column else "")


def _relative(path: Path, base: Path | None) -> str:
    if base is not None and path.is_relative_to(base):
        return path.relative_to(base).as_posix()
    return str(path)


@dataclass(frozen=True)
class SkippedPart:
    """A file, or a notebook cell, that could not be read as Python: where, and why."""

    place: Place
    reason: str
    whole_file: bool


@dataclass(frozen=True)
class CellSpan:
    """Program lines [first, last] that hold one notebook cell, and where its source lines are in the JSON."""

    first: int
    last: int
    cell: int
    json_lines: tuple[int, ...] = ()  # the JSON line of each source line, when they could be located


# Lines of a module read into its importer's tree are numbered from k * MODULE_LINES (code/modules.py).
MODULE_LINES = 1_000_000


@dataclass(frozen=True)
class Unread:
    """An import of a module of the project that was not read: it is neither beside the importer nor named."""

    module: str
    path: Path
    line: int  # the import's line in the program (a module's own lines are numbered from k * MODULE_LINES)


@dataclass(frozen=True)
class Program:
    """One file as one Python module: its tree, and the map from program lines back to the file."""

    path: Path
    tree: ast.Module
    lines: int
    cells: tuple[CellSpan, ...] = ()  # empty for a script
    skipped: tuple[SkippedPart, ...] = ()
    text: str = field(default="", compare=False, repr=False)  # the program's source (a notebook's cells joined)
    # A notebook last run out of its file's order: (a cell, the cell above it that ran after it), numbered as
    # `cell` places are; the reading follows the file's order, the outputs saved in it another.
    run_out_of_order: tuple[int, int] | None = None
    # Such a notebook's cells that ran, joined in the order of their execution counts (None: in the file's order,
    # or not readable so): the run the outputs saved in it came from.
    as_run: Program | None = field(default=None, compare=False, repr=False)
    # The project's own modules it imports, read into its tree (code/modules.py): the k-th numbers its lines
    # from k * MODULE_LINES, and its places, statements and contexts are its own file's.
    modules: tuple[Program, ...] = ()
    # The file's own tree when ``tree`` has its modules read into it: statements and contexts are the file's as
    # written (the import, not the function it stands for).
    own_tree: ast.Module | None = field(default=None, compare=False, repr=False)
    # Imports of the project's modules that were not read (neither beside the file nor named): code/modules.py.
    unread: tuple[Unread, ...] = ()
    # The project's modules it imports that were left opaque for the reading's limits (code/modules.py): said,
    # since a leak in them is not seen.
    modules_left: tuple[Path, ...] = ()

    @property
    def is_notebook(self) -> bool:
        return self.path.suffix == ".ipynb"

    def _module_at(self, line: int) -> tuple[Program, int] | None:
        """The imported module a program line belongs to, and the line in its own file."""
        k = line // MODULE_LINES
        return (self.modules[k - 1], line - k * MODULE_LINES) if 0 < k <= len(self.modules) else None

    def statement(self, line: int, column: int | None = None) -> str:
        """The statement an acceptance of a finding at program ``line`` binds to (core/statements.py): the one the
        tree holds there, else the line's text as written, so that no finding placed at a line binds none."""
        from auditor.core.statements import line_statement, statement_at

        if (module := self._module_at(line)) is not None:
            return module[0].statement(module[1], column)

        found = statement_at(self.own_tree or self.tree, line, column)
        if found:
            return found
        lines = _NEWLINE.split(self.text)  # as the parser numbers lines: \r\n, \r and \n end one
        return line_statement(lines[line - 1]) if 0 < line <= len(lines) else ""

    def context(self, line: int) -> str:
        """The functions and classes enclosing program ``line``, outermost first ('Trainer.fit'), '' at the top
        level: where a finding is that a line added above it does not change (a notebook's cell number would)."""
        if (module := self._module_at(line)) is not None:
            return module[0].context(module[1])
        names: list[str] = []
        node: ast.AST = self.own_tree or self.tree
        while True:
            inner = next(
                (child for child in _scopes_in(node) if child.lineno <= line <= (child.end_lineno or child.lineno)),
                None,
            )
            if inner is None:
                return ".".join(names)
            names.append(inner.name)
            node = inner

    def place(self, line: int, column: int | None = None) -> Place:
        """Where program line ``line`` (1-based) and ``column`` (0-based, as ast gives it) are in the file."""
        if (module := self._module_at(line)) is not None:
            return module[0].place(module[1], column)
        col = column + 1 if column is not None else None
        if not self.is_notebook:
            return Place(self.path, line, col)
        for span in self.cells:
            if span.first <= line <= span.last:
                in_cell = line - span.first + 1
                json_line = span.json_lines[in_cell - 1] if in_cell <= len(span.json_lines) else 0
                return Place(self.path, json_line or 1, None, span.cell, in_cell)
        return Place(self.path, 1)


_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _scopes_in(node: ast.AST) -> Iterator[_Scope]:
    """The functions and classes defined directly in ``node``'s body (also inside its `if`, `for`, `with`, `try`)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _Scope):
            yield child
        elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
            yield from _scopes_in(child)


@dataclass
class Found:
    """The files found under the paths given, and the paths that could not be read at all."""

    files: list[Path] = field(default_factory=list)
    problems: list[SkippedPart] = field(default_factory=list)
    # Links in a folder walked that are not followed, with where each leads: not read (a path never reaches
    # outside what was named), and said, since a leak there would otherwise pass unseen.
    outside: list[Link] = field(default_factory=list)
    # Files named that hold no program (a `.pyi` stub), with what each is: passed over, not a problem.
    passed_over: list[tuple[Path, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Link:
    """A link met in a folder walked and not followed: a script or notebook leading outside the folder, one
    leading nowhere, or a folder leading outside."""

    path: Path
    target: Path
    kind: Literal["script", "broken", "folder"]


def find_sources(paths: Sequence[Path], exclude: Sequence[str] = ()) -> Found:
    """Every .py and .ipynb file named or under a folder named, sorted, each once; a folder is walked without
    following a link that leaves it, skipping hidden, installed and generated folders and virtual environments."""
    found = Found()
    seen: set[Path] = set()
    walked: list[Path] = []
    for given in paths:
        try:
            real = given.resolve()
            mode = real.stat().st_mode
        except (OSError, RuntimeError) as exc:
            found.problems.append(SkippedPart(Place(given, 0), _missing(given, exc), True))
            continue
        if kind_of(mode) == "a directory":
            walked.append(real)
            candidates: Iterable[Path] = _walk(real, exclude, found.outside)
        elif kind_of(mode) is not None:
            found.problems.append(SkippedPart(Place(given, 0), f"{kind_of(mode)}, not a script or a notebook", True))
            continue
        elif not_program(real) is not None:
            found.passed_over.append((given, not_program(real) or ""))
            continue
        elif not is_source(real) and not (real.suffix == "" and runs_python(real)):
            found.problems.append(
                SkippedPart(
                    Place(given, 0), f"not a .py script or an .ipynb notebook ({real.suffix or 'no suffix'})", True
                )
            )
            continue
        else:
            candidates = [real]
        for path in candidates:
            if path not in seen:
                seen.add(path)
                found.files.append(path)
    found.files.sort()
    # A link whose target is read anyway (named, or under another folder named) hides nothing.
    found.outside = [
        link
        for link in found.outside
        if link.target not in seen and not (link.kind == "folder" and is_under(link.target, walked))
    ]
    return found


def is_source(path: Path) -> bool:
    """Whether ``path``'s name makes it a script or a notebook to read (SUFFIXES, SCRIPT_NAMES)."""
    return path.suffix in SUFFIXES or path.name in SCRIPT_NAMES


def not_program(path: Path) -> str | None:
    """What ``path`` is when its name says Python syntax but no program (`a type stub`), else None."""
    return NOT_PROGRAMS.get(path.suffix) or NOT_PROGRAM_NAMES.get(path.name)


def runs_python(path: Path) -> bool:
    """Whether ``path``'s first line is a `#!` line that runs Python (`#!/usr/bin/env python3`): an executable
    script named without `.py`, which pre-commit counts among a commit's Python files."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(_SHEBANG_BYTES)
    except OSError:
        return False
    if not first.startswith(b"#!"):
        return False
    words = first[2:].decode("utf-8", "replace").split()
    if words and Path(words[0]).name == "env":  # env [-S] [NAME=VALUE]… python3
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return bool(words) and _PYTHON.fullmatch(Path(words[0]).name) is not None


def _missing(given: Path, exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"not found (resolved to {given.absolute()}; working directory {Path.cwd()})"
    return f"cannot read: {path_problem(exc)}"


def _walk(root: Path, exclude: Sequence[str], outside: list[Link]) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not (here.name == "build" and d.startswith(_BUILD_COPIES))
            and not (here / d / "pyvenv.cfg").exists()
            and not _excluded(here / d, root, exclude)
        )
        for d in dirs:  # os.walk lists a linked folder but does not enter it
            link = here / d
            if link.is_symlink():
                target = _target(link)
                if target is not None and not is_under(target, [root]):
                    outside.append(Link(link, target, "folder"))
        for name in sorted(files):
            path = here / name
            if not is_source(path) or name.startswith(".") or _excluded(path, root, exclude):
                continue
            real = _target(path)
            if real is None:
                continue
            if not real.exists():
                outside.append(Link(path, real, "broken"))
            elif not is_under(real, [root]):  # a link that leaves the folder is not followed
                if real.is_file():
                    outside.append(Link(path, real, "script"))
            elif real.is_file():
                yield real


def _target(path: Path) -> Path | None:
    """Where ``path`` leads, links followed; None for a loop of links or a name the system refuses."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _excluded(path: Path, root: Path, patterns: Sequence[str]) -> bool:
    relative = path.relative_to(root)
    return any(relative.match(p) or path.name == p for p in patterns)


def read_program(path: Path) -> Program:
    """The file at ``path`` as one Program; raises SourceError when no part of it can be read as Python."""
    limit = MAX_NOTEBOOK_BYTES if path.suffix == ".ipynb" else MAX_SCRIPT_BYTES
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise SourceError(Place(path, 0), f"cannot read: {path_problem(exc)}") from None
    if len(raw) > limit:
        raise SourceError(Place(path, 0), f"larger than {limit // 2**20} MiB; not read")
    if path.suffix == ".ipynb":
        return _notebook(path, raw)
    return _script(path, raw)


class SourceError(Exception):
    """A file no part of which could be read as Python."""

    def __init__(self, place: Place, reason: str) -> None:
        super().__init__(reason)
        self.place, self.reason = place, reason


def _script(path: Path, raw: bytes) -> Program:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        line = raw[: exc.start].count(b"\n") + 1 if isinstance(exc, UnicodeDecodeError) else 1
        raise SourceError(Place(path, line), f"not readable as Python source text: {exc}") from None
    text = text.removeprefix("\ufeff")
    try:
        tree = compile(text, str(path), "exec", _FLAGS)
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset
        raise SourceError(Place(path, line, col), f"not valid Python: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, nesting too deep for the parser
        raise SourceError(Place(path, 1), f"not valid Python: {exc}") from None
    return Program(path, tree, text.count("\n") + 1, text=text)


def _check_notebook_shape(path: Path, text: str) -> None:
    """Refuse, naming the place, a file that is not JSON or whose JSON is not a notebook's: an object whose
    `cells` is a list of objects, each one's `source` a text or a list of texts."""
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            Place(path, exc.lineno, exc.colno), f"not a readable notebook: not JSON ({exc.msg})"
        ) from None
    except RecursionError:
        raise SourceError(Place(path, 1), "not a readable notebook: its JSON is nested too deep") from None
    if not isinstance(parsed, dict):
        raise SourceError(
            Place(path, 1), f"not a notebook: its JSON is {_json_kind(parsed)}, where a notebook is an object"
        )
    cells = parsed.get("cells", [])
    if not isinstance(cells, list):
        raise SourceError(Place(path, 1), f"not a notebook: its 'cells' is {_json_kind(cells)}, where a list is")
    for index, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise SourceError(
                Place(path, 1, None, index, 1), f"not a notebook: cell {index} is {_json_kind(cell)}, not an object"
            )
        source = cell.get("source", "")
        if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(t, str) for t in source))):
            raise SourceError(
                Place(path, 1, None, index, 1),
                f"not a notebook: the 'source' of cell {index} is {_json_kind(source)}, where a text or a list of "
                "texts is",
            )


def _json_kind(value: object) -> str:
    """What a JSON value is, in words: 'an array', 'a number'."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, bool):
        return "true or false"
    if value is None:
        return "null"
    return "a number"


def _notebook(path: Path, raw: bytes) -> Program:
    import nbformat

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(Place(path, raw[: exc.start].count(b"\n") + 1), "not UTF-8 text") from None
    _check_notebook_shape(path, text)
    try:
        with warnings.catch_warnings():  # an older notebook's missing cell ids are nbformat's worry, not the user's
            warnings.simplefilter("ignore")
            nb = nbformat.reads(text, as_version=4, capture_validation_error={})
    except Exception as exc:  # nbformat raises JSON errors, its own NotJSONError, KeyError on odd versions
        raise SourceError(Place(path, 1), f"not a readable notebook: {type(exc).__name__}: {exc}") from None
    if nb.get("metadata", {}).get("kernelspec", {}).get("language", "python").lower() not in ("python", ""):
        raise SourceError(Place(path, 1), "a notebook of another language (its kernelspec says so)")
    json_lines = _source_lines(text)
    if len(json_lines) != len(nb.get("cells", [])):  # a writer this reading does not follow: cells' lines only
        json_lines = []
    cells = [
        (index, cell.get("source", "") if isinstance(cell.get("source", ""), str) else "".join(cell["source"]))
        for index, cell in enumerate(nb.get("cells", []), start=1)
        if cell.get("cell_type") == "code"
    ]
    # Most notebooks parse as a whole once their magics are blanked: one compile; cell by cell only if not.
    codes = [neutralise_magics(source) if _MAGIC_LINE.search(source) else source for _, source in cells]
    whole = _parsed("\n".join(codes))
    pieces: list[str] = []
    spans: list[CellSpan] = []
    skipped: list[SkippedPart] = []
    line = 1
    for (index, source), quick in zip(cells, codes, strict=True):
        located = json_lines[index - 1] if index - 1 < len(json_lines) else ()
        code, problem = (quick, None) if whole is not None else _cell_code(source)
        n = code.count("\n") + 1
        if problem is not None:
            in_cell, _, msg = problem
            json_line = located[in_cell - 1] if 0 < in_cell <= len(located) else 0
            place = Place(path, json_line or 1, None, index, in_cell)
            skipped.append(SkippedPart(place, f"not valid Python ({msg}); the cell was left out", False))
            code = "\n" * (n - 1)
        pieces.append(code)
        spans.append(CellSpan(line, line + n - 1, index, located))
        line += n
    written = sum(bool(source.strip()) for _, source in cells)
    if skipped and len(skipped) >= written:  # nothing of it could be read: a notebook not audited cannot pass
        first = skipped[0].reason.removesuffix("; the cell was left out")
        raise SourceError(skipped[0].place, f"no cell of the notebook is valid Python (the first: {first})")
    program = "\n".join(pieces)
    try:
        tree = whole if whole is not None else compile(program, str(path), "exec", _FLAGS)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # each cell parsed alone, not together
        raise SourceError(Place(path, 1), f"the notebook's cells do not parse together: {exc}") from None
    reordered = _run_out_of_order(nb)
    as_run = _as_run(path, nb, json_lines) if reordered is not None else None
    return Program(path, tree, line - 1, tuple(spans), tuple(skipped), program, reordered, as_run=as_run)


def _as_run(path: Path, nb: Any, json_lines: list[tuple[int, ...]]) -> Program | None:
    """The code cells that ran (those with an execution count), joined in the order of their counts, each
    keeping its own cell number and lines; None when they do not parse together."""
    ran = sorted(
        (cell["execution_count"], index, cell.get("source", ""))
        for index, cell in enumerate(nb.get("cells", []), start=1)
        if cell.get("cell_type") == "code" and type(cell.get("execution_count")) is int
    )
    pieces: list[str] = []
    spans: list[CellSpan] = []
    line = 1
    for _, index, source in ran:
        text = source if isinstance(source, str) else "".join(source)
        code = neutralise_magics(text) if _MAGIC_LINE.search(text) else text
        n = code.count("\n") + 1
        pieces.append(code)
        spans.append(CellSpan(line, line + n - 1, index, json_lines[index - 1] if index - 1 < len(json_lines) else ()))
        line += n
    program = "\n".join(pieces)
    tree = _parsed(program)
    if tree is None:
        return None
    return Program(path, tree, line - 1, tuple(spans), (), program)


def _run_out_of_order(nb: Any) -> tuple[int, int] | None:
    """The first code cell whose execution count is below that of a code cell above it (cells never run left
    out), with that cell: the kernel ran them in another order than the file's."""
    highest: tuple[int, int] | None = None  # (count, cell) of the cell above that ran last
    for index, cell in enumerate(nb.get("cells", []), start=1):
        count = cell.get("execution_count") if cell.get("cell_type") == "code" else None
        if type(count) is not int:
            continue
        if highest is not None and count < highest[0]:
            return index, highest[1]
        if highest is None or count > highest[0]:
            highest = (count, index)
    return None


def _parsed(text: str) -> ast.Module | None:
    """The tree of a notebook's joined cells, None when they do not parse as a whole."""
    try:
        tree: ast.Module = compile(text, "<notebook>", "exec", _FLAGS)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree


def _cell_code(source: str) -> tuple[str, tuple[int, int | None, str] | None]:
    """A cell's source as Python (magics and shell lines blanked) and, if it still does not parse, where."""
    try:
        compile(source, "<cell>", "exec", _FLAGS)
        return source, None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    code = neutralise_magics(source)
    try:
        compile(code, "<cell>", "exec", _FLAGS)
        return code, None
    except SyntaxError as exc:
        return code, (exc.lineno or 1, exc.offset, exc.msg)
    except (ValueError, RecursionError, MemoryError) as exc:
        return code, (1, None, str(exc))


def neutralise_magics(source: str) -> str:
    """The cell with IPython's magics, shell escapes and help lines turned into Python that does nothing;
    a cell magic other than a timing or capture one makes the whole cell another language (blanked)."""
    lines = source.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split(maxsplit=1)[0] if len(first) > 2 else ""
        if name not in _PYTHON_CELL_MAGICS:
            return "\n" * (len(lines) - 1)
        lines[0] = ""
    out = []
    for text in lines:
        stripped = text.lstrip()
        indent = text[: len(text) - len(stripped)]
        timed = _timed_statement(stripped) if stripped.startswith("%") else None
        if timed is not None:
            out.append(f"{indent}{timed}")
        elif (
            stripped.startswith(("%", "!"))
            or (stripped.startswith("?") and not stripped.startswith("??="))
            or (stripped.endswith("?") and not stripped.startswith("#") and _is_help(stripped))
        ):
            out.append(f"{indent}pass")
        elif (assigned := _MAGIC_ASSIGN.match(text)) is not None:
            rest = text[assigned.end() - 1 :]
            # y = %time f(): the value of f(); any other magic's value (%timeit -o, !ls) is not the program's
            value = _timed_statement(rest) if rest.startswith("%time ") else None
            out.append(f"{assigned['indent']}{assigned['target']} = {value if value is not None else 'None'}")
        else:
            out.append(text)
    return "\n".join(out)


def _timed_statement(line: str) -> str | None:
    """The Python statement a timing or profiling line magic runs (`%time X = f(X)` -> `X = f(X)`), None for
    any other magic or a statement that is not Python alone."""
    found = _TIMING_LINE.match(line)
    if found is None:
        return None
    rest = found["rest"] or ""
    takes_value = _TIMING_LINE_MAGICS[found["name"]]
    while (option := _MAGIC_OPTION.match(rest)) is not None:
        rest = rest[option.end() :]
        if option["flag"] in takes_value and not option["attached"]:  # -n 10: the value is the next word
            rest = rest.split(maxsplit=1)[1] if len(rest.split(maxsplit=1)) > 1 else ""
    rest = rest.strip()
    if not rest:
        return None
    try:
        compile(rest, "<magic>", "exec", _FLAGS)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return rest


def _is_help(line: str) -> bool:
    """`obj?` and `obj??`: a name or an attribute path followed by question marks."""
    return re.fullmatch(r"[\w.]+\?{1,2}", line) is not None


def _source_lines(text: str) -> list[tuple[int, ...]]:
    """For each cell of a notebook's JSON, the 1-based line that holds each of its source lines, as Jupyter
    writes them (one JSON string per source line); () for a cell whose source is written another way."""
    lines = text.split("\n")
    cells: list[tuple[int, ...]] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith('"source":'):
            rest = stripped[len('"source":') :].strip()
            if rest.startswith("[") and not rest.rstrip(",").endswith("]"):
                found: list[int] = []
                j = i + 1
                while j < len(lines) and not lines[j].strip().startswith("]"):
                    item = lines[j].strip().rstrip(",")
                    try:
                        value = json.loads(item)
                    except ValueError:
                        found = []
                        break
                    found.append(j + 1)
                    # A JSON string holding several source lines (an unusual writer): its first line only.
                    found.extend(
                        [j + 1] * (value.count("\n") - 1 if isinstance(value, str) and value.count("\n") > 1 else 0)
                    )
                    j += 1
                cells.append(tuple(found))
                i = j
            else:
                n = 1
                try:
                    value = json.loads(rest.rstrip(","))
                    if isinstance(value, list):
                        value = "".join(value)
                    n = value.count("\n") + 1 if isinstance(value, str) else 1
                except ValueError:
                    pass
                cells.append((i + 1,) * n)
        i += 1
    return cells
