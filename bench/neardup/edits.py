"""The edits the benchmark makes: each one turns an original into the copy a holdout split might hold.

`expected` says whether the detector is meant to catch the edit (the issue's targets) or whether the row only
documents what is not caught.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# --- images --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImageEdit:
    name: str
    target: bool  # True: recall >= 0.99 is a target; False: measured to document what is (not) caught
    apply: Callable[[np.ndarray, np.random.Generator], bytes]  # RGB pixels -> encoded file


def _pil(px: np.ndarray):
    from PIL import Image

    return Image.fromarray(px)


def encode(im, quality: int = 92, fmt: str = "JPEG") -> bytes:
    buf = io.BytesIO()
    im.convert("RGB").save(buf, format=fmt, quality=quality)
    return buf.getvalue()


def _jpeg(q: int) -> Callable[[np.ndarray, np.random.Generator], bytes]:
    return lambda px, rng: encode(_pil(px), quality=q)


def _resize(f: float) -> Callable[[np.ndarray, np.random.Generator], bytes]:
    from PIL import Image

    def go(px: np.ndarray, rng: np.random.Generator) -> bytes:
        im = _pil(px)
        return encode(im.resize((max(8, round(im.width * f)), max(8, round(im.height * f))), Image.Resampling.LANCZOS))

    return go


def _blur(r: float) -> Callable[[np.ndarray, np.random.Generator], bytes]:
    from PIL import ImageFilter

    return lambda px, rng: encode(_pil(px).filter(ImageFilter.GaussianBlur(r)))


def _bright(f: float) -> Callable[[np.ndarray, np.random.Generator], bytes]:
    def go(px: np.ndarray, rng: np.random.Generator) -> bytes:
        out = np.clip(px.astype(np.float32) * (1.0 + f), 0, 255).round().astype(np.uint8)
        return encode(_pil(out))

    return go


def _crop(total: float) -> Callable[[np.ndarray, np.random.Generator], bytes]:
    """Remove `total` of the width and of the height, split at random between the two sides."""

    def go(px: np.ndarray, rng: np.random.Generator) -> bytes:
        h, w = px.shape[:2]
        ch, cw = max(1, round(h * total)), max(1, round(w * total))
        top, left = int(rng.integers(0, ch + 1)), int(rng.integers(0, cw + 1))
        return encode(_pil(px[top : h - (ch - top), left : w - (cw - left)]))

    return go


def _shift(f: float) -> Callable[[np.ndarray, np.random.Generator], bytes]:
    """Move the content by `f` of the size right and down; the uncovered border is the edge pixels repeated."""

    def go(px: np.ndarray, rng: np.random.Generator) -> bytes:
        h, w = px.shape[:2]
        dy, dx = max(1, round(h * f)), max(1, round(w * f))
        out = np.pad(px, ((dy, 0), (dx, 0), (0, 0)), mode="edge")[:h, :w]
        return encode(_pil(np.ascontiguousarray(out)))

    return go


def _rotate(deg: float) -> Callable[[np.ndarray, np.random.Generator], bytes]:
    from PIL import Image

    return lambda px, rng: encode(_pil(px).rotate(deg, resample=Image.Resampling.BILINEAR, expand=False))


def _mirror(px: np.ndarray, rng: np.random.Generator) -> bytes:
    return encode(_pil(np.ascontiguousarray(px[:, ::-1])))


def _combo(px: np.ndarray, rng: np.random.Generator) -> bytes:
    """Resize to half and re-encode at quality 40: what a thumbnailing pipeline does."""
    from PIL import Image

    im = _pil(px)
    return encode(im.resize((max(8, im.width // 2), max(8, im.height // 2)), Image.Resampling.BILINEAR), quality=40)


IMAGE_EDITS: list[ImageEdit] = [
    ImageEdit("JPEG re-encode q50", True, _jpeg(50)),
    ImageEdit("JPEG re-encode q30", True, _jpeg(30)),
    ImageEdit("resize to half", True, _resize(0.5)),
    ImageEdit("resize to half + JPEG q40", True, _combo),
    ImageEdit("Gaussian blur r=1", True, _blur(1.0)),
    ImageEdit("Gaussian blur r=2", True, _blur(2.0)),
    ImageEdit("brightness +10%", True, _bright(0.10)),
    ImageEdit("brightness -10%", True, _bright(-0.10)),
    ImageEdit("brightness +20%", False, _bright(0.20)),
    ImageEdit("brightness -20%", False, _bright(-0.20)),
    ImageEdit("brightness +30%", False, _bright(0.30)),
    ImageEdit("brightness -30%", False, _bright(-0.30)),
    ImageEdit("crop 2%", False, _crop(0.02)),
    ImageEdit("crop 5%", False, _crop(0.05)),
    ImageEdit("shift 2%", False, _shift(0.02)),
    ImageEdit("shift 5%", False, _shift(0.05)),
    ImageEdit("crop 10%", False, _crop(0.10)),
    ImageEdit("rotate 5°", False, _rotate(5)),
    ImageEdit("rotate 90°", False, _rotate(90)),
    ImageEdit("mirror", False, _mirror),
]

# --- texts ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextEdit:
    name: str
    target: bool
    kind: str  # "resemblance": the copy stands for the whole original; "containment": an excerpt of it
    apply: Callable[[str, np.random.Generator, np.ndarray], str | None]  # text, rng, vocabulary -> copy


_SENT = re.compile(r"(?<=[.!?])\s+")
_ALNUM = re.compile(r"[^\W_]")


def _replace(frac: float) -> Callable[[str, np.random.Generator, np.ndarray], str | None]:
    """Replace `frac` of the words (at random positions) by words drawn from the corpus vocabulary."""

    def go(text: str, rng: np.random.Generator, vocab: np.ndarray) -> str | None:
        words = text.split()
        k = max(1, round(len(words) * frac))
        for i in rng.choice(len(words), size=k, replace=False):
            new = str(vocab[rng.integers(len(vocab))])
            while new.lower() == words[i].lower():
                new = str(vocab[rng.integers(len(vocab))])
            words[i] = new
        return " ".join(words)

    return go


def _excerpt(n: int) -> Callable[[str, np.random.Generator, np.ndarray], str | None]:
    """A passage of `n` words from a document at least twice as long (so the excerpt is a small part of it).

    Words are tokens with a letter or digit: a run of ASCII-art tokens (`| +---+ |`) is not 50 words."""

    def go(text: str, rng: np.random.Generator, vocab: np.ndarray) -> str | None:
        tokens = text.split()
        real = np.flatnonzero([_ALNUM.search(t) is not None for t in tokens])
        if len(real) < 2 * n:
            return None
        first = int(rng.integers(0, len(real) - n + 1))
        return " ".join(tokens[real[first] : real[first + n - 1] + 1])

    return go


def _reorder(text: str, rng: np.random.Generator, vocab: np.ndarray) -> str | None:
    sents = _SENT.split(text.strip())
    if len(sents) < 3:
        return None
    perm = rng.permutation(len(sents))
    if (perm == np.arange(len(sents))).all():
        perm = perm[::-1]
    return " ".join(sents[i] for i in perm)


def _paraphrase(text: str, rng: np.random.Generator, vocab: np.ndarray) -> str | None:
    """A crude stand-in for a paraphrase: sentences reordered, 10% of words dropped, 25% replaced."""
    shuffled = _reorder(text, rng, vocab) or text
    words = shuffled.split()
    keep = rng.random(len(words)) >= 0.10
    words = [w for w, k in zip(words, keep, strict=True) if k]
    return _replace(0.25)(" ".join(words), rng, vocab) if words else None


TEXT_EDITS: list[TextEdit] = [
    TextEdit("words replaced 1%", True, "resemblance", _replace(0.01)),
    TextEdit("words replaced 2%", True, "resemblance", _replace(0.02)),
    TextEdit("words replaced 5%", True, "resemblance", _replace(0.05)),
    TextEdit("words replaced 10%", False, "resemblance", _replace(0.10)),
    TextEdit("excerpt 50 words", True, "containment", _excerpt(50)),
    TextEdit("excerpt 100 words", True, "containment", _excerpt(100)),
    TextEdit("excerpt 200 words", True, "containment", _excerpt(200)),
    TextEdit("sentences reordered", False, "resemblance", _reorder),
    TextEdit("paraphrase-like (25% replaced, 10% dropped, reordered)", False, "resemblance", _paraphrase),
]
