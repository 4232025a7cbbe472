"""A token_pattern that Python's re could take exponential time on is a config error naming its line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.core.config import config_from_text
from auditor.core.errors import ConfigError
from auditor.core.patterns import backtracking_risk

CONFIG = """version: 1
manifest: {{path: m.csv, id: id, split: split}}
fitted:
  - name: vocab
    kind: vocabulary
    artifact: vocab.json
    text: body
    tokenizer:
      token_pattern: '{pattern}'
"""

CATASTROPHIC = [
    r"(\w+\s?\w*)+\d",  # the one that held the server's worker
    r"(a+)+b",
    r"(a*)*b",
    r"(a|aa)+b",
    r"(?:\w\d|\d\w)+!",  # alternatives of one length that overlap
    r"(?:x{1,3}){2,}y",
    r"(?:\w+-)*\w+!",  # safe as written only with a possessive inner repeat
    r"(?>(\w+\s?\w*)+\d)",  # atomic outside, but the inner group still backtracks on the way in
    r"(?=(\w+)+\d)",
]
# Token patterns that look involved and are safe: scikit-learn's default and common variants.
SAFE = [
    r"(?u)\b\w\w+\b",
    r"(?u)\b\w+\b",
    r"(?u)\b[^\d\W]+\b",
    r"[a-zA-Z]{2,}",
    r"\S+",
    r"\w+|[^\w\s]+",
    r"(?:a|b)+",  # one character class, not alternatives
    r"(?:[A-Z]\.)+",  # fixed length, one way to match
    r"(?:\w{2})+",
    r"(?:\w++-)*\w+",  # the possessive rewrite
    r"(?>\w+\s?\w*)+\d",  # the atomic rewrite
    r"(\w++\s?+\w*+)+\d",
    r"\S+\s*\S+",  # two repeats that take the same characters, but nothing after them can fail
    r"[\w ]*[\w ]*[\w ]*",  # the same: the first try matches
    r"\w+(?:-\w+)?\b",  # a hyphen, which neither repeat takes, between them
    r"[a-z]*[0-9]*!",  # repeats in a row that take different characters
    r"\w*+\w*!",  # the first never gives back what it took: the second has nothing to share
    r"[A-Za-z]+(?:-[a-z]+)?",
]
# No nested repeat, but repeats in a row that can take the same characters, then something that can fail: a text
# that does not match is shared among them in every way (time as its length to the power of their number).
IN_A_ROW = [
    r"[\w ]*" * 10 + "!",  # the one that held a server worker for its whole CPU budget
    r"[\w ]*" * 10 + r"\b",
    r"(?:[\w ]*){1}" * 10 + "!",
    r"(?:[\w ]*)?" * 10 + "!",
    r"(?i)[a-z]*[A-Z]*x",
    r"\w*(?=x)\w*!",
    r"(a*)(a*)b",
    r"\w*\w*+!",  # the second never gives back, but takes again after each way the first gives back
]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_catastrophic_token_pattern_is_refused_at_its_line(pattern: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as exc:
        config_from_text(b"", CONFIG.format(pattern=pattern), tmp_path / "audit.yaml", tmp_path)
    message = str(exc.value)
    assert message.startswith(f"{tmp_path / 'audit.yaml'}:9:"), message
    assert "fitted.0.tokenizer.token_pattern" in message and "exponential" in message
    assert "possessive" in message and "split_pattern" in message
    assert "\n" not in message


@pytest.mark.parametrize("pattern", SAFE)
def test_a_safe_token_pattern_is_accepted_and_runs_on_an_adversarial_text(pattern: str, tmp_path: Path) -> None:
    loaded = config_from_text(b"", CONFIG.format(pattern=pattern), tmp_path / "audit.yaml", tmp_path)
    spec = loaded.config.fitted[0].tokenizer
    assert spec is not None and spec.token_pattern == pattern
    # A pattern that backtracks exponentially never ends on this text (the suite's time limit would say so).
    re.findall(pattern, ("a" * 2000 + " ") * 3 + "b1 " * 100)


@pytest.mark.parametrize("pattern", IN_A_ROW)
def test_repeats_in_a_row_that_share_characters_are_refused_at_their_line(pattern: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as exc:
        config_from_text(b"", CONFIG.format(pattern=pattern), tmp_path / "audit.yaml", tmp_path)
    message = str(exc.value)
    assert message.startswith(f"{tmp_path / 'audit.yaml'}:9:"), message
    assert "fitted.0.tokenizer.token_pattern" in message and "repeats in a row" in message
    assert "possessive" in message and "split_pattern" in message


def test_the_number_of_repeats_in_a_row_is_the_power_named() -> None:
    assert "to the power 10" in str(backtracking_risk(r"[\w ]*" * 10 + "!"))
    assert "to the power 2" in str(backtracking_risk(r"\w+-?\w+\d"))


def test_the_risk_says_what_to_do() -> None:
    assert backtracking_risk(r"(?u)\b\w\w+\b") is None
    risk = backtracking_risk(r"(\w+\s?\w*)+\d")
    assert risk is not None and "(?>...)" in risk and "`a++`" in risk


SPLIT_CONFIG = CONFIG.replace("token_pattern", "split_pattern")


@pytest.mark.parametrize("pattern", [r"x*", r"\s*", r"\b", r"^", r"(?m)$", r"\B", r"a|\b", r"[\s,]*"])
def test_a_split_pattern_that_matches_the_empty_string_is_refused_at_its_line(pattern: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as exc:
        config_from_text(b"", SPLIT_CONFIG.format(pattern=pattern), tmp_path / "audit.yaml", tmp_path)
    message = str(exc.value)
    assert message.startswith(f"{tmp_path / 'audit.yaml'}:9:"), message
    assert "fitted.0.tokenizer.split_pattern" in message and "matches an empty string" in message


@pytest.mark.parametrize("pattern", [r"[\s,]+", r"\s+", r"[^\pL\pN_]+", r",|;", r"\s+|-{2,}", r"(?i)\s+and\s+"])
def test_a_split_pattern_of_one_character_or_more_is_accepted(pattern: str, tmp_path: Path) -> None:
    loaded = config_from_text(b"", SPLIT_CONFIG.format(pattern=pattern), tmp_path / "audit.yaml", tmp_path)
    spec = loaded.config.fitted[0].tokenizer
    assert spec is not None and spec.split_pattern == pattern


def test_checking_an_empty_matching_split_pattern_ends(tmp_path: Path) -> None:
    """Arrow's split never returns on such a pattern, even on an empty text: the check must not split."""
    import subprocess
    import sys

    (tmp_path / "audit.yaml").write_text(SPLIT_CONFIG.format(pattern="x*"))
    code = "import sys; from auditor import load_config; load_config(sys.argv[1])"
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "audit.yaml")], capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        pytest.fail("validating `split_pattern: x*` did not end")
    assert "matches an empty string" in done.stderr, done.stderr
