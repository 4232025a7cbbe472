"""The contamination kernels and definitions against hand-computed examples."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditor.similarity.corpus import Parsed
from auditor.similarity.corpusscan import scan_parsed
from auditor.similarity.definitions import ItemState, Thresholds, item_states, measure
from auditor.similarity.ngrams import Run, build_benchmark, confirm, gpt3_removal, word_spans, word_spans_many

WORDS = [f"w{i:02d}" for i in range(60)]  # distinct words: every shared span is exactly what a test plants


def words(a: int, b: int) -> str:
    return " ".join(WORDS[a:b])


def state_of(item: str, docs: list[str]) -> tuple[ItemState, list]:
    bench = build_benchmark([item])
    parsed = Parsed(pa.array(docs, pa.large_string()), np.arange(1, len(docs) + 1))
    hits = scan_parsed(bench, parsed, 0)
    (state,) = item_states(bench)
    for hit in hits:
        for run in hit.runs:
            state.add(run)
    return state, hits


def test_a_verbatim_copy_with_case_and_punctuation_changed_is_one_run_of_the_whole_item() -> None:
    item = "The Quick brown fox, jumps over the lazy dog; and then it runs far away into the dark forest!"
    doc = "intro words here. THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG AND THEN IT RUNS FAR AWAY INTO THE DARK FOREST"
    state, hits = state_of(item, [doc])
    assert [h.runs for h in hits] == [(Run(0, 0, 3, 19),)]
    m = measure([state])
    assert {k: bool(v[0]) for k, v in m.contaminated.items()} == dict.fromkeys(m.contaminated, True)


def test_gpt3_needs_a_13_word_span_and_12_is_not_enough() -> None:
    item = words(0, 30)
    twelve, _ = state_of(item, [words(5, 17)])
    thirteen, _ = state_of(item, [words(5, 18)])
    assert not measure([twelve]).contaminated["gpt3"][0]
    assert measure([thirteen]).contaminated["gpt3"][0]


def test_palm_70_percent_of_the_8grams_is_the_boundary() -> None:
    # 17 words have 10 8-grams; a copy of the first 14 words holds 7 of them (70%), of 13 words 6 (60%).
    item = words(0, 17)
    seven, _ = state_of(item, [words(0, 14)])
    six, _ = state_of(item, [words(0, 13)])
    assert measure([seven]).score["palm"][0] == pytest.approx(0.7)
    assert measure([seven]).contaminated["palm"][0]
    assert measure([six]).score["palm"][0] == pytest.approx(0.6)
    assert not measure([six]).contaminated["palm"][0]
    # 8-grams found in different documents count together (PaLM asks whether each is in the corpus at all).
    split, _ = state_of(item, [words(0, 11), words(4, 15)])  # 8-grams 0-3 and 4-7
    assert measure([split]).score["palm"][0] == pytest.approx(0.8)


def test_llama2_token_share_counts_only_spans_of_at_least_10_tokens_and_its_bands() -> None:
    item = words(0, 50)
    # spans of 9 words never count, however many
    nines, _ = state_of(item, [words(0, 9), words(20, 29), words(40, 49)])
    m = measure([nines])
    assert m.score["llama2"][0] == 0.0 and m.bands["clean"][0] and m.bands["not dirty"][0]
    # 10 of 50 tokens: 20% is "not clean" (>= 20%) and "not dirty"
    ten, _ = state_of(item, [words(0, 10)])
    m = measure([ten])
    assert m.score["llama2"][0] == pytest.approx(0.2)
    assert [bool(m.bands[b][0]) for b in ("clean", "not clean", "not dirty", "dirty")] == [False, True, True, False]
    # 40 of 50 tokens: 80% is dirty, so contaminated under Llama 2
    forty, _ = state_of(item, [words(0, 20), words(25, 45)])
    m = measure([forty])
    assert m.score["llama2"][0] == pytest.approx(0.8)
    assert [bool(m.bands[b][0]) for b in ("clean", "not clean", "not dirty", "dirty")] == [False, True, False, True]
    assert m.contaminated["llama2"][0] and not m.clean["llama2"][0]


def test_longest_substring_is_the_longest_span_in_one_document_and_exact_is_the_whole_item() -> None:
    item = words(0, 40)
    # two halves in two documents: every 8-gram of the halves is in the corpus, but no document holds the item
    halves, _ = state_of(item, [words(0, 20), words(20, 40)])
    m = measure([halves])
    assert m.longest[0] == 20 and m.score["longest"][0] == pytest.approx(0.5)
    assert m.contaminated["longest"][0] and not m.contaminated["exact"][0]
    whole, _ = state_of(item, ["before " + item + " after"])
    assert measure([whole]).contaminated["exact"][0]


def test_items_shorter_than_a_definition_are_not_measurable_under_it_never_clean() -> None:
    state, _ = state_of(words(0, 9), [words(0, 9)])
    m = measure([state])
    assert not m.measurable["gpt3"][0] and not m.measurable["llama2"][0]
    assert not m.clean["gpt3"][0] and not m.clean["llama2"][0]
    assert m.measurable["palm"][0] and m.contaminated["palm"][0] and m.contaminated["exact"][0]


def test_distinct_text_on_the_same_topic_shares_nothing() -> None:
    item = "How does a binary heap keep its smallest element at the front and what does a push cost?"
    doc = "Push item onto heap, maintaining the heap invariant. Pop the smallest item off the heap."
    state, hits = state_of(item, [doc])
    assert hits == []
    assert not any(v[0] for v in measure([state]).contaminated.values())


def test_a_seed_whose_words_differ_is_never_a_run() -> None:
    bench = build_benchmark([words(0, 10)])
    # A seed pointing at a window whose words are not the item's (what a hash collision would give).
    assert confirm(bench, WORDS[30:45], [(0, 0, 0)]) == []
    assert confirm(bench, WORDS[0:10], [(0, 0, 0), (1, 0, 1)]) == [Run(0, 0, 0, 10)]


def test_gpt3_removal_window_of_200_characters_and_its_pieces() -> None:
    # A 1000-character document with a collision at [400, 460): [200, 660) is removed, 200 and 340 are left.
    assert gpt3_removal(1000, [(400, 460)]) == gpt3_removal(1000, [(400, 460)])
    r = gpt3_removal(1000, [(400, 460)])
    assert (r.removed_chars, r.pieces, r.dropped) == (460, 2, False)
    # A piece under 200 characters is dropped too: [150, 600) leaves 150 (dropped) and 400.
    r = gpt3_removal(1000, [(350, 400)])
    assert (r.removed_chars, r.pieces, r.dropped) == (600, 1, False)
    # More than 10 pieces: the whole document goes.
    spans = [(i * 1000, i * 1000 + 10) for i in range(1, 12)]
    r = gpt3_removal(12_500, spans)
    assert r.dropped and r.removed_chars == 12_500 and r.pieces == 0


def test_word_spans_point_at_the_original_characters() -> None:
    text = "Héllo, WORLD!  it's ﬁne"
    spans = word_spans(text, ["héllo", "world", "it", "s", "fine"])
    assert spans is not None
    assert [text[a:b] for a, b in spans] == ["Héllo", "WORLD", "it", "s", "ﬁne"]


def test_word_spans_of_many_texts_at_once_are_each_texts_own() -> None:
    texts = ["Héllo, WORLD!  it's ﬁne", "", "...", "one two", "three four five"]
    words = [["héllo", "world", "it", "s", "fine"], [], [], ["one", "two"], ["three", "four"]]
    many = word_spans_many(texts, words)
    assert many == [word_spans(t, w) for t, w in zip(texts, words, strict=True)]
    assert many[1] == [] and many[3] == [(0, 3), (4, 7)]
    assert many[4] is None  # the words given do not match the text's own: positions in words only


def test_thresholds_are_options() -> None:
    state, _ = state_of(words(0, 17), [words(0, 13)])
    assert measure([state], Thresholds(palm_share=0.6)).contaminated["palm"][0]


HAN = "".join(chr(0x4E00 + 37 * i) for i in range(60))  # distinct ideographs: each shared span is what a test plants


def test_a_chinese_item_copied_into_a_chinese_document_is_found_character_by_character() -> None:
    item = "下列关于光合作用的叙述中，正确的是：光反应阶段在叶绿体的类囊体薄膜上进行，产生氧气和ATP。"
    doc = f"高中生物复习资料，同学们可以参考：{item}答案是B。"
    state, hits = state_of(item, [doc])
    (hit,) = hits
    ((start, end),) = hit.spans
    assert doc[start:end] == item[:-1]  # from the first character to the last (the full stop is no word)
    assert hit.snippets == (item[:-1],)
    m = measure([state])
    assert {k: bool(v[0]) for k, v in m.contaminated.items()} == dict.fromkeys(m.contaminated, True)


def test_a_run_of_cjk_characters_counts_half_a_word_a_character() -> None:
    # 15 characters weigh 7.5 words: shared by chance too often to count; 16 are PaLM's 8 words, 26 GPT-3's 13.
    item = HAN[:40]
    fifteen, _ = state_of(item, [f"前言{HAN[5:20]}后记"])
    sixteen, _ = state_of(item, [HAN[5:21]])
    twenty_five, _ = state_of(item, [HAN[5:30]])
    twenty_six, _ = state_of(item, [HAN[5:31]])
    assert (fifteen.longest, sixteen.longest) == (0, 16)
    assert measure([sixteen]).score["palm"][0] == pytest.approx(9 / 33)
    assert not measure([twenty_five]).contaminated["gpt3"][0]
    assert measure([twenty_six]).contaminated["gpt3"][0]
    # An item is measured by its weight: 15 characters are too short for every definition, 16 for GPT-3 only.
    assert not any(v[0] for v in measure([state_of(HAN[:15], [])[0]]).measurable.values())
    assert {k: bool(v[0]) for k, v in measure([state_of(HAN[:16], [])[0]]).measurable.items()} == {
        "gpt3": False,
        "palm": True,
        "llama2": False,
        "longest": True,
        "exact": True,
    }
    # English words beside the characters weigh a word each: 8 characters and 4 words are 8 words.
    mixed = f"{HAN[:8]} one two three four {HAN[8:30]}"
    assert state_of(mixed, [f"{HAN[:8]} one two three four"])[0].longest == 12


KANA = "".join(chr(0x3042 + i) for i in range(0, 80, 2))  # 40 distinct hiragana (あいうえお... every other one)


def test_a_run_of_kana_counts_a_third_of_a_word_a_character_and_han_beside_it_half() -> None:
    # Verb endings in kana (できませんでした) are shared by chance far more often than Han characters: 23 kana
    # weigh 7.7 words, 24 are PaLM's 8; 12 kana and 8 Han characters are 8 words too.
    item = KANA
    assert state_of(item, [f"前言{KANA[3:26]}后记"])[0].longest == 0
    assert state_of(item, [KANA[3:27]])[0].longest == 24
    mixed = HAN[:8] + KANA[:12] + HAN[8:20]
    assert state_of(mixed, [mixed[:19]])[0].longest == 0  # 8 Han and 11 kana: 7.7 words
    assert state_of(mixed, [mixed[:20]])[0].longest == 20
    assert not any(v[0] for v in measure([state_of(KANA[:23], [])[0]]).measurable.values())
    assert measure([state_of(KANA[:24], [])[0]]).measurable["palm"][0]


def test_word_spans_map_each_cjk_character_to_itself() -> None:
    text = "他说：“我们去北京。” Then home, 日本語のテキスト&#20013;"
    words = [
        "他",
        "说",
        "我",
        "们",
        "去",
        "北",
        "京",
        "then",
        "home",
        "日",
        "本",
        "語",
        "の",
        "テ",
        "キ",
        "ス",
        "ト",
        "中",
    ]
    spans = word_spans(text, words)
    assert spans is not None
    assert [text[a:b] for a, b in spans] == [*"他说我们去北京", "Then", "home", *"日本語のテキスト", "&#20013;"]
