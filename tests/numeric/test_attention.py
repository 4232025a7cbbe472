"""The attention probe's parts: the size an einsum contracts, and the softmax over the keys."""

from __future__ import annotations

import pytest
import torch

from auditor.numeric.attention import _einsum_depth, _last_axis


@pytest.mark.parametrize(
    ("equation", "shapes", "depth"),
    [
        ("bhqd,bhkd->bhqk", [(2, 3, 5, 16), (2, 3, 7, 16)], 16),
        ("b q d, b k d -> b q k", [(2, 5, 8), (2, 7, 8)], 8),
        ("bqhd,bkhd->bhqk", [(2, 5, 3, 4), (2, 7, 3, 4)], 4),
        ("bqd,bkd->bqkd", [(2, 5, 4), (2, 7, 4)], None),  # nothing summed: an outer product
        ("...d,...d->...", [(2, 5, 4), (2, 5, 4)], None),  # ellipses are not read
        ("bqd,bkd,bvd->bqk", [(2, 5, 4), (2, 7, 4), (2, 7, 4)], None),
        ("bqd,bkd->bqk", [(2, 5, 4, 1), (2, 7, 4)], None),  # the equation does not fit the operands
    ],
)
def test_einsum_depth(equation: str, shapes: list[tuple[int, ...]], depth: int | None) -> None:
    operands = [torch.zeros(s) for s in shapes]
    assert _einsum_depth(equation, operands) == depth


def test_the_softmax_must_run_over_the_last_axis() -> None:
    scores = torch.zeros(2, 5, 7)
    assert _last_axis((scores, -1), {}, scores) and _last_axis((scores,), {"dim": 2}, scores)
    assert not _last_axis((scores, 1), {}, scores) and not _last_axis((scores,), {}, scores)
