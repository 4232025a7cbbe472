from __future__ import annotations

import base64
import io
import sqlite3
import struct
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageEnhance, ImageFilter
from scipy.ndimage import gaussian_filter

from auditor.similarity import perceptual
from auditor.similarity.perceptual import (
    CACHE_FILE,
    ImageHashes,
    ImageSettings,
    hash_images,
    image_matches,
    looks_like_text,
    sniff,
    text_encoding,
    thumbnail_uri,
)

SIZE = 128


def _field(seed: int) -> Image.Image:
    """A smooth random colour field: structure at several scales, like a photo, unlike a flat colour."""
    rng = np.random.default_rng(seed)
    channels = [gaussian_filter(rng.normal(size=(SIZE, SIZE)), sigma=SIZE / 16) for _ in range(3)]
    a = np.stack(channels, axis=-1)
    a = (a - a.min()) / (a.max() - a.min()) * 230 + 10
    return Image.fromarray(a.astype(np.uint8), "RGB")


def _jpeg(image: Image.Image, quality: int) -> Image.Image:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    buffer.seek(0)
    return Image.open(buffer).convert("RGB")


EDITS: dict[str, Callable[[Image.Image], Image.Image]] = {
    "jpeg_q35": lambda im: _jpeg(im, 35),
    "half_size": lambda im: im.resize((im.width // 2, im.height // 2), Image.Resampling.BILINEAR),
    "blur": lambda im: im.filter(ImageFilter.GaussianBlur(1.5)),
    "brighter_20pct": lambda im: ImageEnhance.Brightness(im).enhance(1.2),
    "mirrored": lambda im: im.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
}


def _save(image: Image.Image, path: Path, fmt: str = "PNG") -> Path:
    image.save(path, fmt)
    return path


def _all(h: ImageHashes) -> np.ndarray:
    return np.arange(len(h), dtype=np.int64)


# ---- sniffing ----


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("PNG", "png"), ("JPEG", "jpeg"), ("GIF", "gif"), ("BMP", "bmp"), ("TIFF", "tiff"), ("WEBP", "webp")],
)
def test_sniff_names_each_format_from_its_bytes(fmt: str, name: str) -> None:
    buffer = io.BytesIO()
    _field(0).resize((16, 16)).save(buffer, fmt)
    assert sniff(buffer.getvalue()[:64]) == name


@pytest.mark.parametrize("head", [b"", b"hello world", b"BM is a band", b"RIFF\x00\x00\x00\x00WAVE", b"\x00" * 64])
def test_sniff_refuses_what_is_not_an_image(head: bytes) -> None:
    assert sniff(head) is None


def test_looks_like_text() -> None:
    assert looks_like_text("Ein Satz über Bäume.\n".encode())
    assert looks_like_text("café".encode()[:-1])  # a character cut at the end of the sample
    assert not looks_like_text(b"text\x00with a NUL")
    assert not looks_like_text(b"")
    assert not looks_like_text(bytes(range(1, 256)) * 4)  # binary: control bytes throughout
    assert text_encoding("Ein Satz über Bäume.\n".encode("utf-16")) == "utf-16"
    assert text_encoding("Ein Satz über Bäume.\n".encode("cp1252")) == "cp1252"
    noise = np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes()
    assert text_encoding(b"\xff\xfe" + noise) is None  # a byte-order mark before binary


def test_importing_the_module_does_not_load_pillow() -> None:
    code = "import sys, auditor.similarity.perceptual; assert 'PIL' not in sys.modules, 'PIL loaded'"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- edited copies ----


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> tuple[ImageHashes, list[str]]:
    """Hashes of: the original (0), each edit of it (1..5), a different field (6), and its JPEG (7)."""
    folder = tmp_path_factory.mktemp("edited")
    original = _field(1)
    paths = [_save(original, folder / "original.png")]
    names = ["original"]
    for name, edit in EDITS.items():
        if name == "jpeg_q35":  # the file itself is the re-encoded JPEG, decoded in draft mode
            original.save(folder / "q35.jpg", "JPEG", quality=35)
            paths.append(folder / "q35.jpg")
        else:
            paths.append(_save(edit(original), folder / f"{name}.png"))
        names.append(name)
    paths.append(_save(_field(2), folder / "other.png"))
    paths.append(_save(_field(2), folder / "other.jpg", "JPEG"))
    names += ["other", "other_jpeg"]
    return hash_images(paths), names


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_copy_is_flagged_against_its_original(edited: tuple[ImageHashes, list[str]], edit: str) -> None:
    h, names = edited
    found = image_matches(h, np.array([names.index(edit)]), np.array([0]), ImageSettings(flag_mirrored=True))
    assert found.flagged.tolist() == [True]
    assert found.mirrored.tolist() == [edit == "mirrored"]
    assert found.phash_distance[0] <= 8


