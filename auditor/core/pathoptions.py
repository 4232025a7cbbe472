"""Stage options that name a file or folder: declared `ConfinedPath`, resolved and confined by the loader.

Every such option is resolved against the config's folder and refused outside the folders an audit may read
(the config's folder, `roots:`, `--root`, or the server's data root), as the manifest is, before any stage
opens, creates or stats the file. A stage reads the option's value as an absolute path the loader checked.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel

from auditor.core.config import LoadedConfig
from auditor.core.errors import ConfigError
from auditor.core.yamlsource import Loc


@dataclass(frozen=True)
class Confined:
    """Marks an option that names a file or folder; ``keywords`` are values that name none (e.g. 'none')."""

    keywords: tuple[str, ...] = ()

    def names_path(self, value: str) -> bool:
        return value.strip().lower() not in self.keywords


@dataclass(frozen=True)
class NotAPath:
    """Marks an option whose name sounds like a path but that holds none (a label, a pattern); ``why`` says so."""

    why: str


ConfinedPath = Annotated[str, Confined()]
# A cache folder, or 'none' for no cache.
ConfinedCacheDir = Annotated[str, Confined(keywords=("none",))]

# Words of an option name that suggest a file or folder (matched against the name's `_`-separated parts).
PATH_WORDS = frozenset(
    (
        *("path", "paths", "dir", "dirs", "directory", "folder", "folders", "file", "files", "filename"),
        *("ledger", "corpus", "root", "roots", "cache", "database", "db", "sqlite", "artifact", "artifacts"),
        *("location", "out", "output", "outputs", "glob"),
    )
)

Model = TypeVar("Model", bound=BaseModel)


def _markers(field: Any) -> list[object]:
    return list(field.metadata) + [m for arg in _annotated(field.annotation) for m in arg]


def _annotated(annotation: Any) -> Iterator[tuple[object, ...]]:
    """The metadata of every Annotated inside ``annotation`` (through unions, lists, tuples, dicts)."""
    if typing.get_origin(annotation) is Annotated:
        args = typing.get_args(annotation)
        yield tuple(args[1:])
        yield from _annotated(args[0])
        return
    for arg in typing.get_args(annotation):
        yield from _annotated(arg)


def confined_fields(model: type[BaseModel]) -> dict[str, Confined]:
    """The fields of ``model`` declared as paths, with their marker."""
    found = {}
    for name, field in model.model_fields.items():
        marker = next((m for m in _markers(field) if isinstance(m, Confined)), None)
        if marker is not None:
            found[name] = marker
    return found


def typed_as_path(annotation: Any) -> bool:
    """Whether ``annotation`` holds a pathlib path anywhere (``Path``, ``Path | None``, ``list[Path]``...)."""
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return True
    return any(typed_as_path(arg) for arg in typing.get_args(annotation))


def named_like_path(name: str) -> bool:
    """Whether an option's name suggests a file or folder (`ledger`, `cache_dir`, `corpus_glob`)."""
    return any(part in PATH_WORDS for part in re.split(r"_+", name.lower()))


def unconfined_path_fields(model: type[BaseModel], *, by_name: bool = True) -> list[str]:
    """Fields of ``model`` that look like paths (by type, or also by name) but are declared neither
    `ConfinedPath` nor `NotAPath`: the loader would hand them to a stage unchecked."""
    found = []
    for name, field in model.model_fields.items():
        markers = _markers(field)
        if any(isinstance(m, Confined | NotAPath) for m in markers):
            continue
        if typed_as_path(field.annotation) or (by_name and named_like_path(name)):
            found.append(name)
    return found


def confine_options(options: Model, loaded: LoadedConfig, prefix: Loc) -> Model:
    """``options`` with every path option resolved (absolute, symlinks followed); ConfigError naming each one
    that leaves the folders an audit may read. Nothing is opened: only the path is resolved."""
    updates: dict[str, Any] = {}
    problems = []
    for name, marker in confined_fields(type(options)).items():
        value = getattr(options, name)
        try:
            updates[name] = _resolved(value, marker, loaded, (*prefix, name))
        except ConfigError as exc:
            problems.append(str(exc))
    if problems:
        raise ConfigError("\n".join(problems))
    changed = {k: v for k, v in updates.items() if v != getattr(options, k)}
    # model_copy skips validation: the values keep their declared type (str stays str, Path stays Path).
    return options.model_copy(update=changed) if changed else options


def _resolved(value: Any, marker: Confined, loaded: LoadedConfig, loc: Loc) -> Any:
    if value is None:
        return None  # the stage's own default, chosen by the program, not by the config
    if isinstance(value, list | tuple):
        return type(value)(_resolved(v, marker, loaded, (*loc, i)) for i, v in enumerate(value))
    if isinstance(value, str):
        return value if not marker.names_path(value) else str(loaded.resolve_input(value, loc))
    if isinstance(value, PurePath):
        return loaded.resolve_input(str(value), loc)
    raise ConfigError(f"{loaded.locate(loc)}: {'.'.join(map(str, loc))}: expected a path, got {value!r}")
