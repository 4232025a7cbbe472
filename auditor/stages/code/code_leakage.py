"""code_leakage: leaks written in the pipeline code itself, found by reading scripts and notebooks (and, with
`code.run`, confirmed by running them or left standing): preprocessing fitted before the split, test rows in
training, one test set choosing among models, the label among the features, and shuffled time series."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from auditor.core.config import AuditConfig, LoadedConfig
from auditor.core.errors import StageInputError
from auditor.core.findings import IDENTITY, Finding, Severity, Table
from auditor.core.paths import work_tree
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext, Stage

if TYPE_CHECKING:
    from auditor.code.analysis import PlacedLeak
    from auditor.code.confirm import Confirmations
    from auditor.code.sources import Link, Place

# The leak kinds' codes, in the order the reading reports them.
KIND_CODES = {
    "preprocessing": "CDL001",
    "overlap": "CDL002",
    "multi_test": "CDL003",
    "label_in_features": "CDL004",
    "temporal_shuffle": "CDL005",
}
_FIXES = {
    "preprocessing": "Fit the preprocessing on the training part only, or put it in a Pipeline with the model.",
    "overlap": "Train on the training part only; keep the test rows out of every fit until the final score.",
    "label_in_features": "Drop the label column (and columns computed from it) from X.",
    "multi_test": "Choose on a validation split or by cross-validation; score the chosen model once on the test set.",
    "temporal_shuffle": "Split by time (shuffle=False, a cut-off date, TimeSeriesSplit).",
}


class CodeLeakage(Stage):
    name = "code_leakage"
    summary = (
        "leaks written in scripts and notebooks: preprocessing fitted before the split, test rows in training, "
        "one test set choosing among models, the label among the features, shuffled time series"
    )
    needs = ("code",)
    needs_manifest = False
    codes: ClassVar[dict[str, str]] = {
        "CDL000": "a file or notebook cell could not be read as Python, or its reading failed",
        "CDL001": "preprocessing fitted on rows the model is scored on",
        "CDL002": "test rows reach the model's training",
        "CDL003": "one test set scores several models and chooses among them",
        "CDL004": "the label (or a column computed from it) is among the features",
        "CDL005": "rows ordered in time are split at random",
        "CDL006": "the run did not reach the end of the script: its findings stand as read",
        "CDL009": "what the reading of the code covered",
    }

    def missing_input(self, config: AuditConfig) -> str | None:
        if config.code is None:
            return "the config has no `code` section (the scripts and notebooks to read)"
        return None

    def check_inputs(self, loaded: LoadedConfig) -> list[str]:
        """`audit validate`: the code paths name scripts or notebooks, and each can be read as Python."""
        from auditor.code.sources import SourceError, find_sources, read_program

        if loaded.config.code is None:
            return []
        try:
            paths = code_paths(loaded)
        except StageInputError as exc:
            return [str(exc)]
        found = find_sources(paths, loaded.config.code.exclude)
        problems = [f"{p.place.path}: {p.reason}" for p in found.problems]
        if not found.files:
            problems.append(f"code.paths: no Python script (.py) or notebook (.ipynb) in {', '.join(map(str, paths))}")
        for path in found.files:
            try:
                read_program(path)
            except SourceError as exc:
                problems.append(f"{exc.place.at}: {exc.reason}")
        return problems

    def run(self, context: AuditContext) -> Iterator[Finding]:
        from auditor.code.analysis import analyse

        spec = context.config.code
        assert spec is not None
        base = context.loaded.base_dir
        paths = code_paths(context.loaded)
        analysis = analyse(paths, spec.exclude)
        if not analysis.files and not analysis.problems and not analysis.outside and analysis.passed_over:
            # Only files without a program (a commit that changed a `.gyp` file, which pre-commit calls Python):
            # nothing to read and nothing wrong, so no exit 2 that would block the commit.
            return
        if not analysis.files:
            said = "; ".join(
                [f"{p.place.path}: {p.reason}" for p in analysis.problems]
                + [f"{link.path}: {_LINKS[link.kind].format(target=link.target)}" for link in analysis.outside]
            )
            raise StageInputError(
                f"no Python script (.py) or notebook (.ipynb) found in {', '.join(str(p) for p in paths)}"
                + (f" ({said})" if said else "")
            )
        if all(any(part.whole_file for part in r.skipped) for r in analysis.files):
            # Not one file could be read: nothing was audited, which is exit 2 whatever fail_on says, not a
            # finding that `--fail-on never` would let pass.
            said = "; ".join(
                f"{part.place.shown(base)}: {part.reason}"
                for r in analysis.files
                for part in r.skipped
                if part.whole_file
            )
            # said as what it was: a file that is not Python, or a reading that failed on a file that is
            raise StageInputError(f"no file could be read, so nothing was audited ({said})")
        identities = Identities(identity_roots(context.loaded, paths))
        for problem in analysis.problems:
            yield self._unreadable(problem.place.path, problem.reason, base, None, identities, whole=True)
        for link in analysis.outside:
            yield self._outside(link, base, identities)
        confirmations = None
        if spec.run:
            from auditor.code.confirm import confirm

            confirmations = confirm(analysis, context.loaded)
            yield from self._run_findings(confirmations, base, identities)
        for result in analysis.files:
            for placed in result.leaks:
                verdict = confirmations.verdict(result.path, placed) if confirmations is not None else None
                if verdict is not None and verdict.withdrawn:
                    # The run saw no leak, but the code it ran decides what it sees (it can detect the trace or
                    # forge the answers), so a run never clears a finding: a reviewer does, under `accept`.
                    yield self._leak(placed, base, identities, f"the run did not see it ({verdict.text})", seen=False)
                else:
                    yield self._leak(placed, base, identities, verdict.text if verdict is not None else None)
            for part in result.skipped:
                yield self._unreadable(
                    part.place.path, part.reason, base, part.place, identities, whole=part.whole_file
                )
            named = {f.path.resolve() for f in analysis.files}
            for module, place, path in result.unread:
                if path.resolve() not in named:
                    yield self._module_not_read(module, place, path, base, identities)
        yield self._summary(analysis, base)

    def _leak(
        self, placed: PlacedLeak, base: Path, identities: Identities, confirmed: str | None, seen: bool = True
    ) -> Finding:
        leak, place = placed.leak, placed.place
        code = KIND_CODES[leak.kind.value]
        evidence: dict[str, object] = {
            "at": place.at,
            "leak": leak.kind.value,
            "file": rel(place.path, base),
            "where": place.shown(base),
            "what": leak.what,
            "into": [{"at": p.at, "where": p.shown(base), "what": what} for p, what in placed.into],
            "chain": [f"{name} ({_where_in_file(p, place, base)})" for name, p in placed.chain],
            **dict(leak.facts),
            IDENTITY: identities.of(code, place.path, placed.context, placed.statement),
        }
        if placed.statement:
            evidence["statement"] = placed.statement
        if confirmed is not None:
            evidence["confirmed" if seen else "not_seen_by_run"] = confirmed
        message = f"{place.shown(base)}: {leak.message}" + (f" Run: {confirmed}" if confirmed else "")
        if not seen:
            message += (
                ". A run cannot clear what the reading found, since the code it runs decides what the run sees; "
                "if this is not a leak, record it under `accept` with the reason."
            )
        return self.finding(
            code,
            Severity.ERROR if leak.serious else Severity.WARNING,
            message,
            key=_key(place, base),
            evidence=evidence,
            # An acceptance binds to the statement, not only its line: another statement there is not accepted.
            scope=scope_of([placed.statement]) if placed.statement else None,
            remediation=leak.fix,
        )

    def _run_findings(self, confirmations: Confirmations, base: Path, identities: Identities) -> Iterator[Finding]:
        """CDL006 for each run that did not reach its end; the leaks only the trace saw, with the reading's codes."""
        for run in confirmations.unfinished():
            tail = run.stderr.strip().splitlines()[-3:]
            yield self.finding(
                "CDL006",
                Severity.WARNING,
                f"{rel(run.path, base)}: the run did not reach the end of the code: {run.failure}. The leaks the "
                "reading found there stand unconfirmed.",
                key=rel(run.path, base),
                evidence={
                    "file": rel(run.path, base),
                    "failure": run.failure or "",
                    "stderr": tail,
                    IDENTITY: identities.of("CDL006", run.path),
                },
                remediation="Make the code run as it is (its data beside it, or `code.workdir`), or raise "
                "`code.timeout_s` / `code.memory_mb`.",
            )
        for leak in confirmations.trace_leaks():
            where = leak.place.shown(base)
            yield self.finding(
                KIND_CODES[leak.kind],
                Severity.ERROR,
                f"{where}: found by running the code (the reading did not see it): {leak.text}.",
                key=_key(leak.place, base),
                evidence={
                    "at": leak.place.at,
                    "leak": leak.kind,
                    "file": rel(leak.place.path, base),
                    "where": where,
                    "what": leak.what,
                    "into": [{"at": p.at, "where": p.shown(base)} for p in leak.into],
                    "found_by": "run",
                    **({"statement": leak.statement} if leak.statement else {}),
                    IDENTITY: identities.of(KIND_CODES[leak.kind], leak.place.path, leak.context, leak.statement),
                },
                # As for the reading's leaks: an acceptance binds to the statement the run ran at this line.
                scope=scope_of([leak.statement]) if leak.statement else None,
                remediation=_FIXES[leak.kind],
            )

    def _unreadable(
        self, path: Path, reason: str, base: Path, place: Place | None, identities: Identities, whole: bool
    ) -> Finding:
        where = place.shown(base) if place is not None and (place.line or place.cell) else rel(path, base)
        at = place.at if place is not None and place.line else str(path)
        part = "the file" if whole else "this cell"
        return self.finding(
            "CDL000",
            Severity.ERROR if whole else Severity.WARNING,
            f"{where}: {reason}. Leaks in {part} cannot be found; fix or exclude it (`code.exclude`).",
            key=rel(path, base) if whole else f"{rel(path, base)}:{where}",
            # A broken cell is told from another of its file by their order (its number changes with a cell above).
            evidence={"at": at, "file": rel(path, base), "reason": reason, IDENTITY: identities.of("CDL000", path)},
            remediation="Make the file valid Python (or a valid notebook), or leave it out with `code.exclude`.",
        )

    def _module_not_read(self, module: str, place: Place, path: Path, base: Path, identities: Identities) -> Finding:
        """An import of the project's own module that is neither beside the file nor named: a warning, since what
        it does to the rows is not read (a leak there would pass unseen)."""
        where = place.shown(base)
        return self.finding(
            "CDL000",
            Severity.WARNING,
            f"{where}: imports {module} ({rel(path, base)}), a module of the project that is neither beside the "
            "file nor among the files named, so it was not read: a leak made there cannot be found.",
            key=f"{where}:{module}",
            evidence={
                "at": place.at,
                "file": rel(place.path, base),
                "module": module,
                "module_file": rel(path, base),
                IDENTITY: identities.of("CDL000", place.path, "", module),
            },
            remediation=f"Name it too (`audit code {rel(place.path, base)} {rel(path, base)}`, or the folder holding "
            "both, or `code.paths`), so that its code is read where it is imported.",
        )

    def _outside(self, link: Link, base: Path, identities: Identities) -> Finding:
        """A link in a folder audited that was not followed: a script or notebook leading outside the folder or
        nowhere (a warning: its leaks cannot be found), or a folder leading outside (said, not counted)."""
        where = rel(link.path, base)
        what = _LINKS[link.kind].format(target=link.target)
        return self.finding(
            "CDL000",
            Severity.INFO if link.kind == "folder" else Severity.WARNING,
            f"{where}: {what}. {_LINK_FIXES[link.kind]}",
            key=where,
            evidence={
                "at": str(link.path),
                "file": where,
                "reason": what,
                "to": str(link.target),
                IDENTITY: identities.of("CDL000", link.path),
            },
            remediation="Name what the link leads to among the code paths, or leave the link out with `code.exclude`.",
        )

    def _summary(self, analysis: object, base: Path) -> Finding:
        from auditor.code.analysis import Analysis, Counts
        from auditor.code.interpret import MAX_CALL_DEPTH
        from auditor.code.modules import MAX_DEPTH, MAX_LINES, MAX_MODULES

        assert isinstance(analysis, Analysis)
        total = Counts()
        for result in analysis.files:
            total = total + result.counts
        notebooks = sum(r.path.suffix == ".ipynb" for r in analysis.files)
        named = {r.path.resolve() for r in analysis.files}
        modules = {m for r in analysis.files for m in r.modules if m.resolve() not in named}
        left = {m for r in analysis.files for m in r.left}
        lines = sum(r.lines for r in analysis.files)
        reordered = [
            {
                "file": rel(r.path, base),
                "cell": r.program.run_out_of_order[0],
                "ran_before": r.program.run_out_of_order[1],
            }
            for r in analysis.files
            if r.program is not None and r.program.run_out_of_order is not None
        ]
        rows = [
            (
                rel(r.path, base),
                r.lines,
                r.counts.sources,
                r.counts.splits,
                r.counts.fits,
                r.counts.trainings,
                r.counts.evaluations,
                len(r.leaks),
            )
            for r in analysis.files
        ]
        return self.finding(
            "CDL009",
            Severity.INFO,
            f"Read {len(analysis.files)} file(s) ({notebooks} notebook(s), {lines:,} lines"
            + (f"; and {len(modules)} module(s) of the project they import" if modules else "")
            + f"): {total.sources} data "
            f"source(s), {total.splits} split(s), {total.fits} fitted statistic(s), {total.trainings} training(s) "
            f"and {total.evaluations} score(s) followed."
            + (
                f" {total.deep_calls} call(s) of the code's own functions nested more than {MAX_CALL_DEPTH} deep "
                "were not followed: a leak inside them is not seen."
                if total.deep_calls
                else ""
            )
            + (
                f" {len(left)} module(s) of the project imported past the reading's limits ({MAX_MODULES} modules, "
                f"{MAX_LINES:,} lines of them, {MAX_DEPTH} imports deep per file) were not read into the files "
                "that import them: a leak they carry into those files is not seen."
                if left
                else ""
            )
            + (
                " Last run out of the file's order: "
                + "; ".join(
                    f"{o['file']} cell {o['cell']} ran before cell {o['ran_before']} above it" for o in reordered
                )
                + ". The reading follows the file's order, then the order the cells last ran in, whose leaks the "
                "file's order does not hold are warnings; the outputs saved in the notebook came from that run, so "
                "run it top to bottom before trusting its scores."
                if reordered
                else ""
            ),
            evidence={
                **({"calls_not_followed": total.deep_calls} if total.deep_calls else {}),
                **({"run_out_of_order": reordered} if reordered else {}),
                "files": len(analysis.files),
                **({"modules_read": sorted(rel(m, base) for m in modules)} if modules else {}),
                **({"modules_past_limits": sorted(rel(m, base) for m in left)[:200]} if left else {}),
                "notebooks": notebooks,
                "lines": lines,
                "sources": total.sources,
                "splits": total.splits,
                "fits": total.fits,
                "trainings": total.trainings,
                "evaluations": total.evaluations,
            },
            tables=(
                Table(
                    title="files read",
                    columns=("file", "lines", "sources", "splits", "fits", "trainings", "scores", "leaks"),
                    rows=tuple(rows[:200]),
                ),
            ),
        )


