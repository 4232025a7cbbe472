"""A program's imports of the project's own modules read as their code.

A scaler fitted on every row in prep.py and imported by train.py, which splits and scores, leaks as surely as
the same lines in one file. Each imported module among the files audited, or beside the importer (in its
folder or below), is placed where it is imported, as the body of a function of its own that returns the names
taken from it (its names stay its own, as Python keeps them), so the walk follows its rows into the importer.
Its lines keep their place in its own file.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from auditor.code.sources import MODULE_LINES, Program, SourceError, Unread, read_program
from auditor.core.paths import work_tree

# The reading's limits in one program: modules placed, imports of imports followed, and lines of module code
# kept (a script importing a large package reaches much of it; its walk would cost seconds per file). The
# imports past them stay opaque and are counted (Program.modules_left), so the summary says a leak in them is
# not seen.
MAX_MODULES = 32
MAX_DEPTH = 4
MAX_LINES = 1_500


@dataclass(frozen=True)
class Placed:
    """A module placed in a program: its number (its lines are k * MODULE_LINES + its own) and the module as read."""

    number: int
    program: Program


@dataclass(frozen=True)
class _Module:
    """A module as its import runs it (its `__main__` block left out), with what each statement names."""

    program: Program
    body: list[ast.stmt]
    defined: set[str]
    names: list[set[str]]  # per statement of ``body``: every name it mentions, however deep
    attributes: list[dict[str, set[str]]]  # per statement: the attributes it reads of each dotted name


@dataclass
class ModuleCache:
    """What one pass over the files learns once of the project and its modules (many files import the same
    ones): the project's files resolved, each module as read, and where each import leads from a folder."""

    files: dict[tuple[Path, ...], frozenset[Path]] = field(default_factory=dict)
    modules: dict[Path, _Module | None] = field(default_factory=dict)
    resolved: dict[tuple[frozenset[Path], Path, str, int], Path | None] = field(default_factory=dict)
    unread: dict[tuple[Path, str, int], Path | None] = field(default_factory=dict)


@dataclass
class _State:
    project: frozenset[Path]
    cache: ModuleCache
    placed: list[Placed] = field(default_factory=list)
    done: set[Path] = field(default_factory=set)  # read into the program once, as Python runs a module once
    # The names every import in the program and its modules takes from each module: its one placement computes
    # them all, so that a module imported again (by a module the program imports) binds the same values.
    taken: dict[Path, set[str]] = field(default_factory=dict)
    shared: dict[Path, dict[str, str]] = field(default_factory=dict)  # a placed module's names -> its globals
    unread: list[Unread] = field(default_factory=list)
    lines: int = 0  # lines of module code placed
    left: set[Path] = field(default_factory=set)  # modules not read for the limits


def with_project_modules(program: Program, project: Collection[Path], cache: ModuleCache | None = None) -> Program:
    """``program`` with each import of a module among ``project`` (the .py files audited) read as its code;
    ``cache`` keeps what earlier calls of one pass over the files learnt (each module is parsed once)."""
    cache = cache if cache is not None else ModuleCache()
    key = tuple(project)
    if key not in cache.files:
        cache.files[key] = frozenset(p.resolve() for p in project if p.suffix == ".py")
    state = _State(cache.files[key], cache)
    state.done.add(program.path.resolve())
    # Most files import no module of the project: their tree is not copied.
    if not _imports_project(program.path, program.tree, state):
        tree = program.tree
    else:
        tree = _copied(program.tree)
        state.taken = _taken_everywhere(program.path, program.tree, state)
    _place_imports(program.path, tree, state, 0)
    unread = tuple(dict.fromkeys(state.unread))
    left = tuple(sorted(state.left - state.done))
    if not state.placed:
        return replace(program, unread=unread, modules_left=left) if unread or left else program
    modules = tuple(p.program for p in state.placed)
    return replace(program, tree=tree, modules=modules, own_tree=program.tree, unread=unread, modules_left=left)


