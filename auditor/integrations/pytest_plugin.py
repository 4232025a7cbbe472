"""The pytest plugin (entry point `pytest11`): `pytest --audit audit.yaml` runs an audit as one test per stage,
and the `audit_report` fixture checks a report made in code.

It loads in every pytest session of an environment with split-auditor installed, so this module imports only
pytest: the audit's modules load when a session names a config or a test asks for the fixture.
"""

from __future__ import annotations

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


def configs(config: pytest.Config) -> list[Path]:
    """The configs this session audits, in order and once each: the ini's, then --audit's."""
    given = [Path(p) for p in config.getini("audit_configs")]
    given += [config.invocation_params.dir / p for p in config.getoption("audit_configs") or []]
    return list(dict.fromkeys(Path(p).absolute() for p in given))


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
