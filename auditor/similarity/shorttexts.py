"""Short texts compared across splits by their normalised words (case, accents and punctuation aside): the same
words, or the same words with one word added or removed ("Readability counts." / "readability counts to").

Shingles say nothing about a text of three words, and short texts coincide by chance: labels ("yes"), stock
phrases ("five stars"), product names. So a pair is an edited copy only when it cannot be a phrase the data
repeats: at least two words of two letters or more on the shorter side ("N/A" has none), neither side's
wording held by two rows of one split, and, for an added word, each side the other's only such neighbour
("very good" beside "very good value" and "very good price" is a stem, not a copy). Where texts one word apart
are as common inside splits as across them (names of product variants), added-word pairs are the data's
nature: listed for review, not flagged. A changed word is never compared: in two or three words it changes the
meaning ("very good product" / "very bad product", "Readability counts." / "Simplicity counts."). Equal
wordings that miss these conditions are listed for review; added-word pairs that miss them are not listed.

Cost grows with the texts: each text is looked up under its wording and, with one word left out, under each
shorter wording (at most ``min_words`` keys a text), and each text is paired with the first of a wording only.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.similarity.shingles import normalise

MIN_WORDS = 2  # words of two letters or more on the shorter side of a flagged pair: one is a label or a name
NATURE_PAIRS = 5  # added-word pairs inside splits from which their rate there is compared with the rate across

Parts = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _empty() -> Parts:
    none = np.zeros(0, dtype=np.int64)
    return none, none, np.zeros(0), np.zeros(0, dtype=object), np.zeros(0, dtype=bool), none


def _without_one_word(words: pa.ListArray, counts: np.ndarray, j: int) -> tuple[np.ndarray, pa.Array]:
    """The texts (their positions) of more than ``MIN_WORDS`` words that have a word ``j``, and each one's
    wording without it."""
    which = np.flatnonzero((counts > MIN_WORDS) & (counts > j))
    if not len(which):
        return which, pa.array([], pa.large_string())
    picked = words.take(pa.array(which))
    flat = pc.list_flatten(picked)
    sizes = counts[which]
    position = np.arange(len(flat)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    kept = flat.filter(pa.array(position != j))
    offsets = np.concatenate(([0], np.cumsum(sizes - 1))).astype(np.int32)
    return which, pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), kept), pa.scalar(" ", kept.type))


def short_pairs(per_split: np.ndarray, texts: list[str | None], words: np.ndarray, min_words: int) -> Parts:
    """Pairs (a, b, similarity, measure, flagged, 0) of units by wording, where the texts of fewer than
    ``min_words`` words (``words`` per unit) are short: the same wording (`normalised`; a text in two splits is
    paired with itself) or one word added (`word added`, the longer side may have ``min_words`` words);
    ``per_split`` holds each unit's rows per split."""
    short = np.flatnonzero(words < min_words)
    if not len(short):
        return _empty()
    # A text of min_words words is not short, but with one word left out it may be a short text's wording.
    members = np.concatenate((short, np.flatnonzero(words == min_words)))
    is_short = np.arange(len(members)) < len(short)
    forms, _ = normalise(_as_array([texts[i] for i in members]), 1 << 20)
    split = pc.split_pattern(forms.fill_null(""), " ")
    counts = pc.list_value_length(split).to_numpy(zero_copy_only=False).astype(np.int64)
    counts[~pc.is_valid(forms).to_numpy(zero_copy_only=False)] = 0
    counts[(counts > min_words) | (~is_short & (counts < min_words))] = 0  # wordings that are not what was asked
    # Words of one letter do not count towards MIN_WORDS: "N/A", "A/B", "U.S." are placeholders and names.
    letters = pc.utf8_length(pc.list_flatten(split)).to_numpy(zero_copy_only=False)
    owner = np.repeat(np.arange(len(members)), pc.list_value_length(split).to_numpy(zero_copy_only=False))
    solid = np.bincount(owner[letters > 1], minlength=len(members))
    keys, owners = [forms.cast(pa.large_string())], []
    for j in range(min_words):
        which, shorter = _without_one_word(split, counts, j)
        keys.append(shorter.cast(pa.large_string()))
        owners.append(which)
    encoded = pc.dictionary_encode(pa.concat_arrays(keys)).indices
    codes = encoded.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    form = np.where(counts > 0, codes[: len(members)], -1)  # each member's own wording (-1: none)
    n_forms = int(codes.max()) + 1 if len(codes) else 0
    if not (form >= 0).any():
        return _empty()
    # Rows of each wording per split: a wording two rows of one split hold is a phrase the data repeats.
    has = form >= 0
    rows = np.zeros((n_forms, per_split.shape[1]), dtype=np.int64)
    np.add.at(rows, form[has], per_split[members[has]])
    repeated: np.ndarray = np.asarray((rows > 1).any(axis=1))
    head = np.full(n_forms, -1, dtype=np.int64)  # the first short member of each wording
    order = np.flatnonzero(has & is_short)[::-1]
    head[form[order]] = order
    spread = (rows > 0).sum(axis=1) > 1
    same = _same_wording(members, per_split, np.where(is_short, form, -1), solid, head, repeated, spread)
    variant_owner = np.concatenate(owners)
    variant = codes[len(members) :]
    added = _word_added(members, per_split, form, counts, solid, head, repeated, variant_owner, variant)
    a, b, similarity, measure, flagged, distance = (np.concatenate(p) for p in zip(same, added, strict=True))
    return a, b, similarity, measure, flagged, distance