@dataclass
class _Importer:
    """One module whose imports are placed: its file, the attributes it reads of each dotted name (`prep.scale`
    of `prep`), and those reads to rename once its modules are placed."""

    path: Path
    uses: dict[str, set[str]]
    renames: dict[str, set[str]] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)  # the functions its placed modules became


def _place_imports(
    importer: Path, tree: ast.Module, state: _State, depth: int, uses: dict[str, set[str]] | None = None
) -> None:
    """Rewrite, in place, the imports of project modules in ``tree`` (the module ``importer``, its functions
    included; ``uses``: its attribute index, when known)."""
    here = _Importer(importer, uses if uses is not None else _attribute_index(tree))
    for block in _module_blocks(tree, functions=True):
        i = 0
        while i < len(block):
            stmt = block[i]
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                placed = _place(here, stmt, state, depth)
                if placed is not None:
                    here.functions |= {s.name for s in placed if isinstance(s, ast.FunctionDef)}
                    block[i : i + 1] = placed
                    i += len(placed)
                    continue
            i += 1
    if here.renames:
        _rename_attributes(tree, here.renames, here.functions)


def _imports_project(importer: Path, tree: ast.Module, state: _State) -> bool:
    """Whether an import of ``tree`` names a module of the project that may be read."""
    return any(sub is not None or base is not None for _, sub, base in _imported(importer, tree, state))


def _imported(importer: Path, tree: ast.Module, state: _State) -> Iterator[tuple[ast.alias, Path | None, Path | None]]:
    """Each name an import of ``tree`` (its functions included) gives, with the project module it names itself
    (`import a.b`, `from pkg import prep`) and the one it is taken from (`from data import df`: data.py)."""
    for block in _module_blocks(tree, functions=True):
        for stmt in block:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    yield alias, _resolve(importer, alias.name, 0, state), None
            elif isinstance(stmt, ast.ImportFrom):
                module = stmt.module or ""
                base = _resolve(importer, module, stmt.level, state) if module or stmt.level else None
                for alias in stmt.names:
                    full = f"{module}.{alias.name}" if module else alias.name
                    sub = _resolve(importer, full, stmt.level, state) if alias.name != "*" else None
                    yield alias, sub, base


def _module_blocks(tree: ast.Module, functions: bool = False) -> Iterator[list[ast.stmt]]:
    """The statement lists run at module level: the body and those of its if, try, with, for and while; with
    ``functions``, those of its functions and classes too (`def main(): from prep import X` imports when
    called)."""
    todo: list[list[ast.stmt]] = [tree.body]
    while todo:
        block = todo.pop()
        yield block
        for stmt in block:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if functions:
                    todo.append(stmt.body)
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    todo.append(inner)
            todo.extend(h.body for h in getattr(stmt, "handlers", ()))


def _place(here: _Importer, stmt: ast.Import | ast.ImportFrom, state: _State, depth: int) -> list[ast.stmt] | None:
    """The statements standing for ``stmt``: each project module it imports as a call of its body, the rest
    of the import as it was; None when it imports no project module (or none can be read)."""
    importer = here.path
    out: list[ast.stmt] = []
    kept: list[ast.alias] = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            path = _resolve(importer, alias.name, 0, state)
            if path is None:
                _note_unread(importer, alias.name, 0, stmt, state)
            # `import a.b` binds `a` and is used as `a.b.x`; `import a.b as c` as `c.x`.
            prefix = alias.asname or alias.name
            if path is None or not _module_as_prefix(path, prefix, stmt, here, state, depth, out):
                kept.append(alias)
        rest: ast.stmt = ast.Import(names=kept)
    else:
        module = stmt.module or ""
        path = _resolve(importer, module, stmt.level, state) if module or stmt.level else None
        if path is None and module:
            _note_unread(importer, module, stmt.level, stmt, state)
        names: dict[str, str] = {}
        for alias in stmt.names:
            sub = _resolve(importer, f"{module}.{alias.name}" if module else alias.name, stmt.level, state)
            # `from pkg import prep`: a module, used as prep.x
            if (
                sub is not None
                and alias.name != "*"
                and _module_as_prefix(sub, alias.asname or alias.name, stmt, here, state, depth, out)
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
    path: Path, prefix: str, stmt: ast.stmt, here: _Importer, state: _State, depth: int, out: list[ast.stmt]
) -> bool:
    """Place the module bound as ``prefix`` (`import prep`) with the attributes the importer reads of it, each
    read then renamed (once every import is placed) to the name that receives it; whether it was placed."""
    wanted = {attr: f"{prefix}.{attr}" for attr in sorted(here.uses.get(prefix, ()))}
    made = _module_call(path, stmt, wanted, state, depth) if wanted else None
    if made is None:
        return False
    out.extend(made[0])
    here.renames.setdefault(prefix, set()).update(made[1])
    return True


