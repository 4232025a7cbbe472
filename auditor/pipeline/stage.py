"""The Stage protocol every audit check implements, and the AuditContext it runs against."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ConfigDict

from auditor.core.config import AcceptSpec, AuditConfig, LoadedConfig
from auditor.core.errors import StageInputError
from auditor.core.findings import Finding, Severity
from auditor.core.numbers import NoBoolNumbers
from auditor.core.scope import growth, normalise_spelling, scope_of
from auditor.core.splits import SplitRoles
from auditor.numeric.usercode import UserCode

if TYPE_CHECKING:
    from auditor.manifest.table import Manifest


class StageOptions(NoBoolNumbers):
    """Options every stage accepts; a stage extends this with its own fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True


class Acceptances:
    """The config's `accept` entries; remembers which ones matched (so stale ones can be reported) and which
    matched a finding they were too broad for (ACC002)."""

    def unmatched_values(self, i: int) -> list[str]:
        """The `values` of entry ``i`` that no finding it matched holds: an exemption waiting for a future leak."""
        recorded = self.entries[i].value_texts
        if recorded is None or i in self.unlisted:
            return []
        seen = self.seen.get(i, set())
        return [v for v in recorded if normalise_spelling(v) not in seen]

    def __init__(self, entries: Iterable[AcceptSpec]) -> None:
        self.entries = list(entries)
        self.used: set[int] = set()
        self.broad: set[int] = set()
        # Per entry that records `values`: the normal forms of the values its matched findings hold; an entry
        # matched by a finding whose set is only a digest is left out (it cannot be told which values it saw).
        self.seen: dict[int, set[str]] = {}
        self.unlisted: set[int] = set()

    def judge(self, finding: Finding) -> Finding:
        """``finding`` accepted by the first entry that covers it, escalated when an entry accepted a smaller scope
        (a value it did not name), unchanged otherwise.

        ``key`` accepts the finding it names when that is the whole of its subject, or the one value it names; an
        entry whose key names a column (or no key at all) accepts only the `values` it records."""
        if finding.accepted:
            return finding
        scope = finding.scope
        escalated: Finding | None = None
        for i, entry in enumerate(self.entries):
            if entry.code != finding.code:
                continue
            key, recorded = entry.key_text, entry.value_texts
            if key is not None:
                whole = key == finding.key and (
                    not scope.n_values or {normalise_spelling(v) for v in scope.values} == {normalise_spelling(key)}
                )
                names_value = scope.listed and normalise_spelling(key) in {normalise_spelling(v) for v in scope.values}
                if whole and recorded is None:
                    self.used.add(i)
                    return finding.model_copy(update={"accepted": True, "accept_reason": entry.reason})
                if key != finding.key and not names_value:
                    column = finding.evidence.get("key")
                    if (
                        scope.n_values
                        and isinstance(column, str)
                        and normalise_spelling(column) == normalise_spelling(key)
                    ):
                        self.used.add(i)  # the key names the finding's column: every value of it, now and later
                        self.broad.add(i)
                    continue
                allowed = (*(recorded or ()), *((key,) if whole or names_value else ()))
            else:
                allowed = recorded or ()
            self.used.add(i)
            if recorded is not None:
                if scope.listed:
                    self.seen.setdefault(i, set()).update(normalise_spelling(v) for v in scope.values)
                else:
                    self.unlisted.add(i)
            if not allowed and recorded is None:
                self.broad.add(i)  # a column or a code, no values: it would accept every future value
                continue
            grown = growth(scope_of(allowed), scope)
            if grown is None:
                return finding.model_copy(update={"accepted": True, "accept_reason": entry.reason})
            if escalated is None:
                escalated = finding.model_copy(update={"accept_reason": entry.reason, "escalated": grown})
        return escalated or finding


