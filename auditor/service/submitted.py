"""Configs submitted to the server: read only under a configured data root, and never with user code."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pydantic import ValidationError

from auditor.core.config import AcceptSpec, AuditConfig, LoadedConfig, config_from_text, format_validation_error
from auditor.core.errors import ConfigError
from auditor.core.findings import Report
from auditor.core.paths import ROOTS_HINT, is_within
from auditor.core.yamlsource import load_yaml
from auditor.pipeline.registry import discover, instantiate, load_stages
from auditor.pipeline.stage import Stage

# Only the data stages run on the server; the numeric ones import and run the user's code.
REFUSED_SECTIONS = {
    "numeric": "the numeric stages import and run your training code, which this server never does: run "
    "`audit run CONFIG --submit URL --project P` on your own machine, which runs them and uploads the report",
}


# The local messages of core.paths.outside_message and the readers' "working directory" notes.
_OUTSIDE = re.compile(
    r"resolves to [^\n]*?, outside the folders an audit may read \([^\n]*?\); " + re.escape(ROOTS_HINT)
)
_RESOLVES = re.compile(r"resolves to /[^\n]*?(?=, outside|; |\. |\.$|$)")
_CWD = re.compile(r";? ?working directory [^)\n]*")
# An absolute path left in a message once the roots are named (`<data root d>/x` is not one): a server path.
_SERVER_PATH = re.compile(r"(?<![\w>.~/:\\-])/[^\s'\"`,;()\[\]{}<>]+")
SERVER_PATH = "<server path>"


@dataclass(frozen=True)
class DataRoots:
    """The folders the server may read data from, by name (resolved real paths)."""

    roots: Mapping[str, Path]

    @classmethod
    def parse(cls, values: list[str]) -> DataRoots:
        """From `--data-root NAME=PATH` options; each PATH an existing folder, each NAME used once."""
        roots: dict[str, Path] = {}
        for value in values:
            name, sep, path = value.partition("=")
            name = name.strip()
            if not sep or not name or not path:
                raise ConfigError(f"--data-root {value!r}: expected NAME=PATH")
            if name in roots:
                raise ConfigError(f"--data-root {value!r}: the name {name!r} is given twice")
            real = Path(path).expanduser().resolve()
            if not real.is_dir():
                raise ConfigError(f"--data-root {value!r}: {real} is not a directory")
            roots[name] = real
        return cls(roots)

    def hide(self, text: str) -> str:
        """``text`` as a submitter may read it: each root by name, no path outside the roots (where a link
        leads would let a submitter probe the server's files) and no hints meant for `audit run`."""
        text = _OUTSIDE.sub("leads outside the data root (symbolic links are followed)", text)
        text = _RESOLVES.sub("leads outside the data root", text)
        text = text.replace(ROOTS_HINT, "every path must resolve (symbolic links followed) inside the data root")
        text = _CWD.sub("", text)
        for name, path in sorted(self.roots.items(), key=lambda item: -len(str(item[1]))):
            text = text.replace(str(path), f"<data root {name}>")
        return text

    def public(self, text: str) -> str:
        """``text`` as :meth:`hide` gives it, and with every other absolute path (the server's install, its
        temporary files) replaced: a stage error shows what went wrong, not where the server keeps its files."""
        return _SERVER_PATH.sub(SERVER_PATH, self.hide(text))

    def public_report(self, report: Report) -> Report:
        """A server-side audit's report as it is stored: stage errors without traceback or server paths."""
        stages = []
        for result in report.stages:
            error = result.error
            if error is not None:
                clean = {"message": self.public(error.message), "traceback": ""}
                result = result.model_copy(update={"error": error.model_copy(update=clean)})
            stages.append(result)
        return report.model_copy(update={"stages": tuple(stages)})

    def get(self, name: str) -> Path:
        try:
            return self.roots[name]
        except KeyError:
            known = ", ".join(sorted(self.roots)) or "none is configured (`audit serve --data-root NAME=PATH`)"
            raise ConfigError(f"data root {name!r}: no such data root; the server has {known}") from None


def base_folder(root: Path, base: str) -> Path:
    """``base`` (a relative folder inside ``root``) resolved; ConfigError for `..`, absolute paths or symlinks out."""
    if "\x00" in base:
        raise ConfigError(f"base {base!r}: contains a NUL byte")
    pure = PurePosixPath(base.replace(os.sep, "/"))
    if pure.is_absolute() or base.startswith("~") or ".." in pure.parts:
        raise ConfigError(f"base {base!r}: expected a folder relative to the data root, without '..'")
    try:
        real = (root / pure).resolve()
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"base {base!r}: cannot resolve: {exc}") from None
    if not is_within(real, (root,)):
        raise ConfigError(f"base {base!r}: leads outside the data root (through a symbolic link)")
    if not real.is_dir():
        raise ConfigError(f"base {base!r}: no such folder in the data root")
    return real