def _as_array(texts: list[str | None]) -> pa.Array:
    return pa.array(texts, pa.large_string())


def _same_wording(
    members: np.ndarray,
    per_split: np.ndarray,
    form: np.ndarray,
    solid: np.ndarray,
    head: np.ndarray,
    repeated: np.ndarray,
    spread: np.ndarray,
) -> Parts:
    """Short texts whose wording lies in two splits, each paired with the first of its wording (and a text in
    two splits with itself); flagged when the wording has two words or more and no split repeats it."""
    short = np.flatnonzero((form >= 0) & spread[np.maximum(form, 0)])
    first = head[form[short]]
    alone = (per_split[members[short]] > 0).sum(axis=1) > 1
    a = np.concatenate([members[first[first != short]], members[short[alone]]])
    b = np.concatenate([members[short[first != short]], members[short[alone]]])
    at = np.concatenate([short[first != short], short[alone]])
    flagged = (solid[at] >= MIN_WORDS) & ~repeated[form[at]]
    return a, b, np.ones(len(a)), np.full(len(a), "normalised", dtype=object), flagged, np.zeros(len(a), np.int64)


def _word_added(
    members: np.ndarray,
    per_split: np.ndarray,
    form: np.ndarray,
    counts: np.ndarray,
    solid: np.ndarray,
    head: np.ndarray,
    repeated: np.ndarray,
    owner: np.ndarray,
    variant: np.ndarray,
) -> Parts:
    """Texts whose wording with one word left out is another text's wording, in another split: each other's
    only such neighbour, neither wording repeated within a split. Only these are kept."""
    hit = (variant >= 0) & (head[np.maximum(variant, 0)] >= 0)
    longer, shorter = owner[hit], head[variant[hit]]
    keep = (form[longer] >= 0) & (form[longer] != form[shorter])
    longer, shorter = longer[keep], shorter[keep]
    if not len(longer):
        return _empty()
    links = np.unique(np.stack((form[longer], form[shorter]), axis=1), axis=0)
    n_forms = len(head)
    per_longer = np.bincount(links[:, 0], minlength=n_forms)
    per_shorter = np.bincount(links[:, 1], minlength=n_forms)
    one_to_one = (per_longer[form[longer]] == 1) & (per_shorter[form[shorter]] == 1)
    rare = ~repeated[form[longer]] & ~repeated[form[shorter]]
    across = ((per_split[members[longer]] > 0) | (per_split[members[shorter]] > 0)).sum(axis=1) > 1
    candidate = np.flatnonzero(one_to_one & rare & (solid[shorter] >= MIN_WORDS))
    pairs, first = np.unique(np.stack((longer[candidate], shorter[candidate]), axis=1), axis=0, return_index=True)
    crossing = across[candidate[first]]
    longer, shorter = pairs[crossing, 0], pairs[crossing, 1]
    n = len(longer)
    natural = _by_nature(per_split, members[form >= 0], int((~crossing).sum()), n)
    return (
        members[shorter],
        members[longer],
        counts[shorter] / counts[longer],
        np.full(n, "word added", dtype=object),
        np.full(n, not natural, dtype=bool),
        np.zeros(n, np.int64),
    )


def _by_nature(per_split: np.ndarray, units: np.ndarray, within: int, across: int) -> bool:
    """Whether texts one word apart are as common inside a split as across splits (names of product variants,
    "Pixel 7" / "Pixel 7 Pro"): then such pairs across splits are the data's nature, not copies. Judged from
    ``NATURE_PAIRS`` pairs inside splits up, against what the texts per split make as likely across."""
    if within < NATURE_PAIRS:
        return False
    sizes = np.bincount(np.argmax(per_split[units] > 0, axis=1), minlength=per_split.shape[1]).astype(float)
    inside = float((sizes * (sizes - 1)).sum()) / 2
    between = (float(sizes.sum()) ** 2 - float((sizes**2).sum())) / 2
    return inside > 0 and across <= 2 * within * between / inside
