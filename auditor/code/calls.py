"""Calls in the walk: the libraries' classes and functions (readers, splitters, learners, models, metrics,
searches, cross-validation), methods of the objects they build, builtins, and calls of unknown code, which
pass their arguments' rows on and record nothing."""

from __future__ import annotations

import ast
from dataclasses import replace

from auditor.code import catalog
from auditor.code.catalog import Kind, Role, Strength
from auditor.code.events import Obj
from auditor.code.state import CONTAINER, SPLITS, WalkState
from auditor.code.values import NOTHING, Columns, Data, Part, Value, data_of, join_all

# Keyword names a fit, a split or a metric takes its inputs by.
_X_NAMES = ("X", "x", "raw_documents", "texts", "sentences", "corpus", "data", "documents", "iterator", "train_set")
_Y_NAMES = ("y", "labels", "target", "Y")
_TRUTH_NAMES = ("y_true", "labels_true", "y_test", "target")
_PREDICTED_NAMES = ("y_pred", "y_score", "y_prob", "probas_pred", "labels_pred", "y_proba")
_TRANSFORMS = frozenset(
    [
        "transform",
        "inverse_transform",
        "texts_to_sequences",
        "texts_to_matrix",
        "sequences_to_matrix",
        "encode",
        "encode_batch",
        "batch_encode_plus",
        "doc2bow",
        "infer_vector",
    ]
)
_PREDICTS = frozenset(
    [
        "predict",
        "predict_proba",
        "predict_log_proba",
        "decision_function",
        "staged_predict",
        "staged_predict_proba",
        "predict_on_batch",
    ]
)
_FITS = frozenset({"fit", "partial_fit", "fit_on_texts", "adapt", "train_from_iterator", "build_vocab"})
_SCORES = frozenset({"score", "evaluate"})
# Builtins and methods that choose among scores: the best, an order, an index of the best.
_CHOOSERS = frozenset({"max", "min", "sorted"})
_CHOOSING_FUNCTIONS = frozenset(
    ["argmax", "argmin", "nanargmax", "nanargmin", "max", "min", "amax", "amin", "nanmax", "nanmin", "sort", "argsort"]
)
CHOOSING_METHODS = frozenset(
    [
        "idxmax",
        "idxmin",
        "sort_values",
        "nlargest",
        "nsmallest",
        "max",
        "min",
        "argmax",
        "argmin",
        "sort",
        "argsort",
        "most_common",
    ]
)
_PASS_THROUGH_BUILTINS = frozenset(
    ["sum", "abs", "round", "float", "int", "list", "tuple", "set", "sorted", "reversed", "iter", "next"]
)


