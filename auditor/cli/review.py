"""`audit diff`, `validate`, `init` and `stages`: they compare, check, propose or list, and run no audit."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer

from auditor.cli.common import ROOT_HELP, fail, given_path, path_arg, split_list, stdout_console, topmost_missing
from auditor.core.errors import AuditError, ReportMismatchError

if TYPE_CHECKING:
    from auditor.core.config import LoadedConfig
    from auditor.pipeline.stage import Stage


def diff(
    old: Annotated[Path, typer.Argument(help="the earlier (approved) report.json")],
    new: Annotated[Path, typer.Argument(help="the later report.json")],
    fmt: Annotated[list[str] | None, typer.Option("--format", help="markdown,json,html (with --out)")] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="write diff.md, diff.json, diff.html here", metavar="DIR", parser=given_path),
    ] = None,
    fail_on: Annotated[
        str | None,
        typer.Option("--fail-on", help="error | warning | never (default: the stricter of OLD's and NEW's)"),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="compare reports of different manifests anyway")] = False,
) -> None:
    """Show what is new, resolved and persisting between two reports; exit 1 when something new fails."""
    from auditor.core.diff import check_versions, diff_reports, load_report
    from auditor.core.findings import FailOn
    from auditor.core.output import check_not_inputs, check_replaceable, remove_stale, write_atomic
    from auditor.render.diff import DIFF_RENDERERS, render_diff_text

    try:
        if fail_on is not None and fail_on not in get_args(FailOn):
            raise AuditError(f"--fail-on {fail_on!r}: expected one of error, warning, never")
        formats = split_list(fmt, "--format") or (list(DIFF_RENDERERS) if out is not None else [])
        bad = [f for f in formats if f not in DIFF_RENDERERS]
        if bad:
            raise AuditError(f"unknown diff format(s) {bad}; expected some of {', '.join(DIFF_RENDERERS)}")
        if formats and out is None:
            raise AuditError("--format needs --out DIR (where to write the diff files)")
        old_path, new_path = path_arg(old, "OLD"), path_arg(new, "NEW")
        out_dir = path_arg(out, "--out") if out is not None else None
        names = [name for _, name in DIFF_RENDERERS.values()]
        if out_dir is not None:  # before anything is read or written: OLD and NEW are never replaced
            check_not_inputs([out_dir / name for name in names], [("OLD", old_path), ("NEW", new_path)], "--out")
            check_replaceable(out_dir, [DIFF_RENDERERS[f][1] for f in formats])
        check_versions(old_path, new_path)
        compared = diff_reports(
            load_report(old_path),
            load_report(new_path),
            fail_on=fail_on,  # type: ignore[arg-type]
            force=force,
            old_path=old,
            new_path=new,
        )
        rendered = {DIFF_RENDERERS[f][1]: DIFF_RENDERERS[f][0](compared) for f in dict.fromkeys(formats)}
        written = write_atomic(out_dir, rendered, last="diff.json") if out_dir is not None else []
        if out_dir is not None:  # an older diff file this run does not rewrite would contradict it
            remove_stale(out_dir, [name for name in names if name not in rendered], [old_path, new_path])
    except ReportMismatchError as exc:
        raise fail(f"{exc}; pass --force to compare them anyway") from None
    except AuditError as exc:
        raise fail(str(exc)) from None
    typer.echo(render_diff_text(compared), nl=False)
    for path in written:
        typer.echo(f"wrote {path}")
    raise typer.Exit(compared.exit_code)


def _validate_loaded(loaded: LoadedConfig) -> tuple[list[Path | str], list[str], list[str]]:
    """What `audit validate` checks of a loaded config: the manifest files checked, the stages that would
    run and those held back (a URL manifest: stages that need the whole table); AuditError with one line
    per problem otherwise."""
    from auditor.backends.files import check_remote_manifest, names_urls
    from auditor.manifest.table import check_columns
    from auditor.pipeline.isolated import check_user_code
    from auditor.pipeline.runner import prepare_stages

    stages = prepare_stages(loaded)
    manifest_files: list[Path | str] = []
    if names_urls(loaded):  # an object store: listed and its schemas read as the dask engine reads them
        manifest_files = [*check_remote_manifest(loaded)]
    elif loaded.config.manifest is not None:
        manifest_files = [*check_columns(loaded)]
    runs = [s for s in stages if s.skip_reason(loaded.config) is None]
    problems = [p for s in runs for p in s.check_inputs(loaded)]
    held = []
    if names_urls(loaded):
        # Only the dask engine reads a URL, and it never holds the whole table: such a stage would be an error.
        held = [s for s in runs if s.needs_manifest and not s.out_of_core]
        runs = [s for s in runs if s not in held]
    if any(s.needs_numeric for s in runs):
        # Imported once for every code stage, in a child process with the time limit, as a run does.
        problems += check_user_code(loaded)
    if problems:
        raise AuditError("\n".join(problems))
    return manifest_files, [s.name for s in runs], [s.name for s in held]


def validate(
    config: Annotated[Path, typer.Argument(help="the audit.yaml")],
    root: Annotated[list[Path] | None, typer.Option("--root", help=ROOT_HELP)] = None,
) -> None:
    """Check the config, every stage's options, the manifest's named columns and stage inputs; no stage runs."""
    from auditor.core.config import load_config

    try:
        loaded = load_config(config, roots=root or [])
        manifest_files, active, held = _validate_loaded(loaded)
    except AuditError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"{loaded.path}: valid")
    for f in manifest_files:
        typer.echo(f"  manifest file {f}: all named columns present")
    typer.echo(f"  stages that would run: {', '.join(active) or 'none'}")
    if held:
        typer.echo(
            f"  stages that cannot run on a manifest in an object store: {', '.join(held)} (each needs the whole "
            "manifest as one table in memory, and only the memory engine, which reads no URL, holds it; leave "
            "them out of `audit run` with --only, or audit a local copy of the manifest)"
        )


def init(
    manifest: Annotated[Path, typer.Argument(help="the manifest: a file, or a directory with one file per split")],
    out: Annotated[Path, typer.Option("--out", help="the config to write", metavar="FILE", parser=given_path)] = Path(
        "audit.yaml"
    ),
    force: Annotated[bool, typer.Option("--force", help="replace an existing config")] = False,
) -> None:
    """Write a starting audit.yaml for MANIFEST, guessed from its columns and a sample of its rows, validated."""
    from auditor.core.output import check_not_inputs
    from auditor.fitted.discover import discover, render_fitted
    from auditor.manifest.guess import propose, render_config, review_notes

    try:
        target = path_arg(out, "--out")
        given = path_arg(manifest, "manifest")
        proposal = propose(manifest, target.parent)  # a wrong manifest is named before a config in the way
        # Not even --force replaces what the config is guessed from.
        check_not_inputs(
            [target], [("the manifest", given), *(("a manifest file", f) for f in proposal.files)], "--out"
        )
        if target.exists() and not force:
            raise AuditError(f"{target} already exists; expected a new file (or give --force to replace it)")
        assert proposal.folder is not None
        text = proposal.text.column if proposal.text else None
        found = discover(proposal.folder, proposal.columns, proposal.numeric, text, (*proposal.files, target))
        config = render_config(proposal, render_fitted(found, target.parent))
        written = _write_validated(target, config, force)
    except AuditError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"wrote {target} ({proposal.rows_note})")
    typer.echo(f"  valid; stages that would run: {', '.join(written) or 'none'}")
    typer.echo("check by hand:")
    for note in [*review_notes(proposal), *found.notes]:
        typer.echo(f"  - {note}")


def _write_validated(target: Path, text: str, force: bool) -> list[str]:
    """Write ``text`` beside ``target`` under a temp name, validate it as `audit validate` does, then move it
    into place; nothing is left behind when it does not validate. Returns the stages that would run."""
    from auditor.core.config import load_config

    created = topmost_missing(target.parent)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        temp.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AuditError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        try:
            _, active, _ = _validate_loaded(load_config(temp))
        except AuditError as exc:
            raise AuditError(f"{target}: the guessed config does not validate, so it was not written:\n{exc}") from None
        try:
            if force:
                os.replace(temp, target)
            else:
                os.link(temp, target)  # never replaces a file that appeared meanwhile
        except FileExistsError:
            raise AuditError(f"{target} already exists; expected a new file (or give --force to replace it)") from None
        except OSError as exc:
            raise AuditError(f"{target}: cannot write: {exc.strerror or exc}") from None
    except AuditError:
        if created is not None:
            import shutil

            shutil.rmtree(created, ignore_errors=True)
        raise
    finally:
        temp.unlink(missing_ok=True)
    return active


def stages(
    config: Annotated[Path | None, typer.Argument(help="show whether each stage applies")] = None,
) -> None:
    """List every stage: what it checks, which config keys it needs, and whether it applies to CONFIG."""
    from rich.table import Table

    from auditor.core.config import load_config
    from auditor.pipeline.runner import prepare_stages
    from auditor.stages.planned import PlannedStage

    try:
        loaded = load_config(config) if config is not None else None
        found = prepare_stages(loaded) if loaded is not None else _bare_stages()
    except AuditError as exc:
        raise fail(str(exc)) from None
    headers = ["checks", "needs", *(["for this config"] if loaded is not None else [])]
    rows: list[list[str]] = []
    for stage in found:
        summary = stage.summary + (" (not implemented yet)" if isinstance(stage, PlannedStage) else "")
        row = [stage.name, summary, ", ".join(stage.needs)]
        if loaded is not None:
            reason = stage.skip_reason(loaded.config)
            row.append("runs" if reason is None else f"skipped: {reason}")
        rows.append(row)
    if not sys.stdout.isatty():
        typer.echo(stages_text(headers, rows, shutil.get_terminal_size().columns))
        return
    table = Table(show_header=True, header_style="bold", show_lines=False)
    table.add_column("stage", no_wrap=True)
    for header in headers:
        table.add_column(header, overflow="fold")  # wrapped, never cut with an ellipsis
    for row in rows:
        table.add_row(*row)
    stdout_console().print(table)


def stages_text(headers: list[str], rows: list[list[str]], width: int) -> str:
    """The stage list for a file or a pipe: each stage's name on a line of its own, its fields below it wrapped
    to ``width`` (COLUMNS, else 80) at spaces only, so a word or a path is never split and a table's padding
    does not make every line as long as the longest text."""
    import textwrap

    indent = 2 + max(map(len, headers)) + 2
    blocks = []
    for name, *cells in rows:
        fields = [
            textwrap.fill(
                cell or "nothing",
                width=max(width, indent + 20),
                initial_indent=f"  {header:<{indent - 4}}  ",
                subsequent_indent=" " * indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
            for header, cell in zip(headers, cells, strict=True)
        ]
        blocks.append("\n".join([name, *fields]))
    return "\n\n".join(blocks)


def _bare_stages() -> list[Stage]:
    from auditor.pipeline.registry import discover, load_stages

    return [cls() for cls in load_stages(discover())]
