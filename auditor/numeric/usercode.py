"""Importing the callables the `numeric` section names, and calling them with errors that point at user code."""

from __future__ import annotations

import contextlib
import difflib
import importlib
import importlib.machinery
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.core.config import LoadedConfig, NumericSpec
from auditor.core.errors import AuditError, StageInputError

TORCH_HINT = (
    "the numeric checks need PyTorch, which is not installed; install the extra: "
    "pip install -c constraints.txt -e \".[torch]\" (or pip install 'split-auditor[torch]')"
)
_TRACEBACK_FRAMES = 5
# Frames of this package and of Python's import machinery explain nothing about the user's code.
_NOT_THEIRS = ("<frozen", str(Path(__file__).resolve().parents[1]), str(Path(importlib.__file__).resolve().parent))
REFERENCES = ("model", "batch", "loss", "optimizer", "softmax", "step")


# What the user's code may raise and the audit reports: sys.exit() in a script is a failure of that code,
# not a request to end the audit (Ctrl-C still ends it).
USER_FAILURES = (Exception, SystemExit)


class UserCodeError(StageInputError):
    """The user's code could not be imported, or one of its callables raised."""


class _ImportFailed(UserCodeError):
    """A module of the user's code did not import."""


def torch_available() -> bool:
    return (
        importlib.util.find_spec("torch") is not None
        if "torch" not in sys.modules
        else sys.modules["torch"] is not None
    )


@dataclass
class UserCode:
    """The callables of the `numeric` section, imported once, and the paths their imports need."""

    spec: NumericSpec
    paths: tuple[Path, ...]
    functions: dict[str, Callable[..., Any]] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)  # reference -> config file:line:column

    def has(self, name: str) -> bool:
        return name in self.functions

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call the user's ``name`` callable; UserCodeError with a short traceback of the user's frames if it raises."""
        fn = self.functions[name]
        with user_path(self.paths):
            try:
                return fn(*args, **kwargs)
            except USER_FAILURES as exc:
                raise UserCodeError(self.explain(name, exc)) from None

    def explain(self, name: str, exc: BaseException) -> str:
        reference = getattr(self.spec, name, None) or name
        return (
            f"{reference} (numeric.{name}, {self.where.get(name, 'config')}) raised {short_traceback(exc, self.paths)}"
        )


class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles the user's source every time, and writes no bytecode beside it.

    Python trusts a cached .pyc while the source keeps its mtime (whole seconds) and size: an edit of one
    character made within the second, or a checkout that keeps mtimes, would be audited as the code it replaced.
    """

    def path_stats(self, path: str) -> Mapping[str, Any]:
        raise OSError("the audit reads the user's source, not its bytecode")


