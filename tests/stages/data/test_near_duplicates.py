from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from auditor import load_config, run_audit
from auditor.core.errors import StageLoadError
from auditor.core.findings import Report
from tests.conftest import REPO, codes, finding, write_config, write_table

ONLY = ["near_duplicates"]
_SYLLABLES = ["ka", "lo", "mi", "ter", "san", "vo", "rel", "di", "chu", "pan", "es", "tor", "ne", "bri", "ol", "gua"]


def vocabulary(n: int = 3000) -> list[str]:
    """Distinct made-up words, the same on every run."""
    rng = np.random.default_rng(7)
    words: dict[str, None] = {}
    while len(words) < n:
        words["".join(rng.choice(_SYLLABLES, size=int(rng.integers(2, 4))))] = None
    return list(words)


WORDS = vocabulary()


def text(seed: int, n: int = 300) -> list[str]:
    """A text of ``n`` words on the common topic: all texts draw from one vocabulary."""
    rng = np.random.default_rng(seed)
    return [str(w) for w in rng.choice(WORDS[:1500], size=n)]


def replace_words(words: list[str], share: float, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    out = list(words)
    for i in rng.choice(len(words), size=round(share * len(words)), replace=False):
        out[i] = str(rng.choice(WORDS[1500:]))
    return out


def join(words: list[str]) -> str:
    return " ".join(words)


def audit_texts(tmp_path: Path, texts: list[str | None], splits: list[str], **options: Any) -> Report:
    ids = [f"t{i}" for i in range(len(texts))]
    write_table(tmp_path / "m.parquet", {"sid": ids, "body": texts, "split": splits})
    config = {
        "version": 1,
        "manifest": {"path": "m.parquet", "id": "sid", "split": "split"},
        "splits": {"train": ["train"]},
        "keys": {"text": "body"},
        "stages": {"near_duplicates": options} if options else {},
    }
    return run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


def test_a_text_with_five_percent_of_its_words_replaced_is_a_near_copy(tmp_path: Path) -> None:
    originals = [text(i) for i in range(6)]
    edited = replace_words(originals[2], 0.05, seed=1)
    r = audit_texts(tmp_path, [*map(join, originals), join(edited), join(text(99))], ["train"] * 6 + ["test"] * 2)
    f = finding(r, "NDP001")
    assert f.severity.value == "error"
    assert f.evidence["pairs"] == 1
    assert f.evidence["holdout_rows_near_train"] == {"test": {"rows": 1, "of": 2, "share": 0.5}}
    example = f.examples[0]
    assert (example["holdout"], example["near"], example["measure"]) == ("t6", "t2", "resemblance")
    assert 0.5 <= example["similarity"] < 0.95
    assert "NDP003" not in codes(r)  # the distinct texts on the same topic are not even listed for review


def test_an_excerpt_quoted_in_a_longer_training_text_is_caught_by_containment(tmp_path: Path) -> None:
    long = text(1, n=1200)
    excerpt = long[400:470]
    r = audit_texts(tmp_path, [join(long), join(text(2)), join(excerpt)], ["train", "train", "test"])
    example = finding(r, "NDP001").examples[0]
    assert (example["holdout"], example["near"], example["measure"]) == ("t2", "t0", "containment")
    assert example["similarity"] > 0.95
    # The report shows both texts with the shared passage marked: all of the excerpt, a part of the long text.
    preview = example["preview"]
    (start, end), *_ = preview["near"]["marks"]
    assert preview["near"]["text"][start:end].split() == excerpt
    assert preview["holdout"]["marks"] == [[0, len(join(excerpt))]]


def test_sentences_in_another_order_are_a_near_copy(tmp_path: Path) -> None:
    words = text(3, n=300)
    sentences = [words[i : i + 15] for i in range(0, 300, 15)]
    shuffled = [w for s in np.random.default_rng(0).permutation(len(sentences)) for w in sentences[s]]
    r = audit_texts(tmp_path, [join(words), join(shuffled)], ["train", "test"])
    assert finding(r, "NDP001").examples[0]["measure"] == "resemblance"


def test_case_accents_and_punctuation_do_not_make_a_text_new(tmp_path: Path) -> None:
    words = text(4, n=80)
    variant = ", ".join(w.upper() for w in words) + "!"
    r = audit_texts(tmp_path, [join(words), variant], ["train", "test"])
    assert finding(r, "NDP001").examples[0]["similarity"] == 1.0


def test_an_identical_inline_text_in_two_splits_is_reported_once_as_identical(tmp_path: Path) -> None:
    same = join(text(5, n=50))
    r = audit_texts(tmp_path, [same, join(text(6)), same], ["train", "train", "test"])
    f = finding(r, "NDP001")
    assert f.evidence["measures"] == {"identical": 1}
    assert f.evidence["split_pairs"] == {"train–test": {"pairs": 1, "rows": 1}}


def test_a_pair_below_the_flag_threshold_is_info_for_review_never_a_warning(tmp_path: Path) -> None:
    words = text(8)
    edited = replace_words(words, 0.18, seed=2)
    r = audit_texts(tmp_path, [join(words), join(edited)], ["train", "test"])
    assert "NDP001" not in codes(r)
    f = finding(r, "NDP003")
    assert f.severity.value == "info"
    assert 0.3 <= f.examples[0]["similarity"] < 0.5
    assert r.exit_code == 0


def test_a_holdout_text_assembled_from_several_training_texts_is_a_warning(tmp_path: Path) -> None:
    parts = [text(20 + i, n=600) for i in range(3)]
    collage = parts[0][:100] + parts[1][:100] + parts[2][:100]
    r = audit_texts(tmp_path, [*map(join, parts), join(collage)], ["train"] * 3 + ["test"])
    f = finding(r, "NDP004")
    assert f.examples[0]["holdout"] == "t3"
    assert f.examples[0]["verbatim_share"] > 0.9
    overlap = finding(r, "NDP008")
    assert overlap.evidence["per_split"]["test"]["with_overlap"] == 1


def test_two_holdout_splits_and_an_allowed_pair(tmp_path: Path) -> None:
    base = text(30)
    texts = [join(base), join(replace_words(base, 0.03, 5)), join(text(31)), join(replace_words(text(31), 0.03, 6))]
    ids = ["t0", "t1", "t2", "t3"]
    write_table(tmp_path / "m.csv", {"sid": ids, "body": texts, "split": ["val", "test", "train", "val"]})
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "sid", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test"], "allow": [["train", "val"]]},
        "keys": {"text": "body"},
    }
    r = run_audit(load_config(write_config(tmp_path, config)), only=ONLY)
    assert finding(r, "NDP002").evidence["split_pairs"] == {"val–test": {"pairs": 1, "rows": 1}}
    assert finding(r, "NDP006").evidence["split_pairs"] == {"train–val": {"pairs": 1, "rows": 1}}
    assert "NDP001" not in codes(r)


