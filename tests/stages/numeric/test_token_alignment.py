from __future__ import annotations

import pytest

from tests.conftest import codes, finding

ONLY = ["token_alignment"]
LM = {"language_model": {"pad_id": 0, "ignore_index": -100}}
# A tiny causal language model: an embedding, a causally masked self-attention layer, a head.
TINY_LM = """
VOCAB, WIDTH = 12, 16

class TinyLM(nn.Module):
    def __init__(self, causal=True):
        super().__init__()
        self.causal = causal
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.attn = nn.MultiheadAttention(WIDTH, 2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, ids):
        h = self.embed(ids)
        T = ids.shape[1]
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if self.causal else None
        h, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        return self.head(h)

def model():
    return TinyLM()

TOKENS = torch.tensor([[5, 3, 7, 2, 9, 4, 1, 0, 0], [6, 8, 2, 2, 5, 11, 3, 7, 1]])

def batch():
    inputs, targets = TOKENS[:, :-1], TOKENS[:, 1:].clone()
    targets[targets == 0] = -100
    return inputs, targets

def loss(logits, targets):
    counted = (targets != -100).sum()
    if counted == 0:
        return logits.sum() * 0.0
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-100)
"""


def test_a_correct_language_model_passes(program) -> None:  # type: ignore[no-untyped-def]
    r = program(TINY_LM, ONLY, **LM)
    assert codes(r) == ["TOK000"] and r.exit_code == 0
    assert finding(r, "TOK000").evidence["rates"]["1"] == 1.0


@pytest.mark.parametrize(("targets", "shift"), [("TOKENS[:, :-1].clone()", 0), ("TOKENS[:, 2:].clone()", 2)])
def test_targets_not_shifted_by_one(program, targets: str, shift: int) -> None:  # type: ignore[no-untyped-def]
    source = TINY_LM.replace("TOKENS[:, 1:].clone()", targets)
    if shift == 2:
        source = source.replace("inputs, targets = TOKENS[:, :-1]", "inputs, targets = TOKENS[:, :-2]")
    f = finding(program(source, ONLY, **LM), "TOK001")
    assert f.evidence == {"found_shift": shift, "expected_shift": 1}


def test_loss_shifting_internally_is_configured_and_verified(program) -> None:  # type: ignore[no-untyped-def]
    labels_are_inputs = TINY_LM.replace("TOKENS[:, 1:].clone()", "TOKENS[:, :-1].clone()")
    shifting = labels_are_inputs.replace(
        "return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-100)",
        "return F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), targets[:, 1:].reshape(-1), ignore_index=-100)",
    )
    options = {"token_alignment": {"expected_shift": 0}}
    assert "TOK001" not in codes(program(shifting, ONLY, stages=options, **LM))
    f = finding(program(labels_are_inputs, ONLY, stages=options, **LM), "TOK001")  # the loss does not shift
    assert f.evidence["expected_shift"] == 0 and f.evidence["last_position_gradient"] > 0


SHIFTING_LOSS = (
    "return F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), targets[:, 1:].reshape(-1), ignore_index=-100)"
)
UNSHIFTED_LOSS = "return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-100)"


def test_labels_equal_to_the_inputs_with_a_loss_that_shifts_pass_as_they_are(program) -> None:  # type: ignore[no-untyped-def]
    # Hugging Face's convention: labels are the input ids and the loss pairs logits[:, t] with labels[:, t + 1].
    source = TINY_LM.replace("TOKENS[:, 1:].clone()", "TOKENS[:, :-1].clone()").replace(UNSHIFTED_LOSS, SHIFTING_LOSS)
    r = program(source, ONLY, **LM)
    assert "TOK001" not in codes(r) and r.exit_code == 0
    assert finding(r, "TOK000").evidence["loss_shift"] == 1