def _resolve(importer: Path, module: str, level: int, state: _State) -> Path | None:
    """The project file ``module`` names when imported from ``importer`` (found once per folder in a pass)."""
    key = (state.project, importer.parent, module, level)
    found = state.cache.resolved
    if key not in found:
        found[key] = _find_module(importer, module, level, state.project)
    return found[key]


def _find_module(importer: Path, module: str, level: int, project: frozenset[Path]) -> Path | None:
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
    key = (importer.parent, module, level)
    if key not in state.cache.unread:
        state.cache.unread[key] = _find_unread(importer, parts, level)
    found = state.cache.unread[key]
    if found is not None:
        state.unread.append(Unread("." * level + module, found, getattr(stmt, "lineno", 0)))


def _find_unread(importer: Path, parts: list[str], level: int) -> Path | None:
    """The module file an import names outside what is read (see _note_unread), or None."""
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
                return candidate
    return None


def _beside(candidate: Path, folder: Path) -> bool:
    """Whether ``candidate`` is a module file in the importer's own folder (or below it) that stays there once
    its links are followed: what `python train.py` imports from beside it, whether or not it was named."""
    try:
        return candidate.is_relative_to(folder) and candidate.is_file() and candidate.resolve().is_relative_to(folder)
    except OSError:
        return False


