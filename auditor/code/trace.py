"""The child's job for `code.run`: run one script or notebook (the same program the reading read, so lines
agree) with a profile hook on the calls it makes into the ML libraries, fingerprint the rows each call sees,
and emit one record: whether the code ran to its end, the answer to each of the reading's questions, and the
leaks the trace shows that no question was about. The user's code never writes the verdict: it only runs."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from auditor.code.lineage import FITS, PREDICTS, Call

if TYPE_CHECKING:
    from auditor.code.sources import Program

# Libraries whose calls are traced: estimators, splitters, samplers, metrics, tokenizers.
_LIBRARIES = (
    "sklearn",
    "imblearn",
    "xgboost",
    "lightgbm",
    "catboost",
    "keras",
    "tensorflow",
    "tokenizers",
    "category_encoders",
    "gensim",
    "umap",
)
_NAMES = FITS | PREDICTS | {"transform", "score", "evaluate", "train_test_split", "split", "fit_resample"}
# The wrapped function of a decorator's inner function (sklearn wraps fit, fit_transform and its metrics).
_WRAPPED = ("func", "f", "fn", "fit_method", "wrapped", "method")
_REDUCTIONS = frozenset({"mean", "median", "std", "var", "min", "max", "quantile", "mode", "sum"})
MAX_CALLS = 5_000  # traced calls kept (a loop of a million predictions is summarised by its first calls)


@dataclass(frozen=True)
class TraceRequest:
    """What the parent asks: run ``path`` in ``workdir`` and answer ``questions`` (the reading's leaks)."""

    path: str
    workdir: str
    questions: tuple[dict[str, Any], ...] = ()
    statistic_lines: tuple[int, ...] = ()  # lines where the reading saw a pandas statistic (df.mean())
    # The program as the parent read it before the run: run as it is, so that the lines the run reports are those
    # of the code the parent places and binds them in, whatever the file holds later (None: read it here).
    program: Program | None = None


@dataclass
class _Tracer:
    program: str  # the file name the program was compiled under
    statistic_lines: frozenset[int]
    calls: list[Call] = field(default_factory=list)
    pending: dict[int, Call] = field(default_factory=dict)
    keep: list[Any] = field(default_factory=list)  # predictions kept alive, so their id() stays theirs
    positions: dict[Any, list[Any]] = field(default_factory=dict)
    # An object's identity for the whole run: id() is reused once an object is gone (a model built anew in
    # each fold of a loop), so each object seen gets a serial of its own, told apart by a weak reference.
    serials: dict[int, tuple[int, Any]] = field(default_factory=dict)
    made: int = 0
    busy: bool = False  # inside the hook's own work: calls it makes are not traced

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.busy or (event != "call" and event != "return"):
            return
        if event == "return":
            call = self.pending.pop(id(frame), None)
            if call is not None:
                self._returned(call, arg)
            return
        caller = frame.f_back
        if caller is None or caller.f_code.co_filename != self.program or len(self.calls) >= MAX_CALLS:
            return
        module = str(frame.f_globals.get("__name__", ""))
        name = frame.f_code.co_name
        if not module.startswith(_LIBRARIES) and not (
            module.startswith("pandas") and name in _REDUCTIONS and caller.f_lineno in self.statistic_lines
        ):
            return
        self.busy = True
        try:
            self._called(frame, caller, module, name)
        except Exception:  # the trace must never break the user's code: a call it cannot read is left out
            pass
        finally:
            self.busy = False

    def _called(self, frame: FrameType, caller: FrameType, module: str, name: str) -> None:
        from auditor.code.rows import fingerprint

        values = dict(frame.f_locals)
        if name not in _NAMES and not module.startswith("sklearn.metrics") and module.startswith(_LIBRARIES):
            wrapped = next((values[k] for k in _WRAPPED if callable(values.get(k))), None)
            name = str(getattr(wrapped, "__name__", name))
            module = str(getattr(wrapped, "__module__", module) or module)
            if name not in _NAMES and not module.startswith("sklearn.metrics"):
                return
        if name.startswith("_"):
            return
        args = _arguments(frame, values)
        owner = values.get("self")
        if owner is None and args and hasattr(args[0], "fit"):
            owner = args[0]
        if owner is not None and not hasattr(owner, "fit") and not module.startswith("pandas"):
            owner = None
        call = Call(
            index=len(self.calls),
            line=self._line(caller),
            name=name,
            module=module,
            owner=self._serial(owner) if owner is not None else None,
            owner_class=type(owner).__name__ if owner is not None else None,
            owner_module=type(owner).__module__ if owner is not None else None,
            owner_predicts=owner is not None and hasattr(owner, "predict"),
            is_metric=module.startswith("sklearn.metrics"),
        )
        arrays = [a for a in args if a is not owner]
        if module.startswith("pandas") and owner is not None:
            arrays = [owner]
        for value in arrays[:4]:
            rows = fingerprint(value)
            if rows is not None:
                call.inputs.append(rows)
            call.input_ids.append(id(value))
            base = getattr(value, "base", None)
            if base is not None:
                call.input_ids.append(id(base))
        if name in FITS and call.owner_predicts and len(arrays) >= 2:
            from auditor.code.rows import label_columns

            call.label_columns = label_columns(arrays[0], arrays[1])
        self.calls.append(call)
        self.pending[id(frame)] = call

    def _serial(self, obj: Any) -> int:
        import weakref

        known = self.serials.get(id(obj))
        if known is not None:
            serial, held = known
            if (held() if isinstance(held, weakref.ref) else held) is obj:
                return serial
        holder: Any
        try:
            holder = weakref.ref(obj)
        except TypeError:  # an object without weak references: kept alive, so its id() stays its own
            holder = obj
        self.made += 1
        self.serials[id(obj)] = (self.made, holder)
        return self.made

    def _returned(self, call: Call, result: Any) -> None:
        from auditor.code.rows import fingerprint

        self.busy = True
        try:
            # train_test_split returns a list of arrays, fit_resample a tuple: each is one part
            parts = list(result) if isinstance(result, tuple | list) and _arrays(result) else [result]
            for part in parts[:8]:
                rows = fingerprint(part)
                if rows is not None:
                    call.outputs.append(rows)
            if call.name in PREDICTS:
                call.output_id = id(result)
                self.keep.append(result)
            if call.name == "train_test_split" and call.inputs:
                _times(call, parts)
        except Exception:
            pass
        finally:
            self.busy = False

    def _line(self, frame: FrameType) -> int:
        """The line where the call expression starts (a call spread over lines is known by its first)."""
        code = frame.f_code
        positions = self.positions.get(code)
        if positions is None:
            positions = self.positions[code] = list(code.co_positions())
        index = frame.f_lasti // 2
        if 0 <= index < len(positions) and positions[index][0] is not None:
            return int(positions[index][0])
        return frame.f_lineno


def _arrays(values: tuple[Any, ...] | list[Any]) -> bool:
    """A short tuple or list of arrays or tables (a split's parts), not a list of rows or of texts."""
    return 0 < len(values) <= 16 and all(hasattr(v, "shape") and hasattr(v, "__len__") for v in values)


def _arguments(frame: FrameType, values: dict[str, Any]) -> list[Any]:
    """A call's arguments in order, those a decorator's *args and **kwargs carry included."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:count])
    found = [values[n] for n in names if n in values and n != "self"]
    flags = code.co_flags
    position = count
    if flags & 0x04:  # *args
        extra = values.get(code.co_varnames[position])
        if isinstance(extra, tuple):
            found += list(extra)
        position += 1
    if flags & 0x08:  # **kwargs
        extra = values.get(code.co_varnames[position])
        if isinstance(extra, dict):
            found += list(extra.values())
    return found


def _times(call: Call, parts: list[Any]) -> None:
    """For a split: how many training rows are later than the earliest test row (when the rows are dated)."""
    import numpy as np

    from auditor.code.rows import fingerprint

    first = fingerprint(parts[0]) if parts else None
    second = fingerprint(parts[1]) if len(parts) > 1 else None
    if first is None or second is None or first.times is None or second.times is None or not len(second.times):
        return
    earliest = np.min(second.times)
    call.later_train_rows = int(np.sum(first.times > earliest))
    call.earliest_test = str(earliest)[:19]


def trace_program(request: TraceRequest, emit: Callable[[str], None]) -> None:
    """The job: run the program under the tracer, then answer the questions from what was traced."""
    from auditor.code.answers import answer, unseen_leaks
    from auditor.code.lineage import Lineage
    from auditor.code.sources import read_program

    path = Path(request.path)
    program = request.program if request.program is not None else read_program(path)
    os.environ.setdefault("MPLBACKEND", "Agg")  # plots are drawn nowhere
    os.chdir(request.workdir)
    sys.argv = [str(path)]
    tracer = _Tracer(str(path), frozenset(request.statistic_lines))
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__, "display": _display}
    if not program.is_notebook:  # a script, `.py` or run by its `#!` line
        namespace["__file__"] = str(path)
    code = compile(program.tree, str(path), "exec")
    finished, failure = True, None
    sys.setprofile(tracer.hook)
    threading.setprofile(tracer.hook)
    try:
        exec(code, namespace)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            finished, failure = False, f"the code called sys.exit({exc.code!r})"
    except BaseException as exc:
        finished = False
        failure = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        with contextlib.suppress(BaseException):
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
            if frames:
                failure += f" (line {frames[-1].lineno})"
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    lineage = Lineage(tracer.calls)
    answers = {}
    covered: set[tuple[str, int]] = set()

    def where(line: int) -> str:
        place = program.place(line)
        return f"cell {place.cell}, line {place.cell_line}" if place.cell is not None else f"line {line}"

    for question in request.questions:
        found = answer(question, tracer.calls, lineage, where)
        answers[str(question["id"])] = {"status": found.status, "text": found.text}
        for _, line, _ in question["roles"]:
            covered.add((question["kind"], int(line)))
    extra = unseen_leaks(tracer.calls, lineage, covered, where)
    emit(
        json.dumps(
            {"finished": finished, "failure": failure, "calls": len(tracer.calls), "answers": answers, "found": extra}
        )
    )


def _display(*values: Any, **_: Any) -> None:
    """Jupyter's display(), which a notebook calls as a builtin: here it shows nothing."""
