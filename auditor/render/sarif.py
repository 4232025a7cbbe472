"""The report as SARIF 2.1.0, so code-scanning dashboards list the findings next to the files they are about.

Each error or warning that names a file is a result whose rule is its code (code scanning rejects a result without
a location, and opens an alert for each result); an info finding (a fact no `fail_on` fails on) and one about the
whole run and no file (what `audit code` read) are notes among the tool execution notifications, never alerts.
A stage that errored is an error notification (never a result, and the run is marked unsuccessful), a skipped
stage a configuration note.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from auditor.core.errors import StageLoadError
from auditor.core.findings import Finding, Report, Severity, StageResult
from auditor.core.paths import work_tree
from auditor.core.portable import ELIDED
from auditor.pipeline.registry import discover

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
BASE_ID = "CONFIGDIR"  # uris relative to the config's folder, when the report is rendered with no root
ROOT_ID = "SRCROOT"  # uris relative to the root given: the working directory of the command that wrote the file
FINGERPRINT_ID = "splitAuditor/v1"
MAX_MANIFEST_LOCATIONS = 10  # a manifest of many shards: the first few name it well enough

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_BASELINE_STATE = {"new": "new", "persisting": "unchanged", "escalated": "updated"}
# "path:line" or "path:line:column", as the numeric stages record the user's line and SPL009 a config line.
_SITE = re.compile(r"^(?P<path>.+?):(?P<line>[0-9]+)(?::(?P<column>[0-9]+))?$")
_SITE_FIELDS = ("at", "config")


@dataclass(frozen=True)
class StageFacts:
    """What the installed stage says about its findings: the catalogue titles and whether it reads the manifest."""

    codes: Mapping[str, str]
    needs_manifest: bool


@cache
def installed_stages() -> Mapping[str, StageFacts]:
    """Catalogue facts of every stage that loads; a broken plugin only loses its titles, never the report."""
    facts: dict[str, StageFacts] = {}
    try:
        plugins = discover()
    except StageLoadError:  # two plugins claim one name: the run already said so; titles come from findings
        return facts
    for plugin in plugins:
        try:
            cls = plugin.load()
        except StageLoadError:
            continue
        facts[cls.name] = StageFacts(dict(cls.codes), cls.needs_manifest)
    return facts


def render_sarif(report: Report, stages: Mapping[str, StageFacts] | None = None, *, root: Path | None = None) -> str:
    """One SARIF log with one run; ``stages`` defaults to the installed stages' catalogue.

    Uris of files under ``root`` (absolute; `audit run` and `audit code` give their working directory, the
    repository's root in CI) are relative to it, as code scanning reads them; with no root, to the config's folder.
    """
    facts = installed_stages() if stages is None else stages
    base = _base(report, root)
    rules, index = _rules(report, facts)
    placed = [(f, _locations(f, report, facts, base)) for f in report.findings]
    results = [_result(f, index[f.code], locations) for f, locations in placed if _alert(f, locations)]
    notes = [_notification(f, index[f.code], locations) for f, locations in placed if not _alert(f, locations)]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "split-auditor",
                "version": report.tool_version,
                "rules": rules,
            }
        },
        "invocations": [_invocation(report, notes)],
        "results": results,
        "columnKind": "unicodeCodePoints",
        "properties": {"fail_on": report.fail_on, "summary": report.summary.model_dump()},
    }
    if base is not None and base.located:
        said = "the working directory of the audit" if base.id == ROOT_ID else "the folder of the audit config"
        run["originalUriBaseIds"] = {base.id: {"uri": base.path.as_uri() + "/", "description": {"text": said}}}
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False, default=str) + "\n"


@dataclass(frozen=True)
class _Base:
    """The folder relative uris start from and the uriBaseId that names it; ``located`` when it is a folder of
    this machine (named in originalUriBaseIds), not one a report kept for a team names relatively."""

    path: Path
    id: str
    located: bool = True


def _base(report: Report, root: Path | None) -> _Base | None:
    if root is not None and root.is_absolute():
        # code scanning reads uris from the repository's root: the git work tree holding the working directory
        # when there is one (a command run from a subfolder), else the working directory
        return _Base(work_tree(root) or root, ROOT_ID)
    if report.config_path is None:
        return None
    config = Path(report.config_path)
    # A report the review service holds names its config relatively: uploaded (`audit.yaml`) or audited under
    # a data root (`<data root d>/folder/audit.yaml`); its files are then relative to the config's folder too.
    return _Base(config.parent, BASE_ID, located=config.is_absolute())


def _rules(report: Report, facts: Mapping[str, StageFacts]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """One rule per code found, in order of first appearance, titled from the stage's catalogue."""
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for f in report.findings:
        if f.code in index:
            if f.remediation and "help" not in rules[index[f.code]]:
                rules[index[f.code]]["help"] = {"text": f.remediation}
            continue
        stage = facts.get(f.stage)
        title = stage.codes.get(f.code, f.title) if stage is not None else f.title
        rule: dict[str, Any] = {
            "id": f.code,
            "name": title,
            "shortDescription": {"text": title},
            "properties": {"stage": f.stage},
        }
        if f.remediation:
            rule["help"] = {"text": f.remediation}
        index[f.code] = len(rules)
        rules.append(rule)
    return rules, index


def _result(f: Finding, rule_index: int, locations: list[dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[f.severity],
        "message": {"text": f.message},
        "locations": locations[:1],
        "partialFingerprints": {FINGERPRINT_ID: f.fingerprint},
        "properties": {"stage": f.stage, "key": f.key, "evidence": f.evidence},
    }
    if len(locations) > 1:
        result["relatedLocations"] = [{"id": i, **loc} for i, loc in enumerate(locations[1:], start=1)]
    if f.accepted:
        suppression: dict[str, Any] = {"kind": "external", "status": "accepted"}
        if f.accept_reason:
            suppression["justification"] = f.accept_reason
        result["suppressions"] = [suppression]
    if f.baseline is not None:
        result["baselineState"] = _BASELINE_STATE[f.baseline]
    return result


def _locations(f: Finding, report: Report, facts: Mapping[str, StageFacts], base: _Base | None) -> list[dict[str, Any]]:
    """Where the finding is: the lines it names, else its artifact, else the manifest or the config."""
    sites = list(dict.fromkeys(_sites(f)))
    if sites:
        return [_location(path, base, line, column) for path, line, column in sites]
    artifact = f.evidence.get("artifact")
    if isinstance(artifact, str) and Path(artifact).is_absolute():
        return [_location(artifact, base)]
    stage = facts.get(f.stage)
    reads_manifest = stage.needs_manifest if stage is not None else False
    if reads_manifest and report.manifest is not None:
        return [_location(p, base) for p in report.manifest.paths[:MAX_MANIFEST_LOCATIONS]]
    if report.config_path is not None:
        return [_location(report.config_path, base)]
    file = f.evidence.get("file")
    if isinstance(file, str) and file:  # relative to the folder the stage read from: `audit code`'s working directory
        return [_location(file if Path(file).is_absolute() or base is None else str(base.path / file), base)]
    return []


def _alert(f: Finding, locations: list[dict[str, Any]]) -> bool:
    """Whether the finding is a result (an alert in code scanning): it names a file and is a problem. An info finding
    is a fact for the record that no `fail_on` fails on; as a result, code scanning would open a `note` alert for it
    at every run."""
    return bool(locations) and f.severity is not Severity.INFO


def _notification(f: Finding, rule_index: int, locations: list[dict[str, Any]]) -> dict[str, Any]:
    """A finding that is no alert (an info, or a summary of the whole run that names no file): a notification of
    its rule, with the files it names."""
    notification: dict[str, Any] = {
        "level": _LEVEL[f.severity],
        "message": {"text": f.message},
        "associatedRule": {"id": f.code, "index": rule_index},
        "properties": {"stage": f.stage, "key": f.key, "evidence": f.evidence},
    }
    if locations:
        notification["locations"] = locations
    return notification


def _sites(f: Finding) -> Iterator[tuple[str, int | None, int | None]]:
    """Every absolute "file[:line[:column]]" in the finding's evidence and examples, in the order they appear."""
    for value in _site_values([f.evidence, *f.examples]):
        match = _SITE.match(value)
        if match and Path(match["path"]).is_absolute():
            column = int(match["column"]) if match["column"] else None
            yield match["path"], int(match["line"]), column
        elif not match and Path(value).is_absolute():  # a whole file, e.g. one that could not be parsed
            yield value, None, None


def _site_values(values: list[Any], depth: int = 0) -> Iterator[str]:
    for value in values:
        if isinstance(value, dict):
            for name, inner in value.items():
                if name in _SITE_FIELDS and isinstance(inner, str):
                    yield inner
                elif depth < 2 and isinstance(inner, dict | list):
                    yield from _site_values([inner], depth + 1)
        elif isinstance(value, list) and depth < 2:
            yield from _site_values(value, depth + 1)


def _location(path: str, base: _Base | None, line: int | None = None, column: int | None = None) -> dict[str, Any]:
    """A file and its line; line 1 for a finding about a whole file (a manifest's row is not one of its lines in
    general: a Parquet file, a quoted CSV field over several lines), so every result has a startLine."""
    region: dict[str, Any] = {"startLine": line if line is not None and line > 0 else 1}
    if line is not None and line > 0 and column is not None and column > 0:
        region["startColumn"] = column
    return {"physicalLocation": {"artifactLocation": _artifact(path, base), "region": region}}


def _artifact(path: str, base: _Base | None) -> dict[str, Any]:
    """A uri relative to the base folder when the file is inside it, else an absolute file uri."""
    p = Path(path)
    if base is not None and p.is_absolute() and p.is_relative_to(base.path):
        relative = PurePosixPath(*p.relative_to(base.path).parts)
        return {"uri": quote(str(relative)), "uriBaseId": base.id}
    if p.is_absolute():
        return {"uri": p.as_uri()}
    if base is not None and not base.located and "://" not in path and p.parts[:1] != (ELIDED,):
        relative = PurePosixPath(*Path(os.path.relpath(p, base.path)).parts)
        return {"uri": quote(relative.as_posix()), "uriBaseId": base.id}
    return {"uri": quote(PurePosixPath(*p.parts).as_posix())}


def _invocation(report: Report, notes: list[dict[str, Any]]) -> dict[str, Any]:
    """The run itself: it failed when a stage errored or nothing was audited (exit 2), whatever was found;
    ``notes`` are the findings that are no alert (infos, and those that name no file)."""
    errors = [_stage_error(r) for r in report.stages if r.status == "error"]
    if report.exit_code == 2 and not errors:
        errors.append({"level": "error", "message": {"text": "no stage ran: nothing was audited"}})
    skipped = [
        {
            "level": "note",
            "message": {"text": f"stage {r.stage} skipped: {r.skip_reason or 'no reason given'}"},
            "properties": {"stage": r.stage},
        }
        for r in report.stages
        if r.status == "skipped"
    ]
    invocation: dict[str, Any] = {
        "executionSuccessful": report.exit_code != 2 and not errors,
        "exitCode": report.exit_code,
        "endTimeUtc": report.generated_at,
    }
    if report.config_path is not None:
        invocation["properties"] = {"config": report.config_path}
    if errors or notes:
        invocation["toolExecutionNotifications"] = [*errors, *notes]
    if skipped:
        invocation["toolConfigurationNotifications"] = skipped
    return invocation


def _stage_error(r: StageResult) -> dict[str, Any]:
    """A stage that raised: an error notification naming the stage, not a result (nothing was found)."""
    notification: dict[str, Any] = {"level": "error", "properties": {"stage": r.stage}}
    if r.error is None:
        notification["message"] = {"text": f"stage {r.stage} could not run"}
    else:
        notification["message"] = {"text": f"stage {r.stage} could not run: {r.error.type}: {r.error.message}"}
        notification["exception"] = {"kind": r.error.type, "message": r.error.message}
    return notification
