"""What every numeric-path stage shares: it needs the `numeric` section and probes the user's program."""

from __future__ import annotations

import warnings
from abc import abstractmethod
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.config import AuditConfig
from auditor.core.errors import StageInputError
from auditor.core.findings import Finding, Severity, code_site
from auditor.core.scope import Scope
from auditor.pipeline.stage import AuditContext, Stage

if TYPE_CHECKING:
    from auditor.numeric.program import Program


class NumericStage(Stage):
    """A check of the user's training code on a tiny batch; torch is imported only when it runs."""

    needs_manifest = False
    needs_numeric = True
    needs: ClassVar[tuple[str, ...]] = ("numeric",)
    needs_filled_batch: ClassVar[bool] = True  # batch_inspect reports an empty batch; the others cannot probe it

    def missing_input(self, config: AuditConfig) -> str | None:
        return None if config.numeric is not None else "no `numeric` section in the config"

    _project: Path | None = None  # the config's folder, set by run: keys name files relative to it

    def finding(self, code: str, severity: Severity, message: str, **fields: Any) -> Finding:
        """A finding about the user's code: its scope binds no counts unless the check gives one (a shape or a
        line number that changes is the same problem, not a larger one). A key that is a place in a file
        under the config's folder names it relative to that folder, as a config's `accept` entry does."""
        fields.setdefault("scope", Scope())
        key = fields.get("key")
        if isinstance(key, str) and self._project is not None:
            fields["key"] = project_site(key, self._project)
        return super().finding(code, severity, message, **fields)

    def run(self, context: AuditContext) -> Iterator[Finding]:
        code = context.require_numeric()
        self._project = context.loaded.base_dir.resolve()
        from auditor.numeric.program import Program

        program = Program(code)
        if self.needs_filled_batch and program.empty():
            raise StageInputError("the batch holds empty tensors (batch_inspect: BAT007); there is nothing to probe")
        # The probes feed the program odd inputs on purpose; its warnings about them are not news.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = list(self.probe(program, context))
        yield from found

    @abstractmethod
    def probe(self, program: Program, context: AuditContext) -> Iterator[Finding]:
        """Run the user's program in the ways this check needs and yield what it finds."""


def project_site(key: str, project: Path) -> str:
    """``key`` ('/home/a/proj/src/model.py:38') relative to ``project`` when it is a place in a file under it."""
    path, colon, line = key.rpartition(":")
    if not colon or not line.isdigit() or code_site(key) is None or not Path(path).is_absolute():
        return key
    try:
        relative = Path(path).resolve().relative_to(project)
    except (ValueError, OSError, RuntimeError):
        return key
    return f"{relative.as_posix()}:{line}"
