"""PyTorch in the walk: a module called on rows predicts them, a loss of those predictions passes them on, and
`loss.backward()` is a training step of the modules whose predictions it holds, on the rows they saw. A
hand-written loop trains its network this way, with no `fit` to name it."""

from __future__ import annotations

import ast
from dataclasses import replace

from auditor.code.catalog import MONAI_LOSSES, TORCH_NETWORK
from auditor.code.events import Obj
from auditor.code.state import CONTAINER, WalkState
from auditor.code.values import NOTHING, Data, Value, join_datas

MODULE = "torch.nn."
OPTIMIZERS = "torch.optim."


def is_module(found: Obj) -> bool:
    """A torch network (nn.Sequential, a layer, a class of the file's built on nn.Module), not a loss."""
    return found.role == TORCH_NETWORK


def is_loss(found: Obj) -> bool:
    if found.qualname.startswith(MONAI_LOSSES):  # MONAI's DiceLoss, DiceCELoss, FocalLoss, TverskyLoss
        return True
    return found.qualname.startswith(MODULE) and found.name.endswith("Loss")


_SAME_NETWORK = frozenset(
    [
        "to",
        "cuda",
        "cpu",
        "train",
        "eval",
        "float",
        "double",
        "half",
        "requires_grad_",
        "parameters",
        "named_parameters",
    ]
)


def optimizer_class(qualname: str) -> bool:
    """torch.optim.Adam and its kind (a learning-rate scheduler is not an optimizer)."""
    last = qualname.rpartition(".")[2]
    return qualname.startswith(OPTIMIZERS) and last[:1].isupper() and ".lr_scheduler." not in qualname


def is_optimizer(found: Obj) -> bool:
    return optimizer_class(found.qualname)


class TorchLoops(WalkState):
    """Forward passes, losses and training steps of torch modules."""

    # network -> the rows of its gradients not yet stepped, and the backward() call that made them
    gradients: dict[int, tuple[Data, ast.Call]]

    def torch_call(self, found: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        """``found(...)``: a network's predictions of its input's rows, or a loss holding what it compares."""
        given = [v.data for v in (*args, *kwargs.values()) if v.data is not None]
        if is_loss(found):
            return self.loss(found.name, given, node)
        if not is_module(found):
            return None
        rows = given[0] if given else Data(frozenset())
        predictions = Value(data=replace(rows, predicted=frozenset({found.id}), columns=None, mask=None, fed=rows.fits))
        labels = kwargs.get("labels") or kwargs.get("**")
        if found.qualname.startswith("transformers.") and labels is not None and labels.data is not None:
            # model(**batch) or model(input_ids=..., labels=y) of a Hugging Face network: its output's .loss is
            # the loss of its predictions against those labels (trained on by backward(), a score of those rows)
            assert predictions.data is not None
            return predictions.join(self.loss(f"{found.name}.loss", [predictions.data, labels.data], node))
        return predictions

    def loss(self, name: str, given: list[Data], node: ast.Call) -> Value:
        """A loss of a network's predictions against labels: the rows it compares, passed on to backward(), and a
        score of those rows, as a metric's is: a test loss is how a hand-written loop scores its test part (and
        a loss on training rows scores only those, which no check counts against the test rows)."""
        joined = join_datas(given)
        if joined is None:
            return NOTHING
        passed = replace(joined, columns=None, mask=None)
        predicted = [d for d in given if d.predicted]
        truth = [d for d in given if not d.predicted]
        if not predicted or not truth:
            return Value(data=passed)
        models = frozenset().union(*(d.predicted for d in predicted))
        eid = self.evaluation(node, name, models, join_datas(predicted), join_datas(truth))
        return Value(data=passed, scores=frozenset({eid}))

    def torch_function(self, args: list[Value], kwargs: dict[str, Value]) -> Value | None:
        """torch.sigmoid(logits), torch.cat(...), torch.from_numpy(X): the rows of the arguments, still the
        predictions they were (unknown code would no longer call them predictions)."""
        given = [v.data for v in (*args, *kwargs.values()) if v.data is not None]
        for item in (i for v in args for i in (v.items or ())):
            if item.data is not None:
                given.append(item.data)
        joined = join_datas(given)
        return Value(data=replace(joined, columns=None, mask=None)) if joined is not None else None

    def backward(self, data: Data, node: ast.Call) -> Value:
        """``loss.backward()``: gradients for each network whose predictions are in the loss. Not yet a training
        step: a saliency map of test images calls backward too; an optimizer's step() makes it one."""
        for oid in sorted(data.predicted):
            if is_module(self.record.objects[oid]):
                seen = replace(data, predicted=frozenset(), against_truth=False)
                before = self.gradients.get(oid)
                self.gradients[oid] = (seen if before is None else before[0].join(seen), node)
        return NOTHING

    def torch_method(self, found: Obj, name: str, args: list[Value]) -> Value | None:
        """Methods of networks and optimizers: the network itself (to(device), eval(), parameters()), and an
        optimizer's step(), which trains its networks on the rows of their pending gradients."""
        if is_module(found) and name in _SAME_NETWORK:
            return Value(objects=frozenset({found.id}))
        if name == "step" and is_optimizer(found):
            self._step(found)
            return NOTHING
        if name == "step" and found.qualname.endswith("GradScaler"):  # scaler.step(optimizer) under AMP
            for oid in sorted(o for a in args for o in a.objects):
                if is_optimizer(self.record.objects[oid]):
                    self._step(self.record.objects[oid])
            return NOTHING
        return None

    def torch_optimizer(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """torch.optim.Adam(net.parameters()): an optimizer of the networks its parameters come from."""
        found = self.obj(node, qualname)
        found.steps = sorted(self._networks([*args, *kwargs.values()]))
        return Value(objects=frozenset({found.id}))

    def _networks(self, values: list[Value], depth: int = 0) -> set[int]:
        found: set[int] = set()
        for value in values:
            for oid in value.objects:
                obj = self.record.objects[oid]
                if is_module(obj):
                    found.add(oid)
                elif obj.qualname == CONTAINER and depth < 3:  # param groups: [{"params": net.parameters()}]
                    found |= self._networks([obj.elements, *obj.entries.values()], depth + 1)
            if value.items is not None and depth < 3:
                found |= self._networks(list(value.items), depth + 1)
        return found

    def _step(self, optimizer: Obj) -> None:
        # An optimizer whose parameters the walk could not follow steps every network with gradients.
        networks = optimizer.steps or sorted(self.gradients)
        for oid in networks:
            pending = self.gradients.get(oid)
            if pending is None:
                continue
            seen, node = pending
            found = self.record.objects[oid]
            train = self.train(node, f"{found.name} (loss.backward, optimizer step)", found, seen, None)
            train.by_loss = True
            found.trains = found.trains | {train.id}

    def torch_subclass(self, found: Obj) -> None:
        """A class of the file built on nn.Module is a network."""
        bases = self.local_bases(found.qualname)
        if any(n.startswith(MODULE) for b in bases for n in self.ev(b).names):
            found.role = TORCH_NETWORK