def test_a_mirrored_match_is_for_review_unless_flagging_mirrors_is_asked_for(
    edited: tuple[ImageHashes, list[str]],
) -> None:
    h, names = edited
    found = image_matches(h, np.array([names.index("mirrored")]), np.array([0]), ImageSettings())
    assert found.mirrored.tolist() == [True] and found.flagged.tolist() == [False]
    assert found.phash_distance[0] <= 8  # still returned, in the grey zone


def test_a_different_field_is_far_from_the_original(edited: tuple[ImageHashes, list[str]]) -> None:
    h, names = edited
    other = names.index("other")
    distances = [int(np.bitwise_count(h.phash[other] ^ h.phash[k])) for k in range(other)]
    mirrored = [int(np.bitwise_count(h.phash_mirror[other] ^ h.phash[k])) for k in range(other)]
    assert min(distances + mirrored) > 16
    found = image_matches(h, np.array([other]), np.arange(other), ImageSettings())
    assert len(found) == 0 and found.matches.tolist() == [0]


def test_pairs_within_one_set_are_each_reported_once(edited: tuple[ImageHashes, list[str]]) -> None:
    h, names = edited
    found = image_matches(h, _all(h), None, ImageSettings(), same=True)
    pairs = set(zip(found.query.tolist(), found.index.tolist(), strict=True))
    family = range(len(EDITS) + 1)
    assert {(a, b) for a in family for b in family if a < b} <= pairs
    assert (names.index("other"), names.index("other_jpeg")) in pairs
    assert all(a < b for a, b in pairs)
    assert not any((a in family) != (b in family) for a, b in pairs)  # no pair across the two fields
    order = list(zip(found.query.tolist(), found.index.tolist(), strict=True))
    assert order == sorted(order)


def _hashes(phash: list[int], dhash: list[int], ok: list[bool] | None = None) -> ImageHashes:
    p = np.array(phash, dtype=np.uint64)
    d = np.array(dhash, dtype=np.uint64)
    mirror = ~np.arange(len(p), dtype=np.uint64)  # far from everything: this rule test is about plain hashes
    good = np.array(ok if ok is not None else [True] * len(p))
    return ImageHashes(p, d, mirror, mirror, good, {})


def test_the_rule_needs_dhash_to_corroborate_and_keeps_the_grey_zone_unflagged() -> None:
    bits = lambda k: (1 << k) - 1  # noqa: E731 - a hash with the k lowest bits set
    h = _hashes(
        [0, bits(8), bits(8), bits(11), bits(20), 0],
        [0, bits(14), bits(15), 0, 0, 0],
        ok=[True, True, True, True, True, False],
    )
    found = image_matches(h, np.array([1, 2, 3, 4, 5]), np.array([0]), ImageSettings())
    assert found.query.tolist() == [1, 2, 3]  # 4 is too far, 5 could not be hashed
    assert found.phash_distance.tolist() == [8, 8, 11]
    assert found.dhash_distance.tolist() == [14, 15, 0]
    assert found.flagged.tolist() == [True, False, False]
    assert found.matches.tolist() == [1, 1, 1, 0, 0]


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="review_distance"):
        ImageSettings(flag_distance=10, review_distance=8)
    with pytest.raises(ValueError, match="between 0 and 64"):
        ImageSettings(dhash_distance=65)


# ---- bad files ----


