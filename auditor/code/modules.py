"""A program's imports of the project's own modules read as their code.

A scaler fitted on every row in prep.py and imported by train.py, which splits and scores, leaks as surely as
the same lines in one file. Each imported module among the files audited, or beside the importer (in its
folder or below), is placed where it is imported, as the body of a function of its own that returns the names
taken from it (its names stay its own, as Python keeps them), so the walk follows its rows into the importer.
Its lines keep their place in its own file.
"""

from __future__ import annotations

import ast
import copy
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from auditor.code.sources import MODULE_LINES, Program, SourceError, Unread, read_program
from auditor.core.paths import work_tree

MAX_MODULES = 32  # modules placed in one program; the imports beyond stay opaque, as before
MAX_DEPTH = 4  # imports of imports followed


@dataclass(frozen=True)
class Placed:
    """A module placed in a program: its number (its lines are k * MODULE_LINES + its own) and the module as read."""

    number: int
    program: Program


@dataclass
class _State:
    project: frozenset[Path]
    placed: list[Placed] = field(default_factory=list)
    done: set[Path] = field(default_factory=set)  # read into the program once, as Python runs a module once
    unread: list[Unread] = field(default_factory=list)
    read: dict[Path, Program | None] = field(default_factory=dict)  # modules parsed, shared by the files walked


def with_project_modules(
    program: Program, project: Collection[Path], read: dict[Path, Program | None] | None = None
) -> Program:
    """``program`` with each import of a module among ``project`` (the .py files audited) read as its code;
    ``read`` keeps the modules parsed by earlier calls of one pass over the files (each is parsed once)."""
    state = _State(frozenset(p.resolve() for p in project if p.suffix == ".py"), read=read if read is not None else {})
    state.done.add(program.path.resolve())
    # Most files import no module of the project: their tree is not copied.
    tree = copy.deepcopy(program.tree) if _imports_project(program.path, program.tree, state) else program.tree
    _place_imports(program.path, tree, state, 0)
    unread = tuple(dict.fromkeys(state.unread))
    if not state.placed:
        return replace(program, unread=unread) if unread else program
    modules = tuple(p.program for p in state.placed)
    return replace(program, tree=tree, modules=modules, own_tree=program.tree, unread=unread)


def _place_imports(importer: Path, tree: ast.Module, state: _State, depth: int) -> None:
    """Rewrite, in place, the module-level imports of project modules in ``tree`` (the module ``importer``)."""
    for block in _module_blocks(tree):
        i = 0
        while i < len(block):
            stmt = block[i]
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                placed = _place(importer, stmt, tree, state, depth)
                if placed is not None:
                    block[i : i + 1] = placed
                    i += len(placed)
                    continue
            i += 1


def _imports_project(importer: Path, tree: ast.Module, state: _State) -> bool:
    """Whether a module-level import of ``tree`` names a module of the project that may be read."""
    for block in _module_blocks(tree):
        for stmt in block:
            if isinstance(stmt, ast.Import):
                named = [(a.name, 0) for a in stmt.names]
            elif isinstance(stmt, ast.ImportFrom):
                base = stmt.module or ""
                named = [(base, stmt.level)] + [
                    (f"{base}.{a.name}" if base else a.name, stmt.level) for a in stmt.names
                ]
            else:
                continue
            if any((module or level) and _resolve(importer, module, level, state.project) for module, level in named):
                return True
    return False


