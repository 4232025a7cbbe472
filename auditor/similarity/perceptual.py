"""Perceptual hashes of images, so a re-encoded, resized, blurred, brightened or mirrored copy is found.

Each image gets a 64-bit DCT hash (pHash: grayscale 32x32, 2-D DCT, the top-left 8x8 against its median),
a 64-bit difference hash (dHash: grayscale 9x8, each pixel brighter than its left neighbour) and the same
two hashes of the horizontally mirrored image. Images are decoded at reduced size (JPEG draft mode decodes
at 1/2..1/8 scale in the DCT domain), so a hash costs about a millisecond; the DCT runs on the whole batch
at once. Hashes are cached by the file's sha256. A file that is not an image, is truncated or would
decompress to a huge bitmap is reported with a reason, never raised. Pillow is imported only when used.
"""

from __future__ import annotations

import base64
import hashlib
import io
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
from numpy.typing import NDArray

from auditor.core.paths import open_regular
from auditor.manifest.sqlcache import SqliteCache
from auditor.similarity.hamming import DEFAULT_LIMIT, within

if TYPE_CHECKING:
    from PIL import Image

CACHE_FILE = "image-hash.sqlite"
_SCHEMA = 1  # PRAGMA user_version of the cache; any other value means the cache is rebuilt
_ALGORITHM = "phash32-dct8-median/dhash9x8/draft64/v1"  # a change of the recipe must never reuse old hashes
_HEAD = 64  # bytes read to sniff the format
_DRAFT = 64  # JPEG draft decodes to at least this many pixels a side: enough for a 32x32 hash
# A bitmap larger than this is refused before it is decoded (a "decompression bomb"): 20000x20000 RGBA
# would take 1.6 GB. Large JPEGs still hash, since draft mode decodes them at 1/8 scale.
MAX_PIXELS = 64_000_000
_CHUNK = 64  # images per task handed to a worker

_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "png"),
    (b"\xff\xd8\xff", 0, "jpeg"),
    (b"GIF87a", 0, "gif"),
    (b"GIF89a", 0, "gif"),
    (b"BM", 0, "bmp"),
    (b"II*\x00", 0, "tiff"),
    (b"MM\x00*", 0, "tiff"),
    (b"II+\x00", 0, "tiff"),  # BigTIFF
    (b"MM\x00+", 0, "tiff"),
)


def sniff(head: bytes) -> str | None:
    """The image format the first bytes of a file announce (png, jpeg, gif, bmp, tiff, webp), else None."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    for magic, offset, name in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            # "BM" alone is two common letters: a BMP also names its header size (12..124) at offset 14.
            if name == "bmp" and (len(head) < 18 or int.from_bytes(head[14:18], "little") not in range(12, 125)):
                continue
            return name
    return None


def text_encoding(head: bytes) -> str | None:
    """The encoding the first bytes of a file read as text in: UTF-16 with a byte-order mark, UTF-8 (a cut
    final character at the end of the sample is allowed), else an 8-bit text (cp1252) when the bytes hold no
    NUL and almost no control characters; None for anything else."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        body = head[2 : len(head) - len(head) % 2]
        try:
            decoded = body.decode(codec)
        except UnicodeDecodeError as exc:  # binary behind the mark: lone surrogates soon
            if exc.start < len(body) - 4:  # more than a pair cut at the end of the sample
                return None
            decoded = body[: exc.start].decode(codec)
        return "utf-16" if decoded and _few_controls(decoded) else None
    if not head or b"\x00" in head:
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not (exc.reason == "unexpected end of data" and exc.start >= len(head) - 3):
            return "cp1252" if _few_controls(head.decode("latin-1")) else None
    return "utf-8"


def _few_controls(text: str) -> bool:
    """Text has at most 1% control characters (tabs, line and page breaks aside); binary data has about 12%."""
    control = sum(ord(c) < 32 and c not in "\t\n\f\r" for c in text)
    return control <= len(text) // 100


def looks_like_text(head: bytes) -> bool:
    """Whether the first bytes of a file read as text (see text_encoding)."""
    return text_encoding(head) is not None


