"""The CJK benchmark counts a span as shared only across catalogues, in the normalised words."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_a_span_counts_as_shared_only_with_a_message_of_another_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    bench = importlib.import_module("cjk_bench")
    toks = bench.tokens(["无法打开文件", "无法打开文件。", "不能打开目录", "Cannot open file"])
    assert toks[0] == ["无", "法", "打", "开", "文", "件"] and toks[3] == ["cannot", "open", "file"]
    # the first two share six characters: within one catalogue nothing, across two both
    assert bench.shared(toks, ["a", "a", "b", "b"], 6, [0, 1, 2]) == 0.0
    assert bench.shared(toks, ["a", "b", "b", "b"], 6, [0, 1, 2]) == pytest.approx(2 / 3)
    assert bench.shared(toks, ["a", "b", "b", "b"], 2, [2]) == 1.0  # 打开 in both
