"""Rebuild frames/: small PNG frames of six synthetic videos, a renamed byte copy and a re-encoded copy.

Each video is one scene (a smooth random field, its own seed) panned a little from frame to frame, so
frames of one video look alike and frames of different videos do not. Run from this folder:
`python make_frames.py` (needs numpy and Pillow); the output is deterministic.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

WIDTH, HEIGHT, PAN = 96, 64, 2
HERE = Path(__file__).parent


def scene(seed: int) -> np.ndarray:
    """A smooth RGB field larger than a frame, so frames can pan across it."""
    rng = np.random.default_rng(seed)
    coarse = rng.uniform(0, 255, size=(6, 8, 3)).astype(np.uint8)
    big = Image.fromarray(coarse).resize((WIDTH + 16, HEIGHT + 16), Image.Resampling.BICUBIC)
    grain = rng.normal(0, 4, size=(HEIGHT + 16, WIDTH + 16, 3))
    return np.clip(np.asarray(big, dtype=np.float64) + grain, 0, 255).astype(np.uint8)


def main() -> None:
    frames = HERE / "frames"
    frames.mkdir(exist_ok=True)
    with open(HERE / "manifest.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    scenes: dict[str, np.ndarray] = {}
    for row in rows:
        name = Path(row["file"]).name
        stem = Path(name).stem
        video, _, index = stem.split("_")
        if index.startswith("9"):
            continue  # the copies are made below
        field = scenes.setdefault(video, scene(int(video[1:])))
        x = PAN * int(index) + (8 if row["person"] == "p3" else 0)
        Image.fromarray(field[8 : 8 + HEIGHT, x : x + WIDTH]).save(frames / name, optimize=True)
    # A training frame renamed into test (byte-identical), and another one re-encoded as a JPEG at quality 40.
    shutil.copyfile(frames / "v01_p1_001.png", frames / "v06_p3_900.png")
    Image.open(frames / "v02_p2_002.png").convert("RGB").save(frames / "v06_p3_901.jpg", quality=40)


if __name__ == "__main__":
    main()
