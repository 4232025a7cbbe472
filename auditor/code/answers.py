"""The reading's questions answered from a run's trace (confirmed, withdrawn, or left open), and the leaks the
trace shows that no question was about. Withdrawing needs the whole way traced: a fit that was reached and
scores whose rows all came through traced calls; anything less leaves the reading's finding standing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from auditor.code.lineage import FITS, SCORES, Call, Lineage, at_line, last_fit, learns, plural, scored_rows

CONFIRMED, WITHDRAWN, OPEN = "confirmed", "withdrawn", "open"
OVERLAP_SHARE = 0.9  # of the scored rows among the training rows, for a leak only the trace sees
# Of the scored rows among the rows fitted on, to confirm what the reading found: a handful of rows two samples
# happen to share (duplicates in the data, empty rows of a sparse matrix) confirm nothing.
CONFIRM_SHARE = 0.5


@dataclass(frozen=True)
class Answer:
    status: str  # confirmed | withdrawn | open
    text: str


Where = Callable[[int], str]


def answer(
    question: dict[str, Any], calls: list[Call], lineage: Lineage, where: Where = lambda n: f"line {n}"
) -> Answer:
    """What the trace says of one leak the reading found (its kind and the lines of its roles); ``where`` says a
    program line as a reader finds it."""
    roles: dict[str, list[tuple[int, str]]] = {}
    for role, line, what in question["roles"]:
        roles.setdefault(role, []).append((int(line), str(what)))
    kind = question["kind"]
    if kind == "preprocessing":
        return _preprocessing(roles, calls, lineage, where)
    if kind == "overlap":
        return _overlap(roles, calls, lineage, where)
    if kind == "multi_test":
        return _multi_test(roles, calls, lineage, where)
    if kind == "label_in_features":
        return _label(roles, calls, where, bool(question.get("derived")))
    if kind == "temporal_shuffle":
        return _temporal(roles, calls, where)
    return Answer(OPEN, "the run has no check for this kind of leak")


def _method(what: str) -> str:
    return what.rpartition(".")[2].rstrip("()") or what


def _calls(calls: list[Call], spots: list[tuple[int, str]], names: frozenset[str] | None = None) -> list[Call]:
    found = []
    for line, what in dict.fromkeys(spots):  # a place named twice is one place
        here = at_line(calls, line, _method(what))
        found += [c for c in here if names is None or c.name in names or c.is_metric]
    return found


def _scores(roles: dict[str, list[tuple[int, str]]], calls: list[Call]) -> list[Call]:
    return [c for c in _calls(calls, roles.get("score", [])) if c.name in SCORES or c.is_metric]


def _preprocessing(
    roles: dict[str, list[tuple[int, str]]], calls: list[Call], lineage: Lineage, where: Where
) -> Answer:
    fits = [c for c in _calls(calls, roles.get("fit", [])) if c.inputs]
    scores = _scores(roles, calls)
    if not fits:
        return Answer(OPEN, "the run did not reach the fit (or it is not a call the run traces)")
    if not scores:
        return Answer(OPEN, "the run did not reach the score")
    fitted = set().union(*(lineage.canonical(f.inputs[0]) for f in fits))
    fit = fits[-1]
    complete = True
    for score in scores:
        rows, _ = scored_rows(calls, score)
        scored = lineage.canonical(rows)
        seen = scored & fitted
        if seen and len(seen) >= CONFIRM_SHARE * len(scored):
            return Answer(
                CONFIRMED,
                f"{_who(fit)} at {where(fit.line)} was fitted on {plural(len(fitted), 'row')}, "
                f"{len(seen):,} of them the rows scored at {where(score.line)}.",
            )
        complete = complete and lineage.traced(rows)
    if complete:
        return Answer(
            WITHDRAWN,
            f"{_who(fit)} at {where(fit.line)} was fitted on {plural(len(fitted), 'row')}, none of them a row scored "
            f"at {', '.join(where(s.line) for s in scores)}.",
        )
    return Answer(
        OPEN, "the run could not follow the scored rows back to the fit (they pass through code it does not trace)"
    )


def _overlap(roles: dict[str, list[tuple[int, str]]], calls: list[Call], lineage: Lineage, where: Where) -> Answer:
    scores = _scores(roles, calls)
    if not scores:
        return Answer(OPEN, "the run did not reach the score")
    complete = True
    for score in scores:
        rows, by = scored_rows(calls, score)
        train = last_fit(calls, by.owner if by is not None else score.owner, score.index)
        if train is None or not train.inputs:
            complete = False
            continue
        trained = lineage.canonical(train.inputs[0])
        scored = lineage.canonical(rows)
        synthetic = lineage.pool_of(scored) & lineage.pool_of(trained)
        if synthetic:
            made = calls[min(synthetic)]
            count = len({h for h in scored if h in lineage.pools})
            return Answer(
                CONFIRMED,
                f"{plural(count, 'row')} of the {len(scored):,} scored at {where(score.line)} are synthetic rows made "
                f"by {_who(made)} at {where(made.line)}, the pool the model trained at {where(train.line)} drew from.",
            )
        both = scored & trained
        if len(both) >= 2:  # the reading found how test rows get into the training; the run counts them
            return Answer(
                CONFIRMED,
                f"the model trained at {where(train.line)} on {plural(len(trained), 'row')} was scored at "
                f"{where(score.line)} on {len(scored):,}, {len(both):,} of them rows it was trained on.",
            )
        complete = complete and lineage.traced(rows) and lineage.traced(train.inputs[0])
    pools = roles.get("pool", [])
    if pools and not _calls(calls, pools, frozenset({"fit_resample"})):
        # Copies made by code the run does not follow (augmented images put back with the originals): near
        # copies the run cannot match row by row, so finding none proves nothing.
        return Answer(OPEN, f"the copies are made by {pools[0][1]}, which the run cannot follow row by row")
    if complete:
        return Answer(WITHDRAWN, "no row the model was scored on was among the rows it was trained on")
    return Answer(OPEN, "the run could not follow the rows between the training and the score")


def _multi_test(roles: dict[str, list[tuple[int, str]]], calls: list[Call], lineage: Lineage, where: Where) -> Answer:
    scores = _scores(roles, calls)
    groups: dict[frozenset[int], list[Call]] = {}
    for score in scores:
        rows, by = scored_rows(calls, score)
        scored = frozenset(lineage.canonical(rows))
        if scored:
            groups.setdefault(scored, []).append(by or score)
    for scored, group in groups.items():
        if len(group) >= 2:
            return Answer(
                CONFIRMED,
                f"the same {plural(len(scored), 'row')} were scored {len(group)} times at "
                f"{', '.join(sorted({where(c.line) for c in group}))}.",
            )
    return Answer(OPEN, "the run scored the test rows once, or scores it does not trace")


def _label(roles: dict[str, list[tuple[int, str]]], calls: list[Call], where: Where, derived: bool = False) -> Answer:
    fits = [c for c in _calls(calls, roles.get("train", [])) if c.name in FITS and c.owner_predicts]
    if not fits:
        return Answer(OPEN, "the run did not reach the training")
    columns = sorted({name for f in fits for name in f.label_columns})
    if columns:
        return Answer(
            CONFIRMED,
            f"in the rows {_who(fits[0])} was fitted on at {where(fits[0].line)}, column(s) "
            f"{', '.join(repr(c) for c in columns)} hold the label again.",
        )
    if derived:  # a column computed from the label need not be the label again: the run cannot rule it out
        return Answer(
            OPEN, "no column is the label again; a column computed from it is not something the run can check"
        )
    return Answer(
        WITHDRAWN, f"no column of the rows {_who(fits[0])} was fitted on at {where(fits[0].line)} holds the label"
    )


def _temporal(roles: dict[str, list[tuple[int, str]]], calls: list[Call], where: Where) -> Answer:
    splits = [c for c in _calls(calls, roles.get("split", [])) if c.later_train_rows is not None]
    if not splits:
        return Answer(OPEN, "the run did not see times on the rows split (a DatetimeIndex or a date column)")
    split = splits[0]
    if split.later_train_rows:
        return Answer(
            CONFIRMED,
            f"the split at {where(split.line)} put {plural(split.later_train_rows, 'training row')} after the "
            f"earliest test row ({split.earliest_test}).",
        )
    return Answer(WITHDRAWN, f"every training row of the split at {where(split.line)} is earlier than every test row")


def unseen_leaks(
    calls: list[Call], lineage: Lineage, covered: set[tuple[str, int]], where: Where = lambda n: f"line {n}"
) -> list[dict[str, Any]]:
    """Leaks the trace shows at lines no question of that kind was about: the label among a model's columns,
    a model scored on rows it trained on, a learner fitted on scored rows that reached the score through it."""
    found: list[dict[str, Any]] = []
    for call in calls:
        if (
            call.name in FITS
            and call.owner_predicts
            and call.label_columns
            and ("label_in_features", call.line) not in covered
        ):
            covered.add(("label_in_features", call.line))
            found.append(
                {
                    "kind": "label_in_features",
                    "line": call.line,
                    "into": [],
                    "what": f"{_who(call)}",
                    "text": f"{_who(call)} at {where(call.line)} was fitted on rows whose column(s) "
                    f"{', '.join(repr(c) for c in call.label_columns)} hold the label again",
                }
            )
    for score in calls:
        if not (score.name in SCORES or score.is_metric):
            continue
        rows, by = scored_rows(calls, score)
        train = last_fit(calls, by.owner if by is not None else score.owner, score.index)
        if rows is None or train is None or not train.inputs:
            continue
        scored = lineage.canonical(rows)
        trained = lineage.canonical(train.inputs[0])
        both = scored & trained
        # Most of the scored rows trained on: equal rows that two samples happen to share (duplicates in the data,
        # empty rows of a sparse matrix) are not a model scored on its training rows.
        mostly = len(both) >= 2 and len(both) >= OVERLAP_SHARE * len(scored)
        # held out by a split the run saw (a sample of the training rows scored is a training score)
        held = rows is not None and sum(h in lineage.held_out for h in rows.hashes.tolist()) >= OVERLAP_SHARE * rows.n
        if (
            mostly
            and held
            and scored != trained
            and ("overlap", score.line) not in covered
            and ("overlap", train.line) not in covered
        ):
            covered.add(("overlap", train.line))
            found.append(
                {
                    "kind": "overlap",
                    "line": train.line,
                    "into": [score.line],
                    "what": _who(train),
                    "text": f"the model trained at {where(train.line)} on {plural(len(trained), 'row')} was scored at "
                    f"{where(score.line)} on {len(scored):,}, {len(both):,} of them rows it was trained on",
                }
            )
            continue
        if mostly or not lineage.traced(rows):  # a training score, or rows the run lost track of
            continue
        # on the way to the scored call and to the training
        passed = lineage.through(rows, (by or score).index) & lineage.through(train.inputs[0], train.index)
        for fit in calls[: score.index]:
            if fit.owner not in passed or fit.owner_predicts or fit.name not in FITS or not fit.inputs:
                continue
            if not learns(fit):  # a stateless transformer, or a class whose learning the run cannot know
                continue
            seen = lineage.canonical(fit.inputs[0]) & scored
            # most of the scored rows fitted on: a few texts an external corpus shares with the test set are not
            if len(seen) >= OVERLAP_SHARE * len(scored) and ("preprocessing", fit.line) not in covered:
                covered.add(("preprocessing", fit.line))
                found.append(
                    {
                        "kind": "preprocessing",
                        "line": fit.line,
                        "into": [score.line],
                        "what": _who(fit),
                        "text": f"{_who(fit)} at {where(fit.line)} was fitted on rows that include "
                        f"{plural(len(seen), 'row')} scored at {where(score.line)}, which reached the score through it",
                    }
                )
    return found


def _who(call: Call) -> str:
    return f"{call.owner_class}.{call.name}" if call.owner_class else call.name