_LINKS = {
    "script": "a link to {target}, outside the folder audited, so it was not read",
    "broken": "a link to {target}, which does not exist, so nothing was read",
    "folder": "a link to the folder {target}, outside the folder audited, so it was not walked",
}


_LINK_FIXES = {
    "script": "Leaks in it cannot be found here; name the file (or its folder) among the paths to read it, or "
    "exclude the link (`code.exclude`).",
    "broken": "Fix or remove the link, or exclude it (`code.exclude`).",
    "folder": "Leaks in the scripts there cannot be found here; name that folder among the paths to read them, or "
    "exclude the link (`code.exclude`).",
}


def code_paths(loaded: LoadedConfig) -> list[Path]:
    """`code.paths` resolved against the config's folder; a glob's matches outside the allowed roots are left out."""
    from auditor.core.paths import is_within

    spec = loaded.config.code
    assert spec is not None
    found: list[Path] = []
    for i, written in enumerate(spec.paths):
        if set("*?[") & set(written):
            matches = sorted(loaded.base_dir.glob(written))
            found += [m for m in matches if is_within(m, loaded.allowed_roots)]
            if not matches:
                where = loaded.locate(("code", "paths", i))
                raise StageInputError(f"{where}: code.paths[{i}] {written!r} matches no file")
            continue
        found.append(loaded.resolve_input(written, ("code", "paths", i)))
    return found


