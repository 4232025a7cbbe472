"""Rows whose key holds no value, per split, and what they leave unchecked: a key blank on a whole side of the
split compares nothing there, so a stage's pass would be a pass on nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.core.findings import Severity

if TYPE_CHECKING:
    from collections.abc import Callable

    from auditor.core.findings import Finding
    from auditor.core.splits import SplitRoles
    from auditor.manifest.table import Manifest


@dataclass(frozen=True)
class BlankRows:
    """The rows of ``column`` with no value (null, NaN or blank text) per split, and how grave that is."""

    column: str
    per_split: dict[str, int]
    severity: Severity
    message: str

    def finding(self, report: Callable[..., Finding], code: str, remediation: str) -> Finding:
        """The finding a stage reports them as under ``code``, made by its ``report`` (Stage.finding)."""
        evidence = {"column": self.column, "rows_per_split": self.per_split}
        return report(code, self.severity, self.message, key=self.column, evidence=evidence, remediation=remediation)


def blank_rows(manifest: Manifest, roles: SplitRoles, column: str, what: str) -> BlankRows | None:
    """None when every row holds a value; else an error when the column is blank in every row, or in every row of
    one side of the split (training or holdout), and info for a few gaps. ``what`` names what the column holds
    in the message (`content`, `text`)."""
    names = manifest.split_names
    blank = manifest.blank_per_split(column)
    if not blank.any():
        return None
    per_split = manifest.rows_per_split()
    rows = [per_split.get(n, 0) for n in names]
    empty = int(blank.sum()) == sum(rows)
    blind = [] if empty else roles.sides_without(names, blank.tolist(), rows)
    if empty:
        message = f"'{column}' is empty (null or blank) in every row: no {what} was compared; is it the right column?"
    elif blind:
        message = (
            f"'{column}' is empty (null or blank) in every {' and every '.join(blind)} row: no such row's {what} was "
            "compared with the other side, so a copy there would pass unseen; is it the right column?"
        )
    else:
        message = f"{int(blank.sum())} row(s) have no '{column}' value; their {what} was not compared."
    return BlankRows(
        column,
        {names[i]: int(c) for i, c in enumerate(blank) if c},
        Severity.ERROR if empty or blind else Severity.INFO,
        message,
    )
