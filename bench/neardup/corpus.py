"""Real photos and documents found on this machine (nothing is downloaded).

Photos: the sample images that scikit-image, scikit-learn and matplotlib ship. To get many distinct photos
the large ones are cut into non-overlapping tiles; tiles with almost no content (a patch of clear sky, the
black border of the retina image) are skipped, since two such patches are not distinct photos in any sense a
reviewer would accept. The 100 faces of scikit-image's LFW subset (25x25, scaled up) are the "different faces
of similar pose". motorcycle_right is the other view of the stereo pair motorcycle_left: the same scene at the
same instant, a few centimetres apart (what frames of one video are), so it is not a distinct photo; it is
measured on its own (`other_view`).

Documents: Python's language reference (pydoc_data topics), the docstrings of standard library modules,
classes and functions (read with ast, never imported), and the README / NEWS files under /usr/share/doc, one
per package. Twins that really are copies (the pure-Python mirrors _pyio/_pydecimal, ntpath vs posixpath,
byte-identical files) are left out so that "distinct" means distinct.
"""

from __future__ import annotations

import ast
import gzip
import importlib.util
import re
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Photo:
    name: str  # source file and tile position, e.g. "china.jpg@128,256"
    source: str  # the source photo (tiles of one photo share it)
    pixels: np.ndarray  # uint8 RGB, H x W x 3


@dataclass(frozen=True)
class Document:
    name: str
    family: str  # "pydoc", "docstring", "usr-share-doc"
    text: str


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


# Photos of real scenes (textures included: grass, gravel and brick tiles are hard negatives). Synthetic
# drawings (chessboard, phantom, logo, horse silhouette) and tiny animations are left out.
_SKIMAGE = [
    "astronaut.png", "camera.png", "chelsea.png", "coffee.png", "coins.png", "hubble_deep_field.jpg", "ihc.png",
    "moon.png", "motorcycle_left.png", "retina.jpg", "rocket.jpg", "cell.png", "clock_motion.png", "brick.png",
    "grass.png", "gravel.png", "page.png", "text.png", "color.png",
]  # fmt: skip
OTHER_VIEW = ("motorcycle_right.png", "motorcycle_left.png")  # (view, the original it is another view of)


def photo_files() -> list[Path]:
    """Every source photo used, in a fixed order."""
    out: list[Path] = []
    sk = _package_dir("skimage")
    if sk is not None:
        out += [sk / "data" / n for n in _SKIMAGE if (sk / "data" / n).exists()]
    sl = _package_dir("sklearn")
    if sl is not None:
        out += sorted((sl / "datasets" / "images").glob("*.jpg"))
    mpl = _package_dir("matplotlib")
    if mpl is not None:
        hopper = mpl / "mpl-data" / "sample_data" / "grace_hopper.jpg"
        if hopper.exists():
            out.append(hopper)
    return out


def other_view() -> Path | None:
    """The second view of the stereo pair, if scikit-image ships it."""
    sk = _package_dir("skimage")
    path = sk / "data" / OTHER_VIEW[0] if sk is not None else None
    return path if path is not None and path.exists() else None