def test_null_empty_junk_and_huge_texts_are_handled_and_said(tmp_path: Path) -> None:
    huge = join(text(40, n=2000)) * 600  # about 10 MB
    texts = [None, "", "\x00\x01\x02 \ufffd\x7f", huge, join(text(41)), huge[:5000] + " coda"]
    r = audit_texts(tmp_path, texts, ["train", "train", "test", "train", "train", "test"], max_text_bytes=100_000)
    cut = finding(r, "NDP007")
    assert cut.evidence["texts_cut"] == 1
    assert finding(r, "NDP001").examples[0]["near"] == "t3"


def test_review_zone_must_lie_beyond_the_flag_threshold(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"body": ["a b c"], "split": ["train"]})
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "split": "split"},
        "keys": {"text": "body"},
        "stages": {"near_duplicates": {"text_threshold": 0.4, "text_review": 0.6}},
    }
    with pytest.raises(
        StageLoadError,
        match=r"stages.near_duplicates: text_review must not exceed text_threshold or containment_threshold",
    ):
        run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


DISCLAIMER = text(500, n=80)  # the legal notice every ticket ends with


def tickets(train: int = 40, test: int = 20) -> list[list[str]]:
    """Support tickets: a short body of its own (15-25 words), then the same 80-word disclaimer."""
    return [text(600 + i, n=15 + i % 11) + DISCLAIMER for i in range(train + test)]


def test_tickets_sharing_only_a_long_disclaimer_are_not_near_copies(tmp_path: Path) -> None:
    r = audit_texts(tmp_path, [join(t) for t in tickets()], ["train"] * 40 + ["test"] * 20)
    assert not {"NDP001", "NDP002", "NDP004"} & set(codes(r)), codes(r)
    assert finding(r, "NDP007").evidence["boilerplate_shingles"] > 0


def test_a_ticket_edited_from_a_training_ticket_is_still_a_near_copy_beside_the_disclaimer(tmp_path: Path) -> None:
    rows = tickets()
    body = text(900, n=60)
    rows[3] = body + DISCLAIMER
    rows[45] = replace_words(body, 0.05, seed=3) + DISCLAIMER
    r = audit_texts(tmp_path, [join(t) for t in rows], ["train"] * 40 + ["test"] * 20)
    f = finding(r, "NDP001")
    assert f.evidence["pairs"] == 1
    assert (f.examples[0]["holdout"], f.examples[0]["near"]) == ("t45", "t3")
    assert "NDP002" not in codes(r)


