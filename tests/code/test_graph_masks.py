"""PyTorch Geometric: a graph's `data.train_mask`, `val_mask` and `test_mask` are the sides of the split its data
set was published with, and its layers (`GCNConv`) are torch modules a hand-written loop trains."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import torch
import torch.nn.functional as F
from torch_geometric.datasets import Planetoid
from torch_geometric.nn import GCNConv

data = Planetoid("data", name="Cora")[0]
conv = GCNConv(data.num_features, 7)
opt = torch.optim.Adam(conv.parameters(), lr=0.01)
"""

_EPOCHS = """
        best = 0.0
        for epoch in range(200):
            opt.zero_grad()
            out = conv(data.x, data.edge_index)
            F.cross_entropy(out[data.{fit}], data.y[data.{fit}]).backward()
            opt.step()
            pred = conv(data.x, data.edge_index).argmax(-1)
            acc = (pred[data.{chosen}] == data.y[data.{chosen}]).float().mean().item()
            if acc > best:
                best = acc
                torch.save(conv.state_dict(), "best.pt")
        conv.load_state_dict(torch.load("best.pt"))
        pred = conv(data.x, data.edge_index).argmax(-1)
        print((pred[data.test_mask] == data.y[data.test_mask]).float().mean().item())
        """


@pytest.mark.parametrize(
    ("fit", "chosen", "expected"),
    [
        # the epoch kept by its accuracy on the test nodes
        ("train_mask", "test_mask", ["multi_test"]),
        # kept by the validation nodes, the test nodes scored once after
        ("train_mask", "val_mask", []),
        # trained on the test nodes' labels
        ("test_mask", "val_mask", ["overlap"]),
    ],
)
def test_a_graph_s_masks_are_its_split(tmp_path: Path, fit: str, chosen: str, expected: list[str]) -> None:
    found = leaks_found(tmp_path, HEAD, _EPOCHS.format(fit=fit, chosen=chosen))
    assert sorted({kind for kind, _ in found}) == expected


_EACH_MASK = """
        def evaluate():
            pred = conv(data.x, data.edge_index).argmax(-1)
            masks = (data.train_mask, data.val_mask, data.test_mask)
            return [float((pred[m] == data.y[m]).float().mean()) for m in masks]
        best_val, test_at_best = 0.0, 0.0
        for epoch in range(300):
            opt.zero_grad()
            F.cross_entropy(conv(data.x, data.edge_index)[data.train_mask], data.y[data.train_mask]).backward()
            opt.step()
            tr_acc, val_acc, test_acc = evaluate()
            if {chosen} > best_val:
                best_val, test_at_best = {chosen}, test_acc
        print(best_val, test_at_best)
        """


@pytest.mark.parametrize(("chosen", "expected"), [("val_acc", []), ("test_acc", ["multi_test"])])
def test_each_mask_s_score_of_one_comprehension_is_its_own(tmp_path: Path, chosen: str, expected: list[str]) -> None:
    """`[acc(m) for m in (train_mask, val_mask, test_mask)]` gives three scores, each of its own nodes: the epoch
    kept by the validation accuracy, the test accuracy only recorded beside it, chooses nothing on the test."""
    found = leaks_found(tmp_path, HEAD, _EACH_MASK.format(chosen=chosen))
    assert sorted({kind for kind, _ in found}) == expected


@pytest.mark.parametrize(
    ("fit", "expected"),
    [
        # the training and validation nodes together, or every node but the test ones: the test nodes scored once
        ("data.train_mask | data.val_mask", []),
        ("~data.test_mask", []),
        ("torch.logical_or(data.train_mask, data.val_mask)", []),
        ("torch.logical_not(data.test_mask)", []),
        # the test nodes among them
        ("data.train_mask | data.test_mask", ["overlap"]),
        ("~data.val_mask", ["overlap"]),
    ],
)
def test_masks_put_together(tmp_path: Path, fit: str, expected: list[str]) -> None:
    body = f"""
        fit_mask = {fit}
        for epoch in range(200):
            opt.zero_grad()
            F.cross_entropy(conv(data.x, data.edge_index)[fit_mask], data.y[fit_mask]).backward()
            opt.step()
        pred = conv(data.x, data.edge_index).argmax(-1)
        print((pred[data.test_mask] == data.y[data.test_mask]).float().mean().item())
        """
    assert sorted({kind for kind, _ in leaks_found(tmp_path, HEAD, body)}) == expected


def test_the_validation_nodes_put_back_and_scored_beside_the_test_nodes(tmp_path: Path) -> None:
    """Trained on the training and validation nodes, both accuracies reported: the validation one is a training
    score, the test nodes were never trained on."""
    body = """
        fit_mask = data.train_mask | data.val_mask
        for epoch in range(100):
            opt.zero_grad()
            F.cross_entropy(conv(data.x, data.edge_index)[fit_mask], data.y[fit_mask]).backward()
            opt.step()
        pred = conv(data.x, data.edge_index).argmax(dim=1)
        print([(pred[m] == data.y[m]).float().mean() for m in (data.val_mask, data.test_mask)])
        """
    assert leaks_found(tmp_path, HEAD, body) == []


def test_the_tries_of_a_comprehension_over_masks(tmp_path: Path) -> None:
    """One item of three scores the test nodes: the epoch kept by it is one try an epoch, not three."""
    from tests.code.reading import read_script

    result, _ = read_script(tmp_path, HEAD, _EACH_MASK.format(chosen="test_acc"))
    (leak,) = [p.leak for p in result.leaks]
    assert "scores the same test rows 300 times, once per model or setting of a loop" in leak.message
