"""Finding the padding mask among the inputs: by its name and its form, which value marks padding, the PAD id."""

from __future__ import annotations

import torch
import torch.nn as nn

from auditor.numeric.padding import PaddingMask, find_padding_mask, named_inputs

IDS = torch.tensor([[5, 8, 3, 0, 0], [7, 2, 9, 4, 6], [1, 3, 0, 0, 0]])


class Encoder(nn.Module):
    def __init__(self, padding_idx: int | None = None) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4, padding_idx=padding_idx)

    def forward(self, ids: torch.Tensor, src_key_padding_mask: torch.Tensor) -> torch.Tensor:
        return self.embed(ids)


def test_names_come_from_the_dict_or_the_forward() -> None:
    mask = IDS == 0
    assert [n for n, _ in named_inputs(Encoder(), (IDS, mask))] == ["ids", "src_key_padding_mask"]
    assert [n for n, _ in named_inputs(Encoder(), {"input_ids": IDS, "attention_mask": ~mask})] == [
        "input_ids",
        "attention_mask",
    ]
    assert named_inputs(Encoder(), IDS) == []


def test_a_hugging_face_attention_mask() -> None:
    found = find_padding_mask(Encoder(), {"input_ids": IDS, "attention_mask": (IDS != 0).long()})
    assert isinstance(found, PaddingMask)
    assert found.real is True and found.pad_value == 0 and found.polarity_from == "the batch"
    assert found.pad_id == 0 and found.pad_from == "the batch" and found.sequences is IDS


def test_the_batch_decides_which_value_marks_padding_whatever_the_name() -> None:
    # Named like Hugging Face's, written like PyTorch's: True at the padding, as the model is fed it.
    found = find_padding_mask(Encoder(), {"input_ids": IDS, "attention_mask": IDS == 0})
    assert isinstance(found, PaddingMask) and found.real is False and found.pad_value is True
    # Left padding: the real tokens are at the end of every row.
    left = torch.tensor([[0, 0, 5, 8], [7, 2, 9, 4]])
    found = find_padding_mask(Encoder(), (left, left == 0))
    assert isinstance(found, PaddingMask) and found.real is False and found.pad_id == 0


def test_without_padding_in_the_batch_the_name_and_the_model_decide() -> None:
    full = torch.tensor([[5, 8, 3], [7, 2, 9]])
    found = find_padding_mask(Encoder(padding_idx=1), (full, torch.zeros_like(full, dtype=torch.bool)))
    assert isinstance(found, PaddingMask) and found.real is False and found.polarity_from == "its name"
    assert found.pad_id == 1 and found.pad_from == "the model's nn.Embedding padding_idx"
    reason = find_padding_mask(Encoder(), (full, torch.zeros_like(full, dtype=torch.bool)))
    assert isinstance(reason, str) and "names no PAD id" in reason


def test_inputs_that_are_no_padding_mask() -> None:
    assert "no padding mask" in str(find_padding_mask(Encoder(), IDS))
    # A bare `mask` may be causal or an MLM mask: not a padding mask by name.
    assert "no padding mask" in str(find_padding_mask(Encoder(), {"ids": IDS, "mask": IDS == 0}))
    # Named so, but not 0/1, or not shaped like a sequence input.
    assert "no padding mask" in str(find_padding_mask(Encoder(), {"ids": IDS, "attention_mask": IDS}))
    assert "no input runs along" in str(find_padding_mask(Encoder(), {"ids": IDS[:, :2], "attention_mask": IDS > 0}))


def test_float_features_need_no_pad_id() -> None:
    frames = torch.randn(3, 5, 2)
    found = find_padding_mask(Encoder(), {"frames": frames, "padding_mask": IDS == 0})
    assert isinstance(found, PaddingMask) and found.sequences is frames and found.pad_id is None
