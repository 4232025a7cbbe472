"""Short texts by their normalised words: the same words or one word added, with the controls that keep stock
phrases, labels and stems out."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.similarity.shorttexts import short_pairs


def _pairs(texts: list[str], splits: list[int], min_words: int = 4) -> set[tuple[str, str, str, bool]]:
    per_split = np.zeros((len(texts), 2), np.int64)
    per_split[np.arange(len(texts)), splits] = 1
    words = pc.count_substring_regex(pa.array(texts), r"\w+").to_numpy(zero_copy_only=False)
    a, b, _, measure, flagged, _ = short_pairs(per_split, list(texts), words, min_words)
    return {(texts[i], texts[j], m, bool(f)) for i, j, m, f in zip(a, b, measure, flagged, strict=True)}


def test_a_text_of_min_words_words_is_the_longer_side_of_a_short_text_only() -> None:
    texts = ["Beautiful is better", "beautiful is better than", "Sparse is better than dense", "sparse is better than"]
    # 3 words / 4 words: compared here; 4 / 5 words: both long, left to the shingles
    assert _pairs(texts, [0, 1, 0, 1]) == {("Beautiful is better", "beautiful is better than", "word added", True)}


def test_texts_in_one_split_are_not_paired() -> None:
    texts = ["Readability counts.", "readability counts to", "flat is better", "Flat is better!"]
    assert _pairs(texts, [0] * 4) == set()


def test_a_stem_with_many_extensions_gives_no_pair_and_pairs_grow_with_the_texts() -> None:
    texts = ["good product", *(f"good product {w}" for w in ("indeed", "overall", "really", "truly"))]
    assert _pairs(texts, [0, 1, 1, 1, 1]) == set()
    # 2,000 texts of one wording in spelling variants across two splits: one pair each, not one per pair of them
    many = [f"{'Good' if i % 2 else 'good'} {'Value' if i % 3 else 'value'}{'!' * (i // 6)}" for i in range(2000)]
    per = _pairs(many, [i % 2 for i in range(2000)])
    assert all(m == "normalised" and not f for _, _, m, f in per)  # a wording the data repeats: review
    per_split = np.ones((len(many), 2), np.int64)
    words = pc.count_substring_regex(pa.array(many), r"\w+").to_numpy(zero_copy_only=False)
    assert len(short_pairs(per_split, list(many), words, 4)[0]) <= 2 * len(many)


def test_without_short_texts_nothing_is_compared() -> None:
    assert _pairs(["a text of five words here", "another text of five words"], [0, 1]) == set()


def test_names_one_word_apart_inside_splits_too_are_the_datas_nature_listed_not_flagged() -> None:
    train = ["Pixel 7", "Pixel 7 Pro", "Galaxy S21", "Galaxy S21 Ultra", "Moto G", "Moto G Power", "iPhone 12"]
    test = ["Surface Laptop", "Surface Laptop Go", "Redmi Note", "Redmi Note Pro", "iPhone 12 Mini", "Nord CE"]
    train += ["Xperia One", "Xperia One Mark", "Kindle Paperwhite"]
    test += ["Nord CE Lite", "Kindle Paperwhite Kids"]
    found = _pairs([*train, *test], [0] * len(train) + [1] * len(test))
    across = {(a, b, f) for a, b, m, f in found if m == "word added"}
    assert across == {("iPhone 12", "iPhone 12 Mini", False), ("Kindle Paperwhite", "Kindle Paperwhite Kids", False)}
    # the same two pairs without the variants inside each split: copies
    alone = ["iPhone 12", "Kindle Paperwhite", "iPhone 12 Mini", "Kindle Paperwhite Kids"]
    assert {f for _, _, m, f in _pairs(alone, [0, 0, 1, 1]) if m == "word added"} == {True}
