"""Word n-gram shingles of many texts at once: normalised with Arrow, hashed and combined with numpy.

Normalisation first decodes HTML character references ("don&#39;t" is "don't"), then deletes the characters a
reader does not see (format characters such as the soft hyphen, zero-width space and joiners, word joiner, byte
order mark and direction marks, and emoji variation selectors), so a word with a soft hyphen inside is the one
word the page shows, not two; then Unicode NFKC, then lower case (Arrow's ``utf8_lower``: simple case mapping,
so "ß" stays "ß"), then every run of characters that are not letters, digits or marks becomes one space, so
"Don't!" and "DON'T" both give the words "don", "t". Chinese and Japanese are written without spaces: each Han
ideograph and each Hiragana or Katakana character is a word of its own (as decontamination and dedup tools count
them), while Hangul, written with spaces, keeps its words. Texts are processed in chunks of bounded size, and each chunk
is a handful of whole-array operations: no Python loop runs per word or per shingle (only a text holding an
uncommon HTML reference is decoded in Python).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.manifest.hashing import fingerprint

VALUE_BITS = 52  # a shingle is a 52-bit hash: the top 12 bits of a sort key hold the text within its chunk
_VALUE_MASK = np.uint64((1 << VALUE_BITS) - 1)
_CHUNK_TEXTS = 1 << (64 - VALUE_BITS)
_CHUNK_CHARS = 8_000_000  # about 50 MB of working arrays per chunk
# Runs of non-word characters become one space; a lone space between words is left alone (far cheaper).
_SEPARATORS = r"[^\p{L}\p{N}\p{M} ][^\p{L}\p{N}\p{M}]*| [^\p{L}\p{N}\p{M}]+"
# Invisible characters, deleted before anything else: Unicode format characters (Cf) and variation selectors.
_INVISIBLE = r"[\p{Cf}\x{FE00}-\x{FE0F}\x{E0100}-\x{E01EF}]+"  # RE2, for Arrow
# The same set for Python's re (Cf as of Unicode 15), to find words in an original text for highlighting.
_INVISIBLE_PY = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\ufe00-\ufe0f\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"
)
# Han ideographs, Hiragana and Katakana (RE2's scripts, as of pyarrow 26) and the prolonged sound mark, each a word of
# its own with the combining marks after it. The same set for Python's re (a test holds the two equal), so that words
# found in an original text for highlighting are the normalised ones.
_CJK = r"[\p{Han}\p{Hiragana}\p{Katakana}\x{30FC}]\p{M}*"  # RE2, for Arrow
_CJK_PY = (
    "\u2e80-\u2e99\u2e9b-\u2ef3\u2f00-\u2fd5\u3005\u3007\u3021-\u3029\u3038-\u303b\u3041-\u3096\u309d-\u309f"
    "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u32d0-\u32fe\u3300-\u3357\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufa6d"
    "\ufa70-\ufad9\uff66-\uff6f\uff71-\uff9d\U00016fe2-\U00016fe3\U00016ff0-\U00016ff1\U0001aff0-\U0001aff3"
    "\U0001aff5-\U0001affb\U0001affd-\U0001affe\U0001b000-\U0001b122\U0001b132\U0001b150-\U0001b152\U0001b155"
    "\U0001b164-\U0001b167\U0001f200\U00020000-\U0002a6df\U0002a700-\U0002b739\U0002b740-\U0002b81d"
    "\U0002b820-\U0002cea1\U0002ceb0-\U0002ebe0\U0002ebf0-\U0002ee5d\U0002f800-\U0002fa1d\U00030000-\U0003134a"
    "\U00031350-\U000323af"
)
# The kana among them (Hiragana, Katakana and the prolonged sound mark), which weigh less than a Han character.
_KANA = r"[\p{Hiragana}\p{Katakana}\x{30FC}]"  # RE2, for Arrow
_KANA_PY = (
    "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u32d0-\u32fe\u3300-\u3357\uff66-\uff6f"
    "\uff71-\uff9d\U0001aff0-\U0001aff3\U0001aff5-\U0001affb\U0001affd-\U0001affe\U0001b000-\U0001b122\U0001b132"
    "\U0001b150-\U0001b152\U0001b155\U0001b164-\U0001b167\U0001f200"
)
# Parts of a word a span's word weighs towards its length. Measured on the zh_CN and ja translation catalogues
# installed with the OS (bench/README.md §20): 1.6 Chinese and 2.5 Japanese characters an English word, and
# Japanese verb endings in kana shared by chance far more often than Han characters are.
WORD_PARTS = 6
HAN_PARTS = 3  # a Han character weighs half a word
KANA_PARTS = 2  # a kana character, a third
_KANA_MARKS_PY = "\u3099\u309a"  # combining voiced marks: not word characters for Python's re
_LETTER_PY = rf"[^\W_{_CJK_PY}]"  # a word character that is not CJK
# A word: one CJK character, or a run of other word characters with invisible characters inside it.
WORD_PATTERN = rf"[{_CJK_PY}][{_KANA_MARKS_PY}]*|{_LETTER_PY}+(?:[{_INVISIBLE_PY}]+{_LETTER_PY}+)*"
_WORD = re.compile(WORD_PATTERN)
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE_PY}]+")
# An HTML character reference, with its semicolon: "&#39;", "&#x27;", "&amp;", "&eacute;" (not "R&D" or "&c").
_REFERENCE = r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
_REFERENCE_RE = re.compile(_REFERENCE)
# Where a text's words lie in it as written: runs of word characters, the invisible ones and references
# ("don&#39;t", "AT&amp;T", "&amp;#39;" escaped twice), each run normalised whole into its words.
# A CJK character is a run of its own.
WRITTEN_WORDS = (
    rf"[{_CJK_PY}][{_KANA_MARKS_PY}]*|"
    rf"(?:{_LETTER_PY}|[{_INVISIBLE_PY}]|&(?:amp;)*(?:#[0-9]{{1,7}}|#[xX][0-9a-fA-F]{{1,6}}|[A-Za-z][A-Za-z0-9]{{1,31}});)+"
)
# The references scraped text holds most (quotes, apostrophes, dashes, spaces), each as HTML decodes it; "&amp;"
# first, so that "&amp;#39;" (escaped twice) is decoded whole in one pass.
_COMMON_REFERENCES = (
    ("&amp;", "&"),
    *((r, "'") for r in ("&#39;", "&#039;", "&#x27;", "&apos;")),
    *((r, '"') for r in ("&quot;", "&#34;", "&#x22;")),
    ("&lt;", "<"),
    ("&gt;", ">"),
    *((r, "\u00a0") for r in ("&nbsp;", "&#160;", "&#xa0;")),
    *((r, "\u2019") for r in ("&rsquo;", "&#8217;")),
    *((r, "\u2018") for r in ("&lsquo;", "&#8216;")),
    *((r, "\u201c") for r in ("&ldquo;", "&#8220;")),
    *((r, "\u201d") for r in ("&rdquo;", "&#8221;")),
    *((r, "\u2014") for r in ("&mdash;", "&#8212;")),
    *((r, "\u2013") for r in ("&ndash;", "&#8211;")),
    *((r, "\u2026") for r in ("&hellip;", "&#8230;")),
)
_UNESCAPES = 3  # passes: text escaped twice ("&amp;#39;") is common in scraped pages; more is not worth a loop
_C = np.uint64(0x100000001B3)  # odd multiplier that folds word hashes into an n-gram hash
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)


def mix(h: np.ndarray) -> np.ndarray:
    """The murmur3 64-bit finalizer (a bijection), applied to a copy."""
    h = h.astype(np.uint64, copy=True)
    with np.errstate(over="ignore"):
        h ^= h >> np.uint64(33)
        h *= _M1
        h ^= h >> np.uint64(33)
        h *= _M2
        h ^= h >> np.uint64(33)
    return h


@dataclass(frozen=True)
class Shingles:
    """Per text, shingle hashes in CSR form: text t owns values[offsets[t]:offsets[t+1]]."""

    offsets: np.ndarray  # int64, len = texts + 1
    values: np.ndarray  # uint64 below 2**VALUE_BITS

    def sizes(self) -> np.ndarray:
        """Number of distinct shingles per text."""
        return np.diff(self.offsets)


@dataclass(frozen=True)
class TextShingles:
    """Words, masks and two shingle sets (short n-grams for similarity, long ones for verbatim overlap)."""

    words: np.ndarray  # int64 words per text after normalisation (and truncation)
    truncated: np.ndarray  # bool: text was longer than max_chars and was cut there
    empty: np.ndarray  # bool: None, empty, or no word at all after normalisation
    short: Shingles  # sorted and distinct per text
    long: Shingles  # in text order, repeats kept (they are made distinct where the index is built)


def as_column(texts: Sequence[str | None] | pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    """The texts as an Arrow chunked array without copying Arrow input (None stays null)."""
    if isinstance(texts, pa.Array):
        texts = pa.chunked_array([texts])
    if isinstance(texts, pa.ChunkedArray):
        if pa.types.is_dictionary(texts.type):  # lengths and slices need plain strings
            return pa.chunked_array([c.dictionary_decode() for c in texts.chunks], texts.type.value_type)
        return texts
    return pa.chunked_array([pa.array(list(texts), pa.large_string())])


def _as_large_string(texts: pa.ChunkedArray) -> pa.Array:
    """One slice of texts as a single large_string array."""
    array = texts.combine_chunks() if texts.num_chunks else pa.array([], pa.large_string())
    return array.cast(pa.large_string())


def normalise(texts: pa.Array, max_chars: int) -> tuple[pa.Array, np.ndarray]:
    """Normalised texts (words separated by one space, nulls for empty) and the mask of truncated texts."""
    truncated = pc.fill_null(pc.greater(pc.utf8_length(texts), max_chars), False)
    out = _unescape(pc.utf8_slice_codeunits(texts, 0, max_chars))
    # Deleted before NFKC, so that a mark parted from its letter by a soft hyphen composes with it again. Every
    # such character is outside ASCII: texts that are all ASCII (most, in English) skip the regular expression.
    wide = np.flatnonzero(~pc.fill_null(pc.string_is_ascii(out), True).to_numpy(zero_copy_only=False))
    if len(wide):
        seen = pc.replace_substring_regex(out.take(pa.array(wide)), _INVISIBLE, "")
        mask = np.zeros(len(out), bool)
        mask[wide] = True
        out = pc.replace_with_mask(out, pa.array(mask), seen)
    out = pc.utf8_normalize(out, form="NFKC")
    out = pc.utf8_lower(out)
    if len(wide):  # after NFKC, which makes ideographs of some symbols ("㊀" is "一"); ASCII texts hold none
        some = wide[_cjk_blocks(out.take(pa.array(wide)))]
        if len(some):
            spaced = pc.replace_substring_regex(out.take(pa.array(some)), f"({_CJK})", r" \1 ")
            mask = np.zeros(len(out), bool)
            mask[some] = True
            out = pc.replace_with_mask(out, pa.array(mask), spaced)
    out = pc.replace_substring_regex(out, _SEPARATORS, " ")
    out = pc.utf8_trim(out, characters=" ")
    out = pc.if_else(pc.equal(out, ""), pa.scalar(None, pa.large_string()), out)
    return out, truncated.to_numpy(zero_copy_only=False)


def word_counts(texts: pa.Array) -> np.ndarray:
    """Words per text (int64, 0 for null). ASCII texts by a count of runs of word characters; the others as
    `normalise` splits them, since RE2's ``\\w`` is ASCII only: a Korean or Chinese text would count no word."""
    counts = pc.count_substring_regex(texts, r"\w+").fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    wide = np.flatnonzero(~pc.fill_null(pc.string_is_ascii(texts), True).to_numpy(zero_copy_only=False))
    if len(wide):
        norm, _ = normalise(texts.take(pa.array(wide)).cast(pa.large_string()), 1 << 40)
        spaces = pc.fill_null(pc.count_substring(norm, " "), -1).to_numpy(zero_copy_only=False)
        counts[wide] = spaces.astype(np.int64) + 1
    return counts


