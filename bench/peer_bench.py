"""Benchmark: the audit against what a user would write instead to answer the same questions.

    python bench/peer_bench.py [--rows 10000000] [--repeat 5] [--shapes random random-50m-sources groupwise]
                               [--configs groups links] [--peers duckdb polars pandas read] [--data-dir bench/data]
                               [--json PATH]

On the shapes of section 10 (scale_bench.py's, generated when missing; `random` by default), the questions
the `groups` config answers (split_integrity + group_overlap) and those `links` adds (duplicate_content,
temporal_order, shared_upstream's linked components):

  ids      sample ids in more than one split (SPL001's count)
  keys     per group key and split pair: the values in both splits and the rows of each split holding them
           (GRP001 / GRP002 / GRP003)
  digests  the same for the content digest (DUP001 / DUP002 / DUP003), links only
  early    holdout rows older than the newest training row (TMP001), links only
  linked   the rows joined by a shared writer, source or digest (scipy's connected components, which every
           peer runs on the columns its script reads): per split pair the components holding both, the
           largest and their number (UPS001-UPS003), links only

Peers, each in a fresh interpreter, each the obvious script for its library:

  duckdb   SQL over the parquet file, 2 threads
  polars   a lazy scan, group_by and join (skipped when polars is not installed)
  pandas   read_parquet, then groupby
  read     pyarrow.parquet.read_table of the same columns: the floor, it answers nothing

Runs are interleaved (audit, duckdb, polars, pandas, read, audit, ...) after one warm-up read of the file;
the table shows medians of wall time (the whole process, imports included) and the largest peak RSS
(ru_maxrss). Every peer's answers must equal the audit's report, or the script exits 1; a change of the
auditor's sources during the run exits 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from time import perf_counter
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SPLITS = ("train", "val", "test")
HOLDOUT = ("val", "test")
KEYS = {"groups": ["writer", "source"], "links": ["writer"]}
STAGES = {
    "groups": ["split_integrity", "group_overlap"],
    "links": ["split_integrity", "group_overlap", "shared_upstream", "duplicate_content", "temporal_order"],
}
COLUMNS = {
    "groups": ["sample_id", "split", "writer", "source"],
    "links": ["sample_id", "split", "writer", "source", "sha", "ts"],
}
PEERS = ("duckdb", "polars", "pandas", "read")
SHAPES = ("random", "random-50m-sources", "groupwise")
# The peers speak of source, sha and ts; each shape's file names them so (scale_bench.py's shapes).
NAMES = {
    "random": {"source": "source", "sha": "sha", "ts": "ts"},
    "random-50m-sources": {"source": "source", "sha": "sha", "ts": "ts"},
    "groupwise": {"source": "source_document", "sha": "content_sha256", "ts": "captured_at"},
}

Answers = dict[str, Any]


def _pairs(rows: list[tuple[str, str, int, int, int]]) -> dict[str, dict[str, int]]:
    """Split pairs as 'a|b' (names sorted) -> values shared and rows per split, whatever order they came in."""
    out: dict[str, dict[str, int]] = {}
    for a, b, values, rows_a, rows_b in rows:
        if not values:
            continue
        first, second = sorted((a, b))
        out[f"{first}|{second}"] = {"values": int(values), a: int(rows_a), b: int(rows_b)}
    return dict(sorted(out.items()))


# --- the audit ---------------------------------------------------------------------------------------------


def audit_answers(
    config: Path, stages: list[str], keys: list[str], links: bool, names: dict[str, str] | None = None
) -> Answers:
    """The report's answers, its key columns called by the peers' names (``names``: peer name -> column)."""
    from auditor import run_audit

    called = {column: name for name, column in (names or {}).items()}

    report = run_audit(config, only=stages)
    errors = [s.stage for s in report.stages if s.error is not None]
    if errors:
        raise SystemExit(f"stage error in {errors}")
    found: Answers = {"ids": 0, "keys": {k: [] for k in keys}}
    digests: list[tuple[str, str, int, int, int]] = []
    for f in report.findings:
        ev = f.evidence or {}
        if f.code == "SPL001":
            found["ids"] = int(ev["ids"])
        elif f.code in ("GRP001", "GRP002", "GRP003"):
            found["keys"][called.get(ev["key"], ev["key"])] += [
                (*p["splits"], p["groups"], *p["rows"]) for p in ev["pairs"]
            ]
        elif f.code in ("DUP001", "DUP002", "DUP003"):
            digests += [(*p["splits"], p["digests"], *p["rows"]) for p in ev["pairs"]]
        elif f.code == "TMP001":
            found["early"] = int(ev["rows"])
        elif f.code in ("UPS001", "UPS002"):
            linked = found.setdefault("components", {"pairs": {}})
            linked["pairs"].update({"|".join(sorted(p["splits"])): int(p["components"]) for p in ev["pairs"]})
        elif f.code == "UPS003":
            linked = found.setdefault("components", {"pairs": {}})
            linked.update(largest=int(ev["largest"]), total=int(ev["components"]))
    found["keys"] = {k: _pairs(v) for k, v in found["keys"].items()}
    if links:
        found["digests"] = _pairs(digests)
        found.setdefault("early", 0)
        found["components"] = {k: v for k, v in sorted(found.get("components", {"pairs": {}}).items())}
        found["components"]["pairs"] = dict(sorted(found["components"]["pairs"].items()))
    return found


# --- what every peer adds for `links`: the rows linked through any shared key, by scipy ----------------------


def linked_components(split: Any, keys: list[Any]) -> Answers:
    """Connected components of the rows joined by a shared writer, source or digest (scipy on the row-value
    graph), as shared_upstream reports them: per split pair the components holding rows of both, the largest
    component's rows and their number. ``split`` and ``keys`` are Arrow arrays."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    def encoded(values: Any) -> Any:
        chunked = pa.chunked_array([values]) if isinstance(values, pa.Array) else values
        return pc.dictionary_encode(chunked).combine_chunks()

    def codes(values: Any) -> tuple[np.ndarray, int]:
        coded = encoded(values)
        return np.asarray(coded.indices.fill_null(-1)), len(coded.dictionary)

    split_codes, n_splits = codes(split)
    names = encoded(split).dictionary.to_pylist()
    n = len(split_codes)
    rows, nodes, offset = [], [], n
    for values in keys:
        c, k = codes(values)
        have = c >= 0
        rows.append(np.flatnonzero(have))
        nodes.append(c[have] + offset)
        offset += k
    r, v = np.concatenate(rows), np.concatenate(nodes)
    graph = coo_matrix((np.ones(len(r), dtype=np.int8), (r, v)), shape=(offset, offset))
    _, label = connected_components(graph, directed=False)
    of_row = label[:n]
    _, sizes = np.unique(of_row, return_counts=True)
    present = np.unique(of_row.astype(np.int64) * n_splits + split_codes)
    comp, sp = present // n_splits, present % n_splits
    pairs: dict[str, int] = {}
    for i in range(n_splits):
        for j in range(i + 1, n_splits):
            both = np.intersect1d(comp[sp == i], comp[sp == j])
            if len(both):
                pairs["|".join(sorted((names[i], names[j])))] = len(both)
    return {"largest": int(sizes.max()), "pairs": dict(sorted(pairs.items())), "total": len(sizes)}