def test_targets_shifted_and_shifted_again_by_the_loss_are_two_ahead(program) -> None:  # type: ignore[no-untyped-def]
    # Targets already the next tokens, fed to a loss that shifts once more: position t learns token t + 2.
    f = finding(program(TINY_LM.replace(UNSHIFTED_LOSS, SHIFTING_LOSS), ONLY, **LM), "TOK001")
    assert f.evidence == {"found_shift": 1, "loss_shift": 1, "expected_shift": 1}
    assert "two tokens ahead" in f.message
    # The same targets with a loss that does not shift stay right.
    assert "TOK001" not in codes(program(TINY_LM, ONLY, **LM))


def test_pad_targets_that_reach_the_loss(program) -> None:  # type: ignore[no-untyped-def]
    source = TINY_LM.replace("    targets[targets == 0] = -100\n", "").replace("ignore_index=-100)", "ignore_index=-1)")
    f = finding(program(source, ONLY, **LM), "TOK002")
    assert f.evidence["leaking"] == 2 and f.evidence["positions"] == 2


def test_loss_without_ignore_index_gets_an_injected_ignored_target(program) -> None:  # type: ignore[no-untyped-def]
    source = TINY_LM.replace(
        "TOKENS = torch.tensor([[5, 3, 7, 2, 9, 4, 1, 0, 0]", "TOKENS = torch.tensor([[5, 3, 7, 2, 9, 4, 1, 6, 4]"
    )
    source = source.replace("targets.reshape(-1), ignore_index=-100)", "targets.reshape(-1).clamp(min=0))")
    f = finding(program(source, ONLY, **LM), "TOK002")
    assert "the last target was set to -100" in f.message


def test_attention_without_a_causal_mask_sees_the_future(program) -> None:  # type: ignore[no-untyped-def]
    source = TINY_LM.replace("return TinyLM()", "return TinyLM(causal=False)")
    f = finding(program(source, ONLY, **LM), "TOK003")
    assert f.evidence["mode"] == "eval" and f.evidence["first_moved"] == 0 and f.evidence["position"] == 3


UNGUARDED = TINY_LM.replace("    if counted == 0:\n        return logits.sum() * 0.0\n", "")


def test_unguarded_mean_is_info_when_every_row_has_a_target(program) -> None:  # type: ignore[no-untyped-def]
    r = program(UNGUARDED, ONLY, **LM)
    f = finding(r, "TOK005")
    assert f.severity == "info" and f.evidence["rows_without_target"] == 0 and r.exit_code == 0


def test_unguarded_mean_warns_when_a_row_has_no_target(program) -> None:  # type: ignore[no-untyped-def]
    source = UNGUARDED.replace("[[5, 3, 7, 2, 9, 4, 1, 0, 0]", "[[5, 0, 0, 0, 0, 0, 0, 0, 0]")
    f = finding(program(source, ONLY, **LM), "TOK005")
    assert f.severity == "warning" and f.evidence["rows_without_target"] == 1 and f.examples == ({"row": 0},)


def test_unguarded_mean_warns_for_one_token_sequences(program) -> None:  # type: ignore[no-untyped-def]
    source = UNGUARDED.replace("TOKENS[:, :-1], TOKENS[:, 1:].clone()", "TOKENS[:, :1], TOKENS[:, 1:2].clone()")
    f = finding(program(source, ONLY, **LM), "TOK005")
    assert f.severity == "warning" and f.evidence["sequence_length"] == 1


def test_all_ignored_risk_on_excluded_masks() -> None:
    torch = pytest.importorskip("torch")
    from auditor.numeric.alignment import all_ignored_risk

    rows = all_ignored_risk(torch.tensor([[False, True], [True, True], [False, False]]))
    assert rows.rows_without_target == (1,) and rows.rows == 3 and rows.possible
    assert not all_ignored_risk(torch.tensor([[False, True], [True, False]])).possible
    assert all_ignored_risk(torch.tensor([[False], [False]])).possible  # one token each: nothing after it
    assert all_ignored_risk(torch.tensor([False, True, True])).rows_without_target == ()
    stacked = all_ignored_risk(torch.tensor([[[True, True], [False, True]]]))  # leading axes are flattened
    assert stacked.rows_without_target == (0,) and stacked.rows == 2


