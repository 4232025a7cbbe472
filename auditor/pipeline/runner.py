"""run_audit: validate every stage and its options, load the manifest once, run stages, build the Report."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from auditor.backends.engines import EngineSettings, in_memory_only
from auditor.core.config import AcceptSpec, AuditConfig, LoadedConfig, load_config
from auditor.core.errors import ConfigError
from auditor.core.findings import (
    FailOn,
    Finding,
    ManifestInfo,
    Report,
    Severity,
    StageResult,
    exit_code_for,
    summarize,
)
from auditor.core.subjects import SPELLING_CODES
from auditor.core.version import __version__
from auditor.pipeline.cpulimit import CpuBudget
from auditor.pipeline.execute import error_result, execute
from auditor.pipeline.isolated import NumericRun
from auditor.pipeline.registry import discover, instantiate, load_stages, select
from auditor.pipeline.stage import Acceptances, AuditContext, Stage

if TYPE_CHECKING:
    from auditor.manifest.table import Manifest


def prepare_stages(
    loaded: LoadedConfig, only: Sequence[str] | str | None = None, classes: Sequence[type[Stage]] | None = None
) -> list[Stage]:
    """Load and validate all stages and their options, then keep the selected ones."""
    return select(_all_stages(loaded, classes), [only] if isinstance(only, str) else only)


def _all_stages(loaded: LoadedConfig, classes: Sequence[type[Stage]] | None) -> list[Stage]:
    return instantiate(load_stages(discover()) if classes is None else classes, loaded)


def run_audit(
    config: LoadedConfig | str | Path,
    *,
    only: Sequence[str] | str | None = None,
    fail_on: FailOn | None = None,
    classes: Sequence[type[Stage]] | None = None,
    engine: EngineSettings | None = None,
    stage_cpu: CpuBudget | None = None,
) -> Report:
    """Audit a config (a path or a LoadedConfig) and return the frozen Report; ``stage_cpu`` bounds the CPU
    of each stage run in this process (a server-side audit), a stage past it being an error.

    Raises ConfigError, ManifestError or StageLoadError when the audit cannot run at all; an exception
    inside one stage becomes that stage's `error` result instead.
    """
    if fail_on is not None and fail_on not in get_args(FailOn):
        raise ConfigError(f"fail_on {fail_on!r}: expected one of {', '.join(get_args(FailOn))}")
    loaded = config if isinstance(config, LoadedConfig) else load_config(config)
    every = _all_stages(loaded, classes)
    stages = select(every, [only] if isinstance(only, str) else only)
    threshold: FailOn = fail_on or loaded.config.report.fail_on
    skips = {s.name: s.skip_reason(loaded.config) for s in stages}
    # A stage the config or --only names is worth a line when it is skipped; one the config gives nothing is not.
    named = {*([only] if isinstance(only, str) else only or ()), *loaded.config.stages}
    unasked = {s.name for s in stages if skips[s.name] and s.name not in named and s.not_applicable(loaded.config)}
    manifest: Manifest | None = None
    active = [s for s in stages if skips[s.name] is None]
    # The user's code runs in a child process; the data stages here do not depend on anything it does.
    in_child = [s for s in active if s.needs_numeric]
    numeric = NumericRun(loaded, in_child)
    user_output = None
    early: dict[str, StageResult] = {}
    engine_used = "memory"
    try:
        numeric.start()  # before the manifest loads, so the user's code and the data work run side by side
        here = [s for s in active if not s.needs_numeric]
        if any(s.needs_manifest for s in here):
            from auditor.backends.load import load_for  # pyarrow and pandas: only when there are rows to read

            manifest, engine_used = load_for(loaded, engine or EngineSettings())
            if engine_used != "memory":
                # A stage that reads the whole table cannot run out of core: it is an error, never a silent skip.
                for stage in [s for s in here if s.needs_manifest and not s.out_of_core]:
                    here.remove(stage)
                    skips[stage.name] = None
                    early[stage.name] = error_result(stage.name, "engine", in_memory_only(stage.name, engine_used))
            with manifest.prefetching():
                for stage in here:
                    stage.prefetch(manifest, loaded.config)
                manifest.prefetch(sha256=True)
        acceptances = Acceptances(loaded.config.accept)
        context = AuditContext(loaded, manifest, acceptances)
        child = {s.name for s in in_child}
        here_order = [s for s in stages if s.name not in child]
        keep = _keys_after(here_order, skips, loaded.config)
        done = {
            s.name: early.get(s.name)
            or _run_one(s, skips[s.name], context, threshold, stage_cpu, keep[s.name], s.name in unasked)
            for s in here_order
        }
        raw, user_output = numeric.finish()
        done.update({name: _judge(result, acceptances, threshold) for name, result in raw.items()})
        results = [done[s.name] for s in stages]
        ran = {r.stage for r in results if r.status in ("passed", "failed")}
        stale = _stale_acceptances(acceptances, ran, every)
        if stale:
            failing = any(f.severity >= _status_threshold(threshold) for f in stale)
            results.append(
                StageResult(
                    stage="accept", status="failed" if failing else "passed", duration_s=0.0, findings=tuple(stale)
                )
            )
        info = _manifest_info(manifest, engine_used)
    except BaseException:
        # An interrupt or an error: abandon the background work (a file half hashed) instead of finishing it.
        numeric.close()
        if manifest is not None:
            manifest.close(wait=False)
        raise
    numeric.close()  # kills the child and all it started
    if manifest is not None:
        manifest.close()
    final = tuple(results)
    return Report(
        tool_version=__version__,
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        config_path=str(loaded.path) if loaded.path else None,
        config_sha256=loaded.sha256,
        manifest=info,
        fail_on=threshold,
        stages=final,
        summary=summarize(final),
        exit_code=exit_code_for(final, threshold),
        user_output=user_output,
    )


def _status_threshold(fail_on: FailOn) -> Severity:
    """A stage 'failed' when it has a finding that fails the run (at fail_on: never, an error)."""
    return Severity.ERROR if fail_on == "never" else Severity(fail_on)


def _run_one(
    stage: Stage,
    skip: str | None,
    context: AuditContext,
    fail_on: FailOn,
    cpu: CpuBudget | None,
    keep: frozenset[tuple[str, ...]] = frozenset(),
    not_applicable: bool = False,
) -> StageResult:
    if skip is not None:
        return StageResult(
            stage=stage.name, status="skipped", duration_s=0.0, skip_reason=skip, not_applicable=not_applicable
        )
    try:
        raw = execute(stage, context, cpu)
    finally:
        if context.manifest is not None:
            context.manifest.stage_done(keep)
    return _judge(raw, context.acceptances, fail_on)


def _columns(spec: str | Sequence[str]) -> tuple[str, ...]:
    return (spec,) if isinstance(spec, str) else tuple(spec)


def _keys_after(
    stages: Sequence[Stage], skips: dict[str, str | None], config: AuditConfig
) -> dict[str, frozenset[tuple[str, ...]]]:
    """For each stage, what the stages that run after it ask for: ("key", *columns) for the keys they code
    (Stage.manifest_keys), ("group_counts", *columns) for the counts (Stage.manifest_counts). The manifest
    keeps these once the stage is done."""
    keep: dict[str, frozenset[tuple[str, ...]]] = {}
    later: set[tuple[str, ...]] = set()
    for stage in reversed(stages):
        keep[stage.name] = frozenset(later)
        if skips.get(stage.name) is None:
            later.update(("key", *_columns(spec)) for spec in stage.manifest_keys(config))
            later.update(("group_counts", *_columns(spec)) for spec in stage.manifest_counts(config))
    return keep


def _judge(raw: StageResult, acceptances: Acceptances, fail_on: FailOn) -> StageResult:
    """A stage's raw result with `accept` applied, its findings in report order and its status decided."""
    if raw.status in ("error", "skipped"):
        return raw
    found = sorted(acceptances.judge_all(raw.findings), key=Finding.sort_key)
    acceptances.stages_judged.add(raw.stage)
    failing = any(f.counts_against and f.severity >= _status_threshold(fail_on) for f in found)
    return raw.model_copy(update={"status": "failed" if failing else "passed", "findings": tuple(found)})


