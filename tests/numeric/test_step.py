"""The training-step helpers that need no user program."""

from __future__ import annotations

import pytest
import torch

from auditor.numeric.step import one_thread


def test_the_step_probes_run_torch_on_one_thread_and_restore_it() -> None:
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with one_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), one_thread():
            raise RuntimeError("a probe that fails")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