def _module_blocks(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    """The statement lists run at module level: the body and those of its if, try, with, for and while."""
    todo: list[list[ast.stmt]] = [tree.body]
    while todo:
        block = todo.pop()
        yield block
        for stmt in block:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    todo.append(inner)
            todo.extend(h.body for h in getattr(stmt, "handlers", ()))


def _place(
    importer: Path, stmt: ast.Import | ast.ImportFrom, tree: ast.Module, state: _State, depth: int
) -> list[ast.stmt] | None:
    """The statements standing for ``stmt``: each project module it imports as a call of its body, the rest
    of the import as it was; None when it imports no project module (or none can be read)."""
    out: list[ast.stmt] = []
    kept: list[ast.alias] = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            path = _resolve(importer, alias.name, 0, state.project)
            if path is None:
                _note_unread(importer, alias.name, 0, stmt, state)
            # `import a.b` binds `a` and is used as `a.b.x`; `import a.b as c` as `c.x`.
            prefix = alias.asname or alias.name
            if path is None or not _module_as_prefix(path, prefix, stmt, tree, state, depth, out):
                kept.append(alias)
        rest: ast.stmt = ast.Import(names=kept)
    else:
        module = stmt.module or ""
        path = _resolve(importer, module, stmt.level, state.project) if module or stmt.level else None
        if path is None and module:
            _note_unread(importer, module, stmt.level, stmt, state)
        names: dict[str, str] = {}
        for alias in stmt.names:
            sub = _resolve(importer, f"{module}.{alias.name}" if module else alias.name, stmt.level, state.project)
            # `from pkg import prep`: a module, used as prep.x
            if (
                sub is not None
                and alias.name != "*"
                and _module_as_prefix(sub, alias.asname or alias.name, stmt, tree, state, depth, out)
            ):
                continue
            if path is None:
                kept.append(alias)
            else:
                names[alias.name] = alias.asname or alias.name
        if path is not None and names:
            made = _module_call(path, stmt, names, state, depth)
            if made is not None:
                out.extend(made[0])
            taken = made[1] if made is not None else {}
            kept.extend(a for a in stmt.names if a.name in names and a.name not in taken)
        rest = ast.ImportFrom(module=stmt.module, names=kept, level=stmt.level)
    if not out:
        return None
    if kept:
        out.append(ast.copy_location(rest, stmt))
    return out


def _module_as_prefix(
    path: Path, prefix: str, stmt: ast.stmt, tree: ast.Module, state: _State, depth: int, out: list[ast.stmt]
) -> bool:
    """Place the module bound as ``prefix`` (`import prep`) with the attributes the importer reads of it, each
    read then renamed to the name that receives it; whether it was placed."""
    wanted = {attr: f"{prefix}.{attr}" for attr in sorted(_attribute_uses(tree, prefix))}
    made = _module_call(path, stmt, wanted, state, depth) if wanted else None
    if made is None:
        return False
    out.extend(made[0])
    _rename_attributes(tree, prefix, set(made[1]))
    return True


def _resolve(importer: Path, module: str, level: int, project: frozenset[Path]) -> Path | None:
    """The project file ``module`` names when imported from ``importer``: a/b.py or a/b/__init__.py, under
    the importer's folder (a relative import: the folder ``level`` steps up) or a folder above it (a package's
    module run from the project's root)."""
    parts = [p for p in module.split(".") if p]
    here = importer.resolve().parent
    if level:
        for _ in range(level - 1):
            here = here.parent
        bases = [here]
    else:
        bases = [here, *here.parents]
    for base in bases:
        for candidate in _candidates(base, parts):
            if candidate in project or _beside(candidate, here):
                return candidate
    return None


def _candidates(base: Path, parts: list[str]) -> list[Path]:
    """The files module ``parts`` may be under ``base``: a/b.py, then the package a/b/__init__.py."""
    package = base.joinpath(*parts, "__init__.py")
    return [base.joinpath(*parts[:-1], parts[-1] + ".py"), package] if parts else [package]


def _note_unread(importer: Path, module: str, level: int, stmt: ast.stmt, state: _State) -> None:
    """Note an import of a module file of the project that is not read: found in a folder above the importer,
    within its git work tree (at most two folders up outside one), or beside it through a link leading out.
    A standard library module is never the project's."""
    parts = [p for p in module.split(".") if p]
    if not parts or (not level and parts[0] in sys.stdlib_module_names):
        return
    here = importer.resolve().parent
    if level:
        bases = [here.parents[level - 2]] if 1 < level <= len(here.parents) + 1 else [here]
    else:
        top = work_tree(here)
        bases = [here, *(p for p in here.parents if top is not None and p.is_relative_to(top))]
        bases = bases if top is not None else [here, *here.parents][:3]
    for base in bases:
        for candidate in _candidates(base, parts):
            try:
                found = candidate.is_file()
            except OSError:
                found = False
            if found:
                state.unread.append(Unread("." * level + module, candidate, getattr(stmt, "lineno", 0)))
                return


def _beside(candidate: Path, folder: Path) -> bool:
    """Whether ``candidate`` is a module file in the importer's own folder (or below it) that stays there once
    its links are followed: what `python train.py` imports from beside it, whether or not it was named."""
    try:
        return candidate.is_file() and candidate.resolve().is_relative_to(folder) and candidate.is_relative_to(folder)
    except OSError:
        return False


def _module_call(
    path: Path, stmt: ast.stmt, names: dict[str, str], state: _State, depth: int
) -> tuple[list[ast.stmt], dict[str, str]] | None:
    """The module at ``path`` as `def _module_k_name(): body; return names` and the assignment of its result to
    the names the importer binds (``names``: the module's name -> the importer's), with the names it binds
    of those; None if it is not read (already read, too deep, unreadable, or binding none of them)."""
    path = path.resolve()
    if path in state.done or depth >= MAX_DEPTH or len(state.placed) >= MAX_MODULES:
        return None
    module = _read(path, state)
    if module is None:
        return None
    run = ast.Module(body=[s for s in module.tree.body if not _is_main_block(s)], type_ignores=[])  # on import
    defined = _bound_names(run)
    if "*" in names:  # every public name, or those its __all__ lists
        names = {n: n for n in _public(run, defined)} | {k: v for k, v in names.items() if k != "*"}
    wanted = {own: theirs for own, theirs in names.items() if own in defined}
    if not wanted:
        return None
    # Only what is kept is copied: the module's own tree stays as read, for its places and statements.
    body_tree = ast.Module(body=copy.deepcopy(_needed(run.body, set(wanted))), type_ignores=[])
    state.done.add(path)
    number = len(state.placed) + 1
    state.placed.append(Placed(number, module))
    ast.increment_lineno(body_tree, number * MODULE_LINES)
    _place_imports(path, body_tree, state, depth + 1)
    # A name a program is unlikely to bind, and a valid one: some readings match the file's functions by name.
    function = f"_module_{number}_{path.stem}"
    returned = ast.Return(ast.Tuple([ast.Name(own, ast.Load()) for own in wanted], ast.Load()))
    define = ast.FunctionDef(
        name=function,
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[*body_tree.body, ast.copy_location(returned, stmt)],
        decorator_list=[],
    )
    bind = ast.Assign(
        targets=[ast.Tuple([ast.Name(theirs, ast.Store()) for theirs in wanted.values()], ast.Store())],
        value=ast.Call(ast.Name(function, ast.Load()), [], []),
    )
    placed = [ast.copy_location(define, stmt), ast.copy_location(bind, stmt)]
    for node in placed:
        ast.fix_missing_locations(node)
    define.end_lineno = max(getattr(n, "end_lineno", 0) or 0 for n in ast.walk(define))
    return placed, wanted


def _public(tree: ast.Module, defined: set[str]) -> list[str]:
    """The names `from module import *` binds: those of a literal `__all__`, else every name not starting
    with an underscore."""
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets)
            and isinstance(stmt.value, ast.List | ast.Tuple)
        ):
            return [e.value for e in stmt.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return sorted(n for n in defined if not n.startswith("_"))


_DEFINITION = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _needed(body: list[ast.stmt], wanted: set[str]) -> list[ast.stmt]:
    """The module's statements less the functions and classes nothing taken from it can reach: a utility module
    of three hundred helpers imported for one is walked with that one. Every other statement stays (it may read
    the rows, fit or change them); a definition stays when a kept statement or a kept definition names it."""
    definitions = {stmt.name: stmt for stmt in body if isinstance(stmt, _DEFINITION)}
    needed = set(wanted)
    for stmt in body:
        # a decorated definition may register itself where the rest reads it (its decorator runs on import)
        if not isinstance(stmt, _DEFINITION) or stmt.decorator_list:
            needed |= _names_read(stmt)
    todo = [name for name in needed if name in definitions]
    while todo:
        for name in _names_read(definitions[todo.pop()]) - needed:
            needed.add(name)
            if name in definitions:
                todo.append(name)
    return [stmt for stmt in body if not isinstance(stmt, _DEFINITION) or stmt.decorator_list or stmt.name in needed]


def _names_read(node: ast.AST) -> set[str]:
    """Every name a statement mentions (read, or the base of an attribute), however deep."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _read(path: Path, state: _State) -> Program | None:
    """The module at ``path`` as read, once per walk of the files (the same module imported by many scripts is
    parsed once); None if it is not Python."""
    if path not in state.read:
        try:
            state.read[path] = read_program(path)
        except SourceError:
            state.read[path] = None
    return state.read[path]


def _is_main_block(stmt: ast.stmt) -> bool:
    """`if __name__ == "__main__":`, which does not run when the module is imported."""
    if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
        return False
    sides = [stmt.test.left, *stmt.test.comparators]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _bound_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its level (assignments, loops, with, functions, classes, imports)."""
    bound: set[str] = set()
    for block in _module_blocks(tree):
        for stmt in block:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(stmt.name)
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                for alias in stmt.names:
                    bound.add(alias.asname or alias.name.partition(".")[0])
            else:
                targets: list[ast.AST] = []
                if isinstance(stmt, ast.Assign):
                    targets = list(stmt.targets)
                elif isinstance(stmt, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
                    targets = [stmt.target]
                elif isinstance(stmt, ast.With | ast.AsyncWith):
                    targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
                for target in targets:
                    bound |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            bound |= {n.target.id for n in _own_nodes(stmt) if isinstance(n, ast.NamedExpr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):  # assigned in a function, bound at the module's level
            bound |= set(node.names)
    return bound


def _own_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions of ``stmt`` itself, not of the statements nested in it."""
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers"):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, ast.AST):
                yield from ast.walk(item)


def _attribute_uses(tree: ast.Module, prefix: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _dotted(node.value) == prefix:
            found.add(node.attr)
    return found


def _rename_attributes(tree: ast.Module, prefix: str, attrs: set[str]) -> None:
    """Each `prefix.attr` read of the importer becomes the name `prefix.attr` the module's call binds."""

    class Rename(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if node.attr in attrs and _dotted(node.value) == prefix:
                return ast.copy_location(ast.Name(f"{prefix}.{node.attr}", node.ctx), node)
            self.generic_visit(node)
            return node

    Rename().visit(tree)


def _dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a chain of names and attributes, None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    return None
