"""A token_pattern that Python's re could take exponential time on is a config error naming its line."""

from __future__ import annotations

import re
import time
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
def test_a_safe_token_pattern_is_accepted_and_runs_fast(pattern: str, tmp_path: Path) -> None:
    loaded = config_from_text(b"", CONFIG.format(pattern=pattern), tmp_path / "audit.yaml", tmp_path)
    spec = loaded.config.fitted[0].tokenizer
    assert spec is not None and spec.token_pattern == pattern
    start = time.process_time()
    re.findall(pattern, ("a" * 2000 + " ") * 3 + "b1 " * 100)
    assert time.process_time() - start < 2


def test_the_risk_says_what_to_do() -> None:
    assert backtracking_risk(r"(?u)\b\w\w+\b") is None
    risk = backtracking_risk(r"(\w+\s?\w*)+\d")
    assert risk is not None and "(?>...)" in risk and "`a++`" in risk