def test_all_ignored_batch_is_an_error(program) -> None:  # type: ignore[no-untyped-def]
    empty = TINY_LM.replace("targets[targets == 0] = -100", "targets[:] = -100")
    assert codes(program(empty, ONLY, **LM)) == ["TOK004"]


def test_skipped_without_language_model(program) -> None:  # type: ignore[no-untyped-def]
    r = program(TINY_LM, ONLY)
    assert r.stages[0].status == "skipped" and "numeric.language_model" in (r.stages[0].skip_reason or "")


def test_dict_inputs_with_an_attention_mask(program) -> None:  # type: ignore[no-untyped-def]
    source = TINY_LM.replace(
        "def forward(self, ids):", "def forward(self, input_ids, attention_mask):\n        ids = input_ids"
    ).replace(
        "return inputs, targets", 'return {"input_ids": inputs, "attention_mask": torch.ones_like(inputs)}, targets'
    )
    assert codes(program(source, ONLY, **LM)) == ["TOK000"]
    leaky = source.replace("return TinyLM()", "return TinyLM(causal=False)")
    assert finding(program(leaky, ONLY, **LM), "TOK003").evidence["first_moved"] == 0


def test_hugging_face_style_batch_dict_with_labels(program) -> None:  # type: ignore[no-untyped-def]
    source = TINY_LM.replace(
        "def forward(self, ids):", "def forward(self, input_ids, attention_mask):\n        ids = input_ids"
    ).replace(
        "return inputs, targets",
        'return {"input_ids": inputs, "attention_mask": torch.ones_like(inputs), "labels": targets}',
    )
    r = program(source, ONLY, **LM)
    assert codes(r) == ["TOK000"] and finding(r, "TOK000").evidence["rates"]["1"] == 1.0


@pytest.mark.parametrize("value", [".inf", ".nan", "1", "-0.5"])
def test_tolerance_is_finite_and_below_one(tmp_path, value: str) -> None:  # type: ignore[no-untyped-def]
    # An infinite tolerance would call every output unmoved: a mask that lets the future in would pass.
    from auditor.core.config import load_config
    from auditor.core.errors import StageLoadError
    from auditor.pipeline.registry import instantiate
    from auditor.stages.numeric.token_alignment import TokenAlignment

    path = tmp_path / "audit.yaml"
    numeric = "numeric: {model: a:m, batch: a:b, loss: a:l}\n"
    path.write_text(f"{numeric}stages:\n  token_alignment:\n    tolerance: {value}\n")
    with pytest.raises(StageLoadError) as info:
        instantiate([TokenAlignment], load_config(path))
    assert f"{path}:4:5: stages.token_alignment.tolerance" in str(info.value)


PADDED = TINY_LM.replace(
    "h, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)",
    "h, _ = self.attn(h, h, h, attn_mask=mask, key_padding_mask=ids == 0, need_weights=False)",
)


def test_a_correct_padding_mask_passes(program) -> None:  # type: ignore[no-untyped-def]
    r = program(PADDED, ONLY, **LM)
    assert codes(r) == ["TOK000"] and r.exit_code == 0


def test_an_inverted_padding_mask_in_a_causal_model_is_found(program) -> None:  # type: ignore[no-untyped-def]
    source = PADDED.replace("key_padding_mask=ids == 0", "key_padding_mask=ids != 0")
    f = finding(program(source, ONLY, **LM), "TOK006")
    assert f.severity == "error" and f.evidence["real_tokens_masked"] is True
    assert f.evidence["kept"] == 4 and f.evidence["length"] == 8 and f.evidence["input_shape"] == [2, 8]
    assert "ids == 0" in f.remediation