def _module_call(
    path: Path, stmt: ast.stmt, names: dict[str, str], state: _State, depth: int
) -> tuple[list[ast.stmt], dict[str, str]] | None:
    """The module at ``path`` as `def _module_k_name(): body; return names` and the assignment of its result to
    the names the importer binds (``names``: the module's name -> the importer's), with the names it binds
    of those; None if it is not read (already read, too deep, unreadable, or binding none of them)."""
    path = path.resolve()
    if path in state.shared:  # placed already: its values, as Python binds them from the module run once
        return _bound_again(path, stmt, names, state)
    if path in state.done:
        return None
    if depth >= MAX_DEPTH or len(state.placed) >= MAX_MODULES:
        state.left.add(path)
        return None
    module = _read(path, state)
    if module is None:
        return None
    if "*" in names:  # every public name, or those its __all__ lists
        names = {n: n for n in _public(module.body, module.defined)} | {k: v for k, v in names.items() if k != "*"}
    wanted = {own: theirs for own, theirs in names.items() if own in module.defined}
    if not wanted:
        return None
    # what other imports of it take (in the program or a module it imports): computed too, kept as globals
    others = sorted((state.taken.get(path, set()) & module.defined) - set(wanted))
    needed, uses = _needed(module, set(wanted) | set(others))
    lines = sum((s.end_lineno or s.lineno) - s.lineno + 1 for s in needed)
    if state.lines + lines > MAX_LINES:
        state.left.add(path)
        return None
    state.lines += lines
    # Only what is kept is copied: the module's own tree stays as read, for its places and statements.
    number = len(state.placed) + 1
    body_tree = ast.Module(body=[_copied(stmt, number * MODULE_LINES) for stmt in needed], type_ignores=[])
    state.done.add(path)
    state.placed.append(Placed(number, module.program))
    _place_imports(path, body_tree, state, depth + 1, uses)
    # A name a program is unlikely to bind, and a valid one: some readings match the file's functions by name.
    function = f"_module_{number}_{path.stem}"
    returned_names = [*wanted, *others]
    returned = ast.Return(ast.Tuple([ast.Name(own, ast.Load()) for own in returned_names], ast.Load()))
    define = ast.FunctionDef(
        name=function,
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[*body_tree.body, ast.copy_location(returned, stmt)],
        decorator_list=[],
    )
    made: list[ast.stmt] = [define]
    kept = {own: f"{function}__{own}" for own in returned_names} if state.taken.get(path) else {}
    targets = [*wanted.values(), *(kept[own] for own in others)]
    bind = ast.Assign(
        targets=[ast.Tuple([ast.Name(t, ast.Store()) for t in targets], ast.Store())],
        value=ast.Call(ast.Name(function, ast.Load()), [], []),
    )
    extra: list[ast.stmt] = []
    if kept:
        # kept where any later import of the module finds them: a module's body placed here runs in a function,
        # whose names are its own unless declared global (at the program's top level they are global already)
        if depth > 0:
            extra.append(ast.Global(names=list(kept.values())))
        extra += [
            ast.Assign(targets=[ast.Name(kept[own], ast.Store())], value=ast.Name(theirs, ast.Load()))
            for own, theirs in wanted.items()
        ]
        state.shared[path] = kept
    # Only the nodes made here lack a place (the body's are the module's own): each is given the import's.
    for node in (returned, bind, *extra):
        ast.fix_missing_locations(ast.copy_location(node, stmt))
    ast.copy_location(define, stmt)
    define.end_lineno = max(stmt.end_lineno or stmt.lineno for stmt in define.body)
    declared = extra[:1] if depth > 0 else []
    made += [*declared, bind, *extra[len(declared) :]]
    return made, wanted


def _bound_again(
    path: Path, stmt: ast.stmt, names: dict[str, str], state: _State
) -> tuple[list[ast.stmt], dict[str, str]] | None:
    """A module placed once, imported again: the names this import takes bound from the values its placement
    kept (None when it kept none of them: the import stays as written)."""
    kept = state.shared[path]
    taken = {own: theirs for own, theirs in names.items() if own in kept}
    if not taken:
        return None
    bind = ast.Assign(
        targets=[ast.Tuple([ast.Name(theirs, ast.Store()) for theirs in taken.values()], ast.Store())],
        value=ast.Tuple([ast.Name(kept[own], ast.Load()) for own in taken], ast.Load()),
    )
    ast.fix_missing_locations(ast.copy_location(bind, stmt))
    return [bind], taken


def _taken_everywhere(path: Path, tree: ast.Module, state: _State) -> dict[Path, set[str]]:
    """The names each project module gives the imports of the program at ``path`` and of the modules it
    imports, however deep: `from data import df, FEATURES` takes two, `import data` then `data.df` one."""
    found: dict[Path, set[str]] = {}
    seen = {path.resolve()}
    todo = [(path, tree)]
    while todo:
        importer, module_tree = todo.pop()
        uses = _attribute_index(module_tree)
        for alias, sub, base in _imported(importer, module_tree, state):
            if sub is not None:  # a module itself: the names read from it as `prefix.name`
                found.setdefault(sub.resolve(), set()).update(uses.get(alias.asname or alias.name, ()))
            elif base is not None and alias.name != "*":
                found.setdefault(base.resolve(), set()).add(alias.name)
        for module_path in list(found):
            if module_path not in seen:
                seen.add(module_path)
                module = _read(module_path, state)
                if module is not None:
                    todo.append((module_path, ast.Module(body=module.body, type_ignores=[])))
    return found


_Node = TypeVar("_Node", bound=ast.AST)


