"""The pytest plugin (entry point `pytest11`): `pytest --audit audit.yaml` runs an audit as one test per stage,
and the `audit_report` fixture checks a report made in code.

It loads in every pytest session of an environment with split-auditor installed, so this module imports only
pytest: the audit's modules load when a session names a config or a test asks for the fixture.
"""

from __future__ import annotations

import inspect
import itertools
import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from auditor.integrations.pytest_items import ReportCheck

WORKER_KEY = "split_auditor_outcomes"  # the audits' outcomes, run once by pytest-xdist's controller
# Set on pytest-xdist's controller when a config could not be audited: its workers' collection errors would
# otherwise end the session as failed tests (exit 1), where a session without xdist ends interrupted (exit 2).
COULD_NOT_AUDIT = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("split-auditor", "split-auditor: an audit as tests")
    group.addoption(
        "--audit",
        action="append",
        default=[],
        metavar="CONFIG",
        dest="audit_configs",
        help="run the audit of CONFIG (an audit.yaml) as one test per stage (repeatable)",
    )
    group.addoption(
        "--audit-fail-on",
        choices=("error", "warning", "never"),
        default=None,
        help="the severity that fails a stage's test (default: the config's report.fail_on)",
    )
    parser.addini("audit_configs", type="paths", default=[], help="audit.yaml files to run as tests (split-auditor)")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if (moved := moved_settings(config)) is not None:
        raise pytest.UsageError(moved)


def moved_settings(config: pytest.Config) -> str | None:
    """Why the session must not run when `--audit PATH`, written as two arguments, changed the settings pytest read.

    pytest finds its rootdir and settings file before any plugin's options are known, so it takes such a PATH
    for one to test: a config outside the project, or in a folder with pytest settings of its own, made the
    session read other settings (or none) and drop what the project's say, the configs of `audit_configs`
    among them: a pass that audited less than the project asks. None when pytest reads the same settings file
    (or none) without it: a rootdir that moves alone loses no setting.
    """
    given = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *map(str, config.invocation_params.args)]
    separate = [value for option, value in itertools.pairwise(given) if option == "--audit"]
    if not separate:
        return None
    paths = list(getattr(config.known_args_namespace, "file_or_dir", None) or [])
    found, meant = _setup(config, [*paths, *separate]), _setup(config, paths)
    if found is None or meant is None or found[1] == meant[1]:  # the same settings file, or none either way
        return None

    def said(setup: tuple[Path, Path | None]) -> str:
        return str(setup[1]) if setup[1] is not None else f"no file (rootdir {setup[0]})"

    value = next((v for v in separate if (_setup(config, [*paths, v]) or meant)[1] != meant[1]), separate[0])
    return (
        f"--audit {value}: pytest would read its settings from {said(found)} instead of {said(meant)}, taking "
        f"the config for a path to test (it looks for its settings before it knows this option); "
        f"write --audit={value}"
    )


def _setup(config: pytest.Config, args: Sequence[str]) -> tuple[Path, Path | None] | None:
    """The rootdir and settings file pytest finds for ``args``, by its own rule; None where this pytest's rule
    cannot be called as expected (then nothing is refused)."""
    try:
        from _pytest.config.findpaths import determine_setup
    except ImportError:
        return None
    ns = config.known_args_namespace
    given: dict[str, Any] = {
        "inifile": getattr(ns, "inifilename", None),
        "override_ini": getattr(ns, "override_ini", None),
        "args": list(args),
        "rootdir_cmd_arg": getattr(ns, "rootdir", None) or None,
        "invocation_dir": config.invocation_params.dir,
    }
    try:
        accepted = inspect.signature(determine_setup).parameters
        found = determine_setup(**{k: v for k, v in given.items() if k in accepted})
        return Path(found[0]), (Path(found[1]) if found[1] is not None else None)
    except (TypeError, ValueError, pytest.UsageError):
        return None


def configs(config: pytest.Config) -> list[Path]:
    """The configs this session audits, in order and once each: the ini's, then --audit's."""
    given = [Path(p) for p in config.getini("audit_configs")]
    given += [config.invocation_params.dir / p for p in config.getoption("audit_configs") or []]
    return list(dict.fromkeys(Path(p).absolute() for p in given))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A config the session audits, met where pytest collects (a test id printed for it, `audit.yaml::group_overlap`,
    given back to re-run that test, or a folder holding it): its tests, collected there."""
    if file_path.suffix not in (".yaml", ".yml") or file_path.absolute() not in configs(parent.config):
        return None
    from auditor.integrations.pytest_items import config_file

    return config_file(parent, file_path.absolute())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    # First, so that -k, --deselect and the other plugins' selections see the audit's tests too.
    if chosen := configs(config):
        from auditor.integrations.pytest_items import collect

        items.extend(collect(session, chosen))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's controller runs each audit once and hands the outcomes to every worker, which collect the
    same tests from them (a worker running its own audit would repeat the work and race on its files)."""
    if chosen := configs(node.config):
        from auditor.integrations.pytest_items import outcomes, shared_outcomes

        node.workerinput[WORKER_KEY] = shared_outcomes(node.config, chosen)
        if any(o.error is not None for o in outcomes(node.config, chosen)):
            node.config.stash[COULD_NOT_AUDIT] = True


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under pytest-xdist, a config that could not be audited ends the session with exit 2, as it does without."""
    if session.config.stash.get(COULD_NOT_AUDIT, False) and exitstatus in (
        pytest.ExitCode.OK,
        pytest.ExitCode.TESTS_FAILED,
    ):
        session.exitstatus = pytest.ExitCode.INTERRUPTED


@pytest.fixture
def audit_report(request: pytest.FixtureRequest) -> ReportCheck:
    """``audit_report(report, fail_on=None)``: fail the test unless ``report`` passes, with the report's
    summary attached to the test's output."""
    from auditor.integrations.pytest_items import ReportCheck

    return ReportCheck(request.node)