def _stale_acceptances(acceptances: Acceptances, ran: set[str], stages: Sequence[Stage]) -> list[Finding]:
    """An `accept` entry that matched nothing in a stage that ran is stale: the data or the code moved."""
    owners = {code: s.name for s in stages for code in s.codes}
    stale = []
    for i, entry in enumerate(acceptances.entries):
        owner = owners.get(entry.code)
        if i in acceptances.broad:
            places = acceptances.unplaced.get(i)
            stale.append(
                _unplaced(i, entry, places)
                if places
                else _too_broad(i, entry, acceptances.subject_only.get(i), acceptances.naming.get(i))
            )
            continue
        if i in acceptances.ambiguous:
            stale.append(_names_no_column(i, entry, acceptances.ambiguous[i]))
            continue
        if i in acceptances.used:
            unmatched = acceptances.unmatched_values(i)
            if unmatched:
                stale.append(_values_unmatched(i, entry, unmatched, acceptances.now_held.get(i, [])))
            continue
        if owner is not None and owner not in ran:
            continue
        where = "no stage reports this code" if owner is None else f"stage '{owner}' found nothing it matches"
        if owner is None:
            near = _closest_code(entry.code, owners)
            if near is not None:
                where += f" (did you mean {near!r}?)"
        moved = sorted(set(acceptances.moved.get(i, ())))
        if moved:
            where += (
                f"; the statement it names is now at {', '.join(moved)} (not accepted there: check that it is the "
                f'code that was reviewed, then write `key: "{moved[0]}"`)'
            )
        stale.append(
            _about_entry(
                "ACC001",
                "accept entry matches no finding",
                f"accept[{i}] ({entry.code}, key={entry.key_text!r}) matches no finding: {where}. "
                "Remove it, or correct its code or key, so that it cannot hide a future finding.",
                i,
                entry,
                "Delete the stale entry from `accept`.",
                key=entry.key_text,
                **({"statement_found_at": moved} if moved else {}),
            )
        )
    return stale