class Calls(WalkState):
    """How calls change values and what they record."""

    # Dispatch ---------------------------------------------------------------------------------------------

    def call(self, node: ast.Call) -> Value:
        func = node.func
        receiver = self.ev(func.value) if isinstance(func, ast.Attribute) else None
        callee = None if isinstance(func, ast.Attribute) else self.ev(func)
        args = [self.ev(a) for a in node.args]
        kwargs: dict[str, Value] = {}
        for kw in node.keywords:
            value = self.ev(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = value
            else:  # **settings: a dict the walk knows the keys of gives them as keywords
                for oid in sorted(value.objects):
                    entries = self.record.objects[oid].entries
                    kwargs.update({k: v for k, v in entries.items() if isinstance(k, str) and k not in kwargs})
        if receiver is not None:
            assert isinstance(func, ast.Attribute)
            return self.call_method(receiver, func.attr, args, kwargs, node)
        assert callee is not None
        return self.call_value(callee, args, kwargs, node)

    def call_value(self, callee: Value, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        out = NOTHING
        known = False
        for qualname in sorted(callee.names):
            out = out.join(self.call_name(qualname, args, kwargs, node))
            known = True
        for fid in sorted(callee.functions):
            out = out.join(self.call_function(fid, args, dict(kwargs), node))
            known = True
        for oid in sorted(callee.objects):
            found = self.record.objects[oid]
            if found.role is not None and found.role.kind is Kind.LEARNER:  # a Keras layer or tokenizer called
                out = out.join(self._transform(found, args, kwargs))
                known = True
        if callee.method is not None:
            receiver, name = callee.method
            out = out.join(self.call_method(receiver, name, args, kwargs, node))
            known = True
        return out if known else self.unknown_call(args, kwargs, node)

    def call_method(
        self, receiver: Value, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        out = NOTHING
        known = False
        for qualname in sorted(receiver.names):
            out = out.join(self.call_name(f"{qualname}.{name}", args, kwargs, node))
            known = True
        for oid in sorted(receiver.objects):
            result = self.object_method(self.record.objects[oid], name, args, kwargs, node)
            if result is not None:
                out = out.join(result)
                known = True
        if receiver.data is not None:
            out = out.join(self.data_method(receiver, name, args, kwargs, node))
            known = True
        if receiver.names_of is not None:
            out = out.join(self._names_method(receiver, name, args, node))
            known = True
        if receiver.scores:
            if name in CHOOSING_METHODS:
                self.choose(node, f".{name}()", receiver.scores)
            out = out.join(Value(scores=receiver.scores))
            known = True
        if receiver.stats:
            out = out.join(Value(stats=receiver.stats))
            known = True
        return out if known else self.unknown_call([receiver, *args], kwargs, node)

    def _names_method(self, receiver: Value, name: str, args: list[Value], node: ast.Call) -> Value:
        """Methods of a list of column names: drop/difference leave names out, remove does so in place."""
        names = receiver.names_of
        assert names is not None
        left_out = args[0].strings() if args else None
        if name in ("drop", "difference", "remove") and left_out is not None:
            fewer = Value(names_of=names.without(left_out))
            if name == "remove" and isinstance(node.func, ast.Attribute):
                self.mutate(node.func.value, fewer)
                return NOTHING
            return fewer
        if name in ("tolist", "to_list", "copy", "to_numpy", "values"):
            return Value(names_of=names)
        return Value(names_of=Columns(opaque=True))

    def unknown_call(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """Code the walk does not know: its result holds its arguments' rows (values computed row by row from
        them), the statistics and scores they carry, and may be an object of unknown class."""
        given = [*args, *kwargs.values()]
        data = self.rows_of(given)
        stats = _stats(given)
        scores = self.scores_in(given)
        if data is not None:
            data = replace(self.with_fits(data, stats), mask=None, against_truth=False, predicted=frozenset())
        elif not scores:  # rows from somewhere the walk cannot see (a loader of the user's): a source of its own
            data = self.source(node, f"{self.text(node.func)}()")
        opaque = self.obj(node, f"<result of {self.text(node.func)}>")
        return Value(
            data=data, objects=frozenset({opaque.id}), scores=scores, stats=stats if data is None else frozenset()
        )

    def rows_of(self, values: list[Value]) -> Data | None:
        """The rows among ``values``, also those inside lists and tuples of them (np.stack([...]))."""
        found = data_of(values)
        inner = data_of([self.iterate(v) for v in values if v.data is None and (v.items is not None or v.objects)])
        if found is None:
            return inner
        return found if inner is None else found.join(inner)

    # Library names ----------------------------------------------------------------------------------------

    def call_name(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        package = qualname.partition(".")[0]
        last = qualname.rpartition(".")[2]
        pair = (package, last)
        role = catalog.class_role(qualname)
        if role is not None:
            return self.construct(qualname, role, args, kwargs, node)
        if qualname.startswith("<local>."):
            return Value(objects=frozenset({self.obj(node, qualname).id}))
        if catalog.is_data_wrapper(qualname):
            x = _arg(args, kwargs, 0, "data", "X")
            return Value(data=x.data) if x.data is not None else NOTHING
        if pair in catalog.FITTING_CONSTRUCTORS:
            return self._fitting_constructor(qualname, args, kwargs, node)
        if package == "pandas" and last in ("Series", "DataFrame") and self.scores_in([*args, *kwargs.values()]):
            return Value(scores=self.scores_in([*args, *kwargs.values()]))  # a table of scores, to rank them
        if catalog.is_reader(qualname):
            return self.read(qualname, args, kwargs, node)
        if package in ("sklearn", "imblearn"):
            if last in catalog.SPLIT_FUNCTIONS:
                return self.train_test_split(args, kwargs, node)
            if last in catalog.CV_FUNCTIONS:
                return self.cross_validate(last, args, kwargs, node)
            if last in catalog.PIPELINE_FUNCTIONS:
                found = self.obj(node, qualname, Role(Kind.PIPELINE))
                found.steps = sorted(self._estimators(args))
                return Value(objects=frozenset({found.id}))
        if catalog.is_metric(qualname):
            return self.metric(last, args, kwargs, node)
        if pair in catalog.FIT_FUNCTIONS:
            learns, strength = catalog.FIT_FUNCTIONS[pair]
            x = _arg(args, kwargs, 0, *_X_NAMES)
            if x.data is None:
                return NOTHING
            fid = self.fit(node, f"{last}()", learns, strength, x.data)
            return Value(data=replace(x.data, fits=x.data.fits | {fid}))
        if pair in catalog.TRAIN_FUNCTIONS:
            return self._train_function(qualname, args, kwargs, node)
        if pair in catalog.BOOSTING_CV_FUNCTIONS:
            data = _arg(args, kwargs, 1, "dtrain", "train_set", "pool")
            eid = self.evaluation(node, f"{package}.cv", frozenset(), data.data, None, cross_validation=True)
            return Value(scores=frozenset({eid}))
        if pair in catalog.EARLY_STOPPING_FUNCTIONS:
            return Value(objects=frozenset({self.obj(node, qualname, Role(Kind.CALLBACK)).id}))
        if pair in catalog.ROW_CONCAT_FUNCTIONS:
            return self.concat(qualname, args, kwargs, node)
        if pair in catalog.COLUMN_CONCAT_FUNCTIONS:
            return self._columns_joined(args)
        if pair in catalog.RESAMPLE_FUNCTIONS:
            return self._resample(args, kwargs, node)
        if package == "builtins":
            return self.builtin(last, args, kwargs, node)
        if package == "numpy":
            return self.numpy(last, args, kwargs, node)
        if package == "pandas" and last == "to_datetime":
            x = _arg(args, kwargs, 0, "arg")
            if x.data is not None:
                return Value(data=replace(x.data, dates=x.data.dates | x.data.sources))
        return self.unknown_call(args, kwargs, node)

    def construct(
        self, qualname: str, role: Role, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        found = self.obj(node, qualname, role)
        found.node = node
        found.params.update(kwargs)
        if role.kind is Kind.PIPELINE:
            found.steps = sorted(self._estimators([*args, *kwargs.values()]))
        elif role.kind is Kind.SEARCH:
            found.steps = sorted(self._estimators([_arg(args, kwargs, 0, "estimator")]))
        return Value(objects=frozenset({found.id}))

    def _estimators(self, values: list[Value], depth: int = 0) -> set[int]:
        """The estimator objects among ``values``, looking into lists and (name, estimator) tuples."""
        found: set[int] = set()
        for value in values:
            for oid in value.objects:
                obj = self.record.objects[oid]
                if obj.qualname == CONTAINER and depth < 3:
                    found |= self._estimators([obj.elements, *obj.entries.values()], depth + 1)
                elif obj.role is not None:
                    found.add(oid)
            if value.items is not None and depth < 3:
                found |= self._estimators(list(value.items), depth + 1)
        return found

    def _fitting_constructor(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        found = self.obj(node, qualname, Role(Kind.LEARNER, "a vocabulary and embeddings", fit_method="build_vocab"))
        texts = self.rows_of([_arg(args, kwargs, 0, "sentences", "documents", "corpus", "corpus_iterable", "samples")])
        if texts is not None:
            fid = self.fit(node, f"{found.name}(...)", "the vocabulary and its counts", Strength.STATISTICS, texts)
            found.fits = frozenset({fid})
        return Value(objects=frozenset({found.id}))

    def read(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A new source of rows; a loader's result (a Bunch or X, y) holds them too."""
        last = qualname.rpartition(".")[2]
        first = _arg(args, kwargs, 0, "data")
        if last == "DataFrame" and first.data is not None:  # a table made of rows already followed
            names = _arg(args, kwargs, 1, "columns").strings()
            columns = first.data.columns or Columns()
            if names:
                columns = columns.only(names)
            return Value(data=replace(first.data, columns=columns))
        where = self.text(node.args[0]) if node.args else ""
        if last == "DataFrame":  # a table built here: its columns are the ones it is given
            return Value(data=self._new_table(node, first, args, kwargs, where))
        data = replace(self.source(node, f"{last}({where})", read=True), columns=Columns())
        dates = self._dates_read(kwargs)
        if dates:
            data = replace(data, dates=frozenset(dates))
        index = kwargs.get("index_col")
        if index is not None and (index.strings() or []) and _index_dated(index, kwargs):
            data = replace(data, time_index=frozenset({node.lineno}), dates=data.dates | set(index.strings() or []))
        if qualname.startswith("sklearn") and ".datasets" in qualname:
            return self._loaded(node, qualname, data, kwargs)
        return Value(data=data)

    def _new_table(self, node: ast.Call, first: Value, args: list[Value], kwargs: dict[str, Value], where: str) -> Data:
        """pd.DataFrame({...}), pd.DataFrame(index=df.index), pd.DataFrame(columns=[...]): the columns it names
        (none yet for an empty one), and the rows of the index it is given."""
        keys = [k for oid in first.objects for k in self.record.objects[oid].entries if isinstance(k, str)]
        named = _arg(args, kwargs, 1, "columns").strings()
        index = kwargs.get("index")
        if index is not None and index.data is not None:
            rows = replace(index.data, columns=None, sources=frozenset(), picked=False)
        else:
            rows = self.source(node, f"DataFrame({where})", read=True)
        # made of something the walk cannot read: its columns are not known
        columns = Columns(frozenset(keys or named or ())) if first is NOTHING or keys or named else Columns()
        return replace(rows, columns=columns)

    @staticmethod
    def _dates_read(kwargs: dict[str, Value]) -> list[str]:
        given = kwargs.get("parse_dates")
        return (given.strings() or []) if given is not None else []

    def _loaded(self, node: ast.Call, qualname: str, data: Data, kwargs: dict[str, Value]) -> Value:
        """A data set loader: (X, y) for make_* and return_X_y, a Bunch with .data, .target, .frame otherwise."""
        x = replace(data, columns=None)
        y = replace(data, columns=None, sources=frozenset({"target"}))
        last = qualname.rpartition(".")[2]
        if last.startswith("make_") or (kwargs.get("return_X_y") and kwargs["return_X_y"].const is True):
            return Value(items=(Value(data=x), Value(data=y)))
        bunch = self.obj(node, qualname)
        bunch.entries.update({"data": Value(data=x), "target": Value(data=y), "frame": Value(data=data)})
        return Value(objects=frozenset({bunch.id}))

    # Splits, cross-validation, metrics --------------------------------------------------------------------

    def train_test_split(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        shuffle = kwargs.get("shuffle")
        shuffled = not (shuffle is not None and shuffle.const is False)
        arrays = [a.data or self.source(node, f"array {i} split by train_test_split") for i, a in enumerate(args)]
        sid = self.split(node, "train_test_split", shuffled, _join_data(arrays))
        train, test = Part(sid, "train"), Part(sid, "test")
        items: list[Value] = []
        for array in arrays:
            items += [Value(data=array.with_parts(train)), Value(data=array.with_parts(test))]
        return Value(items=tuple(items))

    def cross_validate(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        estimator = _arg(args, kwargs, 0, "estimator")
        x = _arg(args, kwargs, 1, "X").data
        y = _arg(args, kwargs, 2, "y").data
        models = frozenset(self._estimators([estimator]))
        splitter = self._splitter(kwargs.get("cv"), node, x)
        learns, resamples = self._inside(models)
        eid = self.evaluation(
            node,
            name,
            models,
            x,
            y,
            cross_validation=True,
            estimator_learns=learns,
            estimator_resamples=resamples,
            splitter=splitter,
        )
        if name == "cross_val_predict" and x is not None:  # out-of-fold predictions, to score later
            return Value(data=replace(x, predicted=models, cross_validated=True))
        return Value(scores=frozenset({eid}))

    def _splitter(self, cv: Value | None, node: ast.AST, x: Data | None) -> int | None:
        """The splitter object a cross-validation uses (its split recorded on ``x``), None for an int or default."""
        if cv is None:
            return None
        for oid in sorted(cv.objects):
            found = self.record.objects[oid]
            if found.role is not None and found.role.kind is Kind.SPLITTER:
                made_at = found.node if found.node is not None else node
                found.split = self.split(made_at, found.name, _shuffles(found), x, found.role.temporal)
                return oid
        return None

    def _inside(self, models: frozenset[int]) -> tuple[bool, bool]:
        """Whether the estimators fit a learner, and over-sample, inside each fold (in a pipeline)."""
        learns = resamples = False
        stack = list(models)
        seen: set[int] = set()
        while stack:
            oid = stack.pop()
            if oid in seen:
                continue
            seen.add(oid)
            found = self.record.objects[oid]
            if found.role is not None:
                learns |= found.role.kind is Kind.LEARNER
                resamples |= found.role.kind is Kind.SAMPLER and found.role.oversamples
            stack.extend(found.steps)
        return learns, resamples

    def metric(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = [*args, *(kwargs[k] for k in (*_TRUTH_NAMES, *_PREDICTED_NAMES) if k in kwargs)]
        predicted = [v.data for v in given if v.data is not None and v.data.predicted]
        truth = [v.data for v in given if v.data is not None and not v.data.predicted]
        if predicted:
            x = _join_data(predicted)
            models = frozenset().union(*(d.predicted for d in predicted))
            cv = any(d.cross_validated for d in predicted)
            eid = self.evaluation(node, name, models, x, _join_data(truth), cross_validation=cv)
            return Value(scores=frozenset({eid}))
        if len(truth) >= 2:  # labels against predictions of unknown origin: rows scored, by no model known
            eid = self.evaluation(node, name, frozenset(), truth[-1], truth[0])
            return Value(scores=frozenset({eid}))
        return Value(scores=self.scores_in(given))

    # Objects ----------------------------------------------------------------------------------------------

    def object_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value | None:
        if found.qualname == CONTAINER:
            return self._container_method(found, name, args, kwargs, node)
        role = found.role
        kind = role.kind if role is not None else None
        if kind is Kind.SPLITTER and name == "split":
            x = _arg(args, kwargs, 0, "X").data
            made_at = found.node if found.node is not None else node  # KFold(shuffle=True) is where it is decided
            found.split = self.split(made_at, found.name, _shuffles(found), x, bool(role and role.temporal))
            generator = self.obj(node, SPLITS)
            generator.split = found.split
            return Value(objects=frozenset({generator.id}))
        if name in _FITS or (role is not None and name == role.fit_method):
            return self._fit(found, name, args, kwargs, node, transform=False)
        if name == "fit_transform":
            return self._fit(found, name, args, kwargs, node, transform=True)
        if name in ("fit_resample", "fit_sample"):
            return self._resampled(found, args, kwargs, node)
        if name in _TRANSFORMS:
            return self._transform(found, args, kwargs)
        if name in _PREDICTS:
            return self._predict(found, args, kwargs)
        if name == "fit_predict":
            self._fit(found, name, args, kwargs, node, transform=False)
            return self._predict(found, args, kwargs)
        if name in _SCORES:
            x = _arg(args, kwargs, 0, "X", "x").data
            y = _arg(args, kwargs, 1, "y").data
            if x is None and y is None:
                return None
            eid = self.evaluation(node, f"{found.name}.{name}", frozenset({found.id}), x, y)
            return Value(scores=frozenset({eid}))
        if name in ("set_params", "compile", "set_output", "get_booster", "copy"):
            return Value(objects=frozenset({found.id}))
        if found.fits:  # get_feature_names_out(), most_common(), get_vocab(): what the learner learned
            return Value(stats=found.fits)
        return None

    def object_attribute(self, found: Obj, attr: str) -> Value:
        if attr in found.entries:
            return found.entries[attr]
        if attr == "best_estimator_" or attr == "estimator_":
            return Value(objects=frozenset({found.id}))
        if attr in ("best_score_", "cv_results_") and found.evaluation is not None:
            return Value(scores=frozenset({found.evaluation}))
        if attr in ("named_steps", "steps", "estimators_"):
            return Value(objects=frozenset(found.steps))
        if attr.endswith("_") and not attr.startswith("_") and found.fits:  # learned statistics (mean_, scale_)
            return Value(stats=found.fits)
        return NOTHING

    def _container_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if name in ("append", "add", "insert", "extend", "update", "setdefault", "appendleft"):
            value = args[-1] if args else join_all(kwargs.values())
            if name in ("extend", "update"):
                value = self.iterate(value) if name == "extend" else value
                if name == "update":
                    for oid in value.objects:
                        other = self.record.objects[oid]
                        if other.qualname == CONTAINER:
                            value = value.join(other.elements)
            found.elements = found.elements.join(value)
            return NOTHING
        if name in ("items",):
            pair = Value(items=(found.keys, found.elements))
            out = self.container(node, pair)
            return Value(objects=frozenset({out.id}))
        if name in ("values", "copy", "get", "pop", "popitem", "keys"):
            if name == "keys":
                return found.keys
            if name == "copy":
                return Value(objects=frozenset({found.id}))
            return found.elements
        return NOTHING

    def _fit(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call, transform: bool
    ) -> Value:
        x = _arg(args, kwargs, 0, *_X_NAMES).data
        y = _arg(args, kwargs, 1, *_Y_NAMES).data
        kind = found.role.kind if found.role is not None else None
        pipeline_trains = kind is Kind.PIPELINE and self._trains(found)
        what = f"{found.name}.{name}"
        if (
            kind is Kind.LEARNER
            or (kind is Kind.PIPELINE and not pipeline_trains)
            or (transform and kind is Kind.MODEL)
        ):
            learns, strength = self._learns(found, y is not None)
            fid = self.fit(node, what, learns, strength, x)
            found.fits = frozenset({fid})
            if transform:
                return Value(data=replace(x, fits=x.fits | {fid})) if x is not None else NOTHING
            return Value(objects=frozenset({found.id}))
        if kind is Kind.STATELESS or kind is Kind.SAMPLER or kind is Kind.SPLITTER or kind is Kind.CALLBACK:
            return Value(data=x) if transform and x is not None else Value(objects=frozenset({found.id}))
        if transform:  # a class the walk does not know: its statistics are followed, never reported
            fid = self.fit(node, what, "what this class learns", Strength.STATISTICS, x, reported=False)
            found.fits = frozenset({fid})
            return Value(data=replace(x, fits=x.fits | {fid})) if x is not None else NOTHING
        train = self.train(node, what, found, x, y)
        train.search = kind is Kind.SEARCH
        self._watched(train, found, kwargs)
        found.trains = frozenset({train.id})
        if kind is Kind.SEARCH:
            inner_learns, resamples = self._inside(frozenset(found.steps))
            cv = found.params.get("cv")
            found.evaluation = self.evaluation(
                node,
                f"{found.name} cross-validation",
                frozenset(found.steps) or frozenset({found.id}),
                x,
                y,
                cross_validation=True,
                estimator_learns=inner_learns,
                estimator_resamples=resamples,
                splitter=self._splitter(cv, node, x),
            )
        return Value(objects=frozenset({found.id}))

    def _trains(self, found: Obj) -> bool:
        """Whether a pipeline ends in a model (its fit trains) rather than only transforming."""
        for oid in found.steps:
            step = self.record.objects[oid]
            kind = step.role.kind if step.role is not None else None
            if kind in (Kind.MODEL, Kind.SEARCH) or (kind is Kind.PIPELINE and self._trains(step)):
                return True
        return not found.steps and found.name not in (
            "ColumnTransformer",
            "FeatureUnion",
            "make_column_transformer",
            "make_union",
        )

    def _learns(self, found: Obj, supervised: bool) -> tuple[str, Strength]:
        role = found.role
        if role is not None and role.kind is Kind.LEARNER:
            return role.learns, role.strength
        if role is not None and role.kind is Kind.PIPELINE:
            parts = [self.record.objects[s] for s in found.steps]
            learners = [p for p in parts if p.role is not None and p.role.kind is Kind.LEARNER]
            if learners:
                strongest = max(learners, key=lambda p: list(Strength).index(p.role.strength))  # type: ignore[union-attr]
                names = ", ".join(p.name for p in learners)
                return f"{names}: {strongest.role.learns}", strongest.role.strength  # type: ignore[union-attr]
            return "its steps' statistics", Strength.STATISTICS
        return "a transformation fitted to the rows", Strength.TARGET if supervised else Strength.STATISTICS

    def _watched(self, train: object, found: Obj, kwargs: dict[str, Value]) -> None:
        """The data a training watches (eval_set, validation_data) and whether it chooses by it."""
        from auditor.code.events import Train

        assert isinstance(train, Train)
        watched: list[tuple[Data | None, Data | None]] = []
        for key in ("eval_set", "validation_data", "valid_sets", "evals"):
            given = kwargs.get(key)
            if given is None:
                continue
            pairs = list(given.items) if given.items is not None else [given]
            if given.items is not None and len(given.items) == 2 and key in ("validation_data", "eval_set"):
                first = given.items[0]
                if first.data is not None and first.items is None:  # one (X, y) pair, not a list of pairs
                    pairs = [given]
            for pair in pairs:
                elements = pair.items if pair.items is not None else (self.iterate(pair).items or (pair,))
                x = elements[0].data if elements else None
                y = elements[1].data if len(elements) > 1 else None
                watched.append((x, y))
        if not watched:
            return
        train.watched = watched
        stops = "early_stopping_rounds" in kwargs or "early_stopping_rounds" in found.params
        callbacks = kwargs.get("callbacks")
        if callbacks is not None:
            for oid in self._estimators([callbacks]) | set(callbacks.objects):
                role = self.record.objects[oid].role
                stops |= role is not None and role.kind is Kind.CALLBACK
        best = kwargs.get("use_best_model") or found.params.get("use_best_model")
        if found.qualname.startswith("catboost") and not (best is not None and best.const is False):
            stops = True  # CatBoost keeps the best iteration on eval_set unless told otherwise
        train.chooses_by_watched = stops

    def _transform(self, found: Obj, args: list[Value], kwargs: dict[str, Value]) -> Value:
        x = _arg(args, kwargs, 0, *_X_NAMES).data
        if x is None:
            return NOTHING
        return Value(data=replace(x, fits=x.fits | found.fits))

    def _predict(self, found: Obj, args: list[Value], kwargs: dict[str, Value]) -> Value:
        x = _arg(args, kwargs, 0, "X", "x", "data").data
        rows = x if x is not None else Data(frozenset())
        return Value(data=replace(rows, predicted=frozenset({found.id}), columns=None, mask=None))

    def _resampled(self, found: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        x = _arg(args, kwargs, 0, "X").data
        y = _arg(args, kwargs, 1, "y").data
        role = found.role
        if x is None or role is None or not (role.oversamples or role.kind is Kind.PIPELINE):
            return Value(items=(Value(data=x), Value(data=y)))
        rows = self.pool(node, x.rows | (y.rows if y is not None else frozenset()), f"{found.name}.fit_resample")
        new_x = replace(x, rows=rows)
        new_y = replace(y, rows=rows) if y is not None else None
        return Value(items=(Value(data=new_x), Value(data=new_y)))

    def _train_function(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """xgboost.train / lightgbm.train: a new booster trained on a Dataset, watching evals / valid_sets."""
        booster = self.obj(node, qualname.rpartition(".")[0] + ".Booster", Role(Kind.MODEL))
        data = _arg(args, kwargs, 1, "dtrain", "train_set", "pool").data
        train = self.train(node, qualname.rpartition(".")[2] + "()", booster, data, None)
        watched = kwargs.get("evals") or kwargs.get("valid_sets")
        if watched is not None:
            train.watched = [(self.iterate(watched).data or watched.data, None)]
            if watched.items is not None:
                train.watched = [((item.items[0].data if item.items else item.data), None) for item in watched.items]
            self._watched_stops(train, kwargs)
        booster.trains = frozenset({train.id})
        return Value(objects=frozenset({booster.id}))

    def _watched_stops(self, train: object, kwargs: dict[str, Value]) -> None:
        from auditor.code.events import Train

        assert isinstance(train, Train)
        stops = "early_stopping_rounds" in kwargs
        callbacks = kwargs.get("callbacks")
        if callbacks is not None:
            for oid in self._estimators([callbacks]) | set(callbacks.objects):
                role = self.record.objects[oid].role
                stops |= role is not None and role.kind is Kind.CALLBACK
        train.chooses_by_watched = stops

    # Rows put together ------------------------------------------------------------------------------------

    def concat(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = _arg(args, kwargs, 0, "objs", "arrays", "tup", "arr")
        parts = [v for v in (given.items or ()) if v.data is not None]
        if not parts:
            parts = [self.iterate(given)] if self.iterate(given).data is not None else []
        if qualname.endswith("append") and len(args) > 1:
            parts = [v for v in args[:2] if v.data is not None]
        axis = kwargs.get("axis")
        if axis is not None and axis.const in (1, "columns"):
            return self._columns_joined(parts)
        datas = [v.data for v in parts if v.data is not None]
        if not datas:
            return NOTHING
        keys = kwargs.get("keys")
        names = keys.strings() if keys is not None else None
        if names is not None and len(names) == len(datas):  # concat(..., keys=[...]): .loc[key] takes a part back
            kid = f"keys:{self.key_id('keys', node)[0]}"
            datas = [d.with_parts(Part(kid, name)) for d, name in zip(datas, names, strict=True)]
        joined = _join_data(datas)
        assert joined is not None
        if _both_sides(datas):
            joined = replace(joined, merged=joined.merged | {node.lineno})
        if _repeats(datas):  # some rows come in twice: the result is a pool of copies
            joined = replace(joined, rows=self.pool(node, joined.rows, f"{self.text(node.func)} of rows already in it"))
        return Value(data=replace(joined, mask=None))

    def _columns_joined(self, values: list[Value]) -> Value:
        datas = [self.iterate(v).data if v.items is not None or v.objects else v.data for v in values]
        present = [d for d in datas if d is not None]
        if not present:
            return NOTHING
        joined = _join_data(present)
        assert joined is not None
        return Value(data=replace(joined, columns=None if any(d.columns is None for d in present) else joined.columns))

    def _resample(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        replace_rows = kwargs.get("replace")
        copies = not (replace_rows is not None and replace_rows.const is False)
        out: list[Value] = []
        for value in args:
            if value.data is None:
                out.append(value)
                continue
            data = value.data
            if copies:
                data = replace(data, rows=self.pool(node, data.rows, "resample(replace=True)"))
            out.append(Value(data=data))
        if len(out) == 1:
            return out[0]
        return Value(items=tuple(out))

    # Builtins and numpy -----------------------------------------------------------------------------------

    def builtin(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = [*args, *kwargs.values()]
        if name in _CHOOSERS:
            scores = self.scores_in(given)
            if scores:
                self.choose(node, f"{name}()", scores)
            if name == "sorted" and args:
                return Value(objects=frozenset({self.container(node, self.iterate(args[0])).id}), scores=scores)
            chosen = self.iterate(args[0]) if len(args) == 1 else join_all(args)  # max(xs) is one of xs
            return chosen.join(Value(scores=scores))
        if name == "zip":
            elements = Value(items=tuple(self.iterate(a) for a in args))
            return Value(objects=frozenset({self.container(node, elements).id}))
        if name == "enumerate" and args:
            elements = Value(items=(NOTHING, self.iterate(args[0])))
            return Value(objects=frozenset({self.container(node, elements).id}))
        if name == "dict" and kwargs and not args:  # dict(n_estimators=..., early_stopping_rounds=...)
            found = self.container(node, join_all(kwargs.values()))
            found.entries.update(kwargs)
            return Value(objects=frozenset({found.id}))
        if name in ("list", "tuple", "set", "dict", "reversed", "iter", "sorted") and args:
            return Value(objects=frozenset({self.container(node, self.iterate(args[0])).id})).join(
                Value(data=args[0].data, scores=self.scores_in(args), names_of=args[0].names_of)
            )
        if name == "getattr" and len(args) >= 2 and isinstance(args[1].const, str):
            return self.attribute(args[0], str(args[1].const), node)
        if name in ("sum", "len") and args and args[0].data is not None and args[0].data.against_truth:
            eid = self.evaluation(node, f"{name}(predictions == labels)", args[0].data.predicted, args[0].data, None)
            return Value(scores=frozenset({eid}))
        if name == "len":  # a count of what was learned (len(vocab)) still says what was learned
            return Value(stats=_stats(given) | _stats([self.iterate(v) for v in given]))
        if name in _PASS_THROUGH_BUILTINS:
            return Value(data=data_of(given), scores=self.scores_in(given), stats=_stats(given))
        return NOTHING

    def numpy(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = [*args, *kwargs.values()]
        first = args[0] if args else NOTHING
        scores = self.scores_in(given)
        if name in _CHOOSING_FUNCTIONS and scores:
            self.choose(node, f"np.{name}()", scores)
            return Value(scores=scores)
        if first.data is not None and first.data.against_truth and name in ("mean", "sum", "average"):
            eid = self.evaluation(node, f"np.{name}(predictions == labels)", first.data.predicted, first.data, None)
            return Value(scores=frozenset({eid}))
        if name in catalog.ROW_REDUCTIONS_NUMPY and first.data is not None:
            axis = kwargs.get("axis") or (args[1] if len(args) > 1 else None)
            if axis is not None and axis.const in (1, -1):
                return Value(data=replace(first.data, columns=None))
            if first.data.predicted:
                return Value(scores=scores)
            fid = self.fit(
                node,
                f"np.{name}({self.text(node.args[0]) if node.args else ''})",
                f"the {name} of the rows",
                Strength.STATISTICS,
                first.data,
            )
            return Value(stats=frozenset({fid}))
        if scores and first.data is None:
            return Value(scores=scores)
        data = self.rows_of(given)
        if data is None:
            return Value(stats=_stats(given) | _stats([self.iterate(v) for v in given]))
        return Value(data=replace(self.with_fits(data, _stats(given)), mask=None))  # elementwise: np.abs(pred - y)

    def compare(self, node: ast.Compare, values: list[Value]) -> Value:
        scored = [v for v in values if v.scores or self.scores_in([v])]
        if len(scored) >= 2:
            self.choose(node, "a comparison of scores", self.scores_in(values))
        datas = [v.data for v in values if v.data is not None]
        if not datas:
            return NOTHING
        joined = _join_data(datas)
        assert joined is not None
        predicted = [d for d in datas if d.predicted]
        if predicted and len(datas) >= 2:
            return Value(data=replace(joined, against_truth=True, mask=None))
        if predicted:  # proba > 0.5: still the model's predictions
            return Value(data=replace(joined, mask=None))
        return Value(data=replace(joined, mask=self.text(node), predicted=frozenset(), fits=joined.fits))

    def scores_in(self, values: list[Value], depth: int = 0) -> frozenset[int]:
        """The evaluations whose scores are among ``values``, looking into lists, dicts and tuples."""
        found: set[int] = set()
        for value in values:
            found |= value.scores
            if depth >= 3:
                continue
            if value.items is not None:
                found |= self.scores_in(list(value.items), depth + 1)
            if value.method is not None:
                found |= self.scores_in([value.method[0]], depth + 1)
            for oid in value.objects:
                obj = self.record.objects[oid]
                if obj.qualname == CONTAINER:
                    found |= self.scores_in([obj.elements, obj.keys, *obj.entries.values()], depth + 1)
        return frozenset(found)

    def attribute(self, base: Value, attr: str, node: ast.AST) -> Value:
        out = Value(method=(base, attr))
        for qualname in base.names:
            out = out.join(Value(names=frozenset({f"{qualname}.{attr}"})))
        for oid in sorted(base.objects):
            out = out.join(self.object_attribute(self.record.objects[oid], attr))
        if base.data is not None and isinstance(node, ast.Attribute):
            out = out.join(self.data_attribute(base.data, attr, node))
        if base.scores:
            out = out.join(Value(scores=base.scores))
        return out


def _shuffles(found: Obj) -> bool:
    role = found.role
    if role is None:
        return False
    if role.always_shuffles:
        return True
    shuffle = found.params.get("shuffle")
    return shuffle is not None and shuffle.const is True


def _arg(args: list[Value], kwargs: dict[str, Value], index: int, *names: str) -> Value:
    """The argument at position ``index`` or under one of ``names``."""
    if index < len(args):
        return args[index]
    for name in names:
        if name in kwargs:
            return kwargs[name]
    return NOTHING


def _join_data(datas: list[Data]) -> Data | None:
    joined: Data | None = None
    for d in datas:
        joined = d if joined is None else joined.join(d)
    return joined


def _repeats(datas: list[Data]) -> bool:
    """Whether two of the tables put together may hold the same rows."""
    for i, a in enumerate(datas):
        for b in datas[i + 1 :]:
            if any(not x.disjoint(y) for x in a.rows for y in b.rows):
                return True
    return False


def _both_sides(datas: list[Data]) -> bool:
    """Whether the tables put together hold rows from different sides of one split (train and test again)."""
    sides: dict[str, set[str]] = {}
    for data in datas:
        for atom in data.rows:
            for part in atom.parts:
                sides.setdefault(part.split, set()).add(part.side)
    return any(len(found) > 1 for found in sides.values())


def _stats(values: list[Value]) -> frozenset[int]:
    return frozenset().union(*(v.stats for v in values)) if values else frozenset()


def _index_dated(index: Value, kwargs: dict[str, Value]) -> bool:
    """Whether read_csv's index_col is read as dates (parse_dates=True, or parse_dates names it)."""
    parse = kwargs.get("parse_dates")
    if parse is None:
        return False
    if parse.const is True:
        return True
    return bool(set(index.strings() or []) & set(parse.strings() or []))