def test_padding_in_an_encoder_without_or_with_an_inverted_mask(program) -> None:  # type: ignore[no-untyped-def]
    # Bidirectional: the real tokens see the padding after them unless the mask hides it.
    encoder = PADDED.replace("return TinyLM()", "return TinyLM(causal=False)")
    assert "TOK006" not in codes(program(encoder, ONLY, **LM))
    inverted = encoder.replace("key_padding_mask=ids == 0", "key_padding_mask=ids != 0")
    f = finding(program(inverted, ONLY, **LM), "TOK006")
    assert f.evidence["first_moved"] == 0 and f.evidence["padded"] != f.evidence["unpadded"]
    unmasked = TINY_LM.replace("return TinyLM()", "return TinyLM(causal=False)")
    assert finding(program(unmasked, ONLY, **LM), "TOK006").evidence["real_tokens_masked"] is False


# Not a language model: a review classifier fed Hugging Face style batches (attention_mask 1 at real tokens), a
# bidirectional encoder and a mean over the real tokens.
CLASSIFIER = """
PAD = 0

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(30, 16, padding_idx=PAD)
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        h, _ = self.attn(h, h, h, key_padding_mask=attention_mask == 0, need_weights=False)
        real = attention_mask.unsqueeze(-1).float()
        return self.head((h * real).sum(1) / real.sum(1))

def model():
    return Classifier()

IDS = torch.tensor([[5, 3, 7, 2, 9, 0, 0, 0], [6, 8, 2, 2, 5, 11, 3, 7], [4, 1, 0, 0, 0, 0, 0, 0]])

def batch():
    return {"input_ids": IDS, "attention_mask": (IDS != PAD).long(), "labels": torch.tensor([2, 0, 1])}

def loss(logits, labels):
    return F.cross_entropy(logits, labels)
"""


def test_a_classifier_with_a_correct_padding_mask_passes(program) -> None:  # type: ignore[no-untyped-def]
    r = program(CLASSIFIER, ONLY)
    assert codes(r) == ["TOK000"] and r.exit_code == 0
    f = finding(r, "TOK000")
    assert "only the padding probe" in f.message and "did not move" in f.message
    assert f.evidence == {
        "mask": "attention_mask",
        "pad_value": 0,
        "polarity_from": "the batch",
        "pad_id": 0,
        "pad_from": "the batch",
    }


@pytest.mark.parametrize(
    ("mask", "lost"),
    [("attention_mask.bool()", True), ("None", False)],
    ids=["inverted", "missing"],
)
def test_an_inverted_or_missing_padding_mask_outside_a_language_model(program, mask: str, lost: bool) -> None:  # type: ignore[no-untyped-def]
    source = CLASSIFIER.replace("key_padding_mask=attention_mask == 0", f"key_padding_mask={mask}")
    r = program(source, ONLY)
    f = finding(r, "TOK006")
    assert f.severity == "error" and r.exit_code == 1
    assert f.evidence["mask"] == "attention_mask" and f.evidence["first_moved"] is None  # the outputs pool
    assert f.evidence["kept"] == 4 and f.evidence["length"] == 8 and f.evidence["real_tokens_masked"] is lost
    assert "attention_mask == 0" in f.remediation and "Pool over the real tokens" in f.remediation


# A tagger taking PyTorch's convention, True at padding, as a second argument: one output per token.
TAGGER = """
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(30, 16)
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(16, 5)

    def forward(self, ids, src_key_padding_mask):
        return self.head(self.encoder(self.embed(ids), src_key_padding_mask=src_key_padding_mask))

def model():
    return Tagger()

IDS = torch.tensor([[5, 3, 7, 2, 9, 1, 1, 1], [6, 8, 2, 2, 5, 11, 3, 7]])

def batch():
    tags = torch.tensor([[0, 1, 2, 3, 4, -100, -100, -100], [1, 1, 2, 0, 4, 3, 2, 1]])
    return (IDS, IDS == 1), tags

def loss(logits, tags):
    return F.cross_entropy(logits.reshape(-1, 5), tags.reshape(-1), ignore_index=-100)
"""