# --- the peers ---------------------------------------------------------------------------------------------


def _renames(path: Path, names: dict[str, str] | None) -> dict[str, str]:
    """The file's columns that the peers call otherwise: column -> peer name."""
    import pyarrow.parquet as pq

    present = set(pq.read_schema(path).names)
    return {column: name for name, column in (names or {}).items() if column in present and column != name}


def duckdb_answers(path: Path, keys: list[str], links: bool, names: dict[str, str] | None = None) -> Answers:
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 2")
    renamed = ", ".join(f'"{column}" AS {name}' for column, name in _renames(path, names).items())
    con.execute(f"CREATE VIEW m AS SELECT *{', ' + renamed if renamed else ''} FROM read_parquet('{path}')")
    ids = con.execute(
        "SELECT count(*) FROM (SELECT sample_id FROM m GROUP BY sample_id HAVING count(DISTINCT split) > 1)"
    ).fetchone()
    shared = """
        WITH vs AS (SELECT {k} AS v, split, count(*) AS n FROM m WHERE {k} IS NOT NULL GROUP BY ALL),
        multi AS (SELECT * FROM vs QUALIFY count(*) OVER (PARTITION BY v) > 1)
        SELECT a.split, b.split, count(*), sum(a.n), sum(b.n)
        FROM multi a JOIN multi b ON a.v = b.v AND a.split < b.split GROUP BY ALL
    """
    found: Answers = {"ids": int(ids[0]) if ids else 0}
    found["keys"] = {k: _pairs(con.execute(shared.format(k=k)).fetchall()) for k in keys}
    if links:
        found["digests"] = _pairs(con.execute(shared.format(k="sha")).fetchall())
        early = con.execute(
            "SELECT count(*) FROM m WHERE split IN ('val', 'test') "
            "AND ts < (SELECT max(ts) FROM m WHERE split = 'train')"
        ).fetchone()
        found["early"] = int(early[0]) if early else 0
        t = con.execute("SELECT split, writer, source, sha FROM m").to_arrow_table()
        found["components"] = linked_components(t["split"], [t["writer"], t["source"], t["sha"]])
    return found


