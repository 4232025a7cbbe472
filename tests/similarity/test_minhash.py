from __future__ import annotations

import numpy as np
import pytest

from auditor.similarity import minhash
from auditor.similarity.minhash import TextSettings, plan, recall_curve, signatures, text_matches
from auditor.similarity.shingles import shingle

_WORDS = """
the of and to in is was for on that with as by at from his her it an be this are which or have had one not
but all were they when there can more been has who their if will would also no out other into time only some
new could these two may first then do any like my now over such our man me even most made after many before
must through back years where much your way well down should because each just those people how too little
state good very make world still own see men work long here get both between life being under never day same
another know while last might us great old year off come since against go came right used take three river
stone garden window market winter letter music doctor village silver forest kitchen harbor engine bridge
island mountain station teacher morning evening summer paper bottle candle mirror pocket basket ladder
hammer rabbit turtle pencil ribbon button carpet blanket pillow saddle anchor castle tunnel meadow valley
desert ocean planet rocket lantern compass journey harvest thunder shadow whisper promise victory comfort
courage wisdom freedom justice balance pattern measure network signal channel process system method theory
question answer reason result effect source record report review detail region season
"""
VOCABULARY = np.array(_WORDS.split())  # real English words, common and less common


def words(rng: np.random.Generator, n: int) -> list[str]:
    return list(VOCABULARY[rng.integers(0, len(VOCABULARY), n)])


def replace(rng: np.random.Generator, text: list[str], share: float) -> list[str]:
    out = list(text)
    for i in rng.choice(len(out), round(share * len(out)), replace=False):
        out[i] = "".join(rng.choice(list("bcdfgklmnprstvz"), 7))  # a word no text has
    return out


def pairs_of(m: object) -> set[tuple[int, int]]:
    return set(zip(m.query.tolist(), m.index.tolist(), strict=True))  # type: ignore[attr-defined]


def test_five_percent_of_words_replaced_is_flagged_by_resemblance() -> None:
    rng = np.random.default_rng(1)
    originals = [words(rng, 300) for _ in range(30)]
    copies = [replace(rng, t, 0.05) for t in originals]
    texts = [" ".join(t) for t in originals + copies]
    m = text_matches(texts, np.arange(30, 60), np.arange(30))
    assert pairs_of(m) == {(30 + i, i) for i in range(30)}
    assert m.flagged.all()
    assert set(m.measure.tolist()) == {"resemblance"}
    assert (m.resemblance >= 0.5).all()
    assert not m.capped


def test_excerpt_of_longer_text_is_flagged_by_containment() -> None:
    rng = np.random.default_rng(2)
    long = [words(rng, 600) for _ in range(20)]
    excerpts = [t[100 + 10 * i : 160 + 10 * i] for i, t in enumerate(long)]
    m = text_matches([" ".join(t) for t in long + excerpts], np.arange(20, 40), np.arange(20))
    assert pairs_of(m) == {(20 + i, i) for i in range(20)}
    assert m.flagged.all()
    assert set(m.measure.tolist()) == {"containment"}
    assert (m.resemblance < 0.15).all() and (m.containment == 1.0).all()
    assert np.array_equal(m.verbatim_share, np.ones(20))


def test_reordered_sentences_are_flagged() -> None:
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(10):
        sentences = [" ".join(words(rng, int(rng.integers(8, 20)))).capitalize() + "." for _ in range(25)]
        shuffled = [sentences[i] for i in rng.permutation(len(sentences))]
        m = text_matches([" ".join(sentences), " ".join(shuffled)], [1], [0])
        found += int(m.flagged.sum())
    assert found == 10


def test_distinct_texts_on_the_same_vocabulary_are_not_even_grey() -> None:
    rng = np.random.default_rng(4)
    # A skewed word distribution, like a topic's: a few words are very frequent.
    weights = 1.0 / np.arange(1, len(VOCABULARY) + 1)
    texts = [" ".join(rng.choice(VOCABULARY, 300, p=weights / weights.sum())) for _ in range(300)]
    m = text_matches(texts, np.arange(250, 300), np.arange(250))
    assert len(m.query) == 0
    assert (m.verbatim_share == 0).all()
    assert len(text_matches(texts, np.arange(300), None, same=True).query) == 0


