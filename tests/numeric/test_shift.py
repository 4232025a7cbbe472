"""The shift probe: no correct softmax is ever called unstable, every naive one that overflows is."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.numeric.shift import SHIFT, probe_softmax, target_form

Softmax = Callable[[torch.Tensor, int], torch.Tensor]


def _max_subtracted(x: torch.Tensor, dim: int) -> torch.Tensor:
    e = torch.exp(x - x.max(dim, keepdim=True).values)
    return e / e.sum(dim, keepdim=True)


def _naive(x: torch.Tensor, dim: int) -> torch.Tensor:
    e = torch.exp(x)
    return e / e.sum(dim, keepdim=True)


CORRECT: dict[str, Softmax] = {
    "torch.softmax": lambda x, d: torch.softmax(x, d),
    "log_softmax().exp()": lambda x, d: torch.log_softmax(x, d).exp(),
    "exp(x - logsumexp(x))": lambda x, d: torch.exp(x - torch.logsumexp(x, d, keepdim=True)),
    "max-subtracted": _max_subtracted,
}
DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16}


def _logits(lead: tuple[int, ...], classes: int, scale: float, seed: int, dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*lead, classes, generator=g, dtype=torch.float64) * scale).to(dtype)


def _judged(name: str, dtype: str, lead: tuple[int, ...], classes: int, scale: float, seed: int) -> tuple[bool, bool]:
    """(the correct softmax passes, the naive one is flagged) on one draw of logits shaped (*lead, classes)."""
    logits = _logits(lead, classes, scale, seed, DTYPES[dtype])
    correct = probe_softmax(CORRECT[name], logits)
    naive = probe_softmax(_naive, logits)
    return correct.stable, not naive.stable and not naive.finite_after


@pytest.mark.parametrize("name", sorted(CORRECT))
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_correct_softmaxes_pass_and_naive_ones_fail(name: str, dtype: str, scale: float) -> None:
    for seed in range(4):
        assert _judged(name, dtype, (3,), 7, scale, seed) == (True, True), (name, dtype, scale, seed)
    assert _judged(name, dtype, (), 5, scale, 0) == (True, True)  # one row
    assert _judged(name, dtype, (2, 3), 4, scale, 0) == (True, True)  # (batch, time, classes)


def test_exp_minus_logsumexp_in_float32_passes_where_a_fixed_tolerance_failed() -> None:
    # float32 rounding of x + 1000 moves these probabilities by about 1.8e-05, above the old fixed 1e-5.
    logits = _logits((4,), 5, 1.0, 0, torch.float32)
    r = probe_softmax(CORRECT["exp(x - logsumexp(x))"], logits)
    assert r.stable and r.max_change > 1e-5 and r.max_change <= r.tolerance


def test_a_softmax_that_is_wrong_after_the_shift_fails() -> None:
    # Finite everywhere, but it clamps the logits: after + 1000 every class is equally likely.
    def clamped(x: torch.Tensor, dim: int) -> torch.Tensor:
        return torch.softmax(x.clamp(max=50.0), dim)

    r = probe_softmax(clamped, _logits((3,), 4, 3.0, 1, torch.float32))
    assert r.finite_after and not r.stable and r.max_change > 0.1


def test_target_forms() -> None:
    out = torch.randn(3, 4)
    assert target_form(out, torch.tensor([0, 3, 1])) == "class-index"
    assert target_form(out, torch.eye(4)[[0, 3, 1]]) == "one-hot"
    assert target_form(out, torch.softmax(torch.randn(3, 4), -1)) == "soft-label"
    assert target_form(out, torch.tensor([[1.0, 0, 1, 0]] * 3)) is None  # multi-label rows do not sum to 1
    assert target_form(out, torch.randn(3, 4)) is None  # regression targets
    assert target_form(out[:, :1], torch.ones(3, 1)) is None  # one column is no class axis


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(
    name=st.sampled_from(sorted(CORRECT)),
    dtype=st.sampled_from(sorted(DTYPES)),
    lead=st.lists(st.integers(1, 5), max_size=2).map(tuple),
    classes=st.integers(2, 64),
    scale=st.sampled_from([1e-3, 0.1, 1.0, 5.0, 30.0, 200.0]),
    seed=st.integers(0, 2**31 - 1),
)
def test_property_no_correct_softmax_is_flagged_every_overflowing_one_is(
    name: str, dtype: str, lead: tuple[int, ...], classes: int, scale: float, seed: int
) -> None:
    assert _judged(name, dtype, lead, classes, scale, seed) == (True, True)
    assert SHIFT == 1000.0  # exp(1000) overflows float64 too: every naive softmax overflows at this shift