def _png_bomb(path: Path) -> Path:
    """A PNG whose header claims 20000 x 20000 pixels (1.2 GB as RGB) but holds almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 20_000, 20_000, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 100))
        + chunk(b"IEND", b"")
    )
    return path


def test_bad_files_are_errors_with_reasons_never_exceptions(tmp_path: Path) -> None:
    good = _save(_field(3), tmp_path / "good.png")
    jpeg = _save(_field(4), tmp_path / "whole.jpg", "JPEG").read_bytes()
    png = good.read_bytes()
    (tmp_path / "cut.jpg").write_bytes(jpeg[: len(jpeg) // 2])
    (tmp_path / "cut.png").write_bytes(png[: len(png) // 2])
    (tmp_path / "empty.png").write_bytes(b"")
    (tmp_path / "junk.png").write_bytes(b"\x89PNG\r\n\x1a\n" + np.random.default_rng(0).bytes(2000))
    (tmp_path / "notes.png").write_text("these are notes, not a picture\n")
    _png_bomb(tmp_path / "bomb.png")
    names = ["good.png", "cut.jpg", "cut.png", "empty.png", "junk.png", "notes.png", "bomb.png", "missing.png"]
    h = hash_images([tmp_path / n for n in names])
    assert h.ok.tolist() == [True] + [False] * 7
    assert h.errors == {
        1: "truncated image",
        2: "truncated image",
        3: "empty file",
        4: h.errors[4],
        5: "not an image (text file)",
        6: "too large (decompression bomb)",
        7: "file not found",
    }
    assert h.errors[4].startswith("corrupt image")
    assert h.phash[1:].tolist() == [0] * 7


def test_a_bitmap_over_the_pixel_limit_is_refused_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(perceptual, "MAX_PIXELS", 100 * 100)
    path = _save(_field(5).resize((101, 100)), tmp_path / "wide.png")
    h = hash_images([path])
    assert h.errors == {0: "too large (decompression bomb): 101x100 pixels"}


def test_a_large_jpeg_is_hashed_from_a_reduced_decode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 640x640 is over this limit, but draft mode decodes it at 1/8 scale, so it is hashed like its PNG.
    monkeypatch.setattr(perceptual, "MAX_PIXELS", 100 * 100)
    big = _field(6).resize((640, 640), Image.Resampling.BICUBIC)
    h = hash_images([_save(big, tmp_path / "big.jpg", "JPEG"), _save(big.resize((80, 80)), tmp_path / "s.png")])
    assert h.ok.tolist() == [True, True]
    assert int(np.bitwise_count(h.phash[0] ^ h.phash[1])) <= 4


def test_a_set_stop_event_abandons_the_work(tmp_path: Path) -> None:
    path = _save(_field(7), tmp_path / "a.png")
    stop = threading.Event()
    stop.set()
    with pytest.raises(perceptual._Stopped):
        hash_images([path] * 3, stop=stop)


# ---- the cache ----


def _count_decodes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = perceptual._pixels

    def counting(path: Path, stop: threading.Event | None = None) -> perceptual._Pixels:
        calls.append(path)
        return real(path, stop)

    monkeypatch.setattr(perceptual, "_pixels", counting)
    return calls


def test_a_second_run_takes_hashes_and_decode_errors_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [_save(_field(8), tmp_path / "a.png"), tmp_path / "b.png", _save(_field(9), tmp_path / "c.png")]
    paths[1].write_text("text\n")
    digests = ["a" * 64, "b" * 64, None]  # the third has no digest: never cached
    calls = _count_decodes(monkeypatch)
    first = hash_images(paths, cache_dir=tmp_path / "cache", sha256=digests)
    assert len(calls) == 3 and first.from_cache == 0
    second = hash_images(paths, cache_dir=tmp_path / "cache", sha256=digests)
    assert calls[3:] == [paths[2]]  # only the file without a digest was decoded again
    assert second.from_cache == 2
    for name in ("phash", "dhash", "phash_mirror", "dhash_mirror", "ok"):
        assert getattr(second, name).tolist() == getattr(first, name).tolist()
    assert second.errors == first.errors == {1: "not an image (text file)"}


def test_without_a_cache_dir_nothing_is_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _save(_field(10), tmp_path / "a.png")
    calls = _count_decodes(monkeypatch)
    hash_images([path], sha256=["a" * 64])
    hash_images([path], sha256=["a" * 64])
    assert len(calls) == 2


def test_a_corrupt_cache_file_is_a_miss_and_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _save(_field(11), tmp_path / "a.png")
    expected = hash_images([path])
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / CACHE_FILE).write_bytes(b"SQLite format 3\x00" + b"\xde\xad" * 600)
    calls = _count_decodes(monkeypatch)
    got = hash_images([path], cache_dir=tmp_path / "cache", sha256=["a" * 64])
    assert got.phash.tolist() == expected.phash.tolist() and got.ok.tolist() == [True]
    assert got.cache_note is not None and "rebuilt" in got.cache_note
    again = hash_images([path], cache_dir=tmp_path / "cache", sha256=["a" * 64])
    assert len(calls) == 1 and again.from_cache == 1 and again.cache_note is None


def test_a_tampered_cache_row_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _save(_field(12), tmp_path / "a.png")
    first = hash_images([path], cache_dir=tmp_path, sha256=["a" * 64])
    with sqlite3.connect(tmp_path / CACHE_FILE) as db:
        db.execute("UPDATE image_hash SET value = 'h:' || substr(value, 3, 15) || '0' || substr(value, 19)")
    db.close()
    calls = _count_decodes(monkeypatch)
    second = hash_images([path], cache_dir=tmp_path, sha256=["a" * 64])
    assert len(calls) == 1 and second.from_cache == 0
    assert second.phash.tolist() == first.phash.tolist()


# ---- thumbnails ----


def test_thumbnail_is_a_small_png_data_uri(tmp_path: Path) -> None:
    uri = thumbnail_uri(_save(_field(13).resize((400, 300)), tmp_path / "a.jpg", "JPEG"))
    assert uri is not None and uri.startswith("data:image/png;base64,")
    data = base64.b64decode(uri.split(",", 1)[1])
    assert len(data) < 8_000
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG" and max(image.size) == 96 and image.size == (96, 72)
        rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
    # A colour JPEG keeps its colours (decoding it in grey draft mode, as hashing does, would lose them).
    assert np.abs(rgb[..., 0] - rgb[..., 2]).mean() > 10


def test_no_thumbnail_for_a_file_that_is_not_an_image(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_text("not an image")
    assert thumbnail_uri(tmp_path / "a.png") is None
    assert thumbnail_uri(_png_bomb(tmp_path / "bomb.png")) is None


def test_exif_orientation_is_applied_before_hashing(tmp_path: Path) -> None:
    original = _field(14).resize((128, 96))
    stored = original.transpose(Image.Transpose.ROTATE_90)  # pixels as a sideways camera stores them
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 degrees clockwise to display"
    stored.save(tmp_path / "sideways.jpg", "JPEG", quality=90, exif=exif)
    original.save(tmp_path / "upright.jpg", "JPEG", quality=90)
    h = hash_images([tmp_path / "upright.jpg", tmp_path / "sideways.jpg"])
    assert int(np.bitwise_count(h.phash[0] ^ h.phash[1])) <= 2
    assert int(np.bitwise_count(h.dhash[0] ^ h.dhash[1])) <= 2


def test_the_limit_keeps_the_nearest_and_says_where_it_cut() -> None:
    h = _hashes([0, 0, 1, 3, 0b111], [0] * 5)
    found = image_matches(h, np.array([0]), np.array([1, 2, 3, 4]), ImageSettings(limit=2))
    assert found.index.tolist() == [1, 2]
    assert found.matches.tolist() == [4]
    assert found.query_capped.tolist() == [True] and found.capped
    roomy = image_matches(h, np.array([0]), np.array([1, 2, 3, 4]), ImageSettings())
    assert len(roomy) == 4 and not roomy.capped


def test_same_mode_takes_no_other_index() -> None:
    h = _hashes([0, 0, 0], [0, 0, 0])
    both = np.array([0, 1, 2])
    assert len(image_matches(h, both, both, ImageSettings(), same=True)) == 3
    with pytest.raises(ValueError, match="index"):
        image_matches(h, both, np.array([0]), ImageSettings(), same=True)
    with pytest.raises(ValueError, match="index"):
        image_matches(h, both, None, ImageSettings())
