"""Benchmark: the audit against what a user would write instead to answer the same questions.

    python bench/peer_bench.py [--rows 10000000] [--repeat 5] [--shapes random random-50m-sources groupwise]
                               [--configs groups links] [--peers duckdb polars pandas read] [--data-dir bench/data]
                               [--json PATH] [--against DIR]

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

Peers, each in a fresh interpreter:

  duckdb-agg  the strongest SQL: one `GROUP BY value` per key with a `count(*) FILTER (WHERE split = ...)` per
              split, the pair counts as `count(*) FILTER (WHERE n_a > 0 AND n_b > 0)` / `sum(n_a) FILTER (...)`
              over that one aggregate (no join, no window); repeated ids and digests grouped by DuckDB's 64-bit
              `hash` first, then confirmed exactly on the few candidates; for `linked`, integer codes from
              Arrow's `dictionary_encode` (digests only where repeated) and scipy's components on the value graph
              (each row an edge between its values), 2 threads
  polars-agg  the same single pass in polars (a lazy scan; codes from `Categorical`), 2 threads
  duckdb      the obvious SQL: `GROUP BY` key and split, `QUALIFY` the values in two splits, a self-join per
              split pair, 2 threads
  polars      the obvious lazy scan, group_by and join (skipped when polars is not installed)
  pandas      read_parquet, then groupby
  read        pyarrow.parquet.read_table of the same columns: the floor, it answers nothing

The audit is the `audit run` command (its console script's argv, in the worker's process), as a user runs it.
With `--against DIR` (another checkout, e.g. `git worktree add /tmp/before HEAD~1`) DIR's audit runs too, as
`audit-against`, interleaved with the rest: a before/after pair measured side by side; it is no peer.

Runs are interleaved (audit, duckdb-agg, polars-agg, duckdb, ..., read, audit, ...) after one warm-up read of
the file; the table shows medians of wall time (the whole process, imports included), of CPU seconds (user +
system of the process and its threads) and the largest peak RSS (ru_maxrss), and per row the audit against
the fastest peer that answers. Every peer's answers must equal the audit's report, or the script exits 1; a
change of the auditor's sources during the run exits 2.
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
PEERS = ("duckdb-agg", "polars-agg", "duckdb", "polars", "pandas", "read")
AGAINST = "audit-against"  # the audit of the checkout given by --against
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
    config: Path,
    stages: list[str],
    keys: list[str],
    links: bool,
    names: dict[str, str] | None = None,
    as_command: bool = False,
) -> Answers:
    """The report's answers, its key columns called by the peers' names (``names``: peer name -> column).

    The audit is `audit run`, called in this process. ``as_command`` (the measured worker) gives it the console
    script's argv, so that what the command sets for its own process (the collector, the allocators) is measured
    with it, as a user runs it; a test calling this keeps its process as it is."""
    import tempfile

    called = {column: name for name, column in (names or {}).items()}

    argv = sys.argv
    with tempfile.TemporaryDirectory() as out:
        # Set before the package is imported: it decides on import whether it is the command.
        run = ["run", str(config), *(a for s in stages for a in ("--only", s)), "--out", out, "-q"]
        sys.argv = ["audit" if as_command else "peer_bench", *run]
        try:
            from auditor.cli import main
            from auditor.core.diff import load_report

            main()
        except SystemExit as ended:
            if ended.code not in (0, 1):
                raise SystemExit(f"audit run exited {ended.code}") from None
        finally:
            sys.argv = argv
        report = load_report(Path(out) / "report.json")
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


def value_components(split: Any, names: list[str], keys: list[Any]) -> Answers:
    """linked_components from integer codes (-1: no value) that the peer's engine made, on the graph of the
    values alone: each row is an edge between its first value and each of its others, so the graph has a node
    per value (2.2M at 10M rows), not one per row as well, and a row's component is its first value's. A row with
    no value is a component of its own. ``split`` holds each row's split code into ``names``."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    split = np.asarray(split, dtype=np.int64)
    n_splits = len(names)
    offsets, total = [], 0
    for codes in keys:
        offsets.append(total)
        total += int(codes.max(initial=-1)) + 1
    anchor = np.full(len(split), -1, dtype=np.int64)  # each row's first value, as a node
    heads, tails = [], []
    for codes, offset in zip(keys, offsets, strict=True):
        have = codes >= 0
        node = np.where(have, codes.astype(np.int64) + offset, -1)
        linked = have & (anchor >= 0)
        heads.append(anchor[linked])
        tails.append(node[linked])
        anchor = np.where(anchor >= 0, anchor, node)
    a, b = np.concatenate(heads), np.concatenate(tails)
    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(total, total))
    n_labels, label = connected_components(graph, directed=False)
    alone = anchor < 0
    of_row = np.where(alone, n_labels + np.cumsum(alone) - 1, label[np.maximum(anchor, 0)])
    size = np.bincount(of_row)
    cells = np.bincount(of_row * n_splits + split, minlength=len(size) * n_splits).reshape(-1, n_splits) > 0
    pairs: dict[str, int] = {}
    for i in range(n_splits):
        for j in range(i + 1, n_splits):
            both = int((cells[:, i] & cells[:, j]).sum())
            if both:
                pairs["|".join(sorted((names[i], names[j])))] = both
    return {"largest": int(size.max()), "pairs": dict(sorted(pairs.items())), "total": int((size > 0).sum())}