def test_a_holdout_ticket_copied_into_many_training_tickets_is_still_found(tmp_path: Path) -> None:
    # Its words are then in 30 training texts but one holdout text: frequent on one side only, not boilerplate.
    rows = tickets()
    body = text(901, n=40)
    for i in range(30):
        rows[i] = replace_words(body, 0.03, seed=10 + i) + DISCLAIMER
    rows[50] = body + DISCLAIMER
    r = audit_texts(tmp_path, [join(t) for t in rows], ["train"] * 40 + ["test"] * 20)
    f = finding(r, "NDP001")
    assert {e["holdout"] for e in f.examples} == {"t50"}
    assert f.evidence["pairs"] >= 5


TEMPLATE = (
    "You are a careful assistant for a geography quiz. Read the question below and answer it with one short "
    "sentence, citing the country and the capital where relevant, and say so plainly if you do not know."
)
PROMPT = TEMPLATE.split(" ")


def prompts(n: int) -> list[list[str]]:
    """Question-answer prompts: the same 35-word template, then a question and an answer of their own."""
    return [[*PROMPT, "Question:", *text(i, n=10), "Answer:", *text(1000 + i, n=6)] for i in range(n)]


@pytest.mark.parametrize("held", [3, 8])
def test_a_few_test_prompts_sharing_the_training_prompts_template_are_not_near_copies(
    tmp_path: Path, held: int
) -> None:
    # Fewer test prompts than boilerplate_documents: the template is boilerplate when half of them hold it.
    r = audit_texts(tmp_path, [join(t) for t in prompts(60 + held)], ["train"] * 60 + ["test"] * held)
    assert not {"NDP001", "NDP002", "NDP004"} & set(codes(r)), codes(r)
    seen = finding(r, "NDP007").evidence
    assert seen["boilerplate_documents"] == 10 and seen["boilerplate_holdout_documents"] == max(2, -(-held // 2))


def test_a_test_prompt_whose_question_is_a_training_one_edited_is_found_beside_the_template(tmp_path: Path) -> None:
    rows = prompts(63)
    question = text(77, n=40)
    rows[5] = [*PROMPT, "Question:", *question]
    rows[61] = [*PROMPT, "Question:", *replace_words(question, 0.05, seed=4)]
    r = audit_texts(tmp_path, [join(t) for t in rows], ["train"] * 60 + ["test"] * 3)
    f = finding(r, "NDP001")
    assert {(e["holdout"], e["near"]) for e in f.examples} == {("t61", "t5")}


def test_one_test_text_copied_into_many_training_texts_is_found_in_a_small_test_set(tmp_path: Path) -> None:
    # Its words are in 20 training texts but in one test text: below the test side's bar (2), not boilerplate.
    rows = tickets(40, 3)
    body = text(902, n=40)
    for i in range(20):
        rows[i] = replace_words(body, 0.03, seed=40 + i) + DISCLAIMER
    rows[41] = body + DISCLAIMER
    r = audit_texts(tmp_path, [join(t) for t in rows], ["train"] * 40 + ["test"] * 3)
    assert {e["holdout"] for e in finding(r, "NDP001").examples} == {"t41"}


def test_an_identical_ticket_in_both_splits_is_found_however_common_its_words(tmp_path: Path) -> None:
    rows = tickets()
    rows[52] = rows[7]  # an exact copy
    rows[53] = list(DISCLAIMER)  # a ticket with no body, in train and test: all its shingles are boilerplate
    rows[8] = list(DISCLAIMER)
    texts: list[str | None] = [join(t) for t in rows]
    texts[54] = str(texts[8]).upper() + "!"  # the same words once normalised: compared whole, with the bare ticket only
    r = audit_texts(tmp_path, texts, ["train"] * 40 + ["test"] * 20)
    f = finding(r, "NDP001")
    assert {(e["holdout"], e["near"]) for e in f.examples} == {("t52", "t7"), ("t53", "t8"), ("t54", "t8")}
    assert f.evidence["measures"] == {"identical": 2, "resemblance": 1}


def test_boilerplate_counts_only_from_the_documents_asked(tmp_path: Path) -> None:
    rows: list[str | None] = [join(t) for t in tickets()]
    # Off: every shared shingle counts again, so the tickets are near copies through their disclaimer.
    assert "NDP001" in codes(audit_texts(tmp_path, rows, ["train"] * 40 + ["test"] * 20, boilerplate_documents=None))
    # A disclaimer in 40 training texts is not boilerplate when 41 are asked (a holdout side of fewer texts than
    # asked needs half of them: its 20 hold it).
    r = audit_texts(tmp_path, rows, ["train"] * 40 + ["test"] * 20, boilerplate_documents=41)
    assert "NDP001" in codes(r)
    assert "NDP001" not in codes(audit_texts(tmp_path, rows, ["train"] * 40 + ["test"] * 20, boilerplate_documents=40))


@pytest.mark.parametrize("value", [1, 0, -3, "many"])
def test_boilerplate_documents_must_be_two_or_more(tmp_path: Path, value: object) -> None:
    write_table(tmp_path / "m.csv", {"body": ["a b c"], "split": ["train"]})
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "split": "split"},
        "keys": {"text": "body"},
        "stages": {"near_duplicates": {"boilerplate_documents": value}},
    }
    with pytest.raises(StageLoadError, match=r"stages.near_duplicates.*boilerplate_documents"):
        run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