def test_a_tagger_with_a_key_padding_mask_true_at_padding(program) -> None:  # type: ignore[no-untyped-def]
    r = program(TAGGER, ONLY)
    assert codes(r) == ["TOK000"] and r.exit_code == 0
    assert finding(r, "TOK000").evidence["pad_value"] is True and finding(r, "TOK000").evidence["pad_id"] == 1
    inverted = TAGGER.replace(
        "src_key_padding_mask=src_key_padding_mask)", "src_key_padding_mask=~src_key_padding_mask)"
    )
    f = finding(program(inverted, ONLY), "TOK006")
    assert f.evidence["mask"] == "src_key_padding_mask" and f.evidence["first_moved"] == 0
    assert f.evidence["pad_id"] == 1 and f.evidence["input_shape"] == [2, 8]


def test_a_mask_named_one_way_and_written_the_other_is_read_from_the_batch(program) -> None:  # type: ignore[no-untyped-def]
    # `attention_mask` holding True at padding, which the model passes on as such: right for what it is fed.
    source = (
        CLASSIFIER.replace('"attention_mask": (IDS != PAD).long()', '"attention_mask": IDS == PAD')
        .replace("key_padding_mask=attention_mask == 0", "key_padding_mask=attention_mask")
        .replace("real = attention_mask.unsqueeze(-1).float()", "real = (~attention_mask).unsqueeze(-1).float()")
    )
    r = program(source, ONLY)
    assert codes(r) == ["TOK000"] and finding(r, "TOK000").evidence["pad_value"] is True


def test_padded_features_with_a_padding_mask(program) -> None:  # type: ignore[no-untyped-def]
    # Audio frames, not token ids: padding is zeros, and no PAD id is needed.
    source = """
class Frames(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 16)
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.head = nn.Linear(16, 2)

    def forward(self, frames, padding_mask):
        h = self.proj(frames)
        h, _ = self.attn(h, h, h, key_padding_mask=padding_mask, need_weights=False)
        return self.head(h)

def model():
    return Frames()

def batch():
    g = torch.Generator().manual_seed(0)
    frames = torch.randn(2, 6, 6, generator=g)
    mask = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
    frames[mask] = 0.0
    return (frames, mask), torch.tensor([[0, 1, 0, 1, 0, 1], [1, 1, 0, 0, -100, -100]])

def loss(logits, y):
    return F.cross_entropy(logits.reshape(-1, 2), y.reshape(-1))
"""
    r = program(source, ONLY)
    assert codes(r) == ["TOK000"] and finding(r, "TOK000").evidence["pad_id"] is None
    leaky = source.replace("key_padding_mask=padding_mask,", "key_padding_mask=None,")
    assert finding(program(leaky, ONLY), "TOK006").evidence["pad_id"] is None


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (TINY_LM, "the inputs carry no padding mask"),
        (CLASSIFIER.replace('"attention_mask"', '"mask"').replace("attention_mask", "mask"), "no padding mask"),
        (
            CLASSIFIER.replace("padding_idx=PAD", "").replace("IDS != PAD", "torch.ones_like(IDS, dtype=torch.bool)"),
            "names no PAD id",
        ),
    ],
    ids=["no padding", "a bare mask", "no pad id"],
)
def test_nothing_to_probe_outside_a_language_model_is_a_skip(program, source: str, reason: str) -> None:  # type: ignore[no-untyped-def]
    r = program(source, ONLY)
    stage = r.stages[0]
    assert stage.status == "skipped" and reason in (stage.skip_reason or "")
    assert "numeric.language_model" in (stage.skip_reason or "")


def test_a_language_model_fed_a_key_padding_mask_true_at_padding(program) -> None:  # type: ignore[no-untyped-def]
    # The padding at the end of the probe's sequences is marked True, as the batch's own mask marks it.
    source = (
        PADDED.replace("def forward(self, ids):", "def forward(self, ids, key_padding_mask):")
        .replace("key_padding_mask=ids == 0", "key_padding_mask=key_padding_mask")
        .replace("return TinyLM()", "return TinyLM(causal=False)")
        .replace("return inputs, targets", "return (inputs, inputs == 0), targets")
    )
    r = program(source, ONLY, **LM)
    assert "TOK006" not in codes(r)
