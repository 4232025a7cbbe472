"""Benchmark: Chinese and Japanese as words, on the translation catalogues installed with the OS.

    python bench/cjk_bench.py [--part spans neardup speed] [--languages zh_CN ja]

The gettext catalogues under /usr/share/locale hold real messages (msgid, English) and their translations
(msgstr): distinct texts on the same subjects, in three scripts, nothing downloaded. Three parts:

- spans: characters per English word, and the share of messages that share a span of n words (English) or n
  tokens (CJK characters) with a message of another catalogue: how long a CJK span must be to be as rare as
  an English one (the weights of a Han and a kana character);
- neardup: documents of six consecutive messages, every pair from two catalogues compared with
  near_duplicates' defaults, English against the translation;
- speed: the normalisation (`shingle`, `normal_words`) of English, accented and Chinese texts, median of 7.
"""

from __future__ import annotations

import argparse
import ast
import collections
import functools
import gettext
import statistics
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.similarity.minhash import text_matches
from auditor.similarity.ngrams import normal_words, word_parts
from auditor.similarity.shingles import WORD_PARTS, shingle

LOCALE = Path("/usr/share/locale")


def pairs(language: str) -> list[tuple[str, str, str]]:
    """(catalogue, English message, translation) of every translated message, each msgid once per catalogue."""
    out = []
    for path in sorted((LOCALE / language / "LC_MESSAGES").glob("*.mo")):
        try:
            with path.open("rb") as f:
                catalogue = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        except (OSError, ValueError):
            continue
        for k, v in catalogue.items():
            if isinstance(k, str) and k and isinstance(v, str) and v and k != v:
                out.append((path.name, k, v))
    return out


def tokens(texts: list[str]) -> list[list[str]]:
    norm = normal_words(pa.array(texts, pa.large_string()))[0].to_pylist()
    return [t.split(" ") if t else [] for t in norm]


def shared(toks: list[list[str]], files: list[str], n: int, chosen: list[int]) -> float:
    """The share of the chosen messages holding an n-token span that a message of another catalogue holds."""
    where: dict[tuple[str, ...], set[str]] = collections.defaultdict(set)
    for i, ws in enumerate(toks):
        for j in range(len(ws) - n + 1):
            where[tuple(ws[j : j + n])].add(files[i])
    hit = sum(any(len(where[tuple(toks[i][j : j + n])]) > 1 for j in range(len(toks[i]) - n + 1)) for i in chosen)
    return hit / max(len(chosen), 1)


def weighed_runs(ws: list[str], n: int) -> list[tuple[str, ...]]:
    """Every run of words from each word on that weighs n words (`ngrams.word_parts`), as the stages cut them."""
    parts = word_parts(ws)
    if parts is None:
        return [tuple(ws[j : j + n]) for j in range(len(ws) - n + 1)]
    weight = np.concatenate(([0], np.cumsum(parts)))
    stop = np.searchsorted(weight, weight[:-1] + WORD_PARTS * n, "left")
    return [tuple(ws[j : int(e)]) for j, e in enumerate(stop) if e <= len(ws)]


def shared_weighed(toks: list[list[str]], files: list[str], n: int, chosen: list[int]) -> float:
    """`shared` for runs that weigh n words: a Han character half a word, a kana character a third."""
    runs = [weighed_runs(ws, n) for ws in toks]
    where: dict[tuple[str, ...], set[str]] = collections.defaultdict(set)
    for i, rs in enumerate(runs):
        for r in rs:
            where[r].add(files[i])
    hit = sum(any(len(where[r]) > 1 for r in runs[i]) for i in chosen)
    return hit / max(len(chosen), 1)