def _values_unmatched(i: int, entry: AcceptSpec, unmatched: list[str], now: list[str]) -> Finding:
    """ACC003: values an entry accepts that match no finding: listed now, they would hide that value's leak later.
    For a place of code whose statement changed (``now``), it names what the place holds instead."""
    more = f" and {len(unmatched) - 10} more" if len(unmatched) > 10 else ""
    held = list(dict.fromkeys(now))
    instead = (
        f" {entry.key_text} now holds {', '.join(repr(v) for v in held)}, which was not reviewed and is not accepted: "
        "review it, then list it under `values:` in place of the old statement."
        if held
        else ""
    )
    return _about_entry(
        "ACC003",
        "accept entry lists values that match no finding",
        f"accept[{i}] ({entry.code}) lists {len(unmatched)} value(s) no finding holds: "
        f"{', '.join(repr(v) for v in unmatched[:10])}{more}. Remove them, so that the entry cannot accept a leak "
        "of those values that has not been reviewed." + instead,
        i,
        entry,
        "Delete the values that no longer leak from the entry's `values`.",
        values=unmatched,
        **({"now_held": held} if held else {}),
    )


def _unplaced(i: int, entry: AcceptSpec, places: list[str]) -> Finding:
    """ACC002: an entry naming a statement of code but not its file and line would accept it wherever it recurs."""
    where = sorted(set(places))
    shown = ", ".join(repr(p) for p in where[:10]) + (f" and {len(where) - 10} more" if len(where) > 10 else "")
    return _about_entry(
        "ACC002",
        "accept entry too broad: it names no file and line",
        f"accept[{i}] ({entry.code}, key={entry.key_text!r}) names a statement but not the file and line it was "
        "reviewed at, so it would accept that statement in any file, now and later; the finding is not accepted. "
        f'Found at {shown}: write one entry per reviewed place, with `key: "{where[0]}"` and the statement '
        "under `values:`.",
        i,
        entry,
        f"Name the reviewed place with `key:` (one of {shown}) and the statement with `values:`.",
        key=entry.key_text,
        values=where,
    )


def _closest_code(code: str, owners: Mapping[str, str]) -> str | None:
    """The code an `accept:` entry likely meant: the same but for case or spacing (grp001), else the nearest."""
    import difflib

    squeezed = "".join(code.split()).upper()
    if squeezed in owners:
        return squeezed
    near = difflib.get_close_matches(squeezed, list(owners), n=1, cutoff=0.8)
    return near[0] if near else None