def _one_pass(source: str, key: str) -> str:
    """One GROUP BY over the key with a row count per split, then every split pair's shared values and rows
    counted over that one aggregate: no join, no window."""
    per_split = ", ".join(f"count(*) FILTER (WHERE split = '{s}') AS n_{s}" for s in SPLITS)
    pairs = []
    for i, a in enumerate(SPLITS):
        for b in SPLITS[i + 1 :]:
            both = f"n_{a} > 0 AND n_{b} > 0"
            pairs.append(
                f"'{a}', '{b}', count(*) FILTER (WHERE {both}), sum(n_{a}) FILTER (WHERE {both}), "
                f"sum(n_{b}) FILTER (WHERE {both})"
            )
    return (
        f"WITH per AS (SELECT {per_split} FROM {source} WHERE {key} IS NOT NULL GROUP BY {key}) "
        f"SELECT {', '.join(pairs)} FROM per"
    )


def _pair_rows(flat: tuple[Any, ...] | None) -> list[tuple[str, str, int, int, int]]:
    """The one result row of _one_pass as (a, b, values, rows_a, rows_b) per pair."""
    assert flat is not None
    return [(a, b, int(v or 0), int(x or 0), int(y or 0)) for a, b, v, x, y in zip(*[iter(flat)] * 5, strict=True)]