# -- images ------------------------------------------------------------------------------------------------


def photo(seed: int, size: tuple[int, int] = (160, 120)) -> Image.Image:
    """A smooth random field with a little grain: it hashes like a photo, not like a flat test card."""
    rng = np.random.default_rng(seed)
    coarse = Image.fromarray(rng.uniform(0, 255, size=(6, 8, 3)).astype(np.uint8))
    smooth = np.asarray(coarse.resize(size, Image.Resampling.BICUBIC), dtype=np.float64)
    return Image.fromarray(np.clip(smooth + rng.normal(0, 3, smooth.shape), 0, 255).astype(np.uint8))


def save(image: Image.Image, path: Path, **kwargs: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, **kwargs)
    return str(path.relative_to(path.parent.parent))


def audit_files(tmp_path: Path, files: list[str], splits: list[str], **options: Any) -> Report:
    write_table(tmp_path / "m.csv", {"sid": [f"i{k}" for k in range(len(files))], "file": files, "split": splits})
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "id": "sid", "split": "split"},
        "splits": {"train": ["train"]},
        "keys": {"content_path": "file"},
        "stages": {"near_duplicates": {"cache_dir": "none", **options}},
    }
    return run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


def test_reencoded_and_mirrored_images_are_near_copies_exact_copies_are_not(tmp_path: Path) -> None:
    d = tmp_path / "img"
    originals = [save(photo(i), d / f"p{i}.png") for i in range(5)]
    reencoded = save(photo(1).convert("RGB"), d / "q35.jpg", quality=35)
    mirrored = save(photo(2).transpose(Image.Transpose.FLIP_LEFT_RIGHT), d / "mirror.png")
    shutil.copyfile(d / "p3.png", d / "copy.png")  # byte-identical: duplicate_content's, not reported here
    files, splits = [*originals, reencoded, mirrored, "img/copy.png"], ["train"] * 5 + ["test"] * 3
    r = audit_files(tmp_path, files, splits, mirrored="flag")
    f = finding(r, "NDP001")
    found = {(e["holdout"], e["near"], e["measure"]) for e in f.examples}
    assert found == {("i5", "i1", "perceptual"), ("i6", "i2", "mirrored")}
    assert f.evidence["holdout_rows_near_train"]["test"]["rows"] == 2
    assert all(e["preview"]["holdout"].startswith("data:image/png;base64,") for e in f.examples)
    # By default a mirrored match is listed for review only: symmetric objects look mirrored too.
    default = audit_files(tmp_path, files, splits)
    assert {e["holdout"] for e in finding(default, "NDP001").examples} == {"i5"}
    assert {(e["holdout"], e["measure"]) for e in finding(default, "NDP003").examples} == {("i6", "mirrored")}


def test_resized_blurred_and_brightened_copies_are_found(tmp_path: Path) -> None:
    from PIL import ImageEnhance, ImageFilter

    d = tmp_path / "img"
    base = photo(11, size=(320, 240))
    edits = [
        base.resize((160, 120)),
        base.filter(ImageFilter.GaussianBlur(1.5)),
        ImageEnhance.Brightness(base).enhance(1.2),
    ]
    files = [save(base, d / "base.png"), *(save(e, d / f"e{k}.png") for k, e in enumerate(edits))]
    files += [save(photo(12 + k, size=(320, 240)), d / f"other{k}.png") for k in range(4)]
    r = audit_files(tmp_path, files, ["train"] + ["test"] * 3 + ["train"] * 4)
    f = finding(r, "NDP001")
    assert {e["holdout"] for e in f.examples} == {"i1", "i2", "i3"}
    assert {e["near"] for e in f.examples} == {"i0"}


