"""The documentation site: its reference pages are what the code gives, its configs load, and it builds."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import REPO
from tests.test_readme import _doc, doc_files, fenced_blocks


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", REPO / "docs" / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_reference_pages_match_the_code() -> None:
    assert _generator().stale() == [], "docs/reference/ is stale: run `python docs/gen_reference.py`"


def test_stale_detects_a_page_that_drifted_from_the_models(tmp_path: Path) -> None:
    gen = _generator()
    for name in gen.PAGES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "docs" / name, tmp_path / name)
    assert gen.stale(tmp_path) == []
    page = tmp_path / "reference" / "config.md"
    page.write_text(page.read_text().replace("`max_examples`", "`max_example`", 1))
    assert gen.stale(tmp_path) == ["reference/config.md"]
    (tmp_path / "reference" / "api.md").unlink()
    assert gen.stale(tmp_path) == ["reference/config.md", "reference/api.md"]


def test_config_reference_lists_every_option_of_every_stage() -> None:
    from auditor.pipeline.registry import discover, load_stages

    page = _doc(REPO / "docs" / "reference" / "config.md")
    for cls in load_stages(discover()):
        section = page.split(f"### stages.{cls.name}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
        for option in cls.Options.model_fields:
            assert f"| `{option}` |" in section, f"stages.{cls.name}.{option}"


def test_api_reference_lists_every_route_of_the_openapi_schema() -> None:
    gen = _generator()
    page = _doc(REPO / "docs" / "reference" / "api.md")
    for path, item in gen.openapi_schema()["paths"].items():
        for method in item:
            assert f"| {method.upper()} | `{path}` |" in page, (method, path)


def test_checks_reference_needs_a_place_for_every_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen = _generator()
    (tmp_path / "templates").mkdir()
    template = (REPO / "docs" / "templates" / "checks.md").read_text()
    (tmp_path / "templates" / "checks.md").write_text(template.replace("<!-- codes: broadcast -->\n", ""))
    monkeypatch.setattr(gen, "DOCS", tmp_path)
    with pytest.raises(SystemExit, match="broadcast"):
        gen.checks_reference()


def test_checks_reference_refuses_prose_for_a_code_no_stage_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = _generator()
    (tmp_path / "templates").mkdir()
    template = (REPO / "docs" / "templates" / "checks.md").read_text()
    stale = template.replace("| GRP001 | error |", "| GRP009 | error |", 1)
    (tmp_path / "templates" / "checks.md").write_text(stale)
    monkeypatch.setattr(gen, "DOCS", tmp_path)
    with pytest.raises(SystemExit, match="group_overlap.*GRP009"):
        gen.checks_reference()


def test_checks_reference_gives_each_code_its_severity_and_title() -> None:
    from auditor.pipeline.registry import discover, load_stages

    page = _doc(REPO / "docs" / "reference" / "checks.md")
    for cls in load_stages(discover()):
        for code, title in cls.codes.items():
            assert re.search(rf"^\| {code} \| (info|warning|error)[^|]* \| {re.escape(title)} \|", page, re.M), code


# -- every config the docs quote is one the loader takes --------------------------------------------------


def _config_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((REPO / "schemas" / "config.schema.json").read_text())
    return schema


# YAML blocks that are another tool's file, named on their first line (docs/integrations.md): pre-commit's config
# and a GitHub workflow; tests/integrations/ runs them.
OTHER_YAML = re.compile(r"# (\.pre-commit-config\.yaml|\.github/workflows/[\w.-]+\.ya?ml)\n")


def _quoted_configs() -> list[tuple[str, str]]:
    found = [
        (f"{doc.relative_to(REPO)}:{i}", block.text)
        for doc in doc_files()
        for i, block in enumerate(fenced_blocks(_doc(doc)))
        if block.language == "yaml" and not OTHER_YAML.match(block.text)
    ]
    assert found, "the docs quote no config"
    return found


def _config_problems(text: str) -> list[str]:
    """What the config schema and the stages' option models refuse in a quoted config ([] when it loads)."""
    from pydantic import ValidationError

    from auditor.pipeline.registry import discover, load_stages

    data = yaml.safe_load(text)
    problems = [e.message for e in jsonschema.Draft202012Validator(_config_schema()).iter_errors(data)]
    stages = {cls.name: cls for cls in load_stages(discover())}
    for name, options in (data.get("stages") or {}).items():
        if name not in stages:
            problems.append(f"unknown stage {name}")
            continue
        try:
            stages[name].Options.model_validate(options)
        except ValidationError as e:
            problems.append(str(e))
    return problems


