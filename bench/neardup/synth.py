"""The large sets of the speed measurements, made from the installed corpus (and cached under bench/data/).

Texts: each ~300-word text is drawn from a word chain trained on the corpus documents (the next word follows
the current one as in the corpus 70% of the time, otherwise it is any corpus word by frequency), so the
vocabulary and common phrases are real but no long passage repeats by chance. Images: 2x2 mosaics of random
crops (32-192 px) of the installed photos, 96-160 px a side, randomly mirrored, saved as JPEG q75-95 (plain
crops of ~25 photos would overlap, so many would be real near-copies of each other).
Both plant known copies in the holdout (1% edited copies of training items) so every timed run also
checks that it found them.
"""

from __future__ import annotations

import json
import os
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from neardup import corpus, edits


def texts(folder: Path, n_train: int, n_holdout: int, words: int = 300, seed: int = 0) -> Path:
    """Write folder/texts.parquet (text, holdout bool, planted_src int, planted kind) unless it exists."""
    out = folder / "texts.parquet"
    if out.exists():
        return out
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    tokens = " ".join(d.text for d in corpus.documents()[0]).split()
    ids: dict[str, int] = {}
    codes = np.fromiter((ids.setdefault(t, len(ids)) for t in tokens), dtype=np.int64, count=len(tokens))
    vocab = list(ids)
    order = np.argsort(codes[:-1], kind="stable")
    succ = codes[1:][order]
    offsets = np.searchsorted(codes[:-1][order], np.arange(len(vocab) + 1))
    word = vocab.__getitem__
    n = n_train + n_holdout
    lengths = rng.integers(words * 2 // 3, words * 4 // 3 + 1, size=n)
    out_codes = np.empty((n, lengths.max()), dtype=np.int64)
    state = codes[rng.integers(0, len(codes), size=n)]
    for step in range(lengths.max()):
        out_codes[:, step] = state
        start, cnt = offsets[state], offsets[state + 1] - offsets[state]
        chained = (rng.random(n) < 0.7) & (cnt > 0)
        pick = succ[np.minimum(start + (rng.random(n) * np.maximum(cnt, 1)).astype(np.int64), len(succ) - 1)]
        state = np.where(chained, pick, codes[rng.integers(0, len(codes), size=n)])
    strings = [" ".join(map(word, out_codes[i, : lengths[i]].tolist())) for i in range(n)]
    planted_src = np.full(n, -1, dtype=np.int64)
    kind = [""] * n
    plant = max(1, n_holdout // 100)
    holdout_ix = np.arange(n_train, n)
    chosen = rng.choice(holdout_ix, size=2 * plant, replace=False)
    sources = rng.choice(n_train, size=2 * plant, replace=False)
    replace5, excerpt = edits.TEXT_EDITS[2].apply, edits.TEXT_EDITS[5].apply  # 5% replaced, 100-word excerpt
    for j, (h, s) in enumerate(zip(chosen, sources, strict=True)):
        fn, name = (replace5, "words replaced 5%") if j < plant else (excerpt, "excerpt 100 words")
        strings[h] = fn(strings[s], rng, np.array(vocab)) or strings[s]
        planted_src[h], kind[h] = s, name
    holdout = np.zeros(n, dtype=bool)
    holdout[n_train:] = True
    table = pa.table({"text": strings, "holdout": holdout, "planted_src": planted_src, "planted": kind})
    pq.write_table(table, out)
    return out


def _write_images(job: tuple[int, int, int, str]) -> None:
    from PIL import Image

    start, stop, seed, folder = job
    rng = np.random.default_rng(seed)
    photos = [corpus._rgb(p) for p in corpus.photo_files()]
    for i in range(start, stop):
        # A 2x2 mosaic of random crops of random photos: crops of ~25 photos overlap a lot, mosaics do not.
        size = int(rng.integers(48, 81))
        cells = []
        for _ in range(4):
            px = photos[int(rng.integers(len(photos)))]
            h, w = px.shape[:2]
            side = int(rng.integers(32, min(192, h, w) + 1))
            y, x = int(rng.integers(0, h - side + 1)), int(rng.integers(0, w - side + 1))
            cell = Image.fromarray(px[y : y + side, x : x + side]).resize((size, size), Image.Resampling.BILINEAR)
            cells.append(np.asarray(cell))
        im = Image.fromarray(np.concatenate([np.concatenate(cells[:2], 1), np.concatenate(cells[2:], 1)], 0))
        if rng.random() < 0.5:
            im = im.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        im.save(os.path.join(folder, f"img_{i:07d}.jpg"), quality=int(rng.integers(75, 96)))


def images(folder: Path, n_train: int, n_holdout: int, seed: int = 0) -> tuple[list[Path], dict[str, object]]:
    """Write the JPEGs (unless folder/truth.json exists) and return the paths, train first, and the truth."""
    truth_file = folder / "truth.json"
    n = n_train + n_holdout
    paths = [folder / f"img_{i:07d}.jpg" for i in range(n)]
    if truth_file.exists():
        return paths, json.loads(truth_file.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    chunk = max(1, n // 16)
    jobs = [(a, min(n, a + chunk), seed * 1000 + k, str(folder)) for k, a in enumerate(range(0, n, chunk))]
    with Pool(2) as pool:
        pool.map(_write_images, jobs)
    # Plant 1% of the holdout as edited copies of training images: half re-encoded at q40, half resized to half.
    from PIL import Image

    rng = np.random.default_rng(seed + 1)
    plant = max(1, n_holdout // 100)
    chosen = rng.choice(np.arange(n_train, n), size=2 * plant, replace=False)
    sources = rng.choice(n_train, size=2 * plant, replace=False)
    planted: dict[str, list[object]] = {}
    for j, (h, s) in enumerate(zip(chosen, sources, strict=True)):
        with Image.open(paths[s]) as im:
            px = np.asarray(im.convert("RGB"))
        edit = edits.IMAGE_EDITS[0] if j < plant else edits.IMAGE_EDITS[2]  # q50 re-encode / resize to half
        paths[h].write_bytes(edit.apply(px, rng))
        planted[str(int(h))] = [int(s), edit.name]
    truth = {"n_train": n_train, "n_holdout": n_holdout, "planted": planted}
    truth_file.write_text(json.dumps(truth))
    return paths, truth
