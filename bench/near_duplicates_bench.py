"""Benchmark: near-duplicate images and texts: quality on real installed data, then speed and memory at scale.

    python bench/near_duplicates_bench.py [--part quality speed] [--scale 1.0] [--data-dir bench/data]
                                          [--anchor-limit N] [--json PATH]

quality  The evaluation set (bench/neardup/corpus.py): photos and photo tiles shipped by scikit-image,
         scikit-learn and matplotlib, the faces of scikit-image's LFW subset, and documents installed with
         Python and the OS. Every edit of bench/neardup/edits.py is applied to every original; the edited
         copies are the queries, the originals the index. Per edit: recall (the copy's pair with its own
         original is flagged), precision (of the flagged pairs of those queries, the share that are the true
         pair). Distinct pairs: all pairs of originals (and every copy against every other original) must not
         be flagged. imagehash's pHash and datasketch's MinHashLSH / MinHashLSHEnsemble are measured on the
         same items.
speed    100k training x 10k holdout texts (~300 words) and 90k training + 10k holdout small JPEGs
         (bench/neardup/synth.py; times --scale), each measured in a fresh subprocess for its peak RSS: the
         images twice with one cache directory (cold, then cached), the texts twice. The anchors run on the
         same items in the same run.

Exits 1 when a target of the issue is missed (the table says which), 2 when the kernels change mid-run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from time import perf_counter

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from neardup import corpus, edits, synth  # noqa: E402

KERNELS = ["perceptual.py", "hamming.py", "shingles.py", "minhash.py"]
# Settings other than the defaults (--image-setting / --text-setting NAME=VALUE), passed on to the workers.
OVERRIDES: dict[str, dict[str, float]] = json.loads(
    os.environ.get("NEARDUP_BENCH_SETTINGS", '{"image": {}, "text": {}}')
)


def _settings(kind: str):
    import dataclasses

    if kind == "image":
        from auditor.similarity.perceptual import ImageSettings as cls
    else:
        from auditor.similarity.minhash import TextSettings as cls  # type: ignore[assignment]
    base = cls()
    fields = {f.name: f.type for f in dataclasses.fields(base)}
    values = {k: (int(v) if isinstance(getattr(base, k), int) else float(v)) for k, v in OVERRIDES[kind].items()}
    unknown = set(values) - set(fields)
    if unknown:
        raise SystemExit(f"unknown {kind} setting(s) {sorted(unknown)}; known: {sorted(fields)}")
    return dataclasses.replace(base, **values)


def _fingerprint() -> str:
    import hashlib

    root = BENCH.parent / "auditor" / "similarity"
    h = hashlib.sha256()
    for name in KERNELS:
        p = root / name
        h.update(p.read_bytes() if p.exists() else b"-")
    return h.hexdigest()[:12]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- the kernels, behind one thin adapter each ----------------------------------------------------------


def kernel_images(paths: Sequence[Path], cache_dir: Path | None = None, sha256: Sequence[str | None] | None = None):
    from auditor.similarity.perceptual import hash_images

    return hash_images([Path(p) for p in paths], workers=2, cache_dir=cache_dir, sha256=sha256)


def image_pairs(h, query: np.ndarray, index: np.ndarray, same: bool = False):
    """(query unit, index unit, flagged) arrays in the numbering of `paths`."""
    from auditor.similarity.perceptual import image_matches

    m = image_matches(h, query, index, _settings("image"), same=same)
    return np.asarray(m.query), np.asarray(m.index), np.asarray(m.flagged, dtype=bool), m


def text_pairs(texts: Sequence[str | None], query: np.ndarray, index: np.ndarray, same: bool = False):
    from auditor.similarity.minhash import text_matches

    m = text_matches(texts, query, index, _settings("text"), same=same)
    return np.asarray(m.query), np.asarray(m.index), np.asarray(m.flagged, dtype=bool), m


# --- quality -------------------------------------------------------------------------------------------


def _score(qs: np.ndarray, ix: np.ndarray, flagged: np.ndarray, truth: dict[int, int]) -> tuple[int, int, int, int]:
    """(true pairs flagged, true pairs seen at all (flagged or grey), flagged pairs, copies)."""
    hit = {(int(q), int(i)) for q, i, f in zip(qs, ix, flagged, strict=True) if f}
    seen = {(int(q), int(i)) for q, i in zip(qs, ix, strict=True)}
    tp = sum((q, s) in hit for q, s in truth.items())
    grey = sum((q, s) in seen for q, s in truth.items())
    return tp, grey, len(hit), len(truth)


def _row(name: str, target: bool, tp: int, seen: int, flagged: int, n: int) -> dict[str, object]:
    recall = tp / n if n else float("nan")
    precision = tp / flagged if flagged else float("nan")
    return {
        "edit": name,
        "target": target,
        "copies": n,
        "recall": recall,
        "found_or_grey": seen / n if n else float("nan"),
        "precision": precision,
        "false_flags": flagged - tp,
        "met": recall >= 0.99 if target else None,
    }


def _phash_u64(images: Sequence[object]) -> np.ndarray:
    """imagehash.phash of each PIL image as uint64 (row-major bits, as imagehash prints them)."""
    import imagehash

    out = np.zeros(len(images), dtype=np.uint64)
    for k, im in enumerate(images):
        bits = imagehash.phash(im).hash.ravel()  # type: ignore[arg-type]
        out[k] = np.uint64(int("".join("1" if b else "0" for b in bits), 2))
    return out


def _within(q: np.ndarray, x: np.ndarray, r: int, same: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force pairs at Hamming distance <= r (numpy popcount), blocked; the anchors' comparison."""
    qs, xs = [], []
    step = max(1, 4_000_000 // max(1, len(x)))
    for a in range(0, len(q), step):
        d = np.bitwise_count(q[a : a + step, None] ^ x[None, :])
        i, j = np.nonzero(d <= r)
        i = i + a
        if same:
            keep = i < j
            i, j = i[keep], j[keep]
        qs.append(i)
        xs.append(j)
    return (np.concatenate(qs), np.concatenate(xs)) if qs else (np.zeros(0, int), np.zeros(0, int))


def quality_images(workdir: Path, anchor: bool) -> dict[str, object]:
    from PIL import Image

    originals = corpus.photos()
    rng = np.random.default_rng(0)
    paths: list[Path] = []
    (workdir / "orig").mkdir(parents=True)
    for k, p in enumerate(originals):
        f = workdir / "orig" / f"{k:05d}.jpg"
        f.write_bytes(edits.encode(Image.fromarray(p.pixels)))
        paths.append(f)
    n = len(originals)
    copies: list[tuple[int, dict[int, int]]] = []  # per edit: (first path index, {copy: original})
    for e, edit in enumerate(edits.IMAGE_EDITS):
        (workdir / f"e{e:02d}").mkdir()
        truth: dict[int, int] = {}
        for k, p in enumerate(originals):
            f = workdir / f"e{e:02d}" / f"{k:05d}.jpg"
            f.write_bytes(edit.apply(p.pixels, rng))
            truth[len(paths)] = k
            paths.append(f)
        copies.append((e, truth))
    view = corpus.other_view()
    view_at = len(paths)
    if view is not None:
        f = workdir / "orig" / "other_view.jpg"
        f.write_bytes(edits.encode(Image.open(view).convert("RGB")))
        paths.append(f)
    t0 = perf_counter()
    h = kernel_images(paths)
    t_hash = perf_counter() - t0
    failed = int((~np.asarray(h.ok)).sum())
    index = np.arange(n)
    rows = []
    for e, truth in copies:
        query = np.fromiter(truth, dtype=np.int64)
        qs, ix, fl, _ = image_pairs(h, query, index)
        rows.append(_row(edits.IMAGE_EDITS[e].name, edits.IMAGE_EDITS[e].target, *_score(qs, ix, fl, truth)))
        wrong = [
            (originals[truth[int(q)]].name, originals[int(i)].name)
            for q, i, f in zip(qs, ix, fl, strict=True)
            if f and truth[int(q)] != int(i)
        ]
        rows[-1]["false_examples"] = wrong[:5]
    qs, ix, fl, _ = image_pairs(h, index, index, same=True)
    distinct_pairs = n * (n - 1) // 2
    false_pairs = [(originals[int(a)].name, originals[int(b)].name) for a, b, f in zip(qs, ix, fl, strict=True) if f]
    grey_pairs = [(originals[int(a)].name, originals[int(b)].name) for a, b, f in zip(qs, ix, fl, strict=True) if not f]
    cross_false = sum(int(r["false_flags"]) for r in rows)  # type: ignore[call-overload]
    cross_pairs = len(copies) * n * (n - 1)
    out: dict[str, object] = {
        "originals": n,
        "sources": len({p.source for p in originals}),
        "files": len(paths),
        "hash_s": t_hash,
        "not_hashed": failed,
        "edits": rows,
        "distinct_pairs": distinct_pairs + cross_pairs,
        "false_positives": len(false_pairs) + cross_false,
        "false_pairs": false_pairs[:20],
        "grey_pairs": len(grey_pairs),
        "grey_examples": grey_pairs[:10],
    }
    original = next((k for k, p in enumerate(originals) if p.name == corpus.OTHER_VIEW[1]), None)
    if view is not None and original is not None:
        qs, ix, fl, _ = image_pairs(h, np.array([view_at]), np.array([original]))
        out["other_view"] = {"pair": list(corpus.OTHER_VIEW), "flagged": bool(fl.any()), "returned": len(qs) > 0}
    if anchor:
        t0 = perf_counter()
        ims = []
        for p in paths:
            with Image.open(p) as im:
                im.load()
                ims.append(im)
        ph = _phash_u64(ims)
        out["imagehash_s"] = perf_counter() - t0
        arows = []
        for e, truth in copies:
            query = np.fromiter(truth, dtype=np.int64)
            a, b = _within(ph[query], ph[:n], 8)
            qs, ix = query[a], b
            arows.append(_row(edits.IMAGE_EDITS[e].name, edits.IMAGE_EDITS[e].target,
                              *_score(qs, ix, np.ones(len(qs), bool), truth)))  # fmt: skip
        a, b = _within(ph[:n], ph[:n], 8, same=True)
        out["imagehash"] = {"edits": arows, "false_positives": len(a) + sum(int(r["false_flags"]) for r in arows)}  # type: ignore[call-overload]
    return out


def _shingles(text: str, n: int) -> set[bytes]:
    import unicodedata

    words = "".join(c if c.isalnum() or c.isspace() else " " for c in unicodedata.normalize("NFKC", text).lower())
    w = words.split()
    return {" ".join(w[i : i + n]).encode() for i in range(max(0, len(w) - n + 1))}


def _datasketch_quality(
    texts: list[str], n: int, copies: list[tuple[int, dict[int, int]]], threshold: float, containment: float, ngram: int
) -> dict[str, object]:
    from datasketch import MinHash, MinHashLSH, MinHashLSHEnsemble

    t0 = perf_counter()
    sets = [_shingles(t, ngram) for t in texts]
    mh = MinHash.bulk([list(s) for s in sets], num_perm=128)
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    for k in range(n):
        if sets[k]:
            lsh.insert(k, mh[k])
    ens = MinHashLSHEnsemble(threshold=containment, num_perm=128, num_part=16)
    ens.index([(k, mh[k], len(sets[k])) for k in range(n) if sets[k]])
    rows = []
    for e, truth in copies:
        edit = edits.TEXT_EDITS[e]
        qs, ix = [], []
        for q in truth:
            if not sets[q]:
                continue
            if edit.kind == "containment":
                cands = list(ens.query(mh[q], len(sets[q])))
            else:
                cands = [c for c in lsh.query(mh[q]) if mh[q].jaccard(mh[c]) >= threshold]
            qs += [q] * len(cands)
            ix += list(cands)
        rows.append(_row(edit.name, edit.target, *_score(np.array(qs), np.array(ix), np.ones(len(qs), bool), truth)))
    false = 0
    for k in range(n):
        if sets[k]:
            false += sum(1 for c in lsh.query(mh[k]) if c > k and mh[k].jaccard(mh[c]) >= threshold)
            false += sum(1 for c in ens.query(mh[k], len(sets[k])) if c != k)
    return {"edits": rows, "false_positives": false, "s": perf_counter() - t0}


def quality_texts(anchor: bool) -> dict[str, object]:
    docs, left_out = corpus.documents()
    n = len(docs)
    vocab = np.unique(np.array(" ".join(d.text for d in docs).split(), dtype=object).astype(str))
    rng = np.random.default_rng(0)
    texts: list[str] = [d.text for d in docs]
    copies: list[tuple[int, dict[int, int]]] = []
    for e, edit in enumerate(edits.TEXT_EDITS):
        truth: dict[int, int] = {}
        for k, d in enumerate(docs):
            c = edit.apply(d.text, rng, vocab)
            if c is not None:
                truth[len(texts)] = k
                texts.append(c)
        copies.append((e, truth))
    index = np.arange(n)
    rows = []
    t0 = perf_counter()
    for e, truth in copies:
        query = np.fromiter(truth, dtype=np.int64)
        qs, ix, fl, _ = text_pairs(texts, query, index)
        rows.append(_row(edits.TEXT_EDITS[e].name, edits.TEXT_EDITS[e].target, *_score(qs, ix, fl, truth)))
    qs, ix, fl, m = text_pairs(texts, index, index, same=True)
    elapsed = perf_counter() - t0
    from auditor.similarity.minhash import recall_curve

    curve = {f"{x:.2f}": float(recall_curve(m.bands, m.rows, x)) for x in (0.3, 0.4, 0.45, 0.5, 0.6, 0.8)}
    false_pairs = [(docs[int(a)].name, docs[int(b)].name) for a, b, f in zip(qs, ix, fl, strict=True) if f]
    grey = [(docs[int(a)].name, docs[int(b)].name) for a, b, f in zip(qs, ix, fl, strict=True) if not f]
    fam: dict[str, int] = {}
    for d in docs:
        fam[d.family] = fam.get(d.family, 0) + 1
    out: dict[str, object] = {
        "documents": n,
        "left_out": left_out,
        "families": fam,
        "median_words": int(np.median([len(d.text.split()) for d in docs])),
        "copies": len(texts) - n,
        "kernel_s": elapsed,
        "edits": rows,
        "distinct_pairs": n * (n - 1) // 2 + sum(len(t) * (n - 1) for _, t in copies),
        "false_positives": len(false_pairs) + sum(int(r["false_flags"]) for r in rows),  # type: ignore[call-overload]
        "false_pairs": false_pairs[:20],
        "grey_pairs": len(grey),
        "grey_examples": grey[:10],
        "settings": repr(_settings("text")),
        "lsh": {"bands": m.bands, "rows": m.rows, "candidate_probability": curve},
    }
    if anchor:
        out["datasketch"] = _datasketch_quality(texts, n, copies, *_threshold_and_shingle(_settings("text")))
    return out


def _threshold_and_shingle(s: object) -> tuple[float, float, int]:
    """The kernel's flag thresholds (resemblance, containment) and shingle size, for the anchors."""
    one = getattr(s, "threshold", None)
    res = float(one if one is not None else getattr(s, "flag_resemblance", 0.5))
    con = float(one if one is not None else getattr(s, "flag_containment", 0.5))
    return res, con, int(getattr(s, "shingle", getattr(s, "ngram", 5)))


# --- speed (each measurement in a fresh subprocess) ----------------------------------------------------


def worker_images(folder: str, cache: str) -> dict[str, object]:
    from auditor.manifest.content import hash_files

    truth = json.loads((Path(folder) / "truth.json").read_text())
    n_train, n_holdout = truth["n_train"], truth["n_holdout"]
    paths = [Path(folder) / f"img_{i:07d}.jpg" for i in range(n_train + n_holdout)]
    t0 = perf_counter()
    digests = hash_files(paths, Path(cache))
    t1 = perf_counter()
    h = kernel_images(paths, cache_dir=Path(cache), sha256=digests.digests)
    t2 = perf_counter()
    train, holdout = np.arange(n_train), np.arange(n_train, n_train + n_holdout)
    qs, ix, fl, _ = image_pairs(h, holdout, train)
    _qs2, _ix2, fl2, _ = image_pairs(h, holdout, holdout, same=True)
    t3 = perf_counter()
    found = {(int(q), int(i)) for q, i, f in zip(qs, ix, fl, strict=True) if f}
    planted = {(int(k), int(v[0])) for k, v in truth["planted"].items()}
    return {
        "sha256_s": t1 - t0,
        "hash_s": t2 - t1,
        "compare_s": t3 - t2,
        "total_s": t3 - t0,
        "peak_rss_mb": _rss_mb(),
        "flagged_train": int(fl.sum()),
        "flagged_holdout": int(fl2.sum()),
        "grey": int((~fl).sum() + (~fl2).sum()),
        "planted_found": len(found & planted),
        "planted": len(planted),
        "not_hashed": int((~np.asarray(h.ok)).sum()),
    }


def worker_imagehash(folder: str, limit: int) -> dict[str, object]:
    from multiprocessing import Pool

    truth = json.loads((Path(folder) / "truth.json").read_text())
    n_train, n_holdout = truth["n_train"], truth["n_holdout"]
    n = n_train + n_holdout
    paths = [str(Path(folder) / f"img_{i:07d}.jpg") for i in range(n)]
    # The anchor hashes every file when it can; with --anchor-limit, a sample whose time is scaled to all.
    pick = np.arange(n) if limit <= 0 or limit >= n else np.linspace(0, n - 1, limit).astype(np.int64)
    t0 = perf_counter()
    with Pool(2) as pool:
        hashes = np.array(pool.map(_imagehash_one, [paths[i] for i in pick], chunksize=256), dtype=np.uint64)
    t_hash = (perf_counter() - t0) * n / len(pick)
    out: dict[str, object] = {"hash_s": t_hash, "sampled": len(pick), "of": n}
    if len(pick) == n:
        t1 = perf_counter()
        a, b = _within(hashes[n_train:], hashes[:n_train], 8)
        out["compare_s"] = perf_counter() - t1
        found = {(int(q) + n_train, int(i)) for q, i in zip(a, b, strict=True)}
        planted = {(int(k), int(v[0])) for k, v in truth["planted"].items()}
        out["planted_found"] = len(found & planted)
        out["flagged_train"] = len(found)
    # The hashing runs in the pool's processes: the larger of this process and its children.
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out["peak_rss_mb"] = max(_rss_mb(), children)
    return out


def _imagehash_one(path: str) -> int:
    import imagehash
    from PIL import Image

    with Image.open(path) as im:
        bits = imagehash.phash(im).hash.ravel()
    return int(np.packbits(bits).view(">u8")[0])


def worker_texts(target: str) -> dict[str, object]:
    import pyarrow.parquet as pq

    t0 = perf_counter()
    table = pq.read_table(target)
    texts = table.column("text").combine_chunks()
    holdout = table.column("holdout").to_numpy()
    src = table.column("planted_src").to_numpy()
    kind = table.column("planted").to_pylist()
    t1 = perf_counter()
    train, hold = np.flatnonzero(~holdout), np.flatnonzero(holdout)
    qs, ix, fl, m = text_pairs(texts, hold, train)
    t2 = perf_counter()
    _qs2, _ix2, fl2, _ = text_pairs(texts, hold, hold, same=True)
    t3 = perf_counter()
    found = {(int(q), int(i)) for q, i, f in zip(qs, ix, fl, strict=True) if f}
    per_kind: dict[str, list[int]] = {}
    for q in np.flatnonzero(src >= 0):
        per_kind.setdefault(kind[q], [0, 0])
        per_kind[kind[q]][1] += 1
        per_kind[kind[q]][0] += (int(q), int(src[q])) in found
    planted = {(int(q), int(src[q])) for q in np.flatnonzero(src >= 0)}
    return {
        "read_s": t1 - t0,
        "train_s": t2 - t1,
        "holdout_s": t3 - t2,
        "total_s": t3 - t1,
        "peak_rss_mb": _rss_mb(),
        "flagged_train": int(fl.sum()),
        "unplanted_flagged": len(found - planted),
        "flagged_holdout": int(fl2.sum()),
        "grey": int((~fl).sum() + (~fl2).sum()),
        "planted": per_kind,
        "lsh": repr(getattr(m, "lsh", None) or (getattr(m, "bands", None), getattr(m, "rows", None))),
    }


def worker_datasketch(target: str, limit: int) -> dict[str, object]:
    import pyarrow.parquet as pq
    from datasketch import MinHash, MinHashLSH

    threshold, _, ngram = _threshold_and_shingle(_settings("text"))
    table = pq.read_table(target)
    texts = table.column("text").to_pylist()
    holdout = table.column("holdout").to_numpy()
    src = table.column("planted_src").to_numpy()
    kind = table.column("planted").to_pylist()
    n = len(texts)
    train, hold = np.flatnonzero(~holdout), np.flatnonzero(holdout)
    t0 = perf_counter()
    if 0 < limit < n:  # time on a sample of the training side, scaled; the holdout side is always whole
        train = train[np.linspace(0, len(train) - 1, limit).astype(np.int64)]
    need = np.concatenate([train, hold])
    mh = dict(
        zip(need.tolist(), MinHash.bulk([list(_shingles(texts[i], ngram)) for i in need], num_perm=128), strict=True)
    )
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    with lsh.insertion_session() as session:
        for i in train:
            session.insert(int(i), mh[int(i)])
    found = set()
    for q in hold:
        for c in lsh.query(mh[int(q)]):
            if mh[int(q)].jaccard(mh[c]) >= threshold:
                found.add((int(q), int(c)))
    elapsed = perf_counter() - t0
    per_kind: dict[str, list[int]] = {}
    for q in np.flatnonzero(src >= 0):
        per_kind.setdefault(kind[q], [0, 0])
        per_kind[kind[q]][1] += 1
        per_kind[kind[q]][0] += (int(q), int(src[q])) in found
    return {"s": elapsed, "train_items": len(train), "planted": per_kind, "flagged_train": len(found),
            "threshold": threshold, "peak_rss_mb": _rss_mb()}  # fmt: skip


def worker_stage(kind: str, source: str, workdir: str) -> dict[str, object]:
    """`audit run --only near_duplicates` as a user runs it, on the speed set: a manifest, a config, the report."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import yaml

    from auditor import load_config, run_audit

    work = Path(workdir)
    if kind == "texts":
        table = pq.read_table(source)
        n = table.num_rows
        holdout = table.column("holdout").to_numpy()
        manifest = pa.table({
            "sid": [f"t{i}" for i in range(n)],
            "split": np.where(holdout, "test", "train").tolist(),
            "body": table.column("text"),
        })  # fmt: skip
        pq.write_table(manifest, work / "manifest.parquet")
        keys = {"text": "body"}
        name = "manifest.parquet"
    else:
        folder = Path(source)
        paths = sorted(folder.glob("img_*.jpg"))
        meta = json.loads((folder / "truth.json").read_text())
        n_train = int(meta["n_train"])
        lines = ["sid,file,split"] + [
            f"i{k},{p.name},{'train' if k < n_train else 'test'}" for k, p in enumerate(paths)
        ]
        (folder / "bench_manifest.csv").write_text("\n".join(lines) + "\n")
        keys = {"content_path": "file"}
        name = str(folder / "bench_manifest.csv")
    config = {
        "version": 1,
        "manifest": {"path": name, "id": "sid", "split": "split"},
        "keys": keys,
        "stages": {"near_duplicates": {"cache_dir": str(work / "cache")}},
        "roots": [str(Path(source).parent if kind == "texts" else Path(source))],
        "report": {"out_dir": str(work / "report"), "formats": ["json"]},
    }
    (work / "audit.yaml").write_text(yaml.safe_dump(config))
    t0 = perf_counter()
    report = run_audit(load_config(work / "audit.yaml"), only=["near_duplicates"])
    seconds = perf_counter() - t0
    found = {f.code: f.evidence.get("pairs") for f in report.findings if f.code in ("NDP001", "NDP002", "NDP003")}
    status = [r.status for r in report.stages if r.stage == "near_duplicates"]
    return {"seconds": seconds, "peak_rss_mb": _rss_mb(), "status": status, "pairs": found}


def stage(data_dir: Path, scale: float, only: str | None) -> dict[str, object]:
    """The whole stage end to end on the speed sets, twice (the second run finds the caches warm)."""
    out: dict[str, object] = {}
    n_train_t, n_hold_t = round(100_000 * scale), round(10_000 * scale)
    n_train_i, n_hold_i = round(90_000 * scale), round(10_000 * scale)
    with tempfile.TemporaryDirectory(prefix="neardup-stage-") as tmp:
        if only != "images":
            target = synth.texts(data_dir / f"neardup_texts_{n_train_t}_{n_hold_t}", n_train_t, n_hold_t)
            (Path(tmp) / "t").mkdir()
            out["texts"] = [_sub("stage", "texts", str(target), str(Path(tmp) / "t")) for _ in range(2)]
        if only != "texts":
            folder = data_dir / f"neardup_images_{n_train_i}_{n_hold_i}"
            synth.images(folder, n_train_i, n_hold_i)
            (Path(tmp) / "i").mkdir()
            out["images"] = [_sub("stage", "images", str(folder), str(Path(tmp) / "i")) for _ in range(2)]
    return out


def _sub(*args: str) -> dict[str, object]:
    res = subprocess.run([sys.executable, __file__, "--worker", *args], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.stderr.write(res.stderr[-4000:])
        return {"error": res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit {res.returncode}"}
    return json.loads(res.stdout.strip().splitlines()[-1])


def speed(data_dir: Path, scale: float, anchor_limit: int, only: str | None) -> dict[str, object]:
    out: dict[str, object] = {}
    if only != "images":
        _speed_texts(out, data_dir, scale, anchor_limit)
    if only != "texts":
        _speed_images(out, data_dir, scale, anchor_limit)
    return out


def _speed_texts(out: dict[str, object], data_dir: Path, scale: float, anchor_limit: int) -> None:
    n_train_t, n_hold_t = round(100_000 * scale), round(10_000 * scale)
    t0 = perf_counter()
    target = synth.texts(data_dir / f"neardup_texts_{n_train_t}_{n_hold_t}", n_train_t, n_hold_t)
    out["texts_generate_s"] = perf_counter() - t0
    out["texts_n"] = f"{n_train_t:,} training x {n_hold_t:,} holdout"
    out["texts"] = [_sub("texts", str(target)) for _ in range(2)]
    out["datasketch"] = _sub("datasketch", str(target), str(anchor_limit))


def _speed_images(out: dict[str, object], data_dir: Path, scale: float, anchor_limit: int) -> None:
    n_train_i, n_hold_i = round(90_000 * scale), round(10_000 * scale)
    folder = data_dir / f"neardup_images_{n_train_i}_{n_hold_i}"
    t0 = perf_counter()
    synth.images(folder, n_train_i, n_hold_i)
    out["images_generate_s"] = perf_counter() - t0
    out["images_n"] = f"{n_train_i:,} training + {n_hold_i:,} holdout"
    out["image_bytes"] = sum(p.stat().st_size for p in folder.glob("*.jpg"))
    with tempfile.TemporaryDirectory(prefix="neardup-cache-") as cache:
        out["images"] = [_sub("images", str(folder), cache) for _ in range(2)]
    out["imagehash"] = _sub("imagehash", str(folder), str(anchor_limit))


# --- tables --------------------------------------------------------------------------------------------


def _f(x: object, digits: int = 3) -> str:
    if isinstance(x, float):
        return "—" if x != x else f"{x:.{digits}f}"
    return str(x)


def print_quality(kind: str, q: dict[str, object], anchor_key: str) -> None:
    anchor = {r["edit"]: r for r in q.get(anchor_key, {}).get("edits", [])}  # type: ignore[union-attr]
    print(f"\n{kind}: {q.get('originals', q.get('documents'))} originals; distinct pairs "
          f"{q['distinct_pairs']:,}; false positives {q['false_positives']} (grey-zone pairs among originals: "
          f"{q['grey_pairs']}); {anchor_key} false positives {q.get(anchor_key, {}).get('false_positives', '—')}")  # type: ignore[union-attr]  # fmt: skip
    print(
        f"| edit | recall target | copies | recall | flagged or grey | precision | false flags | {anchor_key} recall |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in q["edits"]:  # type: ignore[union-attr]
        a = anchor.get(r["edit"], {})
        tgt = ("met" if r["met"] else "**MISSED**") if r["target"] else "documented"
        print(f"| {r['edit']} | {tgt} | {r['copies']} | {_f(r['recall'])} | {_f(r['found_or_grey'])} | "
              f"{_f(r['precision'])} | {r['false_flags']} | {_f(a.get('recall', float('nan')))} |")  # fmt: skip


def _speed_missed(sp: dict[str, object], scale: float) -> bool:
    """True when a run failed, missed a planted copy, or (at full scale) took longer than the issue allows."""
    missed = False
    for r in sp.get("texts", []):  # type: ignore[attr-defined]
        missed |= "error" in r or any(a < b for a, b in r["planted"].values())
        missed |= scale >= 1 and r.get("total_s", 0) > 60
    for k, r in enumerate(sp.get("images", [])):  # type: ignore[attr-defined]
        missed |= "error" in r or r["planted_found"] < r["planted"]
        missed |= scale >= 1 and k == 0 and r.get("total_s", 0) > 180
    return bool(missed)


def print_speed(sp: dict[str, object]) -> None:
    if "texts" in sp:
        _print_speed_texts(sp)
    if "images" in sp:
        _print_speed_images(sp)


def _print_speed_texts(sp: dict[str, object]) -> None:
    t, d = sp["texts"], sp["datasketch"]
    print(f"\nTexts ({sp.get('texts_n')}): generated in {sp['texts_generate_s']:.1f} s")
    print(
        "| run | read s | holdout x train s | holdout x holdout s | total s | peak RSS MB | planted found "
        "| other flagged |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for k, r in enumerate(t):  # type: ignore[arg-type]
        if "error" in r:
            print(f"| {k + 1} | error: {r['error']} |")
            continue
        found = ", ".join(f"{name} {a}/{b}" for name, (a, b) in r["planted"].items())
        print(f"| kernel, run {k + 1} | {r['read_s']:.2f} | {r['train_s']:.2f} | {r['holdout_s']:.2f} | "
              f"{r['total_s']:.2f} | {r['peak_rss_mb']:.0f} | {found} | {r['unplanted_flagged']} |")  # fmt: skip
    if "error" not in d:
        found = ", ".join(f"{name} {a}/{b}" for name, (a, b) in d["planted"].items())  # type: ignore[union-attr]
        print(f"| datasketch MinHashLSH (threshold {d['threshold']}, {d['train_items']:,} training texts) | | "
              f"{d['s']:.2f} | | | {d['peak_rss_mb']:.0f} | {found} | |")  # fmt: skip


def _print_speed_images(sp: dict[str, object]) -> None:
    print(
        f"\nImages ({sp.get('images_n')}, {sp['image_bytes'] / 1e6:.0f} MB): "
        f"generated in {sp['images_generate_s']:.1f} s"
    )
    print("| run | sha256 s | hash s | compare s | total s | peak RSS MB | planted found | other flagged | grey |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for k, r in enumerate(sp["images"]):  # type: ignore[arg-type]
        if "error" in r:
            print(f"| {k + 1} | error: {r['error']} |")
            continue
        name = "kernel, cold cache" if k == 0 else "kernel, cached"
        print(f"| {name} | {r['sha256_s']:.2f} | {r['hash_s']:.2f} | {r['compare_s']:.2f} | {r['total_s']:.2f} | "
              f"{r['peak_rss_mb']:.0f} | {r['planted_found']}/{r['planted']} | "
              f"{r['flagged_train'] - r['planted_found'] + r['flagged_holdout']} | {r['grey']} |")  # fmt: skip
    a = sp["imagehash"]
    if "error" not in a:
        scaled = "" if a["sampled"] == a["of"] else f" (on {a['sampled']:,}, scaled)"  # type: ignore[index]
        compare = a.get("compare_s", float("nan"))  # type: ignore[union-attr]
        print(f"| imagehash.phash, 2 processes{scaled} | | {a['hash_s']:.2f} | {compare:.2f} | | "
              f"{a['peak_rss_mb']:.0f} | {a.get('planted_found', '—')} | | |")  # type: ignore[union-attr]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="+", choices=["quality", "speed", "stage"], default=["quality", "speed"])
    parser.add_argument("--only", choices=["images", "texts"], help="one kind only")
    parser.add_argument("--scale", type=float, default=1.0, help="speed sets at this fraction of 100k x 10k")
    parser.add_argument("--anchor-limit", type=int, default=0, help="anchors' speed on a sample (0 = all)")
    parser.add_argument("--no-anchors", action="store_true")
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--image-setting", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--text-setting", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for kind, items in (("image", args.image_setting), ("text", args.text_setting)):
        for item in items:
            name, _, value = item.partition("=")
            OVERRIDES[kind][name.strip()] = float(value)
    os.environ["NEARDUP_BENCH_SETTINGS"] = json.dumps(OVERRIDES)
    if args.worker:
        mode, *rest = args.worker
        fn = {"images": worker_images, "imagehash": worker_imagehash, "texts": worker_texts,
              "datasketch": worker_datasketch, "stage": worker_stage}[mode]  # fmt: skip
        conv = [int(x) if x.lstrip("-").isdigit() else x for x in rest]
        print(json.dumps(fn(*conv)))
        return
    before = _fingerprint()
    results: dict[str, object] = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "kernels": before}
    failed = False
    if "quality" in args.part:
        if args.only in (None, "images"):
            with tempfile.TemporaryDirectory(prefix="neardup-eval-") as tmp:
                qi = quality_images(Path(tmp), not args.no_anchors)
            results["quality_images"] = qi
            print_quality("Images", qi, "imagehash")
            print("false pairs:", qi["false_pairs"], "grey:", qi["grey_examples"])
            if "other_view" in qi:
                print("stereo pair (another view of one scene, not a distinct photo):", qi["other_view"])
            failed |= any(r["met"] is False for r in qi["edits"]) or qi["false_positives"] != 0  # type: ignore[union-attr]
        if args.only in (None, "texts"):
            qt = quality_texts(not args.no_anchors)
            results["quality_texts"] = qt
            print_quality("Texts", qt, "datasketch")
            print("false pairs:", qt["false_pairs"], "grey:", qt["grey_examples"])
            failed |= any(r["met"] is False for r in qt["edits"]) or qt["false_positives"] != 0  # type: ignore[union-attr]
    if "speed" in args.part:
        sp = speed(args.data_dir, args.scale, args.anchor_limit, args.only)
        results["speed"] = sp
        print_speed(sp)
        failed |= _speed_missed(sp, args.scale)
    if "stage" in args.part:
        st = stage(args.data_dir, args.scale, args.only)
        results["stage"] = st
        for kind, runs in st.items():
            for i, r in enumerate(runs):  # type: ignore[attr-defined]
                print(f"stage, {kind}, run {i + 1}: {json.dumps(r)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    if _fingerprint() != before:
        print("the kernels changed during the run: numbers discarded", file=sys.stderr)
        sys.exit(2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