def _duckdb_view(path: Path, names: dict[str, str] | None) -> Any:
    """A DuckDB connection on 2 threads with the view ``m``: the parquet file, its columns by the peers' names."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 2")
    renamed = ", ".join(f'"{column}" AS {name}' for column, name in _renames(path, names).items())
    con.execute(f"CREATE VIEW m AS SELECT *{', ' + renamed if renamed else ''} FROM read_parquet('{path}')")
    return con


def duckdb_agg_answers(path: Path, keys: list[str], links: bool, names: dict[str, str] | None = None) -> Answers:
    con = _duckdb_view(path, names)
    # Ids are nearly all distinct: grouped as 64-bit hashes (integers group faster than strings), the few
    # candidates then grouped by the id itself, so a collision never counts.
    ids = con.execute(
        "WITH c AS (SELECT hash(sample_id) AS h FROM m GROUP BY 1 HAVING count(*) > 1) "
        "SELECT count(*) FROM (SELECT sample_id FROM m SEMI JOIN c ON hash(m.sample_id) = c.h "
        "GROUP BY sample_id HAVING min(split) <> max(split))"
    ).fetchall()[0]
    found: Answers = {"ids": int(ids[0]) if ids else 0}
    found["keys"] = {k: _pairs(_pair_rows(con.execute(_one_pass("m", k)).fetchall()[0])) for k in keys}
    if links:
        # Digests, likewise: the repeated ones (by hash, then exactly) are all the pairs and the links need.
        con.sql(
            "CREATE TEMP TABLE rep AS SELECT m.sha, m.split FROM m SEMI JOIN "
            "(SELECT hash(sha) AS h FROM m GROUP BY 1 HAVING count(*) > 1) c ON hash(m.sha) = c.h"
        )
        found["digests"] = _pairs(_pair_rows(con.execute(_one_pass("rep", "sha")).fetchall()[0]))
        early = con.execute(
            "SELECT count(*) FROM m WHERE split IN ('val', 'test') "
            "AND ts < (SELECT max(ts) FROM m WHERE split = 'train')"
        ).fetchall()[0]
        found["early"] = int(early[0]) if early else 0
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        repeated = con.sql("SELECT sha FROM rep GROUP BY sha HAVING count(*) > 1").to_arrow_table()["sha"]
        t = con.sql("SELECT split, writer, source, sha FROM m").to_arrow_table()

        def codes(values: Any) -> np.ndarray:
            return np.asarray(pc.dictionary_encode(values).combine_chunks().indices.fill_null(-1))

        split = pc.dictionary_encode(t["split"]).combine_chunks()
        sha = pc.index_in(t["sha"], value_set=pa.concat_arrays(repeated.chunks) if repeated.num_chunks else repeated)
        found["components"] = value_components(
            np.asarray(split.indices),
            split.dictionary.to_pylist(),
            [codes(t["writer"]), codes(t["source"]), np.asarray(sha.combine_chunks().fill_null(-1))],
        )
    return found


def polars_agg_answers(path: Path, keys: list[str], links: bool, names: dict[str, str] | None = None) -> Answers:
    import polars as pl

    m = pl.scan_parquet(path).rename(_renames(path, names))

    def one_pass(frame: pl.LazyFrame, k: str) -> pl.LazyFrame:
        per = (
            frame.filter(pl.col(k).is_not_null())
            .group_by(k)
            .agg([(pl.col("split") == s).sum().alias(f"n_{s}") for s in SPLITS])
        )
        out = []
        for i, a in enumerate(SPLITS):
            for b in SPLITS[i + 1 :]:
                both = (pl.col(f"n_{a}") > 0) & (pl.col(f"n_{b}") > 0)
                out += [
                    both.sum().alias(f"{a}|{b}|values"),
                    pl.col(f"n_{a}").filter(both).sum().alias(f"{a}|{b}|a"),
                    pl.col(f"n_{b}").filter(both).sum().alias(f"{a}|{b}|b"),
                ]
        return per.select(out)

    def pair_rows(row: dict[str, Any]) -> list[tuple[str, str, int, int, int]]:
        return [
            (a, b, int(row[f"{a}|{b}|values"]), int(row[f"{a}|{b}|a"]), int(row[f"{a}|{b}|b"]))
            for i, a in enumerate(SPLITS)
            for b in SPLITS[i + 1 :]
        ]

    ids = (
        m.group_by("sample_id")
        .agg(pl.col("split").min().alias("lo"), pl.col("split").max().alias("hi"))
        .filter(pl.col("lo") != pl.col("hi"))
        .select(pl.len())
    )
    plans = [ids, *(one_pass(m, k) for k in keys)]
    if links:
        newest = m.filter(pl.col("split") == "train").select(pl.col("ts").max().alias("ts_max"))
        early = m.filter(pl.col("split").is_in(list(HOLDOUT))).join(newest, how="cross")
        plans.append(early.filter(pl.col("ts") < pl.col("ts_max")).select(pl.len()))
    done = pl.collect_all(plans)  # one plan: the scans they share are made once
    found: Answers = {"ids": int(done[0].item())}
    found["keys"] = {k: _pairs(pair_rows(done[1 + i].row(0, named=True))) for i, k in enumerate(keys)}
    if links:
        found["early"] = int(done[-1].item())

        def code(k: str) -> pl.Expr:
            return pl.col(k).cast(pl.Categorical).to_physical().cast(pl.Int64).fill_null(-1)

        t = m.select(
            pl.col("split").replace_strict({s: i for i, s in enumerate(SPLITS)}, default=-1).alias("split_code"),
            pl.col("split"),
            code("writer").alias("w"),
            code("source").alias("s"),
            pl.when(pl.col("sha").is_duplicated()).then(pl.col("sha")).alias("sha"),
        ).collect()
        found["digests"] = _pairs(pair_rows(one_pass(t.lazy(), "sha").collect().row(0, named=True)))
        repeated = t.select(code("sha")).to_series().to_numpy()
        found["components"] = value_components(
            t["split_code"].to_numpy(), list(SPLITS), [t["w"].to_numpy(), t["s"].to_numpy(), repeated]
        )
    return found


# --- the peers ---------------------------------------------------------------------------------------------


def _renames(path: Path, names: dict[str, str] | None) -> dict[str, str]:
    """The file's columns that the peers call otherwise: column -> peer name."""
    import pyarrow.parquet as pq

    present = set(pq.read_schema(path).names)
    return {column: name for name, column in (names or {}).items() if column in present and column != name}