def test_spelling_variants_are_the_same_text() -> None:
    base = " ".join(words(np.random.default_rng(5), 80))
    variant = base.upper().replace(" ", " ,  ") + " !"
    m = text_matches([base, variant], [1], [0])
    assert m.resemblance.tolist() == [1.0] and m.flagged.tolist() == [True]


def test_plan_meets_the_recall_at_the_threshold_with_the_fewest_bands() -> None:
    for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        bands, rows = plan(t, 0.99, 128)
        assert bands * rows <= 128
        assert recall_curve(bands, rows, t) >= 0.99
        # One more row per band (with the bands that then fit) would miss the guarantee.
        assert recall_curve(128 // (rows + 1), rows + 1, t) < 0.99
    assert plan(0.5) == (42, 3)
    with pytest.raises(ValueError):
        plan(0.01, 0.999, 4)


def test_pairs_at_the_threshold_are_found_as_planned() -> None:
    rng = np.random.default_rng(6)
    n_pairs, texts = 300, []
    for _ in range(n_pairs):
        shared = words(rng, 201)
        # Each text: 201 shared words + 99 of its own gives Jaccard of 5-grams close to 0.5.
        texts.append(" ".join(shared + replace(rng, words(rng, 99), 1.0)))
        texts.append(" ".join(replace(rng, words(rng, 99), 1.0) + shared))
    settings = TextSettings(verbatim=10_000)  # no long n-gram: LSH alone must find them
    m = text_matches(texts, np.arange(1, 2 * n_pairs, 2), np.arange(0, 2 * n_pairs, 2), settings)
    true = m.index == m.query - 1
    assert np.abs(m.resemblance[true] - 0.5).max() < 0.02
    assert true.sum() >= 0.97 * n_pairs


def test_giant_cluster_stays_bounded() -> None:
    rng = np.random.default_rng(7)
    base = words(rng, 300)
    texts = []
    for i in range(2000):
        t = list(base)
        t[i % 300] = f"w{i}"
        texts.append(" ".join(t))
    settings = TextSettings()
    same = text_matches(texts, np.arange(2000), None, settings, same=True)
    cross = text_matches(texts, np.arange(1000, 2000), np.arange(1000), settings)
    limit = 2 * settings.max_candidates
    assert len(same.query) <= 2000 * limit and len(cross.query) <= 1000 * limit
    assert np.unique(np.concatenate((same.query, same.index))).size == 2000  # everyone found a match
    assert np.unique(cross.query).size == 1000 and cross.flagged.all()
    assert np.bincount(cross.query - 1000).max() <= limit
    assert same.capped and cross.capped  # the bound is said, not silent


def test_verbatim_share_is_exact() -> None:
    rng = np.random.default_rng(8)
    source = words(rng, 400)
    query = source[50:110] + replace(rng, words(rng, 53), 1.0)  # 113 words: 101 long n-grams, 48 inside
    m = text_matches([" ".join(source), " ".join(query), "just a few words here"], [1, 2], [0])
    assert m.verbatim_share[0] == pytest.approx(48 / 101)
    assert np.isnan(m.verbatim_share[1])


def test_same_set_pairs_are_listed_once_in_order() -> None:
    rng = np.random.default_rng(9)
    a = words(rng, 200)
    texts = [" ".join(a), " ".join(words(rng, 200)), " ".join(replace(rng, a, 0.02)), " ".join(a[::-1])]
    m = text_matches(texts, [3, 2, 1, 0], None, same=True)
    assert pairs_of(m) == {(0, 2)}
    assert (m.query < m.index).all()
    assert m.verbatim_share[3] > 0.7  # text 0's long n-grams are mostly in text 2 ...
    assert m.verbatim_share[0] == 0.0  # ... and text 3 (reversed) shares none: its own do not count


def test_truncated_texts_are_compared_on_their_start_and_reported() -> None:
    rng = np.random.default_rng(10)
    head = " ".join(words(rng, 100))
    texts = [head + " " + " ".join(words(rng, 900)), head + " " + " ".join(words(rng, 900))]
    settings = TextSettings(max_chars=len(head))
    m = text_matches(texts, [1], [0], settings)
    assert m.truncated.tolist() == [True, True] and m.words.tolist() == [100, 100]
    assert m.flagged.tolist() == [True] and m.resemblance.tolist() == [1.0]
    assert len(text_matches(texts, [1], [0]).query) == 0


def test_empty_and_missing_texts_match_nothing() -> None:
    texts = [None, "", "  ?! ", None, ""]
    m = text_matches(texts, [0, 1, 2], [3, 4])
    assert len(m.query) == 0
    assert m.empty.all() and (m.words == 0).all()
    assert np.isnan(m.verbatim_share).all()


def test_short_caption_inside_a_long_text_is_not_flagged_by_containment() -> None:
    rng = np.random.default_rng(11)
    long = words(rng, 400)
    caption = long[10:25]  # 15 words: long enough to be looked up, too short for containment to judge
    m = text_matches([" ".join(long), " ".join(caption)], [1], [0])
    assert len(m.query) == 0
    assert m.verbatim_share.tolist() == [1.0]
    assert text_matches([" ".join(long), " ".join(caption)], [1], [0], TextSettings(min_words=15)).flagged.all()


def test_results_are_deterministic_and_sorted() -> None:
    rng = np.random.default_rng(12)
    base = [words(rng, 150) for _ in range(40)]
    texts = [" ".join(t) for t in base] + [" ".join(replace(rng, base[i % 40], 0.03)) for i in range(60)]
    first = text_matches(texts, np.arange(40, 100)[::-1], np.arange(40))
    second = text_matches(texts, np.arange(40, 100)[::-1], np.arange(40))
    assert all(
        np.array_equal(getattr(first, f), getattr(second, f), equal_nan=f == "verbatim_share")
        for f in ("query", "index", "resemblance", "containment", "measure", "flagged", "verbatim_share")
    )
    order = np.lexsort((first.index, first.query))
    assert np.array_equal(order, np.arange(len(order))) and len(order) == 60


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="unit numbers"):
        text_matches(["a"], [1], [0])
    with pytest.raises(ValueError, match="review"):
        TextSettings(review=0.6, threshold=0.5)


