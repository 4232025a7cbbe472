from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from auditor.similarity import shingles
from auditor.similarity.shingles import shared_spans, shingle


def values(sh: shingles.Shingles, t: int) -> np.ndarray:
    return sh.values[sh.offsets[t] : sh.offsets[t + 1]]


def test_unicode_case_punctuation_and_spacing_variants_shingle_equal() -> None:
    texts = [
        "the quick brown fox jumps over the lazy dog",
        "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG",
        "The quick, brown fox -- jumps over (the) lazy dog!!!",
        "\uff34\uff48\uff45 quick\u00a0brown\tfox\n\njumps   over the lazy dog.",  # fullwidth, NBSP, tabs
    ]
    sh = shingle(texts, n=3, long_n=5)
    assert sh.words.tolist() == [9, 9, 9, 9]
    for t in range(1, 4):
        assert np.array_equal(values(sh.short, t), values(sh.short, 0))
        assert np.array_equal(values(sh.long, t), values(sh.long, 0))


def test_ligature_and_accents_follow_nfkc() -> None:
    sh = shingle(["\ufb01ne caf\u00e9 day", "fine cafe\u0301 day", "fine cafe day"], n=2, long_n=3)
    assert np.array_equal(values(sh.short, 0), values(sh.short, 1))  # NFKC composes e + combining accent
    assert not np.array_equal(values(sh.short, 0), values(sh.short, 2))  # an accent is not dropped


def test_gram_counts_short_texts_and_empty_texts() -> None:
    texts = ["a b c d e f g", "a b", None, "", " ... !!! ", "x y z"]
    sh = shingle(texts, n=3, long_n=5)
    assert sh.words.tolist() == [7, 2, 0, 0, 0, 3]
    assert sh.empty.tolist() == [False, False, True, True, True, False]
    # 7 distinct words give 5 trigrams; a 2-word text gives one shorter gram; no long gram under 5 words.
    assert sh.short.sizes().tolist() == [5, 1, 0, 0, 0, 1]
    assert sh.long.sizes().tolist() == [3, 0, 0, 0, 0, 0]
    assert np.all(np.diff(values(sh.short, 0).astype(np.float64)) > 0)  # sorted and distinct


def test_repeated_grams_count_once_in_short_set() -> None:
    sh = shingle(["a b a b a b a b"], n=2, long_n=3)
    assert sh.short.sizes().tolist() == [2]  # "a b" and "b a"


def test_truncation_cuts_and_reports() -> None:
    sh = shingle(["one two three four five six", "one two three"], n=2, long_n=3, max_chars=13)
    assert sh.truncated.tolist() == [True, False]
    assert sh.words.tolist() == [3, 3]
    assert np.array_equal(values(sh.short, 0), values(sh.short, 1))


def test_same_result_across_chunks_and_input_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    vocab = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"])
    texts = [" ".join(vocab[rng.integers(0, 10, rng.integers(0, 40))]) for _ in range(50)] + [None]
    whole = shingle(texts)
    monkeypatch.setattr(shingles, "_CHUNK_TEXTS", 7)
    array = pa.array(texts, pa.string())
    chunked = pa.chunked_array([array.slice(0, 20), array.slice(20, 31)])
    for other in (shingle(texts), shingle(chunked), shingle(array.dictionary_encode())):
        assert np.array_equal(other.short.offsets, whole.short.offsets)
        assert np.array_equal(other.short.values, whole.short.values)
        assert np.array_equal(other.long.values, whole.long.values)
        assert np.array_equal(other.words, whole.words)


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        shingle(["a"], n=0)


def test_shared_spans_cover_the_shared_passage() -> None:
    a = "Intro words here. The quick brown fox jumps over the lazy dog. End of it."
    b = "Other start: the QUICK brown fox, jumps over the lazy dog! nothing else"
    spans_a, spans_b = shared_spans(a, b, 5)
    assert [a[s:e] for s, e in spans_a] == ["The quick brown fox jumps over the lazy dog"]
    assert [b[s:e] for s, e in spans_b] == ["the QUICK brown fox, jumps over the lazy dog"]


def test_shared_spans_none_when_nothing_shared() -> None:
    assert shared_spans("one two three four", "five six seven eight", 2) == ([], [])
    assert shared_spans("short", "short", 3) == ([], [])


def test_nfkc_expansion_into_more_words_than_characters_allow() -> None:
    sh = shingle(["\u00bd\u00bd\u00bd\u00bd", "x"], n=1, long_n=1)  # NFKC: "½" is "1", a fraction slash, "2"
    assert sh.words.tolist() == [5, 1]  # "1", "21", "21", "21", "2"
    assert sh.short.sizes().tolist() == [3, 1] and sh.long.sizes().tolist() == [5, 1]