def duckdb_answers(path: Path, keys: list[str], links: bool, names: dict[str, str] | None = None) -> Answers:
    con = _duckdb_view(path, names)
    ids = con.execute(
        "SELECT count(*) FROM (SELECT sample_id FROM m GROUP BY sample_id HAVING count(DISTINCT split) > 1)"
    ).fetchall()[0]
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
        ).fetchall()[0]
        found["early"] = int(early[0]) if early else 0
        t = con.sql("SELECT split, writer, source, sha FROM m").to_arrow_table()
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
    if tool in ("audit", AGAINST):  # AGAINST: the audit of another checkout (see measure)
        answers = audit_answers(config_path, STAGES[config], KEYS[config], links, names, as_command=True)
    elif tool == "duckdb-agg":
        answers = duckdb_agg_answers(path, KEYS[config], links, names)
    elif tool == "polars-agg":
        answers = polars_agg_answers(path, KEYS[config], links, names)
    elif tool == "duckdb":
        answers = duckdb_answers(path, KEYS[config], links, names)
    elif tool == "polars":
        answers = polars_answers(path, KEYS[config], links, names)
    elif tool == "pandas":
        answers = pandas_answers(path, KEYS[config], links, names)
    else:
        answers = read_floor(path, [names.get(c, c) for c in COLUMNS[config]])
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps({"answers": answers, "peak_mb": usage.ru_maxrss / 1024, "cpu_s": cpu}))


# --- the driver --------------------------------------------------------------------------------------------


def sources_digest() -> str:
    h = hashlib.sha256()
    for p in sorted((REPO / "auditor").rglob("*.py")):
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def measure(
    tool: str, config: str, path: Path, timeout: float, shape: str, config_file: Path, against: Path | None = None
) -> dict[str, Any]:
    sources = against if tool == AGAINST and against is not None else REPO
    t0 = perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--worker", tool, config, str(path), shape, str(config_file)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(sources)},  # ahead of the installed package
    )
    wall = perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"{tool} on {shape} {config} exited {done.returncode}: {done.stderr[-800:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    out["wall_s"] = wall
    return out


def available(peer: str) -> bool:
    if not peer.startswith("polars"):
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
    parser.add_argument(
        "--against", type=Path, help="another checkout of the sources: its audit runs too, interleaved (before/after)"
    )
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0

    data = {shape: ensure_data(shape, args.rows, args.data_dir) for shape in args.shapes}
    peers = [p for p in args.peers if available(p)]
    skipped = sorted(set(args.peers) - set(peers))
    tools = ["audit", *peers, *([AGAINST] if args.against else [])]
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
                r = measure(tool, config, path, args.timeout, shape, configs[config], args.against)
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
    print(
        "| shape | config | tool | wall s | CPU s | peak RSS MB | audit / tool (time) | audit / tool (CPU) "
        "| audit / tool (RSS) | answers |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    fastest: list[str] = []
    for shape, config in keys:
        audits = runs[shape, config, "audit"]
        audit_s = statistics.median(r["wall_s"] for r in audits)
        audit_cpu = statistics.median(r["cpu_s"] for r in audits)
        audit_mb = max(r["peak_mb"] for r in audits)
        best: tuple[float, str] | None = None
        for tool in tools:
            mine = runs[shape, config, tool]
            s = statistics.median(r["wall_s"] for r in mine)
            cpu = statistics.median(r["cpu_s"] for r in mine)
            mb = max(r["peak_mb"] for r in mine)
            same = "—"
            if tool not in ("audit", "read"):
                agree = all(r["answers"] == audits[i]["answers"] for i, r in enumerate(mine))
                same = "as the report" if agree else "DIFFERENT"
                if agree and tool != AGAINST and (best is None or s < best[0]):
                    best = (s, tool)
            ratios = (
                ["", "", ""]
                if tool == "audit"
                else [f"{audit_s / s:.2f}", f"{audit_cpu / cpu:.2f}", f"{audit_mb / mb:.2f}"]
            )
            print(f"| {shape} | {config} | {tool} | {s:.2f} | {cpu:.2f} | {mb:.0f} | {' | '.join(ratios)} | {same} |")
        if best is not None:
            fastest.append(
                f"| {shape} | {config} | {audit_s:.2f} | {best[1]} | {best[0]:.2f} | {audit_s / best[0]:.2f} |"
            )
    if fastest:
        print("\n| shape | config | audit s | fastest peer | peer s | audit / fastest peer |")
        print("|---|---|---:|---|---:|---:|")
        print("\n".join(fastest))
    for shape, config in keys:
        for tool in tools:
            runs_s = ", ".join(f"{r['wall_s']:.2f}" for r in runs[shape, config, tool])
            print(f"\n{shape} {config} {tool}: runs {runs_s}", end="")
    print()
    if wrong:
        print("\n".join(["", "ANSWERS DIFFER:", *wrong]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