@pytest.mark.parametrize(("where", "text"), _quoted_configs(), ids=[w for w, _ in _quoted_configs()])
def test_quoted_config_is_one_the_loader_takes(where: str, text: str) -> None:
    assert _config_problems(text) == [], where


def test_a_config_with_a_mistyped_key_or_option_is_caught() -> None:
    good = "version: 1\nmanifest: {path: m.csv, split: split}\nstages: {group_overlap: {max_examples: 5}}\n"
    assert _config_problems(good) == []
    assert _config_problems(good.replace("split: split", "splt: split"))
    assert _config_problems(good.replace("max_examples", "max_exampels"))
    assert _config_problems(good.replace("group_overlap", "group_overlaps"))


# -- every Python example that audits a sample runs as printed ----------------------------------------------


def _sample_scripts() -> list[tuple[str, str]]:
    """Python blocks that run on the samples (named blocks, `# file.py`, have tests of their own in test_readme)."""
    found = [
        (f"{doc.relative_to(REPO)}:{i}", block.text)
        for doc in doc_files()
        for i, block in enumerate(fenced_blocks(_doc(doc)))
        if block.language == "python" and "sample_data/" in block.text and not block.text.startswith("# ")
    ]
    assert found, "the docs show no Python example on the samples"
    return found


@pytest.mark.parametrize(("where", "text"), _sample_scripts(), ids=[w for w, _ in _sample_scripts()])
def test_python_example_on_the_samples_runs(tmp_path: Path, where: str, text: str) -> None:
    shutil.copytree(REPO / "sample_data", tmp_path / "sample_data", ignore=shutil.ignore_patterns("audit-report"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, f"{where}: {done.stderr}"
    assert done.stdout.strip(), f"{where} prints nothing"


# -- the site builds --------------------------------------------------------------------------------------


NO_MKDOCS = shutil.which("mkdocs") is None and importlib.util.find_spec("mkdocs") is None
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documentation site, built strict once for the tests of this module."""
    if NO_MKDOCS:
        pytest.skip("mkdocs is not installed (the dev extra installs mkdocs-material)")
    out = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_the_site_builds_strict(site: Path) -> None:
    tmp_path = site.parent
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "split-auditor" in home
    config = (tmp_path / "site" / "reference" / "config" / "index.html").read_text(encoding="utf-8")
    assert "max_examples" in config
    assert not re.search(r"--8&lt;--|--8<--", (tmp_path / "site" / "benchmarks" / "index.html").read_text())


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (Debian package chromium)")
def test_the_site_renders_in_a_browser_and_asks_no_other_host(site: Path) -> None:
    """Home and the config reference in headless Chromium, served from 127.0.0.1 as any static host serves them:
    laid out by the theme, their navigation and content shown, search answering, every request to the site.

    AUDITOR_SCREENSHOTS=1 writes the two screenshots to docs/screenshots/."""
    import functools
    import http.server
    import threading

    sync_api = pytest.importorskip("playwright.sync_api")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    shots = site.parent / "shots"
    shots.mkdir()
    elsewhere: list[str] = []
    failed: list[str] = []
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: None if r.url.startswith((base, "data:")) else elsewhere.append(r.url))
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.route(re.compile(r"^https?://(?!127\.0\.0\.1)"), lambda route: route.abort())
            for name, path, text in (
                ("site-home", "/", "split-auditor"),
                ("site-config-reference", "/reference/config/", "max_examples"),
            ):
                page.goto(base + path)
                page.wait_for_load_state("networkidle")
                assert text in page.inner_text("article")
                # The theme's layout took: a navigation drawer and a sticky header, styled (not the bare HTML).
                assert page.locator("nav.md-nav--primary").count() >= 1
                assert page.eval_on_selector("header.md-header", "e => getComputedStyle(e).position") == "sticky"
                page.screenshot(path=str(shots / f"{name}.png"))
                if os.environ.get("AUDITOR_SCREENSHOTS") == "1":
                    shutil.copy(shots / f"{name}.png", REPO / "docs" / "screenshots" / f"{name}.png")
            page.click("input.md-search__input")
            page.keyboard.type("fail_on", delay=20)
            page.wait_for_selector(".md-search-result__item", timeout=15000)
            assert page.locator(".md-search-result__item").count() >= 1
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert not failed, failed
    assert not elsewhere, elsewhere  # fonts, scripts and search come with the site