@dataclass
class AuditContext:
    """What a stage may read: the validated config, the manifest (if any) and the split roles."""

    loaded: LoadedConfig
    manifest: Manifest | None
    acceptances: Acceptances
    _roles: SplitRoles | None = field(default=None, repr=False)
    numeric: UserCode | None = None
    numeric_error: str | None = None

    @property
    def config(self) -> AuditConfig:
        return self.loaded.config

    def require_manifest(self) -> Manifest:
        if self.manifest is None:
            raise RuntimeError("this stage needs the manifest, but none was loaded")
        return self.manifest

    def require_numeric(self) -> UserCode:
        """The user's imported callables; StageInputError (the stage errors) when they could not be loaded."""
        if self.numeric is None:
            raise StageInputError(self.numeric_error or "the config has no `numeric` section")
        return self.numeric

    @property
    def roles(self) -> SplitRoles:
        if self._roles is None:
            names = self.manifest.split_names if self.manifest is not None else []
            folds = self.manifest.folds if self.manifest is not None else None
            self._roles = SplitRoles.from_config(self.config.splits, names, folds)
        return self._roles


class Stage(ABC):
    """One audit check: a stable name, validated options, a skip reason, and findings."""

    name: ClassVar[str]
    summary: ClassVar[str]
    needs: ClassVar[tuple[str, ...]] = ()  # config keys it reads, for `audit stages`
    needs_manifest: ClassVar[bool] = True
    needs_numeric: ClassVar[bool] = False  # the user's code is imported (once) before the stages run
    # Reads the manifest only through its accessors (never `manifest.table`), so it runs out of core too.
    out_of_core: ClassVar[bool] = False
    # Judges each cross-validation fold (manifest.folds) on its own; a stage that does not is skipped on folds
    # rather than judging the rows as if they were one fixed split.
    fold_aware: ClassVar[bool] = False
    codes: ClassVar[dict[str, str]] = {}  # finding code -> title, for the check catalogue
    Options: ClassVar[type[StageOptions]] = StageOptions

    def __init__(self, options: StageOptions | None = None) -> None:
        self.options = options if options is not None else self.Options()

    def skip_reason(self, config: AuditConfig) -> str | None:
        """Why this stage does not apply to ``config`` (None when it runs)."""
        if not self.options.enabled:
            return f"disabled in the config (stages.{self.name}.enabled: false)"
        if self.needs_manifest and config.manifest is None:
            return "the config has no `manifest`"
        folds = config.manifest is not None and config.manifest.folds is not None
        if self.needs_manifest and folds and not self.fold_aware:
            return "does not judge cross-validation folds yet (manifest.folds)"
        return self.missing_input(config)

    def missing_input(self, config: AuditConfig) -> str | None:
        """What this stage needs that the config does not give (None when it has everything)."""
        return None

    def not_applicable(self, config: AuditConfig) -> bool:
        """Whether the config gives this stage nothing of its kind to check (no manifest, or a missing input), as
        opposed to a stage disabled or unable to judge what the config gives: a summary counts the former and
        names the latter."""
        if not self.options.enabled:
            return False
        if self.needs_manifest and config.manifest is None:
            return True
        folds = config.manifest is not None and config.manifest.folds is not None
        if self.needs_manifest and folds and not self.fold_aware:
            return False
        return self.missing_input(config) is not None

    def check_inputs(self, loaded: LoadedConfig) -> list[str]:
        """Problems with the stage's own input files (not the manifest), for `audit validate`; one line each."""
        return []

    def prefetch(self, manifest: Manifest, config: AuditConfig) -> None:  # noqa: B027 - optional hook
        """Start the heavy manifest work this stage will ask for, so all stages' work overlaps."""

    def manifest_keys(self, config: AuditConfig) -> list[str | list[str]]:
        """The keys whose codes (manifest.key) this stage asks for: an engine out of core keeps them until the
        last stage that names them has run, and frees them then (a key not named is coded again if asked for
        later: slower, never wrong)."""
        return []

    def manifest_counts(self, config: AuditConfig) -> list[str | list[str]]:
        """The keys whose group counts (manifest.group_counts) this stage asks for, kept and freed alike."""
        return []

    @abstractmethod
    def run(self, context: AuditContext) -> Iterable[Finding]:
        """Yield findings; raising is allowed and becomes an `error` result."""

    def finding(self, code: str, severity: Severity, message: str, **fields: Any) -> Finding:
        """A Finding of this stage; the title defaults to the code's catalogue title."""
        fields.setdefault("title", self.codes.get(code, code))
        return Finding(code=code, stage=self.name, severity=severity, message=message, **fields)