def test_a_set_of_texts_with_fewer_words_in_all_than_a_shingle_is_shingled() -> None:
    # Two one-word texts hold two words in all: fewer than the five a shingle spans.
    from auditor.similarity.minhash import text_matches

    found = text_matches(["hello", "Hello!"], np.array([0]), np.array([1]))
    assert found.flagged.tolist() == [True] and found.resemblance.tolist() == [1.0]


def test_invisible_characters_inside_words_do_not_split_them() -> None:
    # soft hyphens (HTML hyphenation hints), zero-width space and joiners, word joiner, byte order mark, direction
    # marks and an emoji variation selector: the page shows the plain words, so the words are the plain ones
    plain = "Die Verarbeitung ist hervorragend und die Lieferung kam schnell ❤ danke"
    marked = (
        "\ufeffDie Vera\u00adrbei\u00adtung ist her\u200bvor\u2060ragend und die Lie\u200dfe\u200crung kam "
        "schnell\u200e ❤\ufe0f danke"
    )
    both = shingle([plain, marked], n=3, long_n=5)
    assert both.words.tolist() == [10, 10]
    assert values(both.short, 0).tolist() == values(both.short, 1).tolist()
    assert values(both.long, 0).tolist() == values(both.long, 1).tolist()
    # and a mark parted from its letter by one of them composes with it again, as NFKC gives the plain word
    accented = shingle(["caf\u00e9 au lait", "cafe\u00ad\u0301 au lait"], n=2)
    assert values(accented.short, 0).tolist() == values(accented.short, 1).tolist()


def test_invisible_characters_do_not_join_words_a_space_or_punctuation_parts() -> None:
    # two different texts that share only invisible characters stay apart word for word
    joined = shingle(["cold\u200b brew", "cold brew", "cold-\u00adbrew"], n=1)
    assert joined.words.tolist() == [2, 2, 2]
    assert len(set(joined.short.values.tolist())) == 2


def test_shared_spans_cover_words_holding_invisible_characters() -> None:
    a = "the Verarbeitung of the fridge is excellent"
    b = "note: the Vera\u00adrbei\u00adtung of the fridge is excellent!"
    spans_a, spans_b = shared_spans(a, b, 3)
    assert spans_a == [(0, len(a))]
    assert b[spans_b[0][0] : spans_b[0][1]] == b[6:-1]


def test_html_character_references_are_the_characters_they_stand_for() -> None:
    # a page's text as scraped with its markup escaped (once, or twice): the words are the ones the page shows
    plain = "Don't say \"caf\u00e9\" \u2014 it's AT&T's <b>best</b> deal"
    escaped = "Don&#39;t say &quot;caf&eacute;&quot; &mdash; it&#x27;s AT&amp;T&rsquo;s &lt;b&gt;best&lt;/b&gt; deal"
    twice = escaped.replace("&", "&amp;")
    out = shingle([plain, escaped, twice], n=3)
    assert out.words.tolist() == [13, 13, 13]
    assert values(out.short, 0).tolist() == values(out.short, 1).tolist() == values(out.short, 2).tolist()


def test_ampersands_that_are_no_character_references_stay_as_they_are() -> None:
    # "R&D;" and "&c" name nothing; an unknown name is text, not a reference
    out = shingle(["R&D; Q&A &c &unknownname; fish & chips", "R D Q A c unknownname fish chips"], n=2)
    assert values(out.short, 0).tolist() == values(out.short, 1).tolist()


def test_the_texts_holding_a_byte_are_found_in_sliced_empty_and_null_holding_arrays() -> None:
    from auditor.similarity.shingles import _holding

    texts = pa.array(["a&b", None, "é&", "", "no", "&"], pa.string())
    assert _holding(texts, ord("&")).tolist() == [0, 2, 5]
    assert _holding(texts.slice(1, 3), ord("&")).tolist() == [1]  # a slice counts from its own start
    assert _holding(texts.cast(pa.large_string()).slice(3), ord("&")).tolist() == [2]
    assert _holding(pa.array([], pa.large_string()), ord("&")).tolist() == []
    assert _holding(pa.array([None, None], pa.string()), ord("&")).tolist() == []


def _normal(texts: list[str]) -> list[str | None]:
    return shingles.normalise(pa.array(texts, pa.large_string()), 1 << 20)[0].to_pylist()