def test_unreadable_truncated_and_foreign_files_are_listed_not_a_crash(tmp_path: Path) -> None:
    d = tmp_path / "img"
    good = [save(photo(i), d / f"p{i}.png") for i in range(2)]
    buffer = io.BytesIO()
    photo(5).save(buffer, format="JPEG")
    (d / "truncated.jpg").write_bytes(buffer.getvalue()[:300])
    (d / "fake.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (d / "sound.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt " + bytes(200))
    files = [*good, "img/truncated.jpg", "img/fake.png", "img/sound.wav", "img/missing.png"]
    r = audit_files(tmp_path, files, ["train", "test", "test", "test", "test", "test"])
    bad = finding(r, "NDP005")
    listed = {Path(e["path"]).name for e in bad.examples}
    assert {"truncated.jpg", "fake.png", "missing.png"} <= listed
    assert finding(r, "NDP007").evidence["other_files"] == 1
    assert r.exit_code == 0  # warnings only: nothing here is a leak


def test_a_manifest_of_one_image_repeated_stays_bounded(tmp_path: Path) -> None:
    d = tmp_path / "img"
    base = photo(50)
    files = [save(base.convert("RGB"), d / f"c{k}.jpg", quality=60 + k % 30) for k in range(120)]
    r = audit_files(tmp_path, files, ["train"] * 60 + ["test"] * 60, max_examples=3)
    f = finding(r, "NDP001")
    assert len(f.examples) == 3
    assert f.evidence["holdout_rows_near_train"]["test"]["rows"] == 60


def test_the_video_frames_sample_finds_its_reencoded_frame() -> None:
    r = run_audit(load_config(REPO / "sample_data" / "video_frames" / "audit.yaml"), only=ONLY)
    f = finding(r, "NDP001")
    pairs = {(e["holdout"], e["near"]) for e in f.examples}
    assert ("f0028", "f0007") in pairs
    # The byte-identical copy (f0027 of f0002) is duplicate_content's finding, not this one; f0027 is still
    # a near copy of the frames next to f0002 in its video.
    assert ("f0027", "f0002") not in pairs
    assert ("f0027", "f0003") in pairs
    # Each split pair has an example: the val frames of video v04 are near copies of its training frames.
    assert {e["holdout_split"] for e in f.examples} == {"val", "test"}


def test_images_and_text_files_in_one_column_are_each_compared_with_their_kind(tmp_path: Path) -> None:
    d = tmp_path / "img"
    files = [save(photo(60), d / "a.png"), save(photo(60).convert("RGB"), d / "a_copy.jpg", quality=40)]
    words = text(61)
    for name, body in (("doc.txt", join(words)), ("doc_edit.md", join(replace_words(words, 0.03, 1)))):
        (d / name).write_text(body, encoding="utf-8")
        files.append(f"img/{name}")
    r = audit_files(tmp_path, files, ["train", "test", "train", "test"])
    labels = {f.evidence["content"]: f.examples[0]["holdout"] for f in r.findings if f.code == "NDP001"}
    assert labels == {"images in 'file'": "i1", "text files in 'file'": "i3"}


def test_a_whole_training_text_quoted_inside_a_longer_holdout_text_is_caught(tmp_path: Path) -> None:
    quoted = text(70, n=41)
    holdout = text(71, n=45) + quoted
    r = audit_texts(tmp_path, [join(quoted), join(text(72)), join(holdout)], ["train", "train", "test"])
    example = finding(r, "NDP001").examples[0]
    assert (example["holdout"], example["near"], example["measure"]) == ("t2", "t0", "containment")


def test_words_too_few_to_tell_a_copy_are_compared_by_their_normal_form_for_review_and_said(tmp_path: Path) -> None:
    # "Five stars" is a stock phrase: the training split holds it twice, as review data does
    texts = ["ok", "N/A", "Five stars", join(text(73)), "OK", "n/a", "five stars!", "ok", "!!!", "good value"]
    r = audit_texts(tmp_path, [*texts, "Five stars"], ["train"] * 4 + ["test"] * 6 + ["train"])
    assert "NDP001" not in codes(r)  # "OK" in train and "ok" in test is no leak, nor is "N/A" / "n/a"
    note = finding(r, "NDP007")
    assert note.evidence["texts_too_short"] == note.evidence["texts_compared_normalised"] == 8
    assert "compared by their normalised words" in note.message
    review = finding(r, "NDP003")
    assert review.severity.value == "info" and review.evidence["short_texts"] == 4
    shown = {(e["holdout"], e["near"]) for e in review.examples}
    # OK / ok, n/a / N/A, five stars! / Five stars, and "ok" itself in both splits; "good value" has no twin.
    assert shown == {("t4", "t0"), ("t5", "t1"), ("t6", "t2"), ("t7", "t0")}
    assert {e["measure"] for e in review.examples} == {"normalised"}


def test_a_short_text_re_punctuated_or_with_one_word_added_across_splits_is_an_edited_copy(tmp_path: Path) -> None:
    texts = ["Readability counts.", "Flat is better", join(text(76)), "readability counts to", "flat is better!"]
    r = audit_texts(tmp_path, texts, ["train"] * 3 + ["test"] * 2)
    f = finding(r, "NDP001")
    shown = {(e["holdout"], e["near"], e["measure"], e["similarity"]) for e in f.examples}
    assert shown == {("t3", "t0", "word added", 0.667), ("t4", "t1", "normalised", 1.0)}
    assert "NDP003" not in codes(r)


def test_short_texts_that_share_words_or_that_the_data_repeats_are_not_flagged(tmp_path: Path) -> None:
    # A short-label data set: a word changed, one-letter words, stock phrases and stems are no copies.
    train = ["Readability counts.", "very good product", "good value", "good value", "N/A", "yes", "very good"]
    train += ["very good value", "thank you", "thank you"]
    test = ["Simplicity counts.", "very bad product", "good value!", "good value here", "n/a", "Yes", "very good price"]
    test += ["thank you all", "N/A please"]
    r = audit_texts(tmp_path, [*train, *test], ["train"] * len(train) + ["test"] * len(test))
    assert "NDP001" not in codes(r)
    review = finding(r, "NDP003")
    # the equal wordings only: "good value" (twice in train), "n/a" (no word of two letters), "yes" (one word)
    ids = {t: f"t{i}" for i, t in reversed(list(enumerate([*train, *test])))}
    pairs = {(ids["good value!"], ids["good value"]), (ids["n/a"], ids["N/A"]), (ids["Yes"], ids["yes"])}
    assert {(e["holdout"], e["near"]) for e in review.examples} == pairs
    assert {e["measure"] for e in review.examples} == {"normalised"}


def test_short_texts_in_one_split_only_are_not_listed(tmp_path: Path) -> None:
    r = audit_texts(tmp_path, ["ok", "OK", "Ok!", join(text(74)), join(text(75))], ["train"] * 3 + ["test"] * 2)
    assert "NDP003" not in codes(r)
    assert finding(r, "NDP007").evidence["texts_compared_normalised"] == 3


def test_text_files_in_utf16_or_an_8_bit_encoding_are_compared_an_empty_file_is_listed(tmp_path: Path) -> None:
    d = tmp_path / "docs"
    d.mkdir()
    one, two = join(text(80)) + " café", join(text(81)) + " naïve"
    (d / "a.txt").write_text(one, encoding="utf-8")
    (d / "b.txt").write_text(two, encoding="utf-8")
    (d / "a16.txt").write_text(one, encoding="utf-16")
    (d / "b1252.txt").write_text(two.replace("naïve", "naive"), encoding="cp1252")
    (d / "empty.txt").write_bytes(b"")
    files = ["docs/a.txt", "docs/b.txt", "docs/a16.txt", "docs/b1252.txt", "docs/empty.txt"]
    r = audit_files(tmp_path, files, ["train", "train", "test", "test", "test"])
    assert {(e["holdout"], e["near"]) for e in finding(r, "NDP001").examples} == {("i2", "i0"), ("i3", "i1")}
    assert [Path(e["path"]).name for e in finding(r, "NDP005").examples] == ["empty.txt"]


def test_the_stage_defaults_are_the_thresholds_the_bench_measured() -> None:
    from auditor.similarity.minhash import TextSettings
    from auditor.similarity.perceptual import ImageSettings
    from auditor.stages.data.near_duplicates import NearDuplicatesOptions

    o, image, texts = NearDuplicatesOptions(), ImageSettings(), TextSettings()
    assert (o.image_distance, o.dhash_distance, o.image_review_distance) == (
        image.flag_distance,
        image.dhash_distance,
        image.review_distance,
    )
    assert (o.mirrored == "flag") == image.flag_mirrored
    assert (o.text_threshold, o.containment_threshold, o.text_review, o.shingle_words, o.min_words) == (
        texts.threshold,
        texts.containment,
        texts.review,
        texts.shingle,
        texts.min_words,
    )
    assert o.boilerplate_documents == texts.boilerplate


def _hyphenated(words: list[str]) -> str:
    """The text as a web page carries it: soft hyphens inside long words, a zero-width space, emoji with their
    variation selector."""
    marked = [f"{w[:3]}\u00ad{w[3:]}" if len(w) > 5 else w for w in words]
    marked[10] = f"{marked[10][:2]}\u200b{marked[10][2:]}"
    return " ".join(marked) + " \u2764\ufe0f"


def test_a_copy_carrying_soft_hyphens_and_zero_width_spaces_is_a_near_copy(tmp_path: Path) -> None:
    originals = [text(i, n=80) for i in range(4)]
    copy = _hyphenated(originals[1])
    r = audit_texts(tmp_path, [*map(join, originals), copy, join(text(50, n=80))], ["train"] * 4 + ["test"] * 2)
    f = finding(r, "NDP001")
    assert [(e["holdout"], e["near"]) for e in f.examples] == [("t4", "t1")]
    assert f.examples[0]["similarity"] == 1.0


def test_distinct_texts_sharing_soft_hyphens_and_emoji_are_not_near_copies(tmp_path: Path) -> None:
    texts = [_hyphenated(text(i, n=80)) for i in range(8)]
    r = audit_texts(tmp_path, texts, ["train"] * 4 + ["test"] * 4)
    assert not {"NDP001", "NDP003", "NDP004"} & set(codes(r))


def test_a_copy_with_its_html_escaped_is_a_near_copy(tmp_path: Path) -> None:
    # reviews full of apostrophes and quotes; the test split's copy was scraped with its characters escaped
    reviews = [
        " ".join(f"{w}'s" if j % 6 == 0 else (f'"{w}"' if j % 9 == 4 else w) for j, w in enumerate(text(i, n=90)))
        for i in range(5)
    ]
    escaped = reviews[2].replace("'", "&#39;").replace('"', "&quot;")
    r = audit_texts(tmp_path, [*reviews[:4], escaped, reviews[4]], ["train"] * 4 + ["test"] * 2)
    f = finding(r, "NDP001")
    assert [(e["holdout"], e["near"], e["similarity"]) for e in f.examples] == [("t4", "t2", 1.0)]


JA = (
    "東京都は来年の春から、都内のすべての公立図書館で電子書籍の貸し出しサービスを始めると発表しました。利用者は"
    "スマートフォンやパソコンからいつでも本を借りることができ、返却の手続きも必要ありません。担当者によると、高齢者"
    "や子育て中の家庭など、図書館に通うのが難しい人にも読書の機会を広げることがねらいだということです。サービスの"
    "開始に合わせて、およそ五万冊の電子書籍を用意する予定です。"
)
# Two Chinese reports on the same subject: common characters and words (的, 是, 了, 图书馆, 电子书, 老年人), no copy.
ZH_A = (
    "北京市图书馆从下个月开始推出电子书借阅服务，读者可以用手机或者电脑随时借书，不需要到馆办理手续。图书馆的负责人"
    "表示，这项服务是为了方便老年人和工作忙碌的上班族，让更多的人有机会读书。目前已经准备了大约三万本电子书，以后还"
    "会继续增加。"
)
ZH_B = (
    "上海的一家社区图书馆最近开始提供电子书服务，这是当地第一次尝试这种借阅方式。很多年轻读者说，用手机看书很方便，"
    "但也有一些老年人觉得操作有点复杂，希望图书馆能安排工作人员进行指导。图书馆表示，将在周末举办培训活动，帮助大家"
    "学会使用，让更多的人享受读书的乐趣。"
)
KO = (
    "서울시는 내년 봄부터 모든 공공 도서관에서 전자책 대출 서비스를 시작한다고 발표했다. "
    "이용자는 스마트폰이나 컴퓨터로 언제든지 책을 빌릴 수 있다."
)


def test_a_japanese_text_with_a_few_words_changed_is_a_near_copy_and_chinese_ones_on_its_topic_are_not(
    tmp_path: Path,
) -> None:
    edited = JA.replace("来年の春", "今年の秋").replace("五万冊", "三万冊").replace("発表しました", "明らかにしました")
    r = audit_texts(tmp_path, [JA, ZH_A, edited, ZH_B], ["train", "train", "test", "test"])
    f = finding(r, "NDP001")
    assert f.evidence["pairs"] == 1
    example = f.examples[0]
    assert (example["holdout"], example["near"], example["measure"]) == ("t2", "t0", "resemblance")
    assert 0.5 <= example["similarity"] < 0.95
    assert "NDP003" not in codes(r)  # the two Chinese reports are not even listed for review
    # the shared passages are marked character by character: the changed words are left out
    marks = example["preview"]["holdout"]["marks"]
    assert "".join(edited[a:b] for a, b in marks).count("今年の秋") == 0
    assert edited[marks[0][0] : marks[0][1]].startswith("から、都内の")  # a 5-gram of 東京都は holds the change


def test_korean_keeps_its_words_and_a_near_copy_is_found_by_them(tmp_path: Path) -> None:
    # Hangul is written with spaces: its words stay words (never split into syllables). Until the words of a text
    # were counted as normalised, a text with no ASCII letter counted none and was only compared as a short text.
    edited = KO.replace("내년 봄부터", "올해 가을부터")
    r = audit_texts(tmp_path, [KO, edited], ["train", "test"], text_threshold=0.3)
    (example,) = finding(r, "NDP001").examples
    assert example["similarity"] == pytest.approx(2 / 3, abs=1e-3)  # 5-word shingles of its words, not syllables


ZH_PAGES = [
    "光合作用是绿色植物利用光能，把二氧化碳和水合成有机物并释放氧气的过程。光反应在叶绿体的类囊体薄膜上进行，"
    "暗反应在叶绿体基质中进行，两个阶段是紧密联系的。",
    "复习提纲：光反应在叶绿体的类囊体薄膜上进行，需要光、色素和酶；暗反应需要光反应提供的ATP和NADPH，"
    "它的场所是叶绿体基质。同学们要注意区分这两个阶段的条件、场所和产物。",
]


def test_a_chinese_passage_is_verbatim_from_26_characters_a_common_phrase_of_13_is_not(tmp_path: Path) -> None:
    # A question holding the textbook phrase 在叶绿体的类囊体薄膜上进行 (13 characters, 8 English words) shares no
    # 13-word passage; a note quoting a sentence of 33 characters of a training page does.
    question = "下列关于光合作用的叙述中，正确的是：光反应阶段在叶绿体的类囊体薄膜上进行，产生氧气和ATP。"
    quote = "老师在课上说：光合作用是绿色植物利用光能，把二氧化碳和水合成有机物并释放氧气的过程。请大家记住，下周要考。"
    r = audit_texts(tmp_path, [*ZH_PAGES, question, quote], ["train", "train", "test", "test"])
    overlap = finding(r, "NDP008")
    assert overlap.evidence["per_split"]["test"]["with_overlap"] == 1
    assert "NDP001" not in codes(r) and "NDP004" not in codes(r)


JA_PAGES = [
    "光合作用は緑色植物が光エネルギーを利用して二酸化炭素と水から有機物を合成し酸素を放出する過程である。"
    "光反応はチラコイド膜で、暗反応はストロマで進む。",
    "ネットワークの設定を確認してください。この操作を実行することができませんでしたので、もう一度お試しください。",
]


def test_a_japanese_passage_counts_kana_as_a_third_of_a_word_so_a_stock_phrase_is_no_copy(tmp_path: Path) -> None:
    # この操作を実行することができませんでしたので、もう一度お試しください (33 characters, 27 of them kana)
    # weighs 12 words: a stock phrase any message may hold; a quoted sentence of 49 characters (21 words) is a copy.
    question = (
        "ファイルの保存先が見つかりません。この操作を実行することができませんでしたので、もう一度お試しください。"
    )
    quote = (
        "先生は授業で言った：光合作用は緑色植物が光エネルギーを利用して二酸化炭素と水から有機物を合成し酸素を"
        "放出する過程である。来週の試験に出ます。"
    )
    r = audit_texts(tmp_path, [*JA_PAGES, question, quote], ["train", "train", "test", "test"])
    overlap = finding(r, "NDP008")
    assert overlap.evidence["per_split"]["test"]["with_overlap"] == 1
    assert "NDP004" not in codes(r)
    # The quote holds most of a training page: that pair is a near copy; the question is in no pair.
    assert {e["holdout"] for e in finding(r, "NDP001").examples} == {"t3"}


def test_a_text_column_blank_on_a_whole_side_is_an_error_and_a_few_gaps_are_not(tmp_path: Path) -> None:
    """A holdout of blank texts compares nothing: without NDP012 the stage passed on nothing (exit 0)."""
    trained = [join(text(i)) for i in range(4)]
    blind = audit_texts(tmp_path / "blind", [*trained, "", None, " \u3000"], ["train"] * 4 + ["test"] * 3)
    f = finding(blind, "NDP012")
    assert f.severity.value == "error" and "in every holdout row" in f.message and blind.exit_code == 1
    assert f.evidence == {"column": "body", "rows_per_split": {"test": 3}}
    gaps = audit_texts(tmp_path / "gaps", [*trained, None, join(text(50)), ""], ["train"] * 4 + ["test"] * 3)
    assert finding(gaps, "NDP012").severity.value == "info" and gaps.exit_code == 0
    full = audit_texts(tmp_path / "full", [*trained, join(text(50))], ["train"] * 4 + ["test"])
    assert "NDP012" not in codes(full) and full.exit_code == 0