def load_submitted(text: str, root: Path, base: str = "") -> LoadedConfig:
    """Validate a submitted config as if it lay in ``root/base``: every input path must stay in ``root``."""
    folder = base_folder(root, base or ".")
    raw = text.encode("utf-8", "surrogatepass")
    name = folder / "audit.yaml"
    loaded = config_from_text(raw, text, name, folder)
    for section, why in REFUSED_SECTIONS.items():
        if getattr(loaded.config, section) is not None:
            where = loaded.locate((section,))
            raise ConfigError(f"{where}: `{section}` is not run by the server: {why}")
    # `roots:` may widen the readable folders, but never beyond the data root.
    for i, written in enumerate(loaded.config.roots):
        if not is_within(folder / os.path.expanduser(written), (root,)):
            raise ConfigError(f"{loaded.locate(('roots', i))}: roots[{i}] {written!r} lies outside the data root")
    if not is_within(folder, (root,)):  # base_folder checked this; kept as the invariant the worker relies on
        raise ConfigError(f"base {base!r}: leads outside the data root")
    instantiate(data_stage_classes(), loaded)  # the stages' options, their paths confined to the root as well
    return loaded


def data_stage_classes() -> list[type[Stage]]:
    """Every installed stage that does not run the user's code."""
    return [cls for cls in load_stages(discover()) if not getattr(cls, "needs_numeric", False)]


def server_stage_classes(loaded: LoadedConfig, installed: list[type[Stage]] | None = None) -> list[type[Stage]]:
    """Every installed stage, for a config load_submitted accepted: the ones that run the user's code are in the
    report as skipped with their own reason (a config without `numeric` gives them nothing), so a full server
    audit is not a partial one. A stage of those that would run is refused: this server never runs user code."""
    classes = load_stages(discover()) if installed is None else installed
    running = [s.name for s in instantiate(classes, loaded) if s.needs_numeric and s.skip_reason(loaded.config) is None]
    if running:
        raise ConfigError(f"stage(s) {', '.join(running)} would run the user's code, which this server never does")
    return classes


def config_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def configured_fail_on(text: str) -> str:
    """The `report.fail_on` of a config uploaded with its report (its default when it names none)."""
    document = load_yaml(Path("audit.yaml"), text)
    try:
        return str(AuditConfig.model_validate(document.data).report.fail_on)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, document, AuditConfig)) from None


def accept_entries(text: str) -> list[AcceptSpec]:
    """The `accept` entries of a config uploaded with its report: the only source of the acceptances the report
    may show. Read without its paths (they name the submitter's machine); ConfigError when it is not a config."""
    name = Path("audit.yaml")
    document = load_yaml(name, text)
    if not isinstance(document.data, dict):
        raise ConfigError(f"{name}:1:1: expected a mapping of sections (manifest, splits, keys, ...)")
    try:
        return AuditConfig.model_validate(document.data).accept
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, document, AuditConfig)) from None
