"""Find stages through the `auditor.stages` entry-point group, load them, validate them and their options.

Discovery only lists entry points (sorted, nothing imported); loading imports one and wraps any failure
with the distribution that provides it, so a broken plugin is named, not a bare traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pydantic import ValidationError

from auditor.core.config import LoadedConfig, format_validation_error
from auditor.core.errors import ConfigError, StageLoadError
from auditor.core.pathoptions import confine_options, unconfined_path_fields
from auditor.pipeline.stage import Stage, StageOptions

GROUP = "auditor.stages"


@dataclass(frozen=True)
class StagePlugin:
    """A discovered, not yet imported, stage."""

    name: str
    value: str
    package: str
    entry_point: EntryPoint | None = None

    def load(self) -> type[Stage]:
        try:
            obj = self.entry_point.load() if self.entry_point is not None else None
        except Exception as exc:
            raise StageLoadError(
                f"stage '{self.name}' from package '{self.package}' failed to load ({self.value}): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return verify_stage_class(obj, self.name, self.package)


def discover(eps: Iterable[EntryPoint] | None = None) -> list[StagePlugin]:
    """Stage plugins sorted by name; two plugins claiming one name is an error naming both packages."""
    found = entry_points(group=GROUP) if eps is None else eps
    plugins: dict[str, StagePlugin] = {}
    names: dict[int, str] = {}  # a distribution's name parses its whole METADATA file: once per distribution
    for ep in sorted(found, key=lambda e: (e.name, e.value)):
        dist = getattr(ep, "dist", None)
        if dist is not None and id(dist) not in names:  # the entry points of one distribution share its object
            names[id(dist)] = dist.name
        package = names[id(dist)] if dist is not None else "<unknown>"
        plugin = StagePlugin(ep.name, ep.value, package, ep)
        if ep.name in plugins and plugins[ep.name].value != ep.value:
            other = plugins[ep.name]
            raise StageLoadError(
                f"stage name '{ep.name}' is claimed twice: by '{other.package}' ({other.value}) "
                f"and by '{package}' ({ep.value})"
            )
        plugins[ep.name] = plugin
    return list(plugins.values())


def verify_stage_class(obj: Any, name: str, package: str) -> type[Stage]:
    """Check that a loaded object is a usable Stage before anything runs."""
    where = f"stage '{name}' from package '{package}'"
    if not (isinstance(obj, type) and issubclass(obj, Stage)):
        raise StageLoadError(f"{where} is {obj!r}, not a subclass of auditor.pipeline.stage.Stage")
    if getattr(obj, "name", None) != name:
        raise StageLoadError(f"{where}: the class says name={getattr(obj, 'name', None)!r}, expected '{name}'")
    if not (isinstance(obj.Options, type) and issubclass(obj.Options, StageOptions)):
        raise StageLoadError(f"{where}: Options must subclass auditor.pipeline.stage.StageOptions")
    unconfined = unconfined_path_fields(obj.Options, by_name=False)
    if unconfined:
        raise StageLoadError(
            f"{where}: option(s) {', '.join(unconfined)} hold a path but are not declared "
            "auditor.core.pathoptions.ConfinedPath, so they could name files outside the audit's roots"
        )
    if not getattr(obj, "summary", ""):
        raise StageLoadError(f"{where}: missing a `summary` of what it checks")
    return obj


def load_stages(plugins: Sequence[StagePlugin]) -> list[type[Stage]]:
    return [p.load() for p in plugins]


def _closest(name: str, known: Iterable[str]) -> str | None:
    """The known stage name nearest ``name``, compared without case (`GROUP_OVERLAP` is group_overlap)."""
    lowered = {k.lower(): k for k in sorted(known)}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1)
    return lowered[close[0]] if close else None


def select(stages: Sequence[Stage], only: Sequence[str] | None) -> list[Stage]:
    """The stages named by --only (all when None); an unknown name is an error with a suggestion."""
    if not only:
        return list(stages)
    by_name = {s.name: s for s in stages}
    for name in only:
        if name not in by_name:
            close = _closest(name, by_name)
            hint = f"; did you mean '{close}'?" if close else ""
            raise StageLoadError(f"unknown stage '{name}'{hint} (known: {', '.join(sorted(by_name))})")
    return [by_name[n] for n in dict.fromkeys(only)]


def instantiate(classes: Sequence[type[Stage]], loaded: LoadedConfig) -> list[Stage]:
    """Validate every stage's options from `stages:` before any stage runs; all problems at once."""
    options: Mapping[str, dict[str, Any]] = loaded.config.stages
    known = {c.name for c in classes}
    problems = []
    for name in options:
        if name not in known:
            close = _closest(name, known)
            hint = f"; did you mean '{close}'?" if close else f" (known: {', '.join(sorted(known))})"
            problems.append(f"{loaded.locate(('stages', name))}: unknown stage '{name}'{hint}")
    stages = []
    for cls in classes:
        raw = options.get(cls.name, {}) or {}
        if not isinstance(raw, dict):
            problems.append(f"{loaded.locate(('stages', cls.name))}: stages.{cls.name}: expected a mapping of options")
            continue
        try:
            validated = cls.Options.model_validate(raw)
        except ValidationError as exc:
            text = format_validation_error(exc, loaded.document, cls.Options, prefix=("stages", cls.name))
            problems.append(f"{text}  [stage '{cls.name}']")
            continue
        try:  # before any stage runs: a path option outside the roots is never opened, created or stat'ed
            stages.append(cls(confine_options(validated, loaded, ("stages", cls.name))))
        except ConfigError as exc:
            problems.append(f"{exc}  [stage '{cls.name}']")
    if problems:
        raise StageLoadError("\n".join(problems))
    return stages