def _too_broad(i: int, entry: AcceptSpec, held: list[str] | None = None, naming: list[str] | None = None) -> Finding:
    """ACC002: an entry that names no value of a finding about values would accept every value found later.
    ``naming``: what would name each finding it matched (`key: "val|test"`), said so the fix need not be searched."""
    if held:
        shown = json.dumps(held, ensure_ascii=False)
        later = (
            "a spelling added later, which may be another value"
            if entry.code in SPELLING_CODES
            else "whatever is found there later (at a line of code, another statement)"
        )
        return _about_entry(
            "ACC002",
            "accept entry too broad: it names no value",
            f"accept[{i}] ({entry.code}, key={entry.key_text!r}) names the finding but not what it holds, so it "
            f"would also accept {later}; the finding is not accepted. If {shown} is what was reviewed, add "
            f"`values: {shown}` to the entry.",
            i,
            entry,
            f"Add `values: {shown}` to the entry, once reviewed.",
            key=entry.key_text,
            values=held,
        )
    if naming:
        shown = ", ".join(f"`{n}`" for n in naming[:SHOWN_NAMING])
        more = f" and {len(naming) - SHOWN_NAMING} more" if len(naming) > SHOWN_NAMING else ""
        one = len(naming) == 1
        return _about_entry(
            "ACC002",
            "accept entry too broad: it names no value",
            f"accept[{i}] ({entry.code}, key={entry.key_text!r}) names no value of the {entry.code} "
            f"finding{'' if one else 's'} it matches, so it would also accept every value that leaks later; "
            f"{'the finding is' if one else 'they are'} not accepted. "
            + (
                f"If it is what was reviewed, add {shown} to the entry."
                if one
                else f"Name each one reviewed, an entry per finding: {shown}{more}."
            ),
            i,
            entry,
            f"Add {shown} to the entry, once reviewed."
            if one
            else f"Write an entry per finding reviewed, naming it: {shown}{more}.",
            key=entry.key_text,
            naming=naming[:MAX_NAMING],
        )
    return _about_entry(
        "ACC002",
        "accept entry too broad: it names no value",
        f"accept[{i}] ({entry.code}, key={entry.key_text!r}) names no value of the {entry.code} finding it matches, "
        "so it would also accept every value that leaks later; the finding is not accepted. Name the value with "
        "`key:`, or record the values it accepts with `values: [...]`.",
        i,
        entry,
        "Give the entry the value it accepts (`key:`) or the values reviewed (`values:`).",
        key=entry.key_text,
    )


SHOWN_NAMING = 3  # what names a matched finding, shown in ACC002's text; the evidence keeps up to MAX_NAMING
MAX_NAMING = 20


def _names_no_column(i: int, entry: AcceptSpec, columns: list[str]) -> Finding:
    """ACC004: an entry naming a value of several columns' findings, and no column, accepts it in none of them."""
    shown = " and ".join(repr(c) for c in columns)
    return _about_entry(
        "ACC004",
        "accept entry names a value of several columns",
        f"accept[{i}] ({entry.code}, key={entry.key_text!r}) names a value found in {shown}, and no column: it "
        "cannot tell which was reviewed, so it accepts the value in none of them. Add `column:` naming the one it "
        "accepts (an entry per column if each was reviewed).",
        i,
        entry,
        f"Add `column: {columns[0]}` (or the column reviewed) to the entry.",
        key=entry.key_text,
        columns=columns,
    )


def _about_entry(
    code: str, title: str, message: str, i: int, entry: AcceptSpec, remediation: str, **evidence: object
) -> Finding:
    """A warning of the `accept` stage about entry ``i``, keyed by the entry's code and key."""
    return Finding(
        code=code,
        stage="accept",
        severity=Severity.WARNING,
        title=title,
        message=message,
        key=f"{entry.code}:{entry.key_text}",
        evidence={"index": i, "code": entry.code, **evidence, "reason": entry.reason},
        remediation=remediation,
    )


def _manifest_info(manifest: Manifest | None, engine: str) -> ManifestInfo | None:
    if manifest is None:
        return None
    return ManifestInfo(
        paths=tuple(str(f) for f in manifest.files),
        source=manifest.source.kind if manifest.source is not None else None,
        sha256=manifest.sha256,
        rows=manifest.n_rows,
        rows_per_split=manifest.rows_per_split(),
        engine=engine,
        engine_notes=manifest.engine_notes(),
    )