def _unescape(texts: pa.Array) -> pa.Array:
    """The texts with their HTML character references replaced by the characters they stand for, so a text scraped
    with its markup escaped ("don&#39;t") has the words of its plain copy. The common references are replaced by
    Arrow; Python decodes only what is left in the texts that hold one (a call per reference costs microseconds)."""
    for _ in range(_UNESCAPES):
        # A reference starts with "&": a scan of the bytes for it is many times faster than a regex over all texts.
        amp = _holding(texts, ord("&"))
        if not len(amp):
            break
        found = pc.fill_null(pc.match_substring_regex(texts.take(pa.array(amp)), _REFERENCE), False)
        flags = np.zeros(len(texts), bool)
        flags[amp] = found.to_numpy(zero_copy_only=False)
        has = pa.array(flags)
        which = np.flatnonzero(has.to_numpy(zero_copy_only=False))
        if not len(which):
            break
        some = texts.take(pa.array(which))
        for reference, character in _COMMON_REFERENCES:
            some = pc.replace_substring(some, reference, character)
        left = np.flatnonzero(pc.fill_null(pc.match_substring_regex(some, _REFERENCE), False).to_numpy(False))
        if len(left):
            decoded = [_REFERENCE_RE.sub(_decode, t) for t in some.take(pa.array(left)).to_pylist()]
            mask = np.zeros(len(some), bool)
            mask[left] = True
            some = pc.replace_with_mask(some, pa.array(mask), pa.array(decoded, some.type))
        texts = pc.replace_with_mask(texts, has, some)
    return texts