def test_signature_slots_agree_as_often_as_the_resemblance_even_for_short_texts() -> None:
    rng = np.random.default_rng(13)
    texts = []
    for _ in range(300):
        shared = words(rng, 24)
        texts += [
            " ".join(shared + replace(rng, words(rng, 10), 1.0)),
            " ".join(replace(rng, words(rng, 10), 1.0) + shared),
        ]
    sh = shingle(texts)
    sig = signatures(sh.short, 128)
    assert (sig != 0xFFFFFFFF).all()  # every slot filled (densified), though a text has ~30 shingles
    agree = (sig[0::2] == sig[1::2]).mean()
    exact = []
    for i in range(0, len(texts), 2):
        a = sh.short.values[sh.short.offsets[i] : sh.short.offsets[i + 1]]
        b = sh.short.values[sh.short.offsets[i + 1] : sh.short.offsets[i + 2]]
        exact.append(len(np.intersect1d(a, b)) / len(np.union1d(a, b)))
    assert abs(agree - np.mean(exact)) < 0.02


def test_a_text_repeating_itself_has_no_verbatim_share_on_its_own() -> None:
    rng = np.random.default_rng(14)
    passage = words(rng, 40)
    texts = [" ".join(passage + passage), " ".join(words(rng, 80))]
    m = text_matches(texts, [0, 1], None, same=True)
    assert m.verbatim_share.tolist() == [0.0, 0.0]


