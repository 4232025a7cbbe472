"""`audit code` measured: precision and recall per leak kind on the corpus in tests/code/corpus, and the time
to read a thousand notebooks.

    python bench/code_bench.py corpus                 # the table of precision and recall per kind
    python bench/code_bench.py run                    # `--run` on every runnable corpus file: what it confirms
    python bench/code_bench.py notebooks --count 1000  # make 1,000 notebooks, then time `audit code` on them

The notebooks are made from the corpus's own: each joins the code cells of three corpus files (so each is
about as long as a Kaggle notebook, with its magics, plots and prints), in a folder under bench/data/.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from tests.code.corpus_expectations import KINDS, load_expectations, score_corpus  # noqa: E402

CORPUS = REPO / "tests" / "code" / "corpus"
HELDOUT = (REPO / "tests" / "code" / "heldout", REPO / "tests" / "code" / "heldout2")


def corpus_table(corpus: Path = CORPUS) -> str:
    """Precision and recall per kind, at warning or above, as a Markdown table."""
    scores = score_corpus(corpus, load_expectations(corpus))
    lines = [
        "| kind | leaks in the corpus | found | missed | false alarms | precision | recall |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in KINDS:
        s = scores[kind]
        precision = s.found / (s.found + s.false) if s.found + s.false else 1.0
        recall = s.found / (s.found + s.missed) if s.found + s.missed else 1.0
        lines.append(
            f"| {kind} | {s.found + s.missed} | {s.found} | {s.missed} | {s.false} | {precision:.2f} | {recall:.2f} |"
        )
    files = load_expectations(corpus)
    correct = sum(1 for e in files if not e.expect)
    lines.append("")
    notebooks = sum(e.path.suffix == ".ipynb" for e in files)
    lines.append(f"{len(files)} files ({notebooks} notebooks), {correct} of them correct code.")
    return "\n".join(lines)


def run_table() -> str:
    """`audit code --run` on each runnable corpus file (from the corpus folder): per kind, how many of the
    reading's findings the run confirmed, left open or did not see, and the leaks only the run found."""
    import json
    import tempfile

    rows: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    alarms: list[str] = []
    entries = [e for e in load_expectations(CORPUS) if e.runnable]
    for entry in entries:
        with tempfile.TemporaryDirectory() as out:
            config = Path(out) / "audit.yaml"
            config.write_text(
                json.dumps(
                    {
                        "code": {"paths": [str(entry.path)], "run": True, "workdir": str(CORPUS)},
                        "roots": [str(CORPUS)],
                        "report": {"out_dir": out, "formats": ["json"]},
                    }
                )
            )
            subprocess.run(
                [sys.executable, "-m", "auditor.cli", "run", str(config), "-q", "--only", "code_leakage"], cwd=REPO
            )
            report = json.loads((Path(out) / "report.json").read_text())
        for finding in (f for stage in report["stages"] for f in stage["findings"]):
            evidence, kind = finding["evidence"], finding["evidence"].get("leak")
            if kind is None:
                continue
            if evidence.get("found_by") == "run":
                rows[kind]["found by the run"] += 1
                if not entry.expect:
                    alarms.append(f"{entry.path.relative_to(CORPUS)}: {finding['message']}")
            elif "not_seen_by_run" in evidence:
                rows[kind]["not seen by the run"] += 1
                if entry.expect:
                    alarms.append(f"not seen in leaky {entry.path.relative_to(CORPUS)}: {evidence['not_seen_by_run']}")
            elif str(evidence.get("confirmed", "")).startswith("not confirmed"):
                rows[kind]["left open"] += 1
            else:
                rows[kind]["confirmed"] += 1
    lines = [
        "| kind | confirmed | left open | not seen by the run | found by the run alone |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind in KINDS:
        r = rows[kind]
        lines.append(
            f"| {kind} | {r['confirmed']} | {r['left open']} | {r['not seen by the run']} | {r['found by the run']} |"
        )
    lines.append("")
    lines.append(f"{len(entries)} runnable files; false alarms and leaks the run did not see: {len(alarms)}")
    lines += [f"- {a}" for a in alarms]
    return "\n".join(lines)


def make_notebooks(folder: Path, count: int, join: int = 3, seed: int = 0) -> tuple[int, float]:
    """``count`` notebooks of ``join`` corpus files' code cells each; returns their number and mean lines."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    sources = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix == ".ipynb":
            nb = nbformat.read(path, as_version=4)
            sources.append([c.source for c in nb.cells if c.cell_type == "code"])
        elif path.suffix == ".py":
            sources.append([path.read_text(encoding="utf-8")])
    rng = random.Random(seed)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    total = 0
    for i in range(count):
        cells = [new_markdown_cell(f"# Notebook {i}")]
        for part in rng.sample(sources, join):
            cells += [new_code_cell(s) for s in part]
        total += sum(c.source.count("\n") + 1 for c in cells if c.cell_type == "code")
        nb = new_notebook(cells=cells)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"notebook_{i:04d}.ipynb")
    return count, total / count


def time_notebooks(count: int, repeat: int, join: int) -> str:
    folder = HERE / "data" / "notebooks"
    made, mean_lines = make_notebooks(folder, count, join)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "auditor.cli", "code", str(folder), "-q"], cwd=REPO)
        times.append(time.perf_counter() - start)
        assert done.returncode in (0, 1), done.returncode
    times.sort()
    return (
        f"| notebooks | mean code lines | `audit code` (whole process), min / median / max of {repeat} |\n"
        f"|---:|---:|---:|\n| {made:,} | {mean_lines:.0f} | "
        f"{times[0]:.1f} s / {times[len(times) // 2]:.1f} s / {times[-1]:.1f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("corpus")
    sub.add_parser("run")
    notebooks = sub.add_parser("notebooks")
    notebooks.add_argument("--count", type=int, default=1000)
    notebooks.add_argument("--repeat", type=int, default=3)
    notebooks.add_argument("--join", type=int, default=3, help="corpus files joined into one notebook")
    args = parser.parse_args()
    if args.what == "corpus":
        for corpus in (CORPUS, *HELDOUT):
            print(f"{corpus.relative_to(REPO)}:\n\n{corpus_table(corpus)}\n")
    elif args.what == "run":
        print(run_table())
    else:
        print(time_notebooks(args.count, args.repeat, args.join))


if __name__ == "__main__":
    main()
