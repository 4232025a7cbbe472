"""What the reviews of group_overlap and shared_upstream accepted, as shared_upstream leaves it out of its links:
a group value whose every GRP001/GRP002 finding is accepted links no rows, and spellings accepted as different
values (GRP005, UPS005) stay apart. Only what the report shows as accepted counts (findings judged in this
audit), so an entry that is stale, too broad or ambiguous takes nothing out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.core.config import key_label

if TYPE_CHECKING:
    from auditor.core.findings import Finding
    from auditor.manifest.reviewed import Reviewed
    from auditor.pipeline.stage import AuditContext

# group_overlap's findings of a value shared by train and holdout, and by two holdout splits.
_SHARED = ("GRP001", "GRP002")


def reviewed_keys(context: AuditContext) -> dict[str, Reviewed]:
    """Per key (by its label) what its accepted findings leave out of the links; keys with nothing are absent."""
    from auditor.manifest.reviewed import Reviewed

    config = context.config
    found: dict[str, Reviewed] = {}
    for spec in config.keys.groups:
        label = key_label(spec)
        # Per fold, a value's splits are fold patterns: which folds it crosses is not read here, so none is left out.
        unlinked = () if context.roles.folds is not None else _shared_on_purpose(context, label)
        _add(found, label, Reviewed(unlinked, _spellings_apart(context, "GRP005", label)))
    for spec in config.keys.sources:
        label = key_label(spec)
        _add(found, label, Reviewed((), _spellings_apart(context, "UPS005", label)))
    return found


def partly_accepted(context: AuditContext) -> list[str]:
    """Group values accepted in one finding and left standing in another (GRP001 accepted, GRP002 not): they
    still link rows, and the report says which finding holds them, or it would look like the acceptance failed."""
    if context.roles.folds is not None:
        return []
    said = []
    for spec in context.config.keys.groups:
        label = key_label(spec)
        accepted: set[str] = set()
        standing: dict[str, list[str]] = {}
        for finding in context.acceptances.judged_of(_SHARED, label):
            for value in _values_of(finding) or []:
                if finding.accepted:
                    accepted.add(value)
                else:
                    standing.setdefault(value, []).append(finding.code)
        for value in sorted(accepted & standing.keys()):
            said.append(f"{label} {value!r} (its {', '.join(sorted(set(standing[value])))} is not accepted)")
    return said


def partly_text(values: list[str]) -> str:
    return " Accepted in part, and so still linking rows: " + "; ".join(values) + "."


def unapplied(context: AuditContext) -> list[str]:
    """The `accept` entries for group_overlap's findings on this config's group keys, when group_overlap did not
    run to its end (left out by --only, or failed): what they accept cannot be told, so it still links rows."""
    if "group_overlap" in context.acceptances.stages_judged or context.roles.folds is not None:
        return []  # per fold, no value is left out of the links anyway
    groups = {key_label(spec) for spec in context.config.keys.groups}
    return [
        f"accept[{i}] ({entry.code}, key={entry.key_text!r})"
        for i, entry in enumerate(context.acceptances.entries)
        if entry.code in (*_SHARED, "GRP005") and (entry.column is None or key_label(entry.column) in groups)
    ]


def unapplied_text(entries: list[str]) -> str:
    return (
        f" Not applied here: {', '.join(entries)}, since group_overlap, whose findings they accept, did not run to "
        "its end; run it in the same audit so that what it accepts links no rows."
    )


def _add(found: dict[str, Reviewed], label: str, more: Reviewed) -> None:
    from auditor.manifest.reviewed import NONE, Reviewed

    had = found.get(label, NONE)
    joined = Reviewed(tuple(sorted({*had.unlinked, *more.unlinked})), had.unmerged | more.unmerged)
    if joined:
        found[label] = joined


def _shared_on_purpose(context: AuditContext, label: str) -> tuple[str, ...]:
    """The values of a group key that its GRP001/GRP002 findings hold only where accepted (by name or among
    `values:`, in any spelling that names them): a value also held by a finding left standing (one accepted
    across train and test, still shared by val and test) links as before. Values as reports write them."""
    accepted: set[str] = set()
    standing: set[str] = set()
    for finding in context.acceptances.judged_of(_SHARED, label):
        values = _values_of(finding)
        if values is None:  # a finding of too many values to list: which it holds cannot be told
            if not finding.accepted:
                return ()
            continue
        (accepted if finding.accepted else standing).update(values)
    return tuple(sorted(accepted - standing))


def _values_of(finding: Finding) -> list[str] | None:
    """The group values a finding is about: its one value, or its scope's listed values (None: not listed)."""
    value = finding.evidence.get("value")
    if isinstance(value, str):
        return [value]
    return [str(v) for v in finding.scope.values] if finding.scope.listed else None


def _spellings_apart(context: AuditContext, code: str, label: str) -> frozenset[str]:
    """The spelling groups (normal forms) of a key whose finding ``code`` was accepted: different values."""
    return frozenset(
        str(f.evidence["value"])
        for f in context.acceptances.judged_of([code], label)
        if f.accepted and "value" in f.evidence
    )


def reviewed_text(reviewed: dict[str, Reviewed]) -> str:
    """ "writer 'calib'; the spellings of writer 'alice' apart", for a finding's message."""
    parts = []
    for label, r in sorted(reviewed.items()):
        if r.unlinked:
            parts.append(f"{label} " + ", ".join(repr(v) for v in r.unlinked))
        if r.unmerged:
            parts.append(f"the spellings of {label} " + ", ".join(repr(v) for v in sorted(r.unmerged)) + " apart")
    return "; ".join(parts)


def reviewed_evidence(reviewed: dict[str, Reviewed]) -> dict[str, dict[str, list[str]]]:
    return {
        label: {"values": list(r.unlinked), "spellings_apart": sorted(r.unmerged)}
        for label, r in sorted(reviewed.items())
    }