def _rgb(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def _has_content(tile: np.ndarray, min_std: float) -> bool:
    """Enough picture to be a photo of its own: not a flat patch, and not mostly the black frame around a photo
    (the corners of the retina image: two such tiles are the same black corner cut by the same arc)."""
    gray = tile.astype(np.float32).mean(axis=2)
    border = float((tile.max(axis=2) < 16).mean())
    return float(gray.std()) >= min_std and border < 0.5


def photos(tile: int = 128, min_std: float = 12.0) -> list[Photo]:
    """Whole photos plus non-overlapping tiles of every photo at least two tiles wide or high."""
    from PIL import Image

    out: list[Photo] = []
    for path in photo_files():
        px = _rgb(path)
        out.append(Photo(path.name, path.name, px))
        h, w = px.shape[:2]
        if h < 2 * tile and w < 2 * tile:
            continue
        for y in range(0, h - tile + 1, tile):
            for x in range(0, w - tile + 1, tile):
                t = px[y : y + tile, x : x + tile]
                if _has_content(t, min_std):
                    out.append(Photo(f"{path.name}@{y},{x}", path.name, np.ascontiguousarray(t)))
    sk = _package_dir("skimage")
    lfw = sk / "data" / "lfw_subset.npy" if sk is not None else None
    if lfw is not None and lfw.exists():
        faces = np.load(lfw)[:100]  # the first 100 are faces, the rest are not
        for i, f in enumerate(faces):
            g = Image.fromarray((f * 255).round().astype(np.uint8)).resize((100, 100), Image.Resampling.BICUBIC)
            out.append(Photo(f"lfw_face_{i:03d}", f"lfw_face_{i:03d}", np.asarray(g.convert("RGB"))))
    return out


# --- documents -----------------------------------------------------------------------------------------

_WORD = re.compile(r"\S+")
# Modules that are copies of another module's text (pure-Python mirrors, per-OS twins).
_TWINS = re.compile(r"(^|/)(_py[a-z_]*|ntpath|macpath|_collections_abc|_pydatetime|_strptime)\.py$")


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def pydoc_topics() -> list[Document]:
    from pydoc_data import topics

    return [Document(f"pydoc:{k}", "pydoc", v) for k, v in sorted(topics.topics.items())]


def stdlib_docstrings(min_words: int = 60) -> list[Document]:
    """Module, class and function docstrings of the standard library's own .py files."""
    root = Path(sysconfig.get_paths()["stdlib"])
    out: list[Document] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("test/", "idlelib/idle_test", "lib2to3/tests", "site-packages", "tkinter/test")):
            continue
        if "/tests/" in rel or _TWINS.search(rel):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        nodes: list[tuple[str, ast.AST]] = [(rel, tree)]
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                nodes.append((f"{rel}:{node.name}", node))
        for name, node in nodes:
            doc = ast.get_docstring(node)  # type: ignore[arg-type]
            if doc and _words(doc) >= min_words:
                out.append(Document(f"stdlib:{name}", "docstring", doc))
    return out


def usr_share_doc(min_words: int = 60, max_words: int = 4000) -> list[Document]:
    """One README / NEWS file per package directory under /usr/share/doc (licences and changelogs excluded)."""
    root = Path("/usr/share/doc")
    out: list[Document] = []
    if not root.is_dir():
        return out
    for pkg in sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink()):
        for cand in sorted(pkg.iterdir()):
            low = cand.name.lower()
            if not cand.is_file() or cand.is_symlink() or not low.startswith(("readme", "news")):
                continue
            if "debian" in low or "changelog" in low:
                continue
            try:
                raw = cand.read_bytes()
                if low.endswith(".gz"):
                    raw = gzip.decompress(raw)
                text = raw.decode("utf-8")
            except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
                continue
            words = text.split()
            if len(words) < min_words:
                continue
            out.append(Document(f"doc:{pkg.name}/{cand.name}", "usr-share-doc", " ".join(words[:max_words])))
            break
    return out


def _runs(text: str, n: int) -> set[int]:
    """Hashes of every run of n consecutive words (lower case, letters and digits only)."""
    w = re.findall(r"[^\W_]+", text.lower())
    return {hash(tuple(w[i : i + n])) for i in range(len(w) - n + 1)}


def documents(shared_run: int = 20) -> tuple[list[Document], int]:
    """Documents that share no verbatim run of `shared_run` words with each other, and how many were left out.

    Installed documentation quotes itself: the language reference's "compound statements" topic contains the
    "for" and "while" topics, the debugger topic is built from pdb's docstrings, README and NEWS files repeat
    licence paragraphs. Such pairs are real containments, not distinct documents, so a document sharing a
    `shared_run`-word passage with one kept earlier is left out (an exact test, independent of the detector).
    """
    kept_runs: set[int] = set()
    out: list[Document] = []
    dropped = 0
    for d in pydoc_topics() + stdlib_docstrings() + usr_share_doc():
        runs = _runs(d.text, shared_run)
        if not runs or runs & kept_runs:
            dropped += 1
            continue
        kept_runs |= runs
        out.append(d)
    return out, dropped


if __name__ == "__main__":  # a quick inventory
    ps = photos()
    print(f"{len(ps)} photos/tiles from {len({p.source for p in ps})} sources", file=sys.stderr)
    ds, dropped = documents()
    print("left out (shared passages):", dropped, file=sys.stderr)
    fam: dict[str, int] = {}
    for d in ds:
        fam[d.family] = fam.get(d.family, 0) + 1
    print(fam, "median words", int(np.median([_words(d.text) for d in ds])), file=sys.stderr)