def _holding(texts: pa.Array, byte: int) -> np.ndarray:
    """The positions of the texts whose UTF-8 bytes hold ``byte`` (an ASCII byte: never inside a longer
    character), sorted, from one scan of the data buffer."""
    wide = pa.types.is_large_string(texts.type)
    if not (wide or pa.types.is_string(texts.type)):
        raise TypeError(f"expected strings, got {texts.type}")
    if not len(texts):
        return np.zeros(0, dtype=np.int64)
    buffers = texts.buffers()
    size = 8 if wide else 4
    offsets = np.frombuffer(
        buffers[1], dtype=np.int64 if wide else np.int32, count=len(texts) + 1, offset=texts.offset * size
    )
    if buffers[2] is None or offsets[-1] == offsets[0]:
        return np.zeros(0, dtype=np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8, count=int(offsets[-1]))
    found = np.flatnonzero(data[int(offsets[0]) :] == byte) + int(offsets[0])
    return np.unique(np.searchsorted(offsets, found, side="right") - 1)


# The UTF-8 lead byte and the range of the byte after it of every block that holds a CJK character after NFKC:
# U+2E80-2FFF, U+3000-9FFF, U+F900-FAFF, U+16FE0-16FFF, U+1A000-1BFFF (kana) and U+20000-33FFF.
_CJK_BYTES = ((0xE2, 0xBA, 0xBF), (0xE3, 0x80, 0xBF), *((b, 0x80, 0xBF) for b in range(0xE4, 0xEA)), (0xEF, 0xA4, 0xAB))
_CJK_BYTES_4 = ((0x96, 0xBF), (0x9A, 0x9B), (0xA0, 0xB3))  # after 0xF0, the second byte; the third for 0x96