def polars_answers(path: Path, keys: list[str], links: bool, names: dict[str, str] | None = None) -> Answers:
    import polars as pl

    m = pl.scan_parquet(path).rename(_renames(path, names))
    ids = (
        m.group_by("sample_id").agg(pl.col("split").n_unique().alias("k")).filter(pl.col("k") > 1).select(pl.len())
    ).collect()

    def shared(k: str) -> list[tuple[str, str, int, int, int]]:
        vs = (
            m.filter(pl.col(k).is_not_null()).group_by(k, "split").agg(pl.len().alias("n")).filter(pl.len().over(k) > 1)
        )
        joined = vs.join(vs, on=k, suffix="_b").filter(pl.col("split") < pl.col("split_b"))
        out = joined.group_by("split", "split_b").agg(pl.len().alias("values"), pl.col("n").sum(), pl.col("n_b").sum())
        return [tuple(r) for r in out.collect().iter_rows()]

    found: Answers = {"ids": int(ids.item()), "keys": {k: _pairs(shared(k)) for k in keys}}
    if links:
        found["digests"] = _pairs(shared("sha"))
        newest = m.filter(pl.col("split") == "train").select(pl.col("ts").max())
        early = m.filter(pl.col("split").is_in(list(HOLDOUT))).join(newest, how="cross", suffix="_max")
        found["early"] = int(early.filter(pl.col("ts") < pl.col("ts_max")).select(pl.len()).collect().item())
        t = m.select("split", "writer", "source", "sha").collect().to_arrow()
        found["components"] = linked_components(t["split"], [t["writer"], t["source"], t["sha"]])
    return found


def pandas_answers(path: Path, keys: list[str], links: bool, names: dict[str, str] | None = None) -> Answers:
    import pandas as pd

    columns = ["sample_id", "split", *keys] + ([c for c in ("source", "sha", "ts") if c not in keys] if links else [])
    physical = {name: column for column, name in _renames(path, names).items()}
    df = pd.read_parquet(path, columns=[physical.get(c, c) for c in columns]).rename(columns=_renames(path, names))
    found: Answers = {"ids": int((df.groupby("sample_id")["split"].nunique() > 1).sum())}

    def shared(k: str) -> list[tuple[str, str, int, int, int]]:
        vs = df.groupby([k, "split"], observed=True).size().rename("n").reset_index()
        vs = vs[vs.groupby(k)[k].transform("size") > 1]
        joined = vs.merge(vs, on=k, suffixes=("", "_b"))
        joined = joined[joined["split"] < joined["split_b"]]
        out = joined.groupby(["split", "split_b"]).agg(values=(k, "size"), n=("n", "sum"), n_b=("n_b", "sum"))
        return [(a, b, int(v), int(x), int(y)) for (a, b), (v, x, y) in zip(out.index, out.to_numpy(), strict=True)]

    found["keys"] = {k: _pairs(shared(k)) for k in keys}
    if links:
        found["digests"] = _pairs(shared("sha"))
        newest = df.loc[df["split"] == "train", "ts"].max()
        found["early"] = int((df["split"].isin(HOLDOUT) & (df["ts"] < newest)).sum())
        import pyarrow as pa

        found["components"] = linked_components(
            pa.array(df["split"]), [pa.array(df[k]) for k in ("writer", "source", "sha")]
        )
    return found


def read_floor(path: Path, columns: list[str]) -> Answers:
    import pyarrow.parquet as pq

    return {"rows": pq.read_table(path, columns=columns).num_rows}


def worker(tool: str, config: str, target: str, shape: str = "random", config_file: str = "") -> None:
    import resource

    path, links, names = Path(target), config == "links", NAMES[shape]
    config_path = Path(config_file) if config_file else path.parent / f"{config}.yaml"
    if tool == "audit":
        answers = audit_answers(config_path, STAGES[config], KEYS[config], links, names)
    elif tool == "duckdb":
        answers = duckdb_answers(path, KEYS[config], links, names)
    elif tool == "polars":
        answers = polars_answers(path, KEYS[config], links, names)
    elif tool == "pandas":
        answers = pandas_answers(path, KEYS[config], links, names)
    else:
        answers = read_floor(path, [names.get(c, c) for c in COLUMNS[config]])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"answers": answers, "peak_mb": peak}))


# --- the driver --------------------------------------------------------------------------------------------


