"""The Stage protocol every audit check implements, and the AuditContext it runs against."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ConfigDict

from auditor.core.config import AuditConfig, LoadedConfig
from auditor.core.errors import StageInputError
from auditor.core.findings import Finding, Severity
from auditor.core.numbers import NoBoolNumbers
from auditor.core.splits import SplitRoles
from auditor.numeric.usercode import UserCode
from auditor.pipeline.acceptances import Acceptances

if TYPE_CHECKING:
    from auditor.manifest.table import Manifest


class StageOptions(NoBoolNumbers):
    """Options every stage accepts; a stage extends this with its own fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True


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
            self._roles = SplitRoles.from_config(self.config.splits, names, folds, self.config.paths_splits)
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
        # What the config does not give comes first: a stage whose keys are not set does not apply, with folds as
        # without them (it was 'does not judge cross-validation folds yet', a check never asked for).
        missing = self.missing_input(config)
        if missing is not None:
            return missing
        folds = config.manifest is not None and config.manifest.folds is not None
        if self.needs_manifest and folds and not self.fold_aware:
            return "does not judge cross-validation folds yet (manifest.folds)"
        return None

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