def _cjk_blocks(texts: pa.Array) -> np.ndarray:
    """The positions of the texts holding a character of a CJK block (also its punctuation), from one scan of
    the bytes: far cheaper than a regular expression over Unicode scripts, and most non-ASCII text (accented
    Latin, Cyrillic, Hangul, curly quotes, emoji) is in none of these blocks."""
    texts = texts.cast(pa.large_string())
    if not len(texts) or texts.buffers()[2] is None:
        return np.zeros(0, dtype=np.int64)
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64, count=len(texts) + 1, offset=texts.offset * 8)
    data = np.frombuffer(texts.buffers()[2], dtype=np.uint8, count=int(offsets[-1]))
    lead = np.flatnonzero((data >= 0xE2) & (data <= 0xF0))  # every CJK block's lead byte is in this range
    lead = lead[(lead >= offsets[0]) & (lead + 2 < len(data))]
    first, second, third = data[lead], data[lead + 1], data[lead + 2]
    hit = np.zeros(len(lead), bool)
    for byte, low, high in _CJK_BYTES:
        hit |= (first == byte) & (second >= low) & (second <= high)
    four = first == 0xF0
    hit |= four & (second == 0x96) & (third == _CJK_BYTES_4[0][1])
    for low, high in _CJK_BYTES_4[1:]:
        hit |= four & (second >= low) & (second <= high)
    return np.unique(np.searchsorted(offsets, lead[hit], side="right") - 1)