@dataclass(frozen=True)
class ImageHashes:
    """Per input path: the four 64-bit hashes, whether they are valid, and why a file could not be hashed."""

    phash: NDArray[np.uint64]
    dhash: NDArray[np.uint64]
    phash_mirror: NDArray[np.uint64]
    dhash_mirror: NDArray[np.uint64]
    ok: NDArray[np.bool_]
    errors: dict[int, str]  # position -> reason
    from_cache: int = 0  # how many came from the cache (the rest were decoded now)
    cache_note: str | None = None  # why the cache was rebuilt or not used, if it was not as expected

    def __len__(self) -> int:
        return len(self.ok)


@dataclass(frozen=True)
class _Pixels:
    """What a worker returns for one image: the two small grayscale bitmaps, or why there are none."""

    dct_input: NDArray[np.float32] | None  # 32x32
    diff_input: NDArray[np.float32] | None  # 8 rows x 9 columns
    error: str | None = None
    cacheable: bool = False  # the error follows from the file's bytes (so the same bytes fail again)


class _Refused(Exception):
    """A file that is not hashed, with the reason that is reported for it."""


def _open_image(fh: BinaryIO, mode: str = "L", size: int = 0) -> Image.Image:
    """Open the image, refusing what is not an image or would decode to a huge bitmap; a JPEG is decoded at
    reduced size (draft ``mode``, at least ``size`` pixels a side, _DRAFT by default)."""
    from PIL import Image

    head = fh.read(_HEAD)
    if not head:
        raise _Refused("empty file")
    kind = sniff(head)
    if kind is None:
        raise _Refused("not an image (text file)" if looks_like_text(head) else "not an image")
    fh.seek(0)
    try:
        # Only the decoder the bytes announce: junk behind a PNG magic is never tried on other formats.
        image = Image.open(fh, formats=[kind.upper()])
    except Image.DecompressionBombError as exc:
        raise _Refused("too large (decompression bomb)") from exc
    if image.format == "JPEG":
        image.draft(mode, (size or _DRAFT, size or _DRAFT))
    width, height = image.size
    if width < 1 or height < 1:
        raise _Refused("image has no pixels")
    if width * height > MAX_PIXELS:
        raise _Refused(f"too large (decompression bomb): {width}x{height} pixels")
    return image


def _reason(exc: BaseException) -> str:
    """A short reason for a file Pillow could not decode."""
    text = str(exc)
    if "truncated" in text.lower() or isinstance(exc, EOFError):
        return "truncated image"
    if type(exc).__name__ == "DecompressionBombError":
        return "too large (decompression bomb)"
    if isinstance(exc, MemoryError):
        return "too large to decode"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"corrupt image ({text[:120] or type(exc).__name__})"


def _pixels(path: Path, stop: threading.Event | None = None) -> _Pixels:
    """Decode one image at reduced size into the 32x32 and 9x8 grayscale inputs of the two hashes."""
    from PIL import Image

    if stop is not None and stop.is_set():
        return _Pixels(None, None, "not hashed (stopped)")
    try:
        with open_regular(path) as fh, _open_image(fh) as image:
            image.load()
            gray = _upright(_to_gray(image), image)
            # Shrink in two steps: a fast box reduction to about 4x, then a Lanczos resize, as the
            # usual pHash does from the full image; draft mode already did most of it for JPEG.
            small = gray.resize((32, 32), Image.Resampling.LANCZOS, reducing_gap=2.0)
            diff = gray.resize((9, 8), Image.Resampling.LANCZOS, reducing_gap=2.0)
            dct_input = np.asarray(small, dtype=np.float32)
            diff_input = np.asarray(diff, dtype=np.float32)
    except _Refused as exc:
        return _Pixels(None, None, str(exc), cacheable=True)
    except FileNotFoundError:
        return _Pixels(None, None, "file not found")
    except OSError as exc:
        if exc.filename is not None:  # opening or reading the file failed, not decoding its bytes
            return _Pixels(None, None, exc.strerror or str(exc))
        return _Pixels(None, None, _reason(exc), cacheable=True)
    except Exception as exc:  # any failure to decode a file's bytes is that file's error, never the run's
        return _Pixels(None, None, _reason(exc), cacheable=not isinstance(exc, MemoryError))
    return _Pixels(dct_input, diff_input)