def test_small_work_blocks_give_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(15)
    base = [words(rng, 120) for _ in range(30)]
    texts = [" ".join(t) for t in base] + [" ".join(replace(rng, t, 0.05)) for t in base]
    texts += [" ".join(t[20:80]) for t in base]
    whole = text_matches(texts, np.arange(30, 90), np.arange(30))
    monkeypatch.setattr(minhash, "_BLOCK", 50)
    blocked = text_matches(texts, np.arange(30, 90), np.arange(30))
    assert len(whole.query) == 60 and whole.flagged.all()
    for f in ("query", "index", "resemblance", "containment", "measure", "verbatim_share"):
        assert np.array_equal(getattr(whole, f), getattr(blocked, f))


def test_boilerplate_counts_each_text_once_on_each_side() -> None:
    from auditor.similarity.minhash import boilerplate

    rng = np.random.default_rng(11)
    phrase = words(rng, 30)
    index = [" ".join(words(rng, 20) + phrase) for _ in range(6)]
    repeated = " ".join(words(rng, 20) + phrase * 10)  # one holdout text repeating the phrase: one document
    others = [" ".join(words(rng, 40)) for _ in range(4)]
    holding = [" ".join(words(rng, 20) + phrase) for _ in range(4)]
    # The phrase in 6 training texts and 4 holdout texts (one of them saying it ten times): not boilerplate.
    sh = shingle([*index, repeated, *holding[:3], *others[:1]], 5, 13)
    assert len(boilerplate(sh, np.arange(6, 11), np.arange(6), 5).short) == 0
    # In 5 holdout texts: boilerplate, the phrase's 26 shingles and 18 long n-grams and nothing else.
    sh = shingle([*index, repeated, *holding], 5, 13)
    both = boilerplate(sh, np.arange(6, 11), np.arange(6), 5)
    assert both.documents == 5 and len(both.short) == 26 and len(both.long) == 18
    # Frequent in training texts only (a text copied into many of them): not boilerplate.
    sh = shingle([*index, *others, repeated], 5, 13)
    assert len(boilerplate(sh, np.arange(6, 11), np.arange(6), 5).short) == 0
    assert boilerplate(sh, np.arange(6, 11), np.arange(6), None).documents == 0


def test_a_text_edited_into_a_few_copies_on_each_side_is_not_boilerplate() -> None:
    # 8 copies per side of one text, 2% of the words replaced in each: all frequent shingles, yet a leak.
    rng = np.random.default_rng(12)
    base = words(rng, 300)
    texts = [" ".join(replace(rng, base, 0.02)) for _ in range(16)] + [" ".join(words(rng, 300)) for _ in range(40)]
    query, index = np.r_[8:16, 36:56], np.r_[0:8, 16:36]
    m = text_matches(texts, query, index, TextSettings())
    assert m.boilerplate is not None and len(m.boilerplate.short) == 0  # below the default bar of 10 per side
    assert set(m.query[m.flagged].tolist()) == set(range(8, 16))
    five = text_matches(texts, query, index, TextSettings(boilerplate=5))  # a lower bar loses them
    assert len(set(five.query[five.flagged].tolist())) < 8


def test_a_text_edited_into_many_copies_on_each_side_of_a_larger_set_is_not_boilerplate() -> None:
    # 15 copies per side of one text (2% of the words replaced in each) among 150 other texts per side: above the
    # bar of 10 texts per side, yet a leak; a disclaimer is in a tenth of each side's texts or more.
    rng = np.random.default_rng(13)
    base = words(rng, 300)
    copies = [" ".join(replace(rng, base, 0.02)) for _ in range(30)]
    others = [" ".join(words(rng, 120)) for _ in range(300)]
    texts = copies + others
    query, index = np.r_[15:30, 180:330], np.r_[0:15, 30:180]
    m = text_matches(texts, query, index, TextSettings())
    assert m.boilerplate is not None and len(m.boilerplate.short) == 0
    assert set(m.query[m.flagged].tolist()) == set(range(15, 30))
