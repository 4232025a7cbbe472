"""What a run's trace says: the calls the user's code made into the libraries, the rows each saw, and how rows
passed from one call to the next (a transform's output row i is its input row i; a split's parts are its rows;
an over-sampler's new rows are synthetic rows of its pool). From that, the answer to each question the reading
asks (did this fit see the rows scored there?), and the leaks the reading did not see."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from auditor.code.rows import Rows

TRANSFORMS = frozenset(
    {"fit_transform", "transform", "texts_to_sequences", "texts_to_matrix", "encode", "inverse_transform"}
)
FITS = frozenset(
    {"fit", "partial_fit", "fit_transform", "fit_on_texts", "adapt", "train_from_iterator", "fit_resample"}
)
PREDICTS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function"})
SCORES = frozenset({"score", "evaluate"})
SYNTHETIC = np.uint64(0)  # canonical rows of a pool made by a sampler are marked by their pool (see Lineage)


@dataclass
class Call:
    """One traced call from the user's code into a library."""

    index: int
    line: int  # the program line of the call
    name: str  # the function or method called
    module: str
    owner: int | None = None  # id() of the object whose method it is
    owner_class: str | None = None
    owner_module: str | None = None
    owner_predicts: bool = False  # the owner is a model (it has predict)
    inputs: list[Rows] = field(default_factory=list)  # the array-like arguments, in order
    outputs: list[Rows] = field(default_factory=list)  # the array-like parts of the result, in order
    input_ids: list[int] = field(default_factory=list)  # id() of the arguments (and of their base arrays)
    output_id: int | None = None  # id() of the result (a prediction a metric is later given)
    label_columns: list[str] = field(default_factory=list)  # a model fit: columns of X that are y again
    later_train_rows: int | None = None  # a split: training rows dated after the earliest test row
    earliest_test: str | None = None
    is_metric: bool = False


class Lineage:
    """Rows followed through the trace: each row hash mapped to the row it came from, first seen."""

    def __init__(self, calls: list[Call]) -> None:
        self.calls = calls
        self.origin: dict[int, int] = {}  # row hash -> the hash of the row it was made from (itself if a source)
        self.pools: dict[int, int] = {}  # row hash of a synthetic row -> the index of the call that made it
        # row hash -> (call index, input row hash, owner) of each transform that returned it, in call order
        self.producers: dict[int, list[tuple[int, int, int | None]]] = {}
        self.produced: set[int] = set()  # row hashes some traced call returned (a split's part, a transform's row)
        self.held_out: set[int] = set()  # row hashes a split put on its test side (train_test_split's 2nd, 4th, ...)
        for call in calls:
            self._add(call)

    def _add(self, call: Call) -> None:
        for rows in call.inputs:
            for h in rows.hashes.tolist():
                self.origin.setdefault(h, h)
        if call.name in TRANSFORMS and call.inputs and call.outputs:
            source, result = call.inputs[0], call.outputs[0]
            if source.n == result.n:
                for a, b in zip(source.hashes.tolist(), result.hashes.tolist(), strict=True):
                    self.origin.setdefault(b, self.origin.get(a, a))
                    self.producers.setdefault(b, []).append((call.index, a, call.owner))
        elif call.name == "fit_resample" and call.inputs and call.outputs:
            known = set(call.inputs[0].hashes.tolist())
            for h in call.outputs[0].hashes.tolist():
                if h not in known and h not in self.origin:
                    self.pools[h] = call.index
                    self.origin[h] = h
        for i, rows in enumerate(call.outputs):
            for h in rows.hashes.tolist():
                self.origin.setdefault(h, h)
                self.produced.add(h)
                if call.name == "train_test_split" and i % 2 == 1:
                    self.held_out.add(h)

    def canonical(self, rows: Rows | None) -> set[int]:
        """The source rows ``rows`` came from (their hashes before any traced transform)."""
        if rows is None:
            return set()
        found = set()
        for h in rows.hashes.tolist():
            seen = h
            for _ in range(64):  # chains of transforms are short; a cycle (the same values again) ends here
                nxt = self.origin.get(seen, seen)
                if nxt == seen:
                    break
                seen = nxt
            found.add(seen)
        return found

    def through(self, rows: Rows, before: int) -> set[int]:
        """The owners (id) of the traced transforms ``rows`` passed through on their way to the call at index
        ``before``: each row's latest producer before that call, then the latest producer of that one's input row
        before it, and so on back to a row no transform made.

        Rows are known by their values, so a row a transform returned unchanged (an imputer's complete row) ends
        the walk: the same values may be a raw row or another fold's output, and taking every producer of them
        would make each fold's imputer one the scored rows passed through."""
        owners: set[int] = set()
        for h in rows.hashes.tolist():
            seen, until = h, before
            for _ in range(64):  # chains of transforms are short
                step = next((p for p in reversed(self.producers.get(seen, ())) if p[0] < until), None)
                if step is None:
                    break
                index, source, owner = step
                if owner is not None:
                    owners.add(owner)
                if source == seen:
                    break
                seen, until = source, index
        return owners

    def traced(self, rows: Rows | None) -> bool:
        """Whether every row of ``rows`` is a row a traced call returned (so the way back to its source is known);
        a row changed by code the run does not follow since (arithmetic, pandas) is not."""
        return rows is not None and all(h in self.produced for h in rows.hashes.tolist())

    def pool_of(self, rows: set[int]) -> set[int]:
        return {self.pools[h] for h in rows if h in self.pools}


def scored_rows(calls: list[Call], score: Call) -> tuple[Rows | None, Call | None]:
    """The rows a score is about, and the call that made the predictions it was given (if any): a model's
    score(X, y) is about X; a metric about the X of the predict call whose result it was given."""
    if score.name in SCORES:
        return (score.inputs[0] if score.inputs else None), score
    given = set(score.input_ids)
    for call in reversed(calls[: score.index]):
        if call.name in PREDICTS and call.output_id is not None and call.output_id in given:
            return (call.inputs[0] if call.inputs else None), call
    return None, None


def last_fit(calls: list[Call], owner: int | None, before: int) -> Call | None:
    """The latest fit of ``owner`` before call index ``before``."""
    if owner is None:
        return None
    for call in reversed(calls[:before]):
        if call.owner == owner and call.name in FITS:
            return call
    return None


def at_line(calls: Iterable[Call], line: int, name: str | None = None) -> list[Call]:
    """The traced calls made at ``line`` (with the method or function ``name``, when it is given)."""
    found = [c for c in calls if c.line == line]
    if name is not None:
        named = [c for c in found if c.name == name]
        if named:
            return named
        return [c for c in found if c.owner_class is not None and c.owner_class in name]
    return found


def learns(call: Call) -> bool:
    """Whether the call's object is a class known to learn from the rows it is fitted on (not a stateless
    transformer such as HashingVectorizer, not a class the catalogue does not know)."""
    from auditor.code.catalog import Kind, class_role

    if call.owner_class is None or call.owner_module is None:
        return False
    role = class_role(f"{call.owner_module}.{call.owner_class}")
    return role is not None and role.kind in (Kind.LEARNER, Kind.PIPELINE)


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
