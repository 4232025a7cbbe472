"""The README and the documentation site say what the tool does: the check catalogue, the examples and every
output and config they quote (a doc test harness over README.md and docs/**/*.md)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from auditor.core.findings import Report
from auditor.pipeline.registry import discover, load_stages
from tests import forked
from tests.conftest import REPO

CATALOGUE = REPO / "docs" / "templates" / "checks.md"  # the prose docs/gen_reference.py puts the code tables in


def doc_files() -> list[Path]:
    """README.md and the site's pages (the catalogue's prose is checked in the page made from it)."""
    pages = sorted(p for p in (REPO / "docs").rglob("*.md") if "templates" not in p.relative_to(REPO / "docs").parts)
    return [REPO / "README.md", *pages]


def _doc(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _docs() -> str:
    return "\n".join(_doc(p) for p in doc_files())


def test_catalogue_covers_every_code() -> None:
    """The check catalogue's prose gives every finding code a built-in stage can report its severity."""
    prose = CATALOGUE.read_text(encoding="utf-8")
    for cls in load_stages(discover()):
        for code in cls.codes:
            assert re.search(rf"^\| {code} \| (info|warning|error)", prose, flags=re.M), f"{code} of {cls.name}"
        assert f"## {cls.name}\n" in prose, cls.name


def test_readme_is_short_and_links_every_stage_to_the_catalogue() -> None:
    readme = _readme()
    assert len(readme.splitlines()) <= 250
    for cls in load_stages(discover()):
        assert f"[`{cls.name}`](docs/reference/checks.md#{cls.name})" in readme, cls.name
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (REPO / target).is_file(), target


def test_readme_test_command_is_what_ci_runs() -> None:
    assert "python -m pytest" in (REPO / ".ci" / "run").read_text()
    assert 'pip install -c constraints.txt -e ".[torch,dev]"' in (REPO / ".ci" / "run").read_text()


def python_blocks(readme: str) -> dict[str, str]:
    """The README's python code blocks, keyed by the file their first-line comment names."""
    blocks = {}
    for block in re.findall(r"```python\n(.*?)```", readme, flags=re.S):
        first, _, _ = block.partition("\n")
        if first.startswith("# "):
            blocks[first[2:].strip()] = block
    return blocks


def test_plugin_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(_doc(REPO / "docs" / "plugins.md"))
    package = tmp_path / "my_checks"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "small_holdout.py").write_text(blocks["my_checks/small_holdout.py"])
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict[str, object] = {}
    exec(compile(blocks["tests/test_small_holdout.py"], "test_small_holdout.py", "exec"), namespace)
    work = tmp_path / "work"
    work.mkdir()
    namespace["test_small_test_split_is_flagged"](work)  # type: ignore[operator]
    for name in [m for m in sys.modules if m.startswith("my_checks")]:
        monkeypatch.delitem(sys.modules, name)


