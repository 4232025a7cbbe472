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


def test_runs_that_weigh_n_words_are_cut_as_the_stages_cut_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    bench = importlib.import_module("cjk_bench")
    english, han, kana = (bench.tokens([t])[0] for t in ("one two three", "无法打开文件", "できませんでした"))
    assert bench.weighed_runs(english, 2) == [("one", "two"), ("two", "three")]
    assert bench.weighed_runs(han, 3) == [tuple(han)]  # 6 Han characters weigh 3 words
    assert bench.weighed_runs(kana, 2) == [tuple(kana[:6]), tuple(kana[1:7]), tuple(kana[2:])]  # 6 kana: 2 words
    toks = [han, han, kana]
    assert bench.shared_weighed(toks, ["a", "b", "c"], 3, [0, 2]) == 0.5