def _decode(match: re.Match[str]) -> str:
    return html.unescape(match.group())


def _words(norm: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Hash of every word (flat) and the number of words of each text."""
    hashes, counts, _ = _weighed_words(norm, weigh=False)
    return hashes, counts


def _weighed_words(norm: pa.Array, weigh: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Hash of every word (flat), the number of words of each text and, when asked and some word is a CJK
    character, every word's weight in parts of a word (`WORD_PARTS`, `HAN_PARTS`, `KANA_PARTS`)."""
    spaced = pc.binary_join_element_wise(norm, pa.scalar(" ", pa.large_string()), pa.scalar("", pa.large_string()))
    spaced = spaced.cast(pa.large_string())
    n = len(spaced)
    offsets = np.frombuffer(spaced.buffers()[1], dtype=np.int64, count=n + 1, offset=spaced.offset * 8)
    base = int(offsets[0])
    buffer = spaced.buffers()[2]
    if buffer is None or offsets[-1] == base:
        return np.zeros(0, np.uint64), np.zeros(n, np.int64), None
    data = np.frombuffer(buffer, dtype=np.uint8)[base : int(offsets[-1])]
    space = data == 32
    # Every word is followed by exactly one space, so a word starts after a space (or at 0).
    starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))
    counts = np.diff(np.searchsorted(starts, offsets - base))
    word_offsets = np.append(starts, len(data)).astype(np.int64)
    words = pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(word_offsets), pa.py_buffer(data))
    # Each distinct word is hashed once; a word's hash includes its trailing space, identically everywhere.
    encoded = pc.dictionary_encode(words)
    hashes, _ = fingerprint(pa.chunked_array([encoded]), second=False)
    weights = None
    if weigh and bool((data >= 0xE2).any()):  # every CJK character's first byte; ASCII chunks stop here
        # A CJK character is always a word of its own: the distinct words that start with one are those.
        cjk = pc.match_substring_regex(encoded.dictionary, f"^{_CJK}").to_numpy(zero_copy_only=False)
        if cjk.any():
            kana = pc.match_substring_regex(encoded.dictionary, f"^{_KANA}").to_numpy(zero_copy_only=False)
            parts = np.where(kana, KANA_PARTS, np.where(cjk, HAN_PARTS, WORD_PARTS)).astype(np.int64)
            weights = parts[encoded.indices.to_numpy(zero_copy_only=False)]
    return hashes, counts.astype(np.int64), weights