def _copied(node: _Node, shift: int = 0) -> _Node:
    """A copy of a syntax tree, its nodes new and its values shared (they are immutable), its lines moved down
    by ``shift``: what copy.deepcopy and ast.increment_lineno make, at a fraction of their cost."""
    new = node.__class__()
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            value = _copied(value, shift)
        elif isinstance(value, list):
            value = [_copied(v, shift) if isinstance(v, ast.AST) else v for v in value]
        setattr(new, name, value)
    for name in node._attributes:
        value = getattr(node, name, None)
        if value is not None:
            setattr(new, name, value + shift if name in ("lineno", "end_lineno") else value)
    return new


def _public(body: list[ast.stmt], defined: set[str]) -> list[str]:
    """The names `from module import *` binds: those of a literal `__all__`, else every name not starting
    with an underscore."""
    for stmt in body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets)
            and isinstance(stmt.value, ast.List | ast.Tuple)
        ):
            return [e.value for e in stmt.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return sorted(n for n in defined if not n.startswith("_"))


_DEFINITION = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _needed(module: _Module, wanted: set[str]) -> tuple[list[ast.stmt], dict[str, set[str]]]:
    """The module's statements less the functions and classes nothing taken from it can reach, and the
    attributes they read of each dotted name: a utility module of three hundred helpers imported for one is
    walked with that one. Every other statement stays (it may read the rows, fit or change them); a definition
    stays when a kept statement or a kept definition names it."""
    body = module.body
    definitions: dict[str, set[str]] = {}
    needed = set(wanted)
    for stmt, names in zip(body, module.names, strict=True):
        # a decorated definition may register itself where the rest reads it (its decorator runs on import)
        if not isinstance(stmt, _DEFINITION) or stmt.decorator_list:
            needed |= names
        else:
            definitions[stmt.name] = definitions.get(stmt.name, set()) | names
    todo = [name for name in needed if name in definitions]
    while todo:
        for name in definitions[todo.pop()] - needed:
            needed.add(name)
            if name in definitions:
                todo.append(name)
    kept: list[ast.stmt] = []
    uses: dict[str, set[str]] = {}
    for stmt, attributes in zip(body, module.attributes, strict=True):
        if not isinstance(stmt, _DEFINITION) or stmt.decorator_list or stmt.name in needed:
            kept.append(stmt)
            for base, attrs in attributes.items():
                uses.setdefault(base, set()).update(attrs)
    return kept, uses


def _names_read(node: ast.AST) -> set[str]:
    """Every name a statement mentions (read, or the base of an attribute), however deep."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _read(path: Path, state: _State) -> _Module | None:
    """The module at ``path`` as its import runs it, read once per pass over the files (the same module
    imported by many scripts is parsed once); None if it is not Python."""
    modules = state.cache.modules
    if path not in modules:
        try:
            program = read_program(path)
        except SourceError:
            modules[path] = None
        else:
            body = [s for s in program.tree.body if not _is_main_block(s)]
            defined = _bound_names(ast.Module(body=body, type_ignores=[]))
            names = [_names_read(s) for s in body]
            modules[path] = _Module(program, body, defined, names, [_attribute_index(s) for s in body])
    return modules[path]


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


def _attribute_index(tree: ast.AST) -> dict[str, set[str]]:
    """The attributes ``tree`` reads of each dotted name: {'prep': {'scale'}} for `prep.scale(...)`."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = _dotted(node.value)
            if base is not None:
                found.setdefault(base, set()).add(node.attr)
    return found


def _rename_attributes(tree: ast.Module, renames: dict[str, set[str]], placed: set[str]) -> None:
    """Each `prefix.attr` read of the importer becomes the name `prefix.attr` its module's call binds; the
    modules placed in it (the functions ``placed``) keep their own names."""

    class Rename(ast.NodeTransformer):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            if node.name not in placed:
                self.generic_visit(node)
            return node

        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            base = _dotted(node.value)
            if base is not None and node.attr in renames.get(base, ()):
                return ast.copy_location(ast.Name(f"{base}.{node.attr}", node.ctx), node)
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