def test_each_han_and_kana_character_is_a_word_and_hangul_keeps_its_words() -> None:
    texts = [
        "这是一个测试。",  # Chinese: no spaces, one "word" per run between punctuation until now
        "東京都はコーヒーを飲む",  # Japanese: kanji, hiragana, katakana and the prolonged sound mark
        "ﾃﾞｰﾀとか\u3099ABC漢字def",  # halfwidth katakana and a combining voiced mark (NFKC), Latin beside Han
        "㊀二",  # a symbol NFKC makes an ideograph
        "한국어 텍스트입니다, 漢字도",  # Hangul keeps its words; Hanja among them are characters
        "plain ascii stays as it was",
    ]
    assert _normal(texts) == [
        "这 是 一 个 测 试",
        "東 京 都 は コ ー ヒ ー を 飲 む",
        "デ ー タ と が abc 漢 字 def",
        "一 二",
        "한국어 텍스트입니다 漢 字 도",
        "plain ascii stays as it was",
    ]
    assert shingle(texts[:1], n=3, long_n=4).words.tolist() == [6]


def test_the_cjk_characters_python_finds_are_those_arrow_splits() -> None:
    # The highlighting finds words in the original text with Python's re; they must be the normalised words.
    chars = "".join(chr(c) for c in range(0x80, 0x40000) if not 0xD800 <= c <= 0xDFFF)
    python = set(re.findall(f"[{shingles._CJK_PY}]", chars))
    arrow = pc.extract_regex(pa.array(list(chars)), f"(?P<c>{shingles._CJK})")
    assert python == {c for c in arrow.field("c").to_pylist() if c}
    # The byte scan that picks the texts worth the regex misses none of them (after NFKC, as it runs).
    normal = pc.utf8_normalize(pa.array([f"a{c}b" for c in chars], pa.large_string()), form="NFKC")
    held = pc.match_substring_regex(normal, shingles._CJK).to_numpy(zero_copy_only=False)
    assert set(np.flatnonzero(held)) <= set(shingles._cjk_blocks(normal).tolist())
    assert not len(shingles._cjk_blocks(pa.array(["café “quoted” — 한국어 😀 Ωmega"], pa.large_string())))


def test_the_kana_python_finds_are_those_arrow_weighs_as_kana_and_all_are_cjk() -> None:
    chars = "".join(chr(c) for c in range(0x80, 0x40000) if not 0xD800 <= c <= 0xDFFF)
    python = set(re.findall(f"[{shingles._KANA_PY}]", chars))
    arrow = pc.extract_regex(pa.array(list(chars)), f"(?P<c>{shingles._KANA})")
    assert python == {c for c in arrow.field("c").to_pylist() if c}
    assert python <= set(re.findall(f"[{shingles._CJK_PY}]", chars))
    assert {"あ", "ア", "ー", "ｱ"} <= python and not {"漢", "々", "・"} & python


def test_long_grams_weigh_a_kana_character_a_third_of_a_word_and_a_han_character_half() -> None:
    kana = "".join(chr(0x3042 + i) for i in range(0, 60, 2))  # 30 distinct hiragana
    han = "我们今天去北京看长城然后回家"  # 14 distinct ideographs
    out = shingle([kana, han, kana[:11], kana[:6] + han[:6]], n=5, long_n=4)
    # 4 words are 12 kana (19 runs in 30), 8 Han characters (7 runs in 14); 11 kana weigh less than 4 words;
    # 6 kana (2 words) and 4 Han characters (2 words) weigh 4 words: a run from each of the first four kana
    # (the fifth has 2 kana and all 6 Han characters after it: 3.7 words).
    assert out.long.sizes().tolist() == [19, 7, 0, 4]
    assert values(out.long, 0)[0] == values(shingle([kana[:12]], n=5, long_n=4).long, 0)[0]


def test_shared_spans_mark_the_shared_characters_of_chinese_texts() -> None:
    a, b = "我们今天去北京看长城。", "他说我们今天去北京玩"
    sa, sb = shared_spans(a, b, 3)
    assert [a[s:e] for s, e in sa] == ["我们今天去北京"] and [b[s:e] for s, e in sb] == ["我们今天去北京"]


def test_long_grams_of_cjk_text_weigh_a_character_half_a_word_and_others_are_unchanged() -> None:
    english = "the quick brown fox jumps over the lazy dog and runs far away into the dark"
    chinese = "我们今天去北京看长城然后回家吃饭睡觉明天再去上海看外滩和东方明珠塔"  # 33 characters
    alone = shingle([english], n=5, long_n=4)
    mixed = shingle([english, chinese, "abc 中文 def ghi"], n=5, long_n=4)
    # English keeps its 4-grams, the same hashes beside Chinese; 33 characters hold 26 runs of 8, and two words
    # with two characters weigh 4 words: one run.
    assert mixed.long.sizes().tolist() == [13, 26, 1]
    assert np.array_equal(values(mixed.long, 0), values(alone.long, 0))
    # the first is the run of the first 8 characters
    assert values(mixed.long, 1)[0] == values(shingle([chinese[:8]], n=5, long_n=4).long, 0)[0]