# EXIF orientation -> the transpose that shows the image as meant (a camera stores pixels as shot).
_ORIENTATION = {2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE", 6: "ROTATE_270"}
_ORIENTATION |= {7: "TRANSVERSE", 8: "ROTATE_90"}


def _upright(gray: Image.Image, source: Image.Image) -> Image.Image:
    """The bitmap turned as its EXIF orientation says, so a photo and its rotated-on-save copy hash alike."""
    from PIL import Image

    try:
        orientation = source.getexif().get(0x0112)
    except Exception:  # a broken EXIF block only loses the orientation
        return gray
    method = _ORIENTATION.get(orientation) if isinstance(orientation, int) else None
    return gray.transpose(Image.Transpose[method]) if method else gray


def _to_gray(image: Image.Image) -> Image.Image:
    """8-bit luminance; transparent pixels count as white, so a cut-out on any background hashes alike."""
    from PIL import Image

    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("L")
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        # Wide grayscale: scale its actual range to 0..255 instead of clipping at 255.
        values = np.asarray(image, dtype=np.float64)
        lo, hi = float(values.min()), float(values.max())
        scaled = (values - lo) * (255.0 / (hi - lo)) if hi > lo else np.zeros_like(values)
        return Image.fromarray(scaled.astype(np.uint8), mode="L")
    return image.convert("L")


def _bits_to_u64(bits: NDArray[np.bool_]) -> NDArray[np.uint64]:
    """(n, 64) bools, most significant first, to n uint64."""
    packed = np.packbits(bits.reshape(len(bits), 64), axis=1, bitorder="big")
    return packed.view(">u8").ravel().astype(np.uint64)


def _hashes_of(dct_input: NDArray[np.float32], diff_input: NDArray[np.float32]) -> tuple[NDArray[np.uint64], ...]:
    """pHash, dHash and their mirrored versions for a batch (n,32,32) and (n,8,9) of grayscale bitmaps."""
    from scipy.fft import dctn

    n = len(dct_input)
    if n == 0:
        empty = np.zeros(0, dtype=np.uint64)
        return empty, empty.copy(), empty.copy(), empty.copy()
    low = dctn(dct_input.astype(np.float64), type=2, axes=(1, 2))[:, :8, :8].reshape(n, 64)
    # Mirroring an image left-right flips the sign of every odd horizontal frequency of its DCT-II.
    flip = np.tile(np.array([1.0, -1.0] * 4), 8)
    low_mirror = low * flip
    phash = _bits_to_u64(low > np.median(low, axis=1, keepdims=True))
    phash_mirror = _bits_to_u64(low_mirror > np.median(low_mirror, axis=1, keepdims=True))
    dhash = _bits_to_u64(diff_input[:, :, 1:] > diff_input[:, :, :-1])
    mirrored = diff_input[:, :, ::-1]
    dhash_mirror = _bits_to_u64(mirrored[:, :, 1:] > mirrored[:, :, :-1])
    return phash, dhash, phash_mirror, dhash_mirror


def hash_images(
    paths: Sequence[Path],
    workers: int = 2,
    stop: threading.Event | None = None,
    cache_dir: Path | None = None,
    sha256: Sequence[str | None] | None = None,
) -> ImageHashes:
    """Hash every image; a file that cannot be hashed gets ``ok`` False and a reason in ``errors``.

    ``sha256`` (aligned with ``paths``) keys the cache in ``cache_dir``; without either nothing is cached.
    Once ``stop`` is set the remaining files are abandoned and _Stopped is raised: no partial result is
    ever returned as if it were complete. Threads, not processes: Pillow decodes and resizes without the
    GIL, and on two cores a process pool measured no faster (slower once its start-up is counted).
    """
    n = len(paths)
    hashes = np.zeros((4, n), dtype=np.uint64)
    ok = np.zeros(n, dtype=bool)
    errors: dict[int, str] = {}
    if sha256 is not None and len(sha256) != n:
        raise ValueError(f"sha256 has {len(sha256)} entries for {n} paths")
    cache = _HashCache(cache_dir if sha256 is not None else None)
    try:
        todo: list[int] = []
        for i, hit in enumerate(cache.get(sha256 if sha256 is not None else [None] * n)):
            if hit is None:
                todo.append(i)
            elif isinstance(hit, str):
                errors[i] = hit
            else:
                hashes[:, i] = hit
                ok[i] = True
        fresh: list[tuple[str, tuple[int, int, int, int] | str]] = []
        digests = sha256 if sha256 is not None else [None] * n
        for rows, values, failures in _hash_all(paths, todo, workers, stop):
            hashes[:, rows] = values
            ok[rows] = True
            for i, (reason, cacheable) in failures.items():
                errors[i] = reason
                digest = digests[i]
                if cacheable and digest is not None:
                    fresh.append((digest, reason))  # a property of the bytes, as cacheable as a hash
            for i in rows.tolist():
                digest = digests[i]
                if digest is not None:
                    a, b, c, d = (int(v) for v in hashes[:, i])
                    fresh.append((digest, (a, b, c, d)))
        cache.put(fresh)
    finally:
        cache.close()
    return ImageHashes(hashes[0], hashes[1], hashes[2], hashes[3], ok, errors, n - len(todo), cache.note)


class _Stopped(Exception):
    """The hashing was abandoned (the run was interrupted): the hashes are incomplete and never used."""


_Chunk = tuple[NDArray[np.int64], NDArray[np.uint64], dict[int, tuple[str, bool]]]


def _hash_chunk(paths: Sequence[Path], rows: list[int], stop: threading.Event) -> _Chunk:
    """A worker's task: decode a few images and hash them together (a batch DCT per chunk keeps memory
    at a chunk, not at the whole data set)."""
    pixels = [_pixels(p, stop) for p in paths]
    good = [k for k, px in enumerate(pixels) if px.error is None]
    failures = {rows[k]: (px.error, px.cacheable) for k, px in enumerate(pixels) if px.error is not None}
    if not good:
        return np.zeros(0, dtype=np.int64), np.zeros((4, 0), dtype=np.uint64), failures
    values = _hashes_of(
        np.stack([pixels[k].dct_input for k in good]),  # type: ignore[misc]
        np.stack([pixels[k].diff_input for k in good]),  # type: ignore[misc]
    )
    return np.asarray([rows[k] for k in good], dtype=np.int64), np.stack(values), failures


def _hash_all(paths: Sequence[Path], todo: list[int], workers: int, stop: threading.Event | None) -> Iterator[_Chunk]:
    """Hash the ``todo`` positions in a thread pool, chunk by chunk in order; an exception in this thread
    (a signal) stops the workers at their next file."""
    if not todo:
        return
    stop = stop or threading.Event()
    executor = ThreadPoolExecutor(max_workers=max(1, workers))
    futures = [
        executor.submit(_hash_chunk, [paths[i] for i in todo[k : k + _CHUNK]], todo[k : k + _CHUNK], stop)
        for k in range(0, len(todo), _CHUNK)
    ]
    try:
        for future in futures:
            if stop.is_set():
                raise _Stopped("image hashing stopped")
            yield future.result()
        if stop.is_set():
            raise _Stopped("image hashing stopped")
    except BaseException:
        stop.set()
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown(wait=True)


def _seal(digest: str, value: str) -> str:
    return hashlib.blake2b(f"{_ALGORITHM}\x1f{digest}\x1f{value}".encode(), digest_size=16).hexdigest()


class _HashCache:
    """sha256 -> four hashes (or a decode error) in SQLite, sealed; any damage is a miss and, at most, a note."""

    def __init__(self, directory: Path | None) -> None:
        create = (
            "CREATE TABLE image_hash (sha256 TEXT, algorithm TEXT, value TEXT, seal TEXT, "
            "PRIMARY KEY (sha256, algorithm))"
        )
        file = directory / CACHE_FILE if directory is not None else None
        self.table = SqliteCache(file, "image hash cache", "image_hash", create, _SCHEMA)

    @property
    def note(self) -> str | None:
        return self.table.note

    def get(self, digests: Sequence[str | None]) -> list[tuple[int, int, int, int] | str | None]:
        """Per digest: the cached hashes, a cached decode error (a str), or None (a miss)."""
        out: list[tuple[int, int, int, int] | str | None] = [None] * len(digests)
        wanted = sorted({d for d in digests if d is not None})
        found: dict[str, str] = {}
        for k in range(0, len(wanted), 500):
            part = wanted[k : k + 500]
            rows = self.table.select(
                f"SELECT sha256, value, seal FROM image_hash WHERE algorithm = ? "
                f"AND sha256 IN ({', '.join('?' * len(part))})",
                (_ALGORITHM, *part),
            )
            found.update(
                (digest, value)
                for digest, value, seal in rows
                if isinstance(digest, str) and isinstance(value, str) and seal == _seal(digest, value)
            )
            if self.table.db is None:
                break
        for i, digest in enumerate(digests):
            value = found.get(digest) if digest is not None else None
            if value is not None:
                out[i] = _parse(value)
        return out

    def put(self, entries: list[tuple[str, tuple[int, int, int, int] | str]]) -> None:
        rows = []
        for digest, hashes in entries:
            value = hashes if isinstance(hashes, str) else "h:" + ",".join(f"{h:016x}" for h in hashes)
            rows.append((digest, _ALGORITHM, value, _seal(digest, value)))
        self.table.insert(rows, 4)

    def close(self) -> None:
        self.table.close()


def _parse(value: str) -> tuple[int, int, int, int] | str | None:
    """A cached value: "h:" and four hex hashes, or an error reason; anything else is a miss."""
    if not value.startswith("h:"):
        return value or None
    parts = value[2:].split(",")
    if len(parts) != 4 or any(len(p) != 16 for p in parts):
        return None
    try:
        a, b, c, d = (int(p, 16) for p in parts)
    except ValueError:
        return None
    return a, b, c, d


def thumbnail_uri(path: Path, size: int = 96) -> str | None:
    """A small PNG of the image (at most ``size`` pixels a side, 64 colours) as a data: URI, for a report;
    None when the file cannot be decoded."""
    from PIL import Image

    try:
        with open_regular(path) as fh, _open_image(fh, "RGB", size) as image:
            image.thumbnail((size, size), Image.Resampling.LANCZOS, reducing_gap=2.0)
            rgb = _upright(image.convert("RGB"), image)
        small = rgb.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
        buffer = io.BytesIO()
        small.save(buffer, format="PNG", optimize=True)
    except Exception:  # a thumbnail only illustrates: any failure means no picture
        return None
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


# ---- the decision rule ----


@dataclass(frozen=True)
class ImageSettings:
    """Thresholds of the image rule, in bits of 64: flagged when pHash <= flag_distance and dHash <=
    dhash_distance (plain or both mirrored); pHash up to review_distance is the grey zone."""

    flag_distance: int = 8
    # Measured on smooth random fields: edits (JPEG q30/35, half size, blur, brightness +-20%, mirror)
    # reach dHash 5 at most (10 with a 5% crop); of 3.4M distinct pairs, those within pHash 12 had dHash
    # 20-24. 14 sits between the two.
    dhash_distance: int = 14
    review_distance: int = 12
    mirrored: bool = True  # compare each image's mirror too
    # A mirrored match is flagged only on request: two halves of a symmetric object (the left and right edge
    # of a fundus photo, say) are mirror images in their low frequencies without being copies, so by default
    # a mirrored match is listed for review.
    flag_mirrored: bool = False
    limit: int = DEFAULT_LIMIT  # pairs kept per query item, nearest first

    def __post_init__(self) -> None:
        for name in ("flag_distance", "dhash_distance", "review_distance"):
            value = getattr(self, name)
            if not 0 <= value <= 64:
                raise ValueError(f"{name} must be between 0 and 64, not {value}")
        if self.review_distance < self.flag_distance:
            raise ValueError("review_distance must be at least flag_distance")
        if self.limit < 1:
            raise ValueError(f"limit must be at least 1, not {self.limit}")


@dataclass(frozen=True)
class ImageMatches:
    """Candidate pairs of units (query unit, index unit), sorted by (query, index), with their distances.

    ``matches`` counts per query position the index items within review distance (plain or mirrored); it is
    exact unless ``query_capped`` is set for that query, when more pairs existed than the limit kept.
    """

    query: NDArray[np.int64]
    index: NDArray[np.int64]
    phash_distance: NDArray[np.uint8]
    dhash_distance: NDArray[np.uint8]
    mirrored: NDArray[np.bool_]
    flagged: NDArray[np.bool_]
    matches: NDArray[np.int64]
    query_capped: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def __len__(self) -> int:
        return len(self.query)

    @property
    def capped(self) -> bool:
        """Whether any query had more candidates than the limit kept (its pairs are the nearest only)."""
        return bool(self.query_capped.any())


def _distance(a: NDArray[np.uint64], b: NDArray[np.uint64]) -> NDArray[np.uint8]:
    return np.bitwise_count(a ^ b).astype(np.uint8)


def image_matches(
    h: ImageHashes,
    query: NDArray[np.int64],
    index: NDArray[np.int64] | None,
    settings: ImageSettings,
    same: bool = False,
) -> ImageMatches:
    """Near-duplicate candidates of each query unit among the index units (or, with ``same``, among the
    other query units: pairs (a, b) with a < b), flagged by the rule of ``settings``.

    ``query`` and ``index`` are positions in ``h``; positions whose hashes are not ``ok`` are skipped.
    """
    query = np.asarray(query, dtype=np.int64)
    q = query[h.ok[query]]
    if same:
        if index is not None and not np.array_equal(index, query):
            raise ValueError("same=True compares the query units with each other: index must be None or query")
        x = q
    elif index is None:
        raise ValueError("index is needed unless same=True")
    else:
        x = np.asarray(index, dtype=np.int64)
        x = x[h.ok[x]]
    r, limit = settings.review_distance, settings.limit
    plain = within(h.phash[q], None if same else h.phash[x], r, same=same, limit=limit)
    qi, ii = [plain.qi], [plain.ii]
    capped = plain.matches > limit
    counts = plain.matches.copy()
    if settings.mirrored:
        # The mirror of a query against the index as it is; in same mode both orders of a pair are
        # searched (mirror(a) ~ b and mirror(b) ~ a) and folded to (min, max).
        mirror = within(h.phash_mirror[q], h.phash[x], r, limit=limit)
        mq, mi = mirror.qi, mirror.ii
        if same:
            distinct = mq != mi
            mq, mi = np.minimum(mq[distinct], mi[distinct]), np.maximum(mq[distinct], mi[distinct])
        qi.append(mq)
        ii.append(mi)
        capped |= mirror.matches > limit
        counts = np.maximum(counts, mirror.matches)
    pair = np.unique(np.concatenate(qi) * max(len(x), 1) + np.concatenate(ii))
    pq, pi = pair // max(len(x), 1), pair % max(len(x), 1)
    a, b = q[pq], x[pi]
    d_plain = _distance(h.phash[a], h.phash[b])
    dd_plain = _distance(h.dhash[a], h.dhash[b])
    flag_plain = (d_plain <= settings.flag_distance) & (dd_plain <= settings.dhash_distance)
    if settings.mirrored:
        d_mirror = _distance(h.phash_mirror[a], h.phash[b])
        dd_mirror = _distance(h.dhash_mirror[a], h.dhash[b])
        flag_mirror = (d_mirror <= settings.flag_distance) & (dd_mirror <= settings.dhash_distance)
    else:
        d_mirror = np.full(len(a), 255, dtype=np.uint8)
        dd_mirror = d_mirror
        flag_mirror = np.zeros(len(a), dtype=bool)
    flag_mirror &= settings.flag_mirrored
    # Report the mirrored comparison only when it is the one that flags, or, for a grey pair, the nearer.
    use_mirror = (flag_mirror & ~flag_plain) | (~flag_plain & ~flag_mirror & (d_mirror < d_plain))
    phash_distance = np.where(use_mirror, d_mirror, d_plain)
    keep = phash_distance <= r
    counts_kept = np.bincount(pq[keep], minlength=len(q))
    per_query = np.zeros(len(query), dtype=np.int64)
    capped_all = np.zeros(len(query), dtype=bool)
    ok_rows = np.flatnonzero(h.ok[query])
    per_query[ok_rows] = np.maximum(counts, counts_kept)
    capped_all[ok_rows] = capped
    order = np.lexsort((b[keep], a[keep]))
    return ImageMatches(
        query=a[keep][order],
        index=b[keep][order],
        phash_distance=phash_distance[keep][order],
        dhash_distance=np.where(use_mirror, dd_mirror, dd_plain)[keep][order],
        mirrored=use_mirror[keep][order],
        flagged=(flag_plain | flag_mirror)[keep][order],
        matches=per_query,
        query_capped=capped_all,
    )