class Identities:
    """Each finding's line-free identity (evidence[IDENTITY], what its fingerprint is made of): its file relative to
    a root that does not depend on the working directory, the functions enclosing it, the digest of its statement,
    and its occurrence among findings identical in all that (numbered in the order they are found, top down)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = roots
        self.seen: Counter[tuple[str, str, str, str]] = Counter()
        self.files: dict[Path, str] = {}  # one look for a work tree per file and run

    def of(self, code: str, path: Path, context: str = "", statement: str = "") -> dict[str, Any]:
        file = self.files.get(path)
        if file is None:
            file = self.files[path] = identity_path(path, self.roots)
        digest = hashlib.sha256(statement.encode("utf-8")).hexdigest()[:16] if statement else ""
        same = (code, file, context, digest)
        occurrence = self.seen[same]
        self.seen[same] += 1
        return {"file": file, "context": context, "statement": digest, "occurrence": occurrence}


def identity_roots(loaded: LoadedConfig, paths: Sequence[Path]) -> list[Path]:
    """The folders a file's identity may be relative to, outside a git work tree: the config's folder (when there
    is a config file), then the folders of the code paths, outermost first (a script's own folder). Without a
    config the config's folder is the working directory, which is left out: it changes with where one runs."""
    folders = sorted({p if p.is_dir() else p.parent for p in paths}, key=lambda p: (len(p.parts), str(p)))
    return [loaded.base_dir, *folders] if loaded.path is not None else folders


def identity_path(path: Path, roots: Sequence[Path]) -> str:
    """``path`` as its identity names it: relative to the git work tree that holds it, else to the first of
    ``roots`` that holds it, else its name alone; never relative to the working directory."""
    tree = work_tree(path.parent)
    if tree is not None:
        return path.relative_to(tree).as_posix()
    for root in roots:
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return path.name


def rel(path: Path, base: Path) -> str:
    """A path as the report shows it: relative to the config's folder when it is inside it."""
    return path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path)


def _key(place: Place, base: Path) -> str:
    """What an `accept` entry names: the file (relative to the config) and line, or a notebook's cell and line."""
    if place.cell is not None:
        return f"{rel(place.path, base)}:cell{place.cell}:{place.cell_line}"
    return f"{rel(place.path, base)}:{place.line}"


def _where_in_file(place: Place, finding: Place, base: Path) -> str:
    """'line 8' in the finding's own file; 'prep.py line 8' in a module it imports."""
    where = f"cell {place.cell}, line {place.cell_line}" if place.cell is not None else f"line {place.line}"
    return where if place.path == finding.path else f"{rel(place.path, base)} {where}"
