"""Builds the sample: a small corpus of Python's own docstrings (two shards, gzip and zstd) and a benchmark of
twelve questions about the same modules, four of them planted from the corpus (verbatim, re-cased and
re-punctuated, half copied). Run from this folder: python make_sample.py"""

from __future__ import annotations

import csv
import inspect
import json
import re
from pathlib import Path

import pyarrow as pa

MODULES = ["textwrap", "json", "csv", "shlex", "fnmatch", "heapq", "bisect", "base64", "difflib", "string"]


def docs() -> list[dict[str, str]]:
    out = []
    for name in MODULES:
        module = __import__(name)
        for attr, value in sorted(vars(module).items()):
            own = (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == name
            doc = inspect.getdoc(value) if own and not attr.startswith("_") else None
            if doc and len(doc.split()) >= 20:
                out.append({"id": f"{name}.{attr}", "text": doc})
    return out


def main() -> None:
    corpus = docs()
    Path("corpus").mkdir(exist_ok=True)
    half = len(corpus) // 2
    for path, codec, part in (
        ("corpus/part-000.jsonl.gz", "gzip", corpus[:half]),
        ("corpus/part-001.jsonl.zst", "zstd", corpus[half:]),
    ):
        with pa.CompressedOutputStream(path, codec) as f:
            for d in part:
                f.write((json.dumps(d) + "\n").encode())
    text = {d["id"]: re.sub(r"\s+", " ", d["text"]) for d in corpus}
    dedent = text["textwrap.dedent"].split()
    planted = {
        "q-verbatim-1": " ".join(dedent[:40]),
        "q-verbatim-2": " ".join(text["json.dumps"].split()[:30]),
        "q-normalised": re.sub(r"[.,;:]", " ! ", " ".join(text["difflib.get_close_matches"].split()[:25]).upper()),
        "q-half": " ".join(text["base64.b64encode"].split()[:20])
        + " and then the caller checks that the encoded text still decodes to the very same bytes before it returns",
    }
    distinct = {
        "q-distinct-1": "Which function of the textwrap module would you use to remove the common indentation "
        "from a block of text that was written inside a triple quoted string in your program?",
        "q-distinct-2": "Explain why the json module refuses to serialise a set and how a custom encoder class "
        "can turn every set into a sorted list before the document is written.",
        "q-distinct-3": "Write a short program that reads a comma separated file with a header row and prints "
        "the sum of the third column for every distinct value of the first column.",
        "q-distinct-4": "How does a binary heap keep its smallest element at index zero, and what is the cost "
        "of pushing one more element onto a heap that already holds a million items?",
        "q-distinct-5": "Describe how a shell splits a command line into words when some of the words contain "
        "quotes, backslashes or spaces, and give two examples that surprise beginners.",
        "q-distinct-6": "Compare base 64 and base 32 encodings of the same bytes: which is longer, which "
        "alphabet does each use, and when would you choose one over the other?",
        "q-distinct-7": "Given two lists of lines, how would you find the longest block they have in common "
        "and report every other line as inserted, deleted or changed?",
        "q-distinct-8": "Show how a template with dollar sign placeholders is filled from a dictionary and "
        "what happens when a placeholder has no value in that dictionary.",
    }
    rows = [{"item_id": k, "split": "test", "question": v} for k, v in {**planted, **distinct}.items()]
    with open("manifest.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, ["item_id", "split", "question"])
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