def _weighed_grams(
    hashes: np.ndarray, counts: np.ndarray, weights: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per text, in text order, the hash of each run of words from each word on that weighs ``n`` words (a Han
    character half a word, a kana character a third), as `_grams` gives for n words where no CJK is."""
    ends = np.cumsum(counts)
    text_of = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    weight = np.concatenate(([0], np.cumsum(weights)))
    stop = np.searchsorted(weight, weight[:-1] + WORD_PARTS * n, "left")  # the first word past each run
    whole = stop <= ends[text_of]  # a run that does not cross its text's end
    span = stop - np.arange(len(hashes))
    gram = np.zeros(len(hashes), np.uint64)
    h = np.zeros(len(hashes), np.uint64)
    with np.errstate(over="ignore"):
        for k in range(min(WORD_PARTS * n // KANA_PARTS, len(h))):  # the most words a run holds
            h[: len(h) - k] *= _C
            h[: len(h) - k] += hashes[k:]
            done = span == k + 1
            gram[done] = h[done]
    text, gram = text_of[whole], gram[whole]
    key = (text.astype(np.uint64) << np.uint64(VALUE_BITS)) | (mix(gram) >> np.uint64(64 - VALUE_BITS))
    sizes = np.bincount(text, minlength=len(counts))
    return sizes.astype(np.int64), key & _VALUE_MASK


def _grams(
    hashes: np.ndarray, counts: np.ndarray, n: int, partial: bool, distinct: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Per text, n-gram hashes (sorted and distinct when asked); texts of fewer words give one shorter gram
    when partial."""
    nt = len(counts)
    ends = np.cumsum(counts)
    first = ends - counts
    # Rolling combination over the flat word array with shifted slices: no gather per word.
    h = np.zeros(len(hashes), np.uint64)
    with np.errstate(over="ignore"):
        for k in range(min(n, len(h))):  # fewer words than n in all: only the shifts that exist
            h[: len(h) - k] *= _C
            h[: len(h) - k] += hashes[k:]
    per_text = np.maximum(counts - n + 1, 0)
    text = np.repeat(np.arange(nt, dtype=np.int64), per_text)
    starts = np.concatenate(([0], np.cumsum(per_text)[:-1]))
    gram = h[np.repeat(first - starts, per_text) + np.arange(len(text))]
    if partial:
        few = np.flatnonzero((counts > 0) & (counts < n))
        if len(few):
            short = np.zeros(len(few), np.uint64)
            padded = np.concatenate((hashes, np.zeros(n, np.uint64)))
            with np.errstate(over="ignore"):
                for k in range(n - 1):
                    short = np.where(k < counts[few], short * _C + padded[first[few] + k], short)
            text, gram = np.concatenate((text, few)), np.concatenate((gram, short))
    key = (text.astype(np.uint64) << np.uint64(VALUE_BITS)) | (mix(gram) >> np.uint64(64 - VALUE_BITS))
    if distinct:
        key.sort()
        if len(key):
            key = key[np.concatenate(([True], key[1:] != key[:-1]))]
    elif partial:
        key = key[np.argsort(text, kind="stable")]
    sizes = np.bincount((key >> np.uint64(VALUE_BITS)).astype(np.int64), minlength=nt)
    return sizes.astype(np.int64), key & _VALUE_MASK


def _chunks(lengths: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges of texts of bounded total length and count."""
    bounds, start, total = [], 0, 0
    for i, size in enumerate(lengths.tolist()):  # one step per text, not per word
        if i > start and (total + size > _CHUNK_CHARS or i - start >= _CHUNK_TEXTS):
            bounds.append((start, i))
            start, total = i, 0
        total += size
    bounds.append((start, len(lengths)))
    return bounds


def shingle(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray, n: int = 5, long_n: int = 13, max_chars: int = 1_000_000
) -> TextShingles:
    """Normalise, split into words and shingle every text (word n-grams and long n-grams)."""
    if n < 1 or long_n < 1 or max_chars < 1:
        raise ValueError("n-gram sizes and max_chars must be at least 1")
    column = as_column(texts)
    lengths = (
        pc.fill_null(pc.utf8_length(column), 0).to_numpy().astype(np.int64) if len(column) else np.zeros(0, np.int64)
    )

    def one(bounds: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        a, b = bounds
        norm, cut = normalise(_as_large_string(column.slice(a, b - a)), max_chars)
        hashes, counts, weights = _weighed_words(norm)
        short_sizes, short_values = _grams(hashes, counts, n, partial=True, distinct=True)
        if weights is None:
            long_sizes, long_values = _grams(hashes, counts, long_n, partial=False, distinct=False)
        else:  # verbatim passages of Chinese or Japanese: 13 characters are shared by chance far too often
            long_sizes, long_values = _weighed_grams(hashes, counts, weights, long_n)
        return counts, cut, short_sizes, short_values, long_sizes, long_values

    # Two chunks at a time: Arrow and numpy release the GIL, and memory stays at two chunks' worth.
    # A text of c characters has at most (c + 1) // 2 words, hence n-grams: buffers of that size are
    # reserved but only touched as filled, so memory holds the shingles once (no concatenation copy).
    capacity = int(((np.minimum(lengths, max_chars) + 1) // 2).sum())
    short, long = _Buffer(capacity), _Buffer(capacity)
    words, truncated, short_sizes, long_sizes = [], [], [], []
    # Two chunks at a time: Arrow and numpy release the GIL, and memory stays at two chunks' worth.
    with ThreadPoolExecutor(max_workers=2) as pool:
        for counts, cut, s_sizes, s_values, l_sizes, l_values in pool.map(one, _chunks(np.minimum(lengths, max_chars))):
            words.append(counts)
            truncated.append(cut)
            short_sizes.append(s_sizes)
            long_sizes.append(l_sizes)
            short.add(s_values)
            long.add(l_values)
    word_counts = np.concatenate(words) if words else np.zeros(0, np.int64)

    def csr(sizes: list[np.ndarray], values: _Buffer) -> Shingles:
        offsets = np.concatenate(([0], np.cumsum(np.concatenate(sizes)) if sizes else [])).astype(np.int64)
        return Shingles(offsets, values.array())

    return TextShingles(
        words=word_counts,
        truncated=np.concatenate(truncated).astype(bool) if truncated else np.zeros(0, bool),
        empty=word_counts == 0,
        short=csr(short_sizes, short),
        long=csr(long_sizes, long),
    )


class _Buffer:
    """An append-only uint64 array over a reserved capacity (grows by copying only if the bound was wrong)."""

    def __init__(self, capacity: int) -> None:
        self._data = np.empty(max(capacity, 1), np.uint64)
        self._size = 0

    def add(self, values: np.ndarray) -> None:
        end = self._size + len(values)
        if end > len(self._data):  # NFKC can expand a character into several words (e.g. fractions)
            grown = np.empty(max(end, 2 * len(self._data)), np.uint64)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : end] = values
        self._size = end

    def array(self) -> np.ndarray:
        return self._data[: self._size]


def shared_spans(a: str, b: str, n: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans of a and of b covered by word n-grams the two share (normalised as in `shingle`).

    For highlighting in a report: the caller caps the texts to a few KB. Overlapping spans are merged.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    tokens_a, tokens_b = [_tokens(a), _tokens(b)]
    hashes_a, hashes_b = _gram_hashes(tokens_a[1], n), _gram_hashes(tokens_b[1], n)
    return _spans(tokens_a[0], np.isin(hashes_a, hashes_b), n), _spans(tokens_b[0], np.isin(hashes_b, hashes_a), n)


def _tokens(text: str) -> tuple[np.ndarray, list[str]]:
    # Positions refer to the original text, so words are found there and normalised afterwards.
    matches = list(_WORD.finditer(text))
    spans = np.array([m.span() for m in matches], dtype=np.int64).reshape(-1, 2)
    return spans, [m.group() for m in matches]


def _gram_hashes(words: list[str], n: int) -> np.ndarray:
    if len(words) < n:
        return np.zeros(0, np.uint64)
    plain = [_INVISIBLE_RE.sub("", w) for w in words]
    norm = pc.utf8_lower(pc.utf8_normalize(pa.array(plain, pa.large_string()), form="NFKC"))
    hashes, _ = fingerprint(pa.chunked_array([norm]), second=False)
    h = np.zeros(len(words) - n + 1, np.uint64)
    with np.errstate(over="ignore"):
        for k in range(n):
            h = h * _C + hashes[k : k + len(h)]
    return h


def _spans(spans: np.ndarray, shared: np.ndarray, n: int) -> list[tuple[int, int]]:
    """Merge the character spans of the words covered by the shared n-grams into disjoint runs."""
    if not shared.any():
        return []
    cover = np.zeros(len(spans) + 1, np.int64)
    starts = np.flatnonzero(shared)
    np.add.at(cover, starts, 1)
    np.add.at(cover, starts + n, -1)
    covered = np.cumsum(cover)[: len(spans)] > 0
    edges = np.diff(np.concatenate(([0], covered.astype(np.int8), [0])))
    run_starts, run_ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return [(int(spans[s, 0]), int(spans[e, 1])) for s, e in zip(run_starts, run_ends, strict=True)]