def _user_finders(roots: tuple[Path, ...]) -> Callable[[str], importlib.machinery.FileFinder]:
    """A path hook giving each folder under ``roots`` a finder that loads sources with _SourceOnlyLoader."""
    details = (  # in the order Python's own finder tries them
        (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
        (_SourceOnlyLoader, importlib.machinery.SOURCE_SUFFIXES),
        # A module shipped as bytecode alone (no source beside it) is what it is, not a cache of a source.
        (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES),
    )

    def hook(entry: str) -> importlib.machinery.FileFinder:
        if not _under(entry, roots):
            raise ImportError("not a folder of the user's code")
        return importlib.machinery.FileFinder(entry, *details)

    return hook


def _under(entry: str, roots: tuple[Path, ...]) -> bool:
    try:
        resolved = Path(entry or ".").resolve()
    except (OSError, RuntimeError):
        return False
    return any(resolved.is_relative_to(r) for r in roots)


def _forget_finders(prefixes: tuple[str, ...]) -> None:
    # A finder cached for a user folder (by an earlier block, or by the user's own imports in this process)
    # would keep its bytecode policy and its listing of the folder.
    if prefixes:
        for entry in [e for e in sys.path_importer_cache if e.startswith(prefixes)]:
            del sys.path_importer_cache[entry]


@contextlib.contextmanager
def user_path(paths: tuple[Path, ...]) -> Iterator[None]:
    """``paths`` first on sys.path while the block runs, their modules read from source; sys.path and the
    import hooks are restored exactly afterwards."""
    saved = list(sys.path)
    roots = tuple(p.resolve() for p in paths)
    prefixes = tuple(dict.fromkeys(str(p) for p in (*paths, *roots)))
    hook = _user_finders(roots)
    _forget_finders(prefixes)
    sys.path_hooks.insert(0, hook)
    sys.path[:0] = [str(p) for p in paths]
    try:
        yield
    finally:
        sys.path[:] = saved
        with contextlib.suppress(ValueError):
            sys.path_hooks.remove(hook)
        _forget_finders(prefixes)


def load_user_code(loaded: LoadedConfig) -> UserCode:
    """Import every callable the `numeric` section names, before anything runs; UserCodeError names each problem.

    Modules imported from the user's paths are dropped from sys.modules afterwards (the callables keep
    them alive), so two configs whose packages share a name do not see each other's code.
    """
    spec = loaded.config.numeric
    if spec is None:
        raise AuditError("the config has no `numeric` section")
    if not torch_available():
        raise UserCodeError(TORCH_HINT)
    paths = tuple(loaded.resolve_input(p, ("numeric", "python_path", i)) for i, p in enumerate(spec.python_path))
    missing = [str(p) for p in paths if not p.is_dir()]
    problems = []
    for i, p in enumerate(missing):
        problems.append(
            f"{loaded.locate(('numeric', 'python_path', i))}: python_path entry {p} is not a directory "
            "(paths are relative to the config file)"
        )
    code = UserCode(spec, paths)
    before = set(sys.modules)
    failed: set[str] = set()  # a module that did not import is reported once, not once per reference
    try:
        with user_path(paths):
            for name in REFERENCES:
                reference = getattr(spec, name)
                if reference is None:
                    continue
                where = loaded.locate(("numeric", name))
                code.where[name] = where
                module = reference.partition(":")[0]
                if module in failed:
                    continue
                try:
                    code.functions[name] = _resolve(reference, where, paths, name)
                except _ImportFailed as exc:
                    failed.add(module)
                    problems.append(str(exc))
                except UserCodeError as exc:
                    problems.append(str(exc))
    finally:
        for module in set(sys.modules) - before:
            if _is_user_module(sys.modules.get(module), paths):
                del sys.modules[module]
    if problems:
        raise UserCodeError("\n".join(problems))
    return code


def _is_user_module(module: Any, paths: tuple[Path, ...]) -> bool:
    origin = getattr(module, "__file__", None)
    if not origin:
        return False
    resolved = Path(origin).resolve()
    return any(resolved.is_relative_to(p) for p in paths)


def _resolve(reference: str, where: str, paths: tuple[Path, ...], name: str) -> Callable[..., Any]:
    module_name, _, attr = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            searched = ", ".join(str(p) for p in paths) or "(no python_path)"
            raise _ImportFailed(
                f"{where}: {reference}: no module named '{exc.name}' (searched python_path: {searched}, then the "
                "installed packages)"
            ) from None
        raise _ImportFailed(f"{where}: importing {module_name} failed: {short_traceback(exc, paths)}") from None
    except USER_FAILURES as exc:
        raise _ImportFailed(f"{where}: importing {module_name} failed: {short_traceback(exc, paths)}") from None
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            names = [n for n in dir(target) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise UserCodeError(f"{where}: {reference}: module '{module_name}' has no attribute '{part}'{hint}")
        target = getattr(target, part)
    if not callable(target):
        raise UserCodeError(f"{where}: {reference} is a {type(target).__name__}, not a callable")
    _check_arguments(target, reference, where, name)
    resolved: Callable[..., Any] = target
    return resolved


# How the checks call each callable: positional arguments, and what they are.
ARGUMENTS = {"model": (), "batch": (), "loss": ("outputs", "targets"), "optimizer": ("model",),
             "softmax": ("logits", "dim"), "step": ("model", "optimizer", "batch")}  # fmt: skip


def _check_arguments(target: Any, reference: str, where: str, name: str) -> None:
    """A callable that cannot take the arguments the checks pass is named now, not mid-run."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # some builtins and C extensions have none
        return
    wanted = ARGUMENTS[name]
    try:
        signature.bind(*wanted)
    except TypeError as exc:
        called = f"{name}({', '.join(wanted)})" if wanted else f"{name}() with no arguments"
        raise UserCodeError(
            f"{where}: {reference}{signature} cannot be called as the checks call numeric.{called}: {exc}. "
            f"Wrap it, e.g. def {name}_for_audit({', '.join(wanted)}): return ..."
        ) from None


def short_traceback(exc: BaseException, paths: tuple[Path, ...]) -> str:
    """The exception and the last few frames in the user's files (all frames if none is the user's)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(_NOT_THEIRS)]
    mine = [f for f in frames if _in(f.filename, paths)]
    shown = (mine or frames)[-_TRACEBACK_FRAMES:]
    what = f"sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"
    lines = [what.rstrip()]
    if isinstance(exc, SyntaxError) and exc.filename:
        lines.append(f"  {exc.filename}:{exc.lineno}:{exc.offset or 0}: {(exc.text or '').strip()}")
    for f in shown:
        lines.append(f"  {f.filename}:{f.lineno} in {f.name}: {(f.line or '').strip()}")
    return "\n".join(lines)


def _in(filename: str, paths: tuple[Path, ...]) -> bool:
    try:
        resolved = Path(filename).resolve()
    except (OSError, ValueError):
        return False
    return any(resolved.is_relative_to(p) for p in paths)