def sources_digest() -> str:
    h = hashlib.sha256()
    for p in sorted((REPO / "auditor").rglob("*.py")):
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def measure(tool: str, config: str, path: Path, timeout: float, shape: str, config_file: Path) -> dict[str, Any]:
    t0 = perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--worker", tool, config, str(path), shape, str(config_file)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    wall = perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"{tool} on {shape} {config} exited {done.returncode}: {done.stderr[-800:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    out["wall_s"] = wall
    return out


def available(peer: str) -> bool:
    if peer != "polars":
        return True
    probe = subprocess.run([sys.executable, "-c", "import polars"], capture_output=True)
    return probe.returncode == 0


def ensure_data(shape: str, rows: int, data_dir: Path) -> tuple[Path, dict[str, Path]]:
    """The shape's manifest and configs (scale_bench.py's, generated when missing)."""
    sys.path.insert(0, str(BENCH))
    from scale_bench import ensure_shape

    manifest, configs, _, _ = ensure_shape(shape, rows, data_dir)
    return manifest, configs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--worker", nargs=5, metavar=("TOOL", "CONFIG", "MANIFEST", "SHAPE", "FILE"), help=argparse.SUPPRESS
    )
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shapes", nargs="+", default=["random"], choices=list(SHAPES))
    parser.add_argument("--configs", nargs="+", default=list(STAGES), choices=list(STAGES))
    parser.add_argument("--peers", nargs="+", default=list(PEERS), choices=list(PEERS))
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0

    data = {shape: ensure_data(shape, args.rows, args.data_dir) for shape in args.shapes}
    peers = [p for p in args.peers if available(p)]
    skipped = sorted(set(args.peers) - set(peers))
    tools = ["audit", *peers]
    digest = sources_digest()
    load = [os.getloadavg()[0]]
    keys = [(shape, config) for shape in args.shapes for config in args.configs]
    runs: dict[tuple[str, str, str], list[dict[str, Any]]] = {(*k, t): [] for k in keys for t in tools}
    wrong: list[str] = []
    for path, _ in data.values():
        with path.open("rb") as f:  # warm the page cache
            while f.read(1 << 24):
                pass
    for _ in range(args.repeat):
        for shape, config in keys:
            path, configs = data[shape]
            for tool in tools:
                r = measure(tool, config, path, args.timeout, shape, configs[config])
                runs[shape, config, tool].append(r)
                if args.json:  # after every measurement: a run stopped half-way keeps what it measured
                    args.json.write_text(json.dumps({"/".join(k): v for k, v in runs.items()}, indent=1))
                reference = runs[shape, config, "audit"][-1]["answers"]
                if tool not in ("audit", "read") and r["answers"] != reference:
                    wrong.append(
                        f"{tool} on {shape} {config}: {json.dumps(r['answers'])} != audit {json.dumps(reference)}"
                    )
                load.append(os.getloadavg()[0])
        if sources_digest() != digest:
            print("the auditor's sources changed during the run", file=sys.stderr)
            return 2

    print(
        f"{args.rows:,} rows; medians of {args.repeat}, interleaved; auditor sources {digest}; "
        f"load average {min(load):.1f}-{max(load):.1f}"
        + (f"; not installed: {', '.join(skipped)}" if skipped else "")
        + "\n"
    )
    print("| shape | config | tool | wall s | peak RSS MB | audit / tool (time) | audit / tool (RSS) | answers |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for shape, config in keys:
        audits = runs[shape, config, "audit"]
        audit_s = statistics.median(r["wall_s"] for r in audits)
        audit_mb = max(r["peak_mb"] for r in audits)
        for tool in tools:
            mine = runs[shape, config, tool]
            s = statistics.median(r["wall_s"] for r in mine)
            mb = max(r["peak_mb"] for r in mine)
            same = "—"
            if tool not in ("audit", "read"):
                agree = all(r["answers"] == audits[i]["answers"] for i, r in enumerate(mine))
                same = "as the report" if agree else "DIFFERENT"
            ratio = "" if tool == "audit" else f"{audit_s / s:.2f}"
            ratio_mb = "" if tool == "audit" else f"{audit_mb / mb:.2f}"
            print(f"| {shape} | {config} | {tool} | {s:.2f} | {mb:.0f} | {ratio} | {ratio_mb} | {same} |")
    for shape, config in keys:
        runs_s = ", ".join(f"{r['wall_s']:.2f}" for r in runs[shape, config, "audit"])
        print(f"\n{shape} {config}: audit runs {runs_s}")
    if wrong:
        print("\n".join(["", "ANSWERS DIFFER:", *wrong]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