def _ci_sandbox(tmp_path: Path, present: list[str]) -> tuple[Path, dict[str, str]]:
    """A copy of .ci/run whose apt-get, python3 and the named programs are stubs that only log their calls."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO / ".ci" / "run", tmp_path / ".ci" / "run")
    stubs, log = tmp_path / "bin", tmp_path / "calls.log"
    stubs.mkdir()
    # The venv CI makes: its python and pip only log what they were asked to do.
    (tmp_path / ".venv-ci" / "bin").mkdir(parents=True)
    activate = "".join(f'{name}() {{ echo "{name} $*" >> LOG; }}; ' for name in ("python", "pip", "mkdocs"))
    (tmp_path / ".venv-ci" / "bin" / "activate").write_text(activate.replace("LOG", str(log)))
    programs = {
        "apt-get": f'echo "apt-get $*" >> {log}',
        "python3": "true",
        **{name: "true" for name in present},
    }
    for name, body in programs.items():
        (stubs / name).write_text(f"#!/bin/sh\n{body}\n")
        (stubs / name).chmod(0o755)
    for tool in ("dirname", "id", "mktemp"):  # the only programs the script runs besides the stubs
        found = shutil.which(tool)
        assert found is not None
        (stubs / tool).symlink_to(found)
    env = {"PATH": str(stubs), "HOME": str(tmp_path), "AUDIT_CI_PG_LIB": str(tmp_path / "no-postgresql")}
    if os.geteuid() != 0:
        (stubs / "sudo").write_text('#!/bin/sh\n"$@"\n')
        (stubs / "sudo").chmod(0o755)
    return log, env


@pytest.mark.skipif(sys.platform != "linux", reason="CI runs on Debian")
@pytest.mark.parametrize(
    ("present", "installed"),
    [([], "chromium postgresql"), (["chromium"], "postgresql"), (["chromium", "initdb"], None)],
)
def test_ci_installs_the_debian_packages_the_tests_need(
    tmp_path: Path, present: list[str], installed: str | None
) -> None:
    log, env = _ci_sandbox(tmp_path, present)
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run([bash, str(tmp_path / ".ci" / "run")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    installs = [c for c in calls if c.startswith("apt-get") and " install " in c]
    if installed is None:
        assert installs == []
    else:
        assert installs == [f"apt-get install -y -qq {installed}"]
    assert "pip install -c constraints.txt -e .[torch,dev]" in calls and calls[-1] == "python -m pytest"
    [build] = [c for c in calls if c.startswith("mkdocs")]
    assert build.startswith("mkdocs build --strict --site-dir ")
    assert calls.index("pip install -c constraints.txt -e .[torch,dev]") < calls.index(build)
    # The package's bytecode is written once after the install, not compiled again by every interpreter.
    install = calls.index("pip install -c constraints.txt -e .[torch,dev]")
    assert install < calls.index("python -m compileall -q auditor")


def test_notebook_example_prints_what_it_says(tmp_path: Path) -> None:
    """The "In a notebook" block, run as printed from a copy of the samples, prints each `# prints:` comment
    and writes the report files it names."""
    shown = {python_blocks(_doc(doc)).get("notebook.py") for doc in doc_files()} - {None}
    assert len(shown) == 1, "the pages show different notebook examples"
    (block,) = shown
    assert block is not None
    expected = "".join(line.split("# prints: ", 1)[1] + "\n" for line in block.splitlines() if "# prints: " in line)
    assert expected, "the notebook block says nothing of what it prints"
    shutil.copytree(REPO / "sample_data", tmp_path / "sample_data", ignore=shutil.ignore_patterns("audit-report"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    assert sorted(p.name for p in (tmp_path / "audit-report").iterdir()) == ["report.html", "report.json"]


# -- command output quoted in the README ---------------------------------------------------------------

OUTPUT_MARK = "<!-- output of: "
COMMAND_WORDS = ("audit", "pip", "python", "export", "sqlite3")
# A chain of keys as the reports write it: `test f0019 —person p3— val f0016`.
CHAIN = re.compile(r"`(\w+\s+[^\s`]+(?:\s+—[^—`]+—\s+\w+\s+[^\s`]+)+)`")


@dataclass(frozen=True)
class Block:
    """A fenced block of the README: its language (empty for plain text), its text and the line before it."""

    language: str
    text: str
    before: str


def _readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def fenced_blocks(text: str) -> list[Block]:
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            body = "".join(line + "\n" for line in lines[i + 1 : end])
            blocks.append(Block(lines[i][3:].strip(), body, lines[i - 1] if i else ""))
            i = end
        i += 1
    return blocks


@pytest.mark.parametrize("doc", doc_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_plain_block_is_commands_or_output_a_test_checks(doc: Path) -> None:
    """A block without a language is commands to type, or output marked with the command that prints it."""
    for block in fenced_blocks(_doc(doc)):
        if block.language or block.before.startswith(OUTPUT_MARK):
            continue
        lines = [line for line in block.text.splitlines() if line.strip()]
        if lines and lines[0] == "auditor/":  # the package layout drawing (tests/test_layout.py holds the floors)
            continue
        # A command may continue over lines ending in a backslash.
        starts = [line for prev, line in zip(["", *lines], lines, strict=False) if not prev.endswith("\\")]
        strays = [line for line in starts if line.split()[0] not in COMMAND_WORDS]
        assert not strays, f"{doc.name}: a block is neither commands nor marked output: {strays}"


def _quoted_outputs() -> list[tuple[str, str]]:
    found = [
        (b.before.removeprefix(OUTPUT_MARK).removesuffix("-->").strip(), b.text)
        for doc in doc_files()
        for b in fenced_blocks(_doc(doc))
        if b.before.startswith(OUTPUT_MARK)
    ]
    assert found, "the docs quote no marked output"
    return found


@pytest.mark.parametrize(("command", "text"), _quoted_outputs())
def test_quoted_output_is_what_the_command_prints(tmp_path: Path, command: str, text: str) -> None:
    """Each marked block is exactly what its command prints, run from a copy of the repository's samples."""
    shutil.copytree(REPO / "sample_data", tmp_path / "sample_data", ignore=shutil.ignore_patterns("audit-report"))
    words = shlex.split(command)
    assert words[0] == "audit", command
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = forked.run(
        [sys.executable, "-m", "auditor.cli", *words[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.stdout == text, f"`{command}` prints:\n{done.stdout}"


def _chains(report: Report) -> list[str]:
    return [c["text"] for f in report.findings for e in f.examples for c in e.get("chains", [])]


RUN_DOCS = (REPO / "README.md", REPO / "docs" / "getting-started.md")  # the pages with a `## Run` of the samples


def _run_sections() -> list[str]:
    return [_doc(doc).split("\n## Run\n", 1)[1].split("\n## ", 1)[0] for doc in RUN_DOCS]


def _run_section_chains() -> list[tuple[str, str]]:
    """(sample config, chain) for each chain of keys a Run section quotes, by the sample run just before it."""
    found = []
    for run in _run_sections():
        found += _section_chains(run)
    assert found, "the Run sections quote no chain"
    return sorted(set(found))


def _section_chains(run: str) -> list[tuple[str, str]]:
    found = []
    config = None
    for part in re.split(r"(```\n.*?```)", run, flags=re.S):
        if part.startswith("```"):
            commands = re.findall(r"^audit run (sample_data/\S+/audit\.yaml)$", part, flags=re.M)
            config = commands[-1] if commands else config
            continue
        for quoted in CHAIN.findall(part):
            assert config is not None, quoted
            found.append((config, " ".join(quoted.split())))
    return found


@pytest.mark.parametrize(("config", "chain"), _run_section_chains())
def test_quoted_chains_are_the_chains_the_sample_report_shows(tmp_path: Path, config: str, chain: str) -> None:
    from auditor import load_config, run_audit

    sample = REPO / config
    shutil.copytree(sample.parent, tmp_path / sample.parent.name, ignore=shutil.ignore_patterns("audit-report"))
    report = run_audit(load_config(tmp_path / sample.parent.name / sample.name))
    assert chain in _chains(report), f"{config} shows the chains {_chains(report)}"


def test_the_shared_upstream_example_chain_is_what_the_stage_reports(tmp_path: Path) -> None:
    """The catalogue's example: a writer links train and val, a document val and test, both pairs allowed."""
    from auditor import load_config, run_audit
    from tests.conftest import write_config, write_table

    section = CATALOGUE.read_text(encoding="utf-8").split("## shared_upstream\n", 1)[1].split("\n## ", 1)[0]
    # The first chain is the plain example; the one through a value spelled two ways is checked in
    # tests/stages/data/test_shared_upstream_spellings.py.
    quoted = CHAIN.findall(section)[0]
    rows = {"id": ["a1", "b1", "c1"], "split": ["train", "val", "test"]}
    write_table(tmp_path / "m.csv", {**rows, "writer": ["w1", "w1", "w2"], "document": ["d1", "d3", "d3"]})
    config = write_config(
        tmp_path,
        {
            "manifest": {"path": "m.csv", "id": "id", "split": "split"},
            "splits": {"train": ["train"], "holdout": ["val", "test"], "allow": [["train", "val"], ["val", "test"]]},
            "keys": {"groups": ["writer"], "sources": ["document"]},
        },
    )
    report = run_audit(load_config(config), only="shared_upstream")
    assert " ".join(quoted.split()) in _chains(report), _chains(report)


def _sample_paragraphs() -> list[tuple[str, str]]:
    """(sample config, the prose after it) for each data sample the Run section runs on its own."""
    found = []
    for run in _run_sections():
        parts = re.split(r"```\n(.*?)```", run.split("\n### ", 1)[0], flags=re.S)
        for commands, prose in zip(parts[1::2], parts[2::2], strict=True):
            configs = re.findall(r"^audit run (sample_data/\S+/audit\.yaml)$", commands, flags=re.M)
            if len(configs) == 1 and "/numeric/" not in configs[0]:  # numeric: tests/stages/numeric/test_samples.py
                found.append((configs[0], prose))
    assert len(found) >= 4, found
    return found


@pytest.mark.parametrize(("config", "prose"), _sample_paragraphs(), ids=lambda v: v if v.endswith(".yaml") else "")
def test_what_the_run_section_says_of_a_sample_is_in_its_report(tmp_path: Path, config: str, prose: str) -> None:
    from auditor import load_config, run_audit

    sample = REPO / config
    shutil.copytree(sample.parent, tmp_path / sample.parent.name, ignore=shutil.ignore_patterns("audit-report"))
    report = run_audit(load_config(tmp_path / sample.parent.name / sample.name))
    said = re.findall(r"(?:and|;) exits (\d)", prose)
    assert said and int(said[-1]) == report.exit_code, (said, report.exit_code)
    codes = {f.code for f in report.findings}
    named = set(re.findall(r"\b[A-Z]{3}\d{3}\b", prose))
    assert named <= codes, f"{config}: the docs name {sorted(named - codes)}, the report has {sorted(codes)}"
    for value in re.findall(r"\*\*([^*]+)\*\*", prose):  # what is set in bold is what a finding says
        assert any(value in f.message for f in report.findings), value
