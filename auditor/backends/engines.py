"""Which engine holds the manifest: in memory (Arrow), out of core (DuckDB), or a Dask cluster.

The choice is made before anything is read: a manifest whose projected columns would not fit the memory
budget goes out of core on its own, so a run never starts only to be killed for memory halfway through.
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from auditor.core.errors import AuditError, StageInputError

EngineName = Literal["auto", "memory", "duckdb", "dask"]
ENGINES: tuple[str, ...] = ("auto", "memory", "duckdb", "dask")
# The extra that installs each engine's library (pip install 'split-auditor[EXTRA]').
EXTRAS = {"duckdb": ("duckdb", "duckdb"), "dask": ("distributed", "dask")}
# An Arrow table plus the codes, counts and copies the stages make of it: about this many times the bytes
# of the projected columns at their peak (measured on the 10M-row benchmarks: 1.6 GB for 0.65 GB of columns).
WORKING_FACTOR = 3.0
DEFAULT_SHARE = 0.5  # of the machine's memory, when no --memory-limit is given
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4}


@dataclass(frozen=True)
class EngineSettings:
    """How to hold the manifest: the engine, the memory it may use and where it may spill."""

    engine: EngineName = "auto"
    memory_limit: int | None = None  # bytes; None: a share of the machine's memory
    temp_dir: Path | None = None  # DuckDB's spill folder; None: a private folder under the system's temp
    temp_limit: int | None = None  # bytes the spill may take on disk; None: DuckDB's default (90% of free space)
    scheduler: str | None = None  # the dask engine's scheduler address, "synchronous", or None: a local cluster

    @property
    def budget(self) -> int:
        return self.memory_limit if self.memory_limit is not None else int(machine_memory() * DEFAULT_SHARE)


class InMemoryOnlyError(StageInputError):
    """A stage asked a manifest held out of core for the whole table, which only the memory engine holds."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        super().__init__(in_memory_only("this stage", engine))

    def for_stage(self, stage: str) -> str:
        return in_memory_only(stage, self.engine)


def in_memory_only(stage: str, engine: str) -> str:
    """The one wording for a stage that cannot run out of core, whether that is known before it starts or
    found while it runs: which stage, why, and what to do instead."""
    return (
        f"{stage} needs the whole manifest as one table in memory, which the {engine} engine never holds (it "
        "keeps the manifest out of core); run it with --engine memory on a machine with enough memory, or leave "
        "it out with --only"
    )


def parse_size(text: str, option: str = "--memory-limit", least: int = 64 * 10**6) -> int:
    """'8GB', '512MiB', '2g' or a number of bytes, as bytes; anything else is refused with the forms."""
    found = _SIZE.match(text)
    if not found:
        raise AuditError(f"{option} {text!r}: expected a size such as 8GB, 512MB or 2GiB")
    number, unit = float(found.group(1)), (found.group(2) or "").lower()
    base = unit[:1]
    factor = 1024 ** " kmgt".index(base) if "i" in unit else _UNITS[base]
    size = int(number * factor)
    if size < least:
        raise AuditError(f"{option} {text!r}: at least {least // 10**6}MB is needed")
    return size


def machine_memory() -> int:
    """Physical memory, or the cgroup's limit when a container sets a lower one."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            return int(text)
    return int(total)


def require(engine: str) -> None:
    """AuditError naming the extra to install when ``engine``'s library is missing."""
    if engine not in EXTRAS:
        return
    module, extra = EXTRAS[engine]
    if importlib.util.find_spec(module) is None:
        raise AuditError(
            f"the {engine} engine needs the `{module}` package, which is not installed: "
            f"pip install 'split-auditor[{extra}]'"
        )


def installed(engine: str) -> bool:
    try:
        require(engine)
    except AuditError:
        return False
    return True


def choose(settings: EngineSettings, projected_bytes: int | None) -> tuple[str, str]:
    """The engine to use and why, for the report; ``projected_bytes`` is the manifest columns' size if known."""
    if settings.engine != "auto":
        require(settings.engine)
        return settings.engine, f"--engine {settings.engine}"
    if projected_bytes is None:
        return "memory", "the manifest's size is not known before reading it (text formats): in memory"
    need = int(projected_bytes * WORKING_FACTOR)
    fits = need <= settings.budget
    why = f"about {_gb(need)} needed in memory for {_gb(projected_bytes)} of columns, budget {_gb(settings.budget)}"
    if fits:
        return "memory", why
    if not installed("duckdb"):
        raise AuditError(
            f"the manifest does not fit in memory ({why}) and the out-of-core engine is not installed: "
            "pip install 'split-auditor[duckdb]', or raise --memory-limit"
        )
    return "duckdb", why


def _gb(size: int) -> str:
    return f"{size / 1e9:.1f} GB"