def spans(language: str) -> None:
    ps = pairs(language)
    files = [f for f, _, _ in ps]
    en, cjk = tokens([k for _, k, _ in ps]), tokens([v for _, _, v in ps])
    long = [i for i in range(len(ps)) if len(en[i]) >= 8]
    ratio = sum(len(cjk[i]) for i in long) / sum(len(en[i]) for i in long)
    print(f"{language}: {len(ps):,} messages; {ratio:.2f} tokens per English word (messages of 8 words or more)")
    print("| English words | messages | English | CJK n | CJK 1.5n | CJK 2n | CJK 2.5n | CJK weighing n words |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in (8, 13):
        chosen = [i for i in range(len(ps)) if len(en[i]) >= n and len(cjk[i]) >= 2.5 * n]
        rates = [shared(cjk, files, int(n * k), chosen) for k in (1, 1.5, 2, 2.5)]
        rates.append(shared_weighed(cjk, files, n, chosen))
        cells = [f"{shared(en, files, n, chosen):.3f}", *(f"{r:.3f}" for r in rates)]
        print(f"| {n} | {len(chosen):,} | " + " | ".join(cells) + " |")


def neardup(language: str) -> None:
    docs: dict[str, list[str]] = {"English": [], language: []}
    owner = []
    by_file: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
    for f, k, v in pairs(language):
        by_file[f].append((k, v))
    for f, messages in by_file.items():
        for i in range(0, len(messages) - 5, 6):
            docs["English"].append("\n".join(k for k, _ in messages[i : i + 6]))
            docs[language].append("\n".join(v for _, v in messages[i : i + 6]))
            owner.append(f)
    owners = np.array(owner)
    for side, texts in docs.items():
        m = text_matches(texts, np.arange(len(texts)), None, same=True)
        other = owners[m.query] != owners[m.index]
        flagged = m.flagged & other
        measures = dict(collections.Counter(m.measure[flagged].tolist()))
        print(
            f"| {language} | {side} | {len(texts):,} | {int(np.median(m.words))} | {int(flagged.sum())} {measures} | "
            f"{int((~m.flagged & other).sum())} | {int((m.verbatim_share >= 0.5).sum())} |"
        )


def speed() -> None:
    docs = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Module):
                d = ast.get_docstring(node)
                if d and d.isascii() and len(d.split()) >= 30:
                    docs.append(d)
    english = (docs * 10)[:20000]
    accented = [d.replace("e", "é", 1) for d in english]
    messages = [v for _, _, v in pairs("zh_CN")]
    chinese = [" ".join(messages[i : i + 20]) for i in range(0, len(messages) - 20, 20)][:5000]
    print("| texts | count | MB | shingle ms (median, min) | normal_words ms (median, min) |")
    print("|---|---:|---:|---:|---:|")
    for name, texts in (("English (ASCII)", english), ("accented", accented), ("Chinese", chinese)):
        array = pa.array(texts, pa.large_string())
        mb = sum(len(t.encode()) for t in texts) / 1e6
        cells = []
        for fn in (functools.partial(shingle, array), functools.partial(normal_words, array)):
            times = []
            for _ in range(7):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
            cells.append(f"{statistics.median(times) * 1000:.0f}, {min(times) * 1000:.0f}")
        print(f"| {name} | {len(texts):,} | {mb:.1f} | {cells[0]} | {cells[1]} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", nargs="+", choices=("spans", "neardup", "speed"), default=["spans", "neardup"])
    parser.add_argument("--languages", nargs="+", default=["zh_CN", "ja"])
    args = parser.parse_args()
    if not any((LOCALE / language / "LC_MESSAGES").is_dir() for language in args.languages):
        sys.exit(f"no catalogues under {LOCALE} for {args.languages}")
    if "spans" in args.part:
        for language in args.languages:
            spans(language)
    if "neardup" in args.part:
        print("| catalogues | texts | documents | median words | flagged across catalogues | grey | verbatim >= 0.5 |")
        print("|---|---|---:|---:|---|---:|---:|")
        for language in args.languages:
            neardup(language)
    if "speed" in args.part:
        speed()


if __name__ == "__main__":
    main()
