"""The libraries' functions in the walk: readers and loaders (new sources of rows), train_test_split and the
cross-validation functions, metrics (a score of the rows predictions were made on), concatenations and
resampling of rows, the boosting libraries' train(), and the builtins and numpy functions that pass rows,
statistics and scores on or choose among scores."""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Hashable
from dataclasses import replace

from auditor.code import catalog
from auditor.code.catalog import Kind, Role, Strength
from auditor.code.estimators import LIGHTNING_CALLBACK, RAY_TUNER, STUDY, STUDY_MAKERS, X_NAMES, Estimators
from auditor.code.events import Obj
from auditor.code.frames import dtype_choice
from auditor.code.paths import method_path, path_called
from auditor.code.replicates import pass_names
from auditor.code.state import (
    ARGUMENT_PARSER,
    BATCHES,
    CONTAINER,
    DATASET_DICT,
    HF_METRIC,
    LOCAL,
    MONAI_METRIC,
    NEIGHBOURS,
    NOT_SELF,
    OTHER_NEIGHBOURS,
    PARTIAL,
    SBERT_EVALUATOR,
    SCORE_TABLE,
    SPLITS,
)
from auditor.code.torchloops import TorchLoops, optimizer_class
from auditor.code.values import (
    EACH_ITEM,
    NOTHING,
    Atom,
    Columns,
    Data,
    Part,
    Value,
    argument,
    complement,
    counts_from,
    data_of,
    is_given,
    join_all,
    join_datas,
    named_column,
    stats_of,
    within_rows,
)

# Ray's calls a trainable reports its metrics by (the tuner picks the best trial by one of them)
_RAY_REPORTS = frozenset(
    [
        "ray.tune.report",
        "ray.train.report",
        "ray.air.session.report",
        "ray.train.session.report",
        "ray.tune.session.report",
    ]
)
_TRUTH_NAMES = ("y_true", "labels_true", "y_test", "target")
# numpy's functions of numbers only: a column given them holds numbers
_NUMBER_FUNCTIONS = frozenset(["log", "log1p", "log2", "log10", "exp", "expm1", "sqrt", "cbrt", "square", "reciprocal"])
_PREDICTED_NAMES = ("y_pred", "y_score", "y_prob", "probas_pred", "labels_pred", "y_proba")
# Builtins and methods that choose among scores: the best, an order, an index of the best.
_CHOOSERS = frozenset({"max", "min", "sorted"})
# numpy's functions that make one array of a list's rows, and what a neighbours search's rows are
_ARRAY_MAKERS = frozenset({"array", "asarray", "stack", "vstack"})
_NEIGHBOUR_KINDS = frozenset({NEIGHBOURS, OTHER_NEIGHBOURS, NOT_SELF})
_CHOOSING_FUNCTIONS = frozenset(
    ["argmax", "argmin", "nanargmax", "nanargmin", "max", "min", "amax", "amin", "nanmax", "nanmin", "sort", "argsort"]
)
# A reader's arguments that name what it reads (a file, a data set).
# The names a data set's parts are read by, each file one part (`f"data/{split}.csv"`): the training one, or a
# part held out from it.
_PART_NAMES = {
    "train": "train",
    "training": "train",
    "test": "test",
    "testing": "test",
    "valid": "valid",
    "validation": "valid",
    "val": "valid",
    "dev": "valid",
}
_NAMING_ARGUMENTS = frozenset(["filepath_or_buffer", "path", "io", "source", "file", "fname", "name", "data_id"])
_PASS_THROUGH_BUILTINS = frozenset(
    ["sum", "abs", "round", "float", "int", "list", "tuple", "set", "sorted", "reversed", "iter", "next"]
)


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# a column named in a formula's terms: a name that is neither a function called (C(...), np.log(...)) nor a module's
_FORMULA_TERM = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?![\w.]|\s*\()")

# A reader's arguments that keep a run of the file's rows (see _rows_read).
_RUN_ARGUMENTS = frozenset(["nrows", "skiprows"])
# A reader's arguments that leave every row of the file in what it reads (columns, types and parsing only).
_WHOLE_FILE_ARGUMENTS = frozenset(
    [
        "sep",
        "delimiter",
        "header",
        "names",
        "index_col",
        "usecols",
        "columns",
        "dtype",
        "parse_dates",
        "encoding",
        "low_memory",
        "engine",
        "na_values",
        "keep_default_na",
        "compression",
        "decimal",
        "thousands",
        "comment",
        "quotechar",
        "lines",
        "orient",
        "dtype_backend",
        "storage_options",
        "date_format",
        "infer_datetime_format",
        "true_values",
        "false_values",
        "converters",
        "skipinitialspace",
        "chunksize",  # every row still, a table of them at a time
        "iterator",
    ]
)


class Library(Estimators, TorchLoops):
    """Calls of the libraries' functions and classes by their qualified names."""

    def _called_on_class(self, qualname: str) -> tuple[int, str] | None:
        """The method `<local>.Prep.run` names, with its class: Prep is the file's class, run its method (or a base
        class's); None for anything else (the class itself is built, not called)."""
        cls, _, name = qualname.rpartition(".")
        if self.is_local_class(qualname) or not self.is_local_class(cls):
            return None
        fid = self.local_method(cls, name)
        return (fid, cls) if fid is not None else None

    def call_name(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        out = self._call_name(qualname, args, kwargs, node)
        if qualname.startswith("numpy.") and qualname.rpartition(".")[2] in _NUMBER_FUNCTIONS and out.data is not None:
            # np.log1p(df["price"]): the columns taken are numbers, and so is the result
            shown = frozenset().union(*(a.data.sources for a in args[:1] if a.data is not None and a.data.picked))
            out = replace(out, data=replace(out.data, number=True, numeric=out.data.numeric | shown))
        return out

    def _call_name(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        package = qualname.partition(".")[0]
        last = qualname.rpartition(".")[2]
        pair = (package, last)
        role = catalog.class_role(qualname)
        if role is not None:
            return self.construct(qualname, role, args, kwargs, node)
        if package == "datasets" and last == "DatasetDict":
            return self._dataset_dict_made(args, kwargs, node)
        if qualname == ARGUMENT_PARSER:
            return Value(objects=frozenset({self.obj(node, ARGUMENT_PARSER).id}))
        if package == "statsmodels" and last in catalog.FORMULA_MODELS:
            return self._formula_model(qualname, args, kwargs, node)
        if qualname == "sklearn.compose.make_column_selector" and not args and "pattern" not in kwargs:
            # make_column_selector(dtype_include=np.number): every numeric column, as select_dtypes keeps them
            chosen = dtype_choice([], {k.removeprefix("dtype_"): v for k, v in kwargs.items()})
            return Value(names_of=Columns(dtypes=chosen) if chosen is not None else Columns(opaque=True))
        path = path_called(qualname, args, kwargs)
        if path is not None:  # Path("data"), os.path.join(root, "a.csv"): a file's path, known as its text
            return Value(consts=frozenset({path}))
        if qualname == "numpy.save" and len(args) >= 2 and args[1].data is not None and node.args:
            self.written_to("load", node.args[0], args[1].data)  # np.save(path, X), np.load(path) later
        if qualname == "numpy.logical_and" and len(args) == 2 and not kwargs:
            masks = [a.data.mask for a in args if a.data is not None and a.data.mask is not None]
            joined = args[0].join(args[1])
            if len(masks) == 2 and joined.data is not None:  # as `a & b`: the rows where both hold
                return replace(joined, data=replace(joined.data, mask=f"({masks[0]}) & ({masks[1]})"))
        if qualname.startswith(LOCAL) and (method := self._called_on_class(qualname)) is not None:
            # Prep.run(df), a static method (or a class method, or a method given its object) called on the class
            fid, cls = method
            first = [Value(names=frozenset({cls}))] if _is_classmethod(self.function_node(fid)) else []
            return self.call_function(fid, [*first, *args], dict(kwargs), node)
        if qualname.startswith(LOCAL) and self._extends_hf_trainer(qualname):
            # class WeightedTrainer(Trainer) with its own compute_loss: trains and evaluates as a Trainer does
            return self.hf_trainer(args, kwargs, node)
        if qualname.startswith(LOCAL):  # the file's own class: its __init__ is walked with self bound
            found = self.obj(node, qualname)
            self.torch_subclass(found)
            made = Value(objects=frozenset({found.id}))
            init = self.local_method(qualname, "__init__")
            if init is not None:
                self.call_function(init, [made, *args], dict(kwargs), node)
                return made
            fields = self.record_fields(qualname)
            if fields:
                # a @dataclass or NamedTuple of the file: Split(X_tr, X_te, ...) holds each given in its field
                found.entries.update(dict(zip(fields, args, strict=False)))
                found.entries.update({k: v for k, v in kwargs.items() if k in fields})
                if len(args) == len(fields):  # a NamedTuple unpacked, `X_tr, X_te, *_ = split`
                    return Value(objects=made.objects, items=tuple(args))
            return made
        if qualname in STUDY_MAKERS:
            return Value(objects=frozenset({self.obj(node, STUDY).id}))
        graph = bool(args) and all(self.graph_sides(a) for a in args)
        if last in ("logical_or", "logical_not") and package in ("numpy", "torch") and graph:
            # np.logical_or(train_mask, val_mask), torch.logical_not(test_mask): the nodes of either, of neither
            either = Value(parts=frozenset().union(*(a.parts for a in args)))
            return either if last == "logical_or" else self.graph_complement(either)
        if qualname in _RAY_REPORTS:
            if self.reports:  # tune.report({"mae": ...}) in a trainable being walked: a trial's scores
                self.reports[-1] = self.reports[-1].join(Value(scores=self.scores_in([*args, *kwargs.values()])))
            return NOTHING
        if qualname in ("ray.tune.Tuner", "ray.tune.tuner.Tuner"):
            tuner = self.obj(node, RAY_TUNER)
            tuner.node = node
            return Value(objects=frozenset({tuner.id}))
        if qualname in ("ray.tune.run", "ray.tune.tune.run"):  # the older tune.run(trainable, config=...)
            study = self.obj(node, STUDY)
            self.optimize(study, args, node, "tune.run()")
            return NOTHING
        if qualname in ("hyperopt.fmin", "hyperopt.fmin.fmin"):
            # fmin(objective, space, algo=tpe.suggest, max_evals=50): a study of its own, the objective walked once
            # per trial and the settings it returns chosen by the scores the objective returns
            study = self.obj(node, STUDY)
            self.optimize(study, args, node, "fmin()")
            return Value(stats=frozenset({study.chosen})) if study.chosen is not None else NOTHING
        if package == "implicit" and last in _IMPLICIT_METRICS:
            # ndcg_at_k(model, train_user_items, test_user_items, K=20): the model's ranking of each user's held-out
            # items scored
            ranker = argument(args, kwargs, 0, "model")
            held = argument(args, kwargs, 2, "test_user_items").data
            eid = self.evaluation(node, last, frozenset(ranker.objects), held, None)
            return Value(scores=frozenset({eid}))
        if qualname.startswith("lightfm.evaluation.") and last in _LIGHTFM_METRICS:
            # precision_at_k(model, test_interactions, train_interactions=train, k=10): per user, the model's
            # ranking of the held-out interactions, the training ones left out
            ranker = argument(args, kwargs, 0, "model")
            held = argument(args, kwargs, 1, "test_interactions").data
            eid = self.evaluation(node, last, frozenset(ranker.objects), held, None)
            return Value(scores=frozenset({eid}))
        if package == "scipy" and last in _MINIMIZERS and (node.args or "func" in kwargs or "fun" in kwargs):
            return self._minimized(qualname, args, kwargs, node)
        if catalog.is_data_wrapper(qualname):
            x = argument(args, kwargs, 0, "data", "X")
            return Value(data=x.data) if x.data is not None else NOTHING
        if pair in catalog.FITTING_CONSTRUCTORS:
            return self._fitting_constructor(qualname, args, kwargs, node)
        if package == "pandas" and last in ("Series", "DataFrame") and self.scores_in([*args, *kwargs.values()]):
            columns = self._score_columns(argument(args, kwargs, 0, "data")) if last == "DataFrame" else None
            if columns:  # pd.DataFrame(rows) of {"model": ..., "val": ..., "test": ...}: each column's own scores
                table = self.obj(node, SCORE_TABLE)
                table.entries.update(columns)
                return Value(objects=frozenset({table.id}))
            return Value(scores=self.scores_in([*args, *kwargs.values()]))  # a table of scores, to rank them
        if package == "pandas" and last in ("Series", "DataFrame") and self._learned_only([*args, *kwargs.values()]):
            # pd.Series(rf.feature_importances_, index=X.columns): a table of what was learned, not rows
            return Value(stats=self.stats_in([*args, *kwargs.values()]))
        values = argument(args, kwargs, 0, "data")
        if package == "pandas" and last == "Series" and values.data is not None:
            # pd.Series(model.predict(X_te), index=y_te.index): the same values, predictions still predictions
            return Value(data=replace(values.data, mask=None))
        if catalog.is_polars_expression(qualname):
            return Value(names=frozenset({catalog.POLARS_EXPRESSION}))
        if package == "numpy" and last in _ARRAY_MAKERS and args:
            rows = self.iterate(args[0]).objects
            if rows and {self.record.objects[o].qualname for o in rows} <= _NEIGHBOUR_KINDS:
                return Value(objects=rows)  # np.array([row[mask] for ...]): each row's neighbours, as one array
            each = self.iterate(args[0]).data
            if args[0].data is None and each is not None and each.each_row:
                # np.stack(images) of a list a loop appended one image at a time to: every row, not one row's
                return Value(data=replace(each, each_row=False))
            if last in ("stack", "vstack") and args[0].data is not None and args[0].data.each_row:
                # np.stack([load(f) for f in files]): one array of every file's, not one file's
                return Value(data=replace(args[0].data, each_row=False))
        if package == "numpy" and qualname.startswith("numpy.random."):
            drawn = self._random(qualname, args, kwargs, node)
            if drawn is not None:
                return drawn
        if package == "random":
            drawn = self._stdlib_random(qualname, args, kwargs, node)
            if drawn is not None:
                return drawn
        if catalog.is_reader(qualname):
            return self.read(qualname, args, kwargs, node)
        if catalog.is_keras_dataset(qualname):
            return self._keras_dataset(qualname, node)
        if qualname in catalog.TORCH_RANDOM_SPLIT:
            return self.random_split(args, kwargs, node)
        if catalog.is_network_maker(qualname):  # models.resnet18(num_classes=10): a network, trained by a loop
            return self.construct(qualname, catalog.TORCH_NETWORK, args, kwargs, node)
        if catalog.is_published_image_set(qualname):
            return self._published_part(qualname, args, kwargs, node)
        if catalog.is_image_folder(qualname):
            return self._image_folder(args, kwargs, node)
        if qualname == "dataclasses.replace" and args:
            for oid in sorted(args[0].objects):  # dataclasses.replace(parts, X_train=...): a copy, fields given anew
                if self.record_fields(self.record.objects[oid].qualname):
                    return self.record_replaced(self.record.objects[oid], kwargs, node)
        if qualname in (PARTIAL, "ray.tune.with_parameters") and args:
            # Ray Tune's with_parameters(trainable, X=..., y=...) binds its keywords as functools.partial does
            bound = self.obj(node, PARTIAL)
            bound.entries.update({"#func": args[0], "#args": Value(items=tuple(args[1:]))})
            bound.params.update(kwargs)
            return Value(objects=frozenset({bound.id}))
        if qualname in catalog.MONAI_DATASETS and args and args[0].data is not None:
            # monai.data.Dataset(files, transform=prep): the files' rows, read through the transform (the statistics
            # NormalizeIntensityd(subtrahend=..., divisor=...) was built with are in every image)
            through = {"transform": args[1]} if len(args) > 1 else dict(kwargs)
            return Value(data=self._transformed(args[0].data, through))
        if qualname in catalog.MONAI_DECOLLATE and args:  # decollate_batch(outputs): the batch's rows, one by one
            return Value(data=args[0].data)
        if qualname.startswith("monai.metrics.") and last.endswith("Metric"):
            found = self.obj(node, MONAI_METRIC)
            found.params["#name"] = Value(consts=frozenset({last}))
            return Value(objects=frozenset({found.id}))
        if qualname.startswith("sentence_transformers.evaluation.") and last.endswith("Evaluator"):
            found = self.obj(node, SBERT_EVALUATOR)
            found.params["#name"] = Value(consts=frozenset({last}))
            found.entries["#rows"] = Value(data=self.rows_of([*args, *kwargs.values()]))
            return Value(objects=frozenset({found.id}))
        if qualname in ("evaluate.load", "evaluate.loading.load"):
            found = self.obj(node, HF_METRIC)
            found.params["#name"] = argument(args, kwargs, 0, "path")
            return Value(objects=frozenset({found.id}))
        if qualname in catalog.TORCH_SUBSETS:
            taken = self._subset(args, kwargs, node)
            if taken is not None:
                return taken
        if qualname in catalog.BATCH_LOADERS:
            # DataLoader(ds): its rows, met a batch at a time; a batch is many rows (its mean is a statistic of them).
            # The mark holds no rows: one call building loaders of several parts keeps them apart.
            loaded = self.unknown_call(args, kwargs, node)
            collate = kwargs.get("collate_fn")
            if collate is not None and collate.functions and loaded.data is not None:
                # collate_fn=encode: each batch is what the file's function makes of the rows (a vocabulary
                # applied there is in them)
                made = self.call_value(collate, [Value(data=loaded.data)], {}, node)
                fits = made.stats | frozenset().union(*(d.fits for d in _datas_in(made)))
                loaded = replace(loaded, data=self.with_fits(loaded.data, fits))
            return loaded.join(Value(objects=frozenset({self.obj(node.func, BATCHES).id})))
        if qualname in catalog.SERIES_FIT_FUNCTIONS:
            model = self.obj(node, qualname, Role(Kind.MODEL))
            y_given = argument(args, kwargs, 0, "y")
            model.trains = frozenset({self.train(node, f"{last}()", model, y_given.data, None).id})
            return Value(objects=frozenset({model.id}))
        if qualname in catalog.SKTIME_FORECASTER_MAKERS:
            return Value(objects=frozenset({self.obj(node, qualname, Role(Kind.MODEL)).id}))
        if qualname in catalog.TEMPORAL_SPLIT_FUNCTIONS:
            series = [argument(args, kwargs, 0, "y")]
            if len(args) > 1 or "X" in kwargs:  # then y_train, y_test, X_train, X_test
                series.append(argument(args, kwargs, 1, "X"))
            return self.train_test_split(series, {"shuffle": Value(consts=frozenset({False}))}, node)
        if package == "surprise":
            surprised = self._surprise(qualname, args, kwargs, node)
            if surprised is not None:
                return surprised
        if qualname in catalog.MATRIX_SPLIT_FUNCTIONS:
            return self.train_test_split([argument(args, kwargs, 0, "ratings", "interactions")], {}, node)
        if package in ("sklearn", "imblearn"):
            if last in catalog.SPLIT_FUNCTIONS:
                return self.train_test_split(args, kwargs, node)
            if last in catalog.CV_FUNCTIONS:
                return self.cross_validate(last, args, kwargs, node)
            if last in catalog.PIPELINE_FUNCTIONS:
                found = self.obj(node, qualname, Role(Kind.PIPELINE))
                found.node = node
                found.steps = sorted(self._estimators(args))
                if last == "make_column_transformer":
                    found.selects = self.selection(args, kwargs, named=False)
                else:
                    self.select_first(found, list(args))
                return Value(objects=frozenset({found.id}))
        if catalog.is_metric(qualname):
            return self.metric(last, args, kwargs, node)
        if pair in catalog.FIT_FUNCTIONS:
            learns, strength = catalog.FIT_FUNCTIONS[pair]
            x = argument(args, kwargs, 0, *X_NAMES)
            if x.data is None:
                return NOTHING
            # zscore(X, axis=1), scale(X, axis=1): each row scaled by its own values, its own until the table is
            # turned
            axis = kwargs.get("axis") or (args[1] if pair == ("scipy", "zscore") and len(args) > 1 else None)
            fid = self.fit(node, f"{last}()", learns, strength, x.data)
            if within_rows(axis):
                return Value(data=replace(x.data, sideways=x.data.sideways | {fid}))
            return Value(data=replace(x.data, fits=x.data.fits | {fid}))
        if pair in catalog.INVERSE_LAMBDA_FUNCTIONS and args and args[0].data is not None:
            return Value(data=self.with_fits(args[0].data, stats_of([*args[1:], *kwargs.values()])))
        if pair in catalog.LAMBDA_FUNCTIONS:
            x = argument(args, kwargs, 0, "x")
            if x.data is None or len(args) > 1 or is_given(kwargs.get("lmbda")):
                return Value(data=x.data) if x.data is not None else NOTHING  # a lambda given: nothing learned
            fid = self.fit(node, f"{last}()", "the power transform's lambda", Strength.STATISTICS, x.data)
            done = Value(data=replace(x.data, fits=x.data.fits | {fid}))
            return Value(data=done.data, items=(done, Value(stats=frozenset({fid}))))
        if pair in catalog.SCORE_FUNCTIONS:  # mutual_info_classif(X, y): each column scored against the label
            x = argument(args, kwargs, 0, *X_NAMES)
            if x.data is None:
                return NOTHING
            fid = self.fit(node, f"{last}()", "which columns predict the label", Strength.TARGET, x.data)
            return Value(stats=frozenset({fid}))
        if pair in catalog.IMPORTANCE_FUNCTIONS:
            # columns kept by their importance on some rows (importances_mean > 0) were chosen with those rows'
            # labels, as by a test of each column against the label
            x = argument(args, kwargs, 1, *X_NAMES)
            if x.data is None:
                return NOTHING
            fid = self.fit(node, f"{last}()", "which columns predict the label", Strength.TARGET, x.data)
            return Value(stats=frozenset({fid}))
        if pair in catalog.SAMPLE_TESTS or pair in catalog.PAIR_TESTS:
            compared = args
            if pair in catalog.SAMPLE_TESTS and len(node.args) == 1 and isinstance(node.args[0], ast.Starred):
                # kruskal(*[X.loc[y == k, c] for k in classes]): one sample per value, each as the element stands
                sample = self.iterate(args[0])
                compared = [sample, sample]
            tested = _tested_against_each_other(compared, pair in catalog.SAMPLE_TESTS)
            if tested is not None:  # ttest_ind(X[y == 1], X[y == 0]): each column scored against the mask's column
                tested_rows, against = tested
                what = f"{last}()"
                fid = self.fit(node, what, "which columns predict the label", Strength.TARGET, tested_rows, by=against)
                return Value(stats=frozenset({fid}))
        if pair in catalog.TRAIN_FUNCTIONS:
            return self._train_function(qualname, args, kwargs, node)
        if pair in catalog.BOOSTING_CV_FUNCTIONS:
            data = argument(args, kwargs, 1, "dtrain", "train_set", "pool")
            eid = self.evaluation(node, f"{package}.cv", frozenset(), data.data, None, cross_validation=True)
            if data.data is None or not _stops_early(node):
                return Value(scores=frozenset({eid}))
            # lgb.cv(..., callbacks=[lgb.early_stopping(50)]): the number of rounds its results run to is chosen
            # by the folds' scores, as a search's settings are (`len(cv["valid auc-mean"])` given to a model)
            what = f"{package}.cv (early stopping)"
            rounds = self.fit(node, what, "the number of rounds", Strength.TARGET, data.data, reported=False)
            self.record.fits[rounds].chooses = True
            return Value(scores=frozenset({eid}), stats=frozenset({rounds}))
        if pair in catalog.HF_TRAINING_ARGUMENTS:  # kept as given: load_best_model_at_end is read at train()
            found = self.obj(node, qualname)
            found.entries.update(kwargs)
            return Value(objects=frozenset({found.id}))
        if pair in catalog.HF_TRAINERS:
            return self.hf_trainer(args, kwargs, node)
        if pair in catalog.LIGHTNING_TRAINERS:
            return self.lightning_trainer(kwargs, node)
        if pair in catalog.LIGHTNING_CALLBACKS:
            found = self.obj(node, LIGHTNING_CALLBACK)
            found.params.update(kwargs)
            if last == "EarlyStopping" and args and "monitor" not in kwargs:  # EarlyStopping("val_loss")
                found.params["monitor"] = args[0]
            return Value(objects=frozenset({found.id}))
        if pair in catalog.EARLY_STOPPING_FUNCTIONS:
            return Value(objects=frozenset({self.obj(node, qualname, Role(Kind.CALLBACK)).id}))
        if pair in catalog.ROW_CONCAT_FUNCTIONS:
            return self.concat(qualname, args, kwargs, node)
        if pair in catalog.COLUMN_CONCAT_FUNCTIONS:
            return self._columns_joined(args, node)
        if pair in catalog.RESAMPLE_FUNCTIONS:
            return self._resample(args, kwargs, node)
        if package == "builtins":
            return self.builtin(last, args, kwargs, node)
        if qualname == "collections.deque" and args:
            # deque(train[-win:], maxlen=win): a list of those rows (a history a walk forward appends to)
            return self.builtin("list", args[:1], {}, node)
        if package == "numpy":
            return self.numpy(last, args, kwargs, node)
        if package == "pandas" and last in ("qcut", "cut"):
            binned = self._binned(last, args, kwargs, node)
            if binned is not None:
                return binned
        if package == "pandas" and last == "merge_asof":
            merged = self._merged_as_of(args, kwargs, node)
            if merged is not None:
                return merged
        if package == "pandas" and last == "to_datetime":
            x = argument(args, kwargs, 0, "arg")
            if x.data is not None:
                return Value(data=replace(x.data, dates=x.data.dates | x.data.sources))
        if optimizer_class(qualname):
            return self.torch_optimizer(qualname, args, kwargs, node)
        if qualname == f"{catalog.TORCH_FUNCTIONAL}normalize":
            return self._torch_normalize(args, kwargs, node)
        if qualname.startswith(catalog.TORCH_FUNCTIONAL) and last in catalog.TORCH_LOSS_FUNCTIONS:
            given = [v.data for v in (*args, *kwargs.values()) if v.data is not None]
            return self.loss(f"{last}()", given, node)
        if package == "torch":
            passed = self.torch_function(args, kwargs)
            if passed is not None:
                return passed
        return self.unknown_call(args, kwargs, node)

    def _binned(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        """pd.qcut learns its edges from the quantiles of the rows given; pd.cut with a number of bins learns
        them from their range (None: cut at edges written out, which learns nothing)."""
        x = argument(args, kwargs, 0, "x")
        bins = argument(args, kwargs, 1, "q" if name == "qcut" else "bins")
        if x.data is None or (name == "cut" and not isinstance(bins.const, int)):
            return None
        learns = "the quantile edges of the rows" if name == "qcut" else "the range of the rows"
        fid = self.fit(node, f"{self.text(node.func)}()", learns, Strength.STATISTICS, x.data)
        return Value(data=replace(x.data, fits=x.data.fits | {fid}, mask=None))

    def _learned_only(self, given: list[Value]) -> bool:
        """Whether ``given`` holds statistics learned from rows (a model's importances) and no rows themselves."""
        return self.rows_of(given) is None and bool(self.stats_in(given))

    def _random(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        """numpy.random's positions of rows, drawn by its functions or a generator's methods (None: another of
        its calls). A generator's other methods stay values of unknown code, as they were."""
        last = qualname.rpartition(".")[2]
        generator = qualname.startswith(catalog.RANDOM_GENERATOR)
        if last in catalog.RANDOM_GENERATOR_MAKERS and not generator:
            return Value(names=frozenset({catalog.RANDOM_GENERATOR}))
        if last in catalog.RANDOM_POSITIONS:
            return self._positions(last, args, kwargs, node)
        return self.unknown_call(args, kwargs, node) if generator else None

    def _positions(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """permutation(n) and shuffle(idx): an order of the positions, which slices (`idx[:160]`) then split;
        choice(n, k): one side of a split, whose other side is what np.setdiff1d leaves. Rows given instead of
        a count are the same rows in another order."""
        first = argument(args, kwargs, 0, "x", "a")
        # in random order: a cut by position of them (`idx[:cut]`) is a split that shuffles
        shuffled = frozenset({node.lineno})
        if name == "shuffle":  # in place: positions from np.arange hold no rows yet, so they become a source
            if first.data is None and node.args:
                made = self.source(node, f"{self.text(node.args[0])} shuffled")
                self.mutate(node.args[0], Value(data=replace(made, shuffled=shuffled)))
            return NOTHING
        if first.data is not None and first.data.rows and name == "permutation":
            return Value(data=replace(first.data, mask=None, shuffled=first.data.shuffled | shuffled))
        rows = first.data or self.source(node, f"{self.text(node)}")
        if name == "permutation":
            rows = replace(rows, shuffled=rows.shuffled | shuffled)
        if name == "choice" and (len(node.args) > 1 or any(k.arg == "size" for k in node.keywords)):
            sid = self.split(node, "choice", True, rows)
            return Value(data=rows.with_parts(Part(sid, "sample")))
        return Value(data=rows)

    def _stdlib_random(
        self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value | None:
        """Python's random module and a Random object's methods: shuffle(x) as numpy's shuffle, sample(population,
        k) as numpy's choice(n, k, replace=False), one side of a split (None: another of its calls)."""
        if qualname in catalog.STDLIB_RANDOM_MAKERS:
            return Value(names=frozenset({catalog.STDLIB_RANDOM_GENERATOR}))
        last = qualname.rpartition(".")[2]
        if last == "shuffle":
            return self._positions("shuffle", args, kwargs, node)
        if last != "sample":
            return None
        population = argument(args, kwargs, 0, "population")
        rows = population.data or self.source(node, f"{self.text(node)}")
        sid = self.split(node, "sample", True, rows)
        return Value(data=rows.with_parts(Part(sid, "sample")))

    def read(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A new source of rows; a loader's result (a Bunch or X, y) holds them too."""
        last = qualname.rpartition(".")[2]
        first = argument(args, kwargs, 0, "data")
        if last == "DataFrame" and first.data is not None:  # a table made of rows already followed
            names = argument(args, kwargs, 1, "columns").strings()
            # of an array whose columns the walk cannot name (np.column_stack of a lag): which columns, unknown
            columns = first.data.columns or Columns(opaque=True)
            if names:
                columns = columns.only(names)
            return Value(data=replace(first.data, columns=columns))
        where = self.text(node.args[0]) if node.args else ""
        columns_made = self._columns_comprehension(node, first) if last == "DataFrame" else None
        if columns_made is not None:
            return Value(data=columns_made)
        if last == "DataFrame":  # a table built here: its columns are the ones it is given
            return Value(data=self._new_table(node, first, args, kwargs, where))
        # Values drawn by numpy have no column names: joined to a table (noise added), they leave its columns as
        # they were, so a label dropped from it stays dropped.
        drawn = catalog.is_drawn(qualname)
        run = None if drawn else self._rows_read(node)
        again = None if drawn else self._file_named(last, first, kwargs, node, run is not None)
        if again is not None and again in self._files:
            # the same file read twice (medians of one read filling the other) holds the same rows
            data = self._files[again]
            if run is None and again in self._read_in_part:
                # first read in part (nrows=...): this read holds every row, so a finding about them names it
                self._read_in_part.discard(again)
                for atom in data.rows:
                    self.record.origins[atom.origin].site = self.site(node)
        else:
            # numpy's arrays (drawn, or read from a file) have no column names: joined to a table (a mean loaded
            # from a file and subtracted), they leave its columns as they were, so a label dropped stays dropped
            named = not drawn and not qualname.startswith("numpy.")
            # a pass of a loop over file names reads the file it names: its rows are that file's, not the loop's
            label = f"{last}({again[1]!r})" if again is not None and self._read_anew(node) else f"{last}({where})"
            data = replace(self.source(node, label, read=True), columns=Columns() if named else None)
            for atom in data.rows:
                self.record.origins[atom.origin].drawn = drawn
            if again is not None:
                for atom in data.rows:
                    self.record.origins[atom.origin].path = again[1]
            if again is not None and run is not None:
                self._read_in_part.add(again)
        if again is not None:
            self._files.setdefault(again, data)
            if run is not None:  # read_csv(f, nrows=n) holds the rows read_csv(f)[:n] does
                data = self.rows_taken(data, run, NOTHING, node)
        if not drawn:
            for atom in data.rows:
                self.record.origins[atom.origin].passes |= self._read_anew(node)
            data = self._part_file(node, data)
        chosen = next((kwargs[k].strings() for k in ("usecols", "columns") if k in kwargs), None)
        if chosen and data.columns is not None and not drawn:  # read_csv(usecols=["f1", "f2"]): those columns only
            data = replace(data, columns=Columns(base=frozenset(chosen)))
        dates = self._dates_read(kwargs)
        if dates:
            data = replace(data, dates=frozenset(dates))
        index = kwargs.get("index_col")
        if index is not None and (index.strings() or []) and _index_dated(index, kwargs):
            data = replace(data, time_index=frozenset({node.lineno}), dates=data.dates | set(index.strings() or []))
        if qualname.startswith("sklearn") and ".datasets" in qualname:
            return self._loaded(node, qualname, data, kwargs)
        if qualname.startswith("datasets") and last == "load_dataset" and "split" not in kwargs and len(args) < 5:
            # load_dataset("csv", data_files="reviews.csv"): one file, its one split ("train") every row of it
            files = argument(args, kwargs, 2, "data_files")
            builder = argument(args, kwargs, 0, "path").const
            whole = builder in _FILE_BUILDERS and (isinstance(files.const, str) or files.items is not None)
            return self.dataset_dict(node, data, whole=whole)
        if is_given(kwargs.get("chunksize")) or kwargs.get("iterator", NOTHING).const is True:
            # read_csv(chunksize=...): an iterator of tables of many rows each, whose sums add up over every row
            return Value(objects=frozenset({self.container(node, Value(data=data)).id}))
        return Value(data=data)

    def _dataset_dict_made(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """DatasetDict({"train": a, "validation": b}) or DatasetDict(train=a, ...): each part kept under its own
        name, as a dict's are, so dd["validation"] is b and not every part given."""
        made = self.obj(node, DATASET_DICT)
        given: dict[Hashable, Value] = {}
        mappings = [*args[:1], *([kwargs["**"]] if "**" in kwargs else [])]
        for value in mappings:
            for oid in sorted(value.objects):
                given.update(self.record.objects[oid].entries)
        given.update((k, v) for k, v in kwargs.items() if k != "**")
        made.entries.update(given)
        # every part given, also those of a mapping whose keys the walk cannot read
        made.elements = join_all([*given.values(), *(self.iterate(m) for m in mappings)])
        return Value(objects=frozenset({made.id}))

    def written_to(self, reader: str, where: ast.expr, data: Data) -> None:
        """Rows written to a file at a path the walk can read (`df.to_csv("prep.csv")`): a later read of that path
        by ``reader`` holds those rows, with what was learned from them, not a new source (a scaler fitted on
        every row, the table saved, read back, then split)."""
        path = self._path_text(where)
        if path:
            self._files[(reader, posixpath.normpath(path.replace("\\", "/")))] = data

    def _file_named(
        self, reader: str, first: Value, kwargs: dict[str, Value], node: ast.Call, a_run: bool = False
    ) -> tuple[str, str] | None:
        """The reader and the file a read names, its path as the filesystem takes it (`./data/a.csv` is
        `data/a.csv`): None when the path is not known, each pass of a loop reads another, or it reads some rows
        only in a way that is not a run of them (`filters`, `sheet_name`, rows to skip given as a list, ...);
        ``a_run``: _rows_read found the run it reads."""
        path = first.const if isinstance(first.const, str) else self._path_text(node.args[0]) if node.args else None
        other = set(kwargs) - _WHOLE_FILE_ARGUMENTS
        if other and not (other <= _RUN_ARGUMENTS and a_run):
            return None
        # In a loop walked once per item (`for name in ["train.csv", "test.csv"]`) each pass names its file.
        if not path or (self._read_anew(node) and not self.item_passes):
            return None
        return reader, posixpath.normpath(path.replace("\\", "/"))

    def _rows_read(self, node: ast.Call) -> ast.Slice | None:
        """The run of a file's rows a read keeps, as the slice of the whole file that holds them: `nrows=n` is
        `[:n]`, `skiprows=range(1, k)` (the header kept) `[k - 1:]`, both `[k - 1:k - 1 + n]`; None for a read
        of every row, or of rows it does not say plainly (a list or a function of rows to skip, a count of lines
        that takes the header too)."""
        given = {k.arg: k.value for k in node.keywords if k.arg in _RUN_ARGUMENTS}
        if not given:
            return None
        count = self.plain_number(given["nrows"]) if "nrows" in given else None
        if "nrows" in given and (count is None or count < 0):
            return None
        start = 0
        if "skiprows" in given:
            skip = given["skiprows"]
            if not (isinstance(skip, ast.Call) and self.text(skip.func) == "range" and len(skip.args) == 2):
                return None
            if skip.keywords:
                return None
            low, high = (self.plain_number(a) for a in skip.args)
            if low != 1 or high is None or high < 1:
                return None
            start = high - 1
        lower = ast.Constant(start) if start else None
        upper = ast.Constant(start + count) if count is not None else None
        return ast.copy_location(ast.Slice(lower=lower, upper=upper), node)

    def _path_text(self, expr: ast.expr) -> str | None:
        """A path built of known strings, as its text: `f"{DIR}/a.csv"`, `DIR + "/a.csv"`, `os.path.join(DIR,
        "a.csv")`, `Path(DIR) / "a.csv"` (None: a part of it is not known)."""
        if isinstance(expr, ast.Constant | ast.Name):  # read without walking anything again
            known = expr.value if isinstance(expr, ast.Constant) else self.ev(expr).const
            return known if isinstance(known, str) else None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):  # args.root: an option's default
            known = self.ev(expr).const
            return known if isinstance(known, str) else None
        parts: list[str | None]
        if isinstance(expr, ast.JoinedStr):
            parts = [
                v.value
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
                else self._path_text(v.value)
                if isinstance(v, ast.FormattedValue) and v.format_spec is None and v.conversion == -1
                else None
                for v in expr.values
            ]
            return None if None in parts else "".join(p for p in parts if p is not None)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Div):
            left, right = self._path_text(expr.left), self._path_text(expr.right)
            if left is None or right is None:
                return None
            return posixpath.join(left, right) if isinstance(expr.op, ast.Div) else left + right
        if isinstance(expr, ast.Call) and not expr.keywords and expr.args:
            called = self.text(expr.func)
            if called in ("Path", "pathlib.Path", "PurePath", "os.path.join", "posixpath.join", "join"):
                parts = [self._path_text(a) for a in expr.args]
                if None in parts or (len(parts) > 1 and called in ("Path", "pathlib.Path", "PurePath")):
                    return None
                return posixpath.join(*(p for p in parts if p is not None))
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.keywords:
            base = self._path_text(expr.func.value)  # root.joinpath("a.csv"), root.expanduser()
            texts = [self._path_text(a) for a in expr.args]
            if base is None or None in texts:
                return None
            return method_path(base, expr.func.attr, [t for t in texts if t is not None])
        return None

    def _part_file(self, node: ast.Call, data: Data) -> Data:
        """The rows of a file read in a loop over the names of a data set's parts (`for split in ["train", "test"]:
        pd.read_csv(f"data/{split}.csv")`): each pass's rows are the part its name says, kept apart from the others'."""
        if not self.item_passes or not node.args or not self._read_anew(node):
            return data
        for name in ast.walk(node.args[0]):
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load):
                const = self.ev(name).const
                side = _PART_NAMES.get(const.lower()) if isinstance(const, str) else None
                if side is not None:
                    sid = self.split(node, "the files read in a loop", False, data)
                    return data.with_parts(Part(sid, side))
        return data

    def _read_anew(self, node: ast.Call) -> frozenset[int]:
        """The loops around a reader whose every pass reads other rows: the file or data set it names (its first
        argument, or the loader called) is taken from what the loop goes over (`for name in files`), also through
        the arguments of the file's functions called in the loop (`evaluate(name)`, `def evaluate(path)`)."""
        named: list[ast.AST] = [node.func, *node.args[:1]]
        named += [k.value for k in node.keywords if k.arg in _NAMING_ARGUMENTS]
        read = self.names_passed({n.id for expr in named for n in ast.walk(expr) if isinstance(n, ast.Name)})
        anew = set()
        for lid in self.loops:
            if lid in self.loop_nodes and lid not in self.pass_names:
                self.pass_names[lid] = pass_names(self.loop_nodes[lid])
            if read & self.pass_names.get(lid, frozenset()):
                anew.add(lid)
        return frozenset(anew)

    def _published_part(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """datasets.MNIST("data", train=False): a part of one published data set, the rows of every call for the same
        set and folder one source split in its training and test parts (without train= or split=, every row)."""
        name = qualname.rpartition(".")[2]
        where = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "root"), None)
        root = self.whole(where)
        key = (name, root)
        if key not in self._published:
            data = replace(self.source(node, f"datasets.{name}({root})", read=True), columns=None)
            self._published[key] = (data, self.split(node, f"datasets.{name}'s parts", False, data, published=True))
        data, sid = self._published[key]
        second = args[1].const if len(args) > 1 else None  # MNIST(root, False), ImageNet(root, "val")
        train = kwargs["train"].const if "train" in kwargs else second if isinstance(second, bool) else None
        split = kwargs["split"].const if "split" in kwargs else second if isinstance(second, str) else None
        side = "train" if train is True else "test" if train is False else None
        if isinstance(split, str):
            side = _PART_NAMES.get(split.lower(), side)
        part = data.with_parts(Part(sid, side)) if side is not None else data
        return Value(data=self._transformed(part, kwargs))

    def _extends_hf_trainer(self, qualname: str, depth: int = 0) -> bool:
        """Whether the file's class ``qualname`` is a Hugging Face Trainer (or a class of the file that is one)."""
        for base in self.local_bases(qualname):
            for name in self.ev(base).names:
                pair = (name.partition(".")[0], name.rpartition(".")[2])
                if pair in catalog.HF_TRAINERS:
                    return True
                if name.startswith(LOCAL) and depth < 8 and self._extends_hf_trainer(name, depth + 1):
                    return True
        return False

    def _subset(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        """Subset(ds, part.indices): the rows of ``ds`` at the positions a split dealt, that side of the split (a
        data set read again with another transform, then cut as the first one was)."""
        dataset, indices = argument(args, kwargs, 0, "dataset"), argument(args, kwargs, 1, "indices")
        at = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "indices"), None)
        if dataset.data is None or indices.data is None or at is None:
            return None
        return Value(data=self.rows_taken(dataset.data, at, indices, node))

    def _image_folder(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """datasets.ImageFolder("images", transform=tf): the images under a folder; read again (once to compute
        the normalisation, once with it), they are the same images."""
        where = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "root"), None)
        root = self.whole(where)
        # the folder's path as its text ("images", ROOT, args.root's default, f"{DATA}/train")
        path = self._path_text(where) if where is not None else None
        if path is None or self._read_anew(node):  # a folder per pass of a loop, or one the walk cannot name
            return Value(data=self._transformed(self.source(node, f"ImageFolder({root})", read=True), kwargs))
        if path not in self._folders:
            self._folders[path] = replace(self.source(node, f"ImageFolder({root})", read=True), columns=None)
        return Value(data=self._transformed(self._folders[path], kwargs))

    def _transformed(self, data: Data, kwargs: dict[str, Value]) -> Data:
        """Images read through transform=Compose([..., Normalize(mean, std)]): the statistics it was built with are in
        every image."""
        transforms = [v for k, v in kwargs.items() if k in ("transform", "target_transform", "transforms")]
        baked = frozenset().union(*(self.record.objects[o].baked for v in transforms for o in v.objects))
        return self.with_fits(data, baked) if baked else data

    def _keras_dataset(self, qualname: str, node: ast.Call) -> Value:
        """keras.datasets.mnist.load_data(): one source published in a training and a test part, each a pair of
        images (or features) and labels."""
        name = qualname.split(".")[-2]
        data = replace(self.source(node, f"keras.datasets.{name}", read=True), columns=None)
        sid = self.split(node, f"keras.datasets.{name}.load_data", False, data, published=True)
        parts = []
        for side in ("train", "test"):
            x = data.with_parts(Part(sid, side))
            y = replace(x, sources=frozenset({"target"}))
            parts.append(Value(items=(Value(data=x), Value(data=y))))
        return Value(items=tuple(parts))

    def _new_table(self, node: ast.Call, first: Value, args: list[Value], kwargs: dict[str, Value], where: str) -> Data:
        """pd.DataFrame({...}), pd.DataFrame(index=df.index), pd.DataFrame(columns=[...]): the columns it names
        (none yet for an empty one), and the rows of the index it is given."""
        keys = [k for oid in first.objects for k in self.record.objects[oid].entries if isinstance(k, str)]
        named = argument(args, kwargs, 1, "columns").strings()
        index = kwargs.get("index")
        # pd.DataFrame({"a": Z[:, 0], "b": Z[:, 1]}): columns of rows already followed, with what they went through
        given = [
            v.data
            for oid in first.objects
            for k, v in self.record.objects[oid].entries.items()
            if isinstance(k, str) and v.data is not None
        ]
        if index is not None and index.data is not None:
            rows = replace(index.data, columns=None, sources=frozenset(), picked=False)
            # the columns given keep what they went through (statistics, values from later rows)
            for more in given:
                rows = replace(rows, fits=rows.fits | more.fits, later=rows.later | more.later)
        elif given:
            rows = given[0]
            for more in given[1:]:
                rows = rows.join(more)
            rows = replace(rows, columns=None, sources=frozenset(), picked=False, mask=None, grouped=False)
        else:
            rows = self.source(node, f"DataFrame({where})", read=True)
        # made of something the walk cannot read: its columns are not known
        columns = Columns(frozenset(keys or named or ())) if first is NOTHING or keys or named else Columns()
        for oid in first.objects:
            for key, value in self.record.objects[oid].entries.items():
                # {"trend": y.rolling(7).mean()}: a column computed from the label's, as assign() reads it (not a
                # lag, earlier rows' values, nor other rows' only)
                held = value.data
                if isinstance(key, str) and held is not None and held.picked and not held.past and not held.elsewhere:
                    columns = columns.adding(key, held.sources - held.earlier)
                    self.column_made(key, node)
        return replace(rows, columns=columns)

    def _columns_comprehension(self, node: ast.Call, first: Value) -> Data | None:
        """pd.DataFrame({w: df["text"].str.contains(w) for w in vocab}): one column per key, each computed from
        the rows of a table, so the new table holds those rows and what each column was computed with."""
        if not node.args or not isinstance(node.args[0], ast.DictComp):
            return None
        if any(isinstance(k, str) for oid in first.objects for k in self.record.objects[oid].entries):
            return None  # {f"lag_{k}": y.shift(k) for k in range(4)}: keys known one by one, as a written dict's
        rows = self.rows_of([first])
        if rows is None:
            return None
        # {name: cross_val_predict(m, X, y) for ...}: a column of each model's predictions, still predictions
        return replace(self.with_fits(rows, self.stats_in([first])), columns=Columns(opaque=True), mask=None)

    @staticmethod
    def _dates_read(kwargs: dict[str, Value]) -> list[str]:
        given = kwargs.get("parse_dates")
        return (given.strings() or []) if given is not None else []

    def _merged_as_of(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        """pd.merge_asof(left, right, on="ts"): each left row with the right row nearest before it, as a merge of
        the two; `direction="forward"` (or "nearest") takes a right row after it, a value from later rows."""
        left, right = argument(args, kwargs, 0, "left"), argument(args, kwargs, 1, "right")
        if left.data is None:
            return None
        keys = {k: v for k, v in kwargs.items() if k in ("on", "left_on", "right_on", "suffixes")}
        merged = self.data_method(left, "merge", [right], {**keys, "how": Value(consts=frozenset({"left"}))}, node)
        direction = kwargs.get("direction", NOTHING).const
        if merged.data is not None and direction in ("forward", "nearest"):
            # the right table's columns hold the later rows' values (its key columns are the left row's own);
            # when they are not known, every column may
            taken = right.data.columns if right.data is not None else None
            keyed = {k for v in keys.values() for k in (v.strings() or [])}
            named = sorted(taken.base - keyed) if taken is not None and not taken.opaque and taken.base else None
            marks = {(node.lineno, c) for c in named} if named else {(node.lineno, None)}
            merged = replace(merged, data=replace(merged.data, later=merged.data.later | marks))
        return merged

    def _loaded(self, node: ast.Call, qualname: str, data: Data, kwargs: dict[str, Value]) -> Value:
        """A data set loader: (X, y) for make_* and return_X_y, a Bunch with .data, .target, .frame otherwise."""
        # X holds every column but the target, whatever its form (an array, or a table with as_frame=True); the
        # target is that column of the data set, so a column given its values (df["label"] = y) is the label again
        x = replace(data, columns=None if data.columns is None else Columns(removed=frozenset({"target"})))
        y = replace(data, columns=None, sources=frozenset({"target"}), picked=True)
        last = qualname.rpartition(".")[2]
        # load_svmlight_file returns (X, y) always: a file of rows, each its label then its features
        pair = last.startswith("make_") or last == "load_svmlight_file"
        if pair or (kwargs.get("return_X_y") and kwargs["return_X_y"].const is True):
            return Value(items=(Value(data=x), Value(data=y)))
        bunch = self.obj(node, qualname)
        bunch.entries.update({"data": Value(data=x), "target": Value(data=y), "frame": Value(data=data)})
        return Value(objects=frozenset({bunch.id}))

    def train_test_split(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        shuffle = kwargs.get("shuffle")
        shuffled = not (shuffle is not None and shuffle.const is False)
        arrays = [a.data or self.source(node, f"array {i} split by train_test_split") for i, a in enumerate(args)]
        sid = self.split(node, "train_test_split", shuffled, join_datas(arrays))
        train, test = Part(sid, "train"), Part(sid, "test")
        items: list[Value] = []
        for array in arrays:
            items += [Value(data=array.with_parts(train)), Value(data=array.with_parts(test))]
        return Value(items=tuple(items))

    def _torch_normalize(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """F.normalize(X, dim=0) divides each column by its norm over the rows: a statistic of every row it is
        given. The default (dim=1) scales each row by its own norm and learns nothing from the others."""
        x = argument(args, kwargs, 0, "input")
        if x.data is None:
            return NOTHING
        dim = argument(args, kwargs, 2, "dim").const
        if dim != 0:
            return Value(data=x.data)
        fid = self.fit(node, "F.normalize(dim=0)", "the norm of each column over the rows", Strength.STATISTICS, x.data)
        return Value(data=self.with_fits(x.data, frozenset({fid})))

    def random_split(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """torch's random_split(dataset, lengths): shuffled parts, read as train_test_split calls in a row. The last
        part is held out from the rest, then the one before it from what is left (`rest, test = split(all)`,
        `train, val = split(rest)`): the first part is the training one, and a choice made on a middle part (a
        validation set) is not one made on the last. Without the number of parts nothing is split."""
        dataset = argument(args, kwargs, 0, "dataset")
        lengths = argument(args, kwargs, 1, "lengths")
        if lengths.items is None or len(lengths.items) < 2:
            return Value(data=dataset.data) if dataset.data is not None else NOTHING
        rows = dataset.data or self._held_rows(dataset) or self.source(node, "the dataset split by random_split")
        parts: list[Data] = []
        last = len(lengths.items) - 1
        for i in range(last, 0, -1):  # the last part first: it is held out from all the others
            sid = self.split(node, "random_split" if i == last else f"random_split (part {i + 1})", True, rows)
            parts.insert(0, rows.with_parts(Part(sid, "test")))
            rows = rows.with_parts(Part(sid, "train"))
        return Value(items=(Value(data=rows), *(Value(data=p) for p in parts)))

    def _formula_model(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """`smf.logit("target ~ age + C(sex)", data=train)`: a statsmodels model given its rows when built, the
        label the column left of `~` and the features the columns named right of it."""
        formula = argument(args, kwargs, 0, "formula").const
        data = argument(args, kwargs, 1, "data").data
        name = qualname.rpartition(".")[0] if qualname.endswith(".from_formula") else qualname
        found = self.obj(node, name, Role(Kind.MODEL, rows_at_init=True))
        found.node = node
        x = y = None
        if data is not None:
            x = replace(data, columns=None, mask=None)
            left, tilde, right = str(formula).partition("~") if isinstance(formula, str) else ("", "", "")
            label = left.strip()
            if tilde and _IDENTIFIER.fullmatch(label):
                y = self.column(data, label)
                named = _FORMULA_TERM.findall(right)
                # predict(test) given the whole table reads these columns only
                found.entries["#formula"] = Value(items=tuple(Value(consts=frozenset({n})) for n in named))
                if data.columns is not None:
                    x = replace(data, columns=data.columns.only(named), mask=None).pruned(data.columns)
        found.params["#args"] = Value(items=(Value(data=y), Value(data=x)))
        return Value(objects=frozenset({found.id}))

    def _held_rows(self, dataset: Value) -> Data | None:
        """The rows an object of the file's own class holds (a Dataset's `self.x`, `self.y` set in `__init__`),
        with what was learned from them there (`self.x = (x - x.mean(0)) / x.std(0)`) and what its items carry
        (`(self.x[i] - self.mu) / self.sd` in `__getitem__`)."""
        held: list[Data] = []
        for oid in sorted(dataset.objects):
            found = self.record.objects[oid]
            if not found.qualname.startswith(LOCAL):
                continue
            rows = [entry.data for entry in found.entries.values() if entry.data is not None]
            if rows:
                joined = join_datas(rows)
                assert joined is not None
                held.append(self.with_fits(joined, self.item_statistics(found)))
        return join_datas(held) if held else None

    def cross_validate(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        estimator = argument(args, kwargs, 0, "estimator")
        x = argument(args, kwargs, 1, "X").data
        y = argument(args, kwargs, 2, "y").data
        models = frozenset(self._estimators([estimator]))
        splitter = self._splitter(kwargs.get("cv"), node, x, kwargs.get("groups"))
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
            # each row's prediction is made by a model that learned the other folds' labels: stacked as a feature
            # and split afterwards, the test rows' features were learned from the training rows' labels and back
            learned = self.fit(node, "cross_val_predict", "the labels of the other folds' rows", Strength.TARGET, x)
            self.record.out_of_fold.add(learned)
            return Value(data=replace(x, predicted=models, cross_validated=True, fits=x.fits | {learned}))
        returned = next((k for k in node.keywords if k.arg == "return_estimator"), None)
        fold_models = returned is not None and self.ev(returned.value).const is True and len(models) == 1
        if name == "cross_validate" and fold_models and returned is not None:
            # each fold's fitted model, cv["estimator"]: models trained on these rows, to be scored elsewhere
            folds = self._fold_models(next(iter(models)), x, y, kwargs.get("cv"), returned, node)
            results = self.obj(node.func, CONTAINER)
            results.elements = Value(scores=frozenset({eid}))
            results.entries.update(
                {
                    "test_score": results.elements,
                    "train_score": results.elements,
                    "estimator": Value(objects=frozenset({folds.id})),
                }
            )
            return Value(objects=frozenset({results.id}))
        if name == "validation_curve" and x is not None:
            # train and validation scores per setting: the setting picked by them (argmax) is chosen on these rows,
            # as a search's best_params_ is
            what = f"{name}()"
            picked = self.fit(node, what, "the hyper-parameters", Strength.TARGET, x, reported=False)
            self.record.fits[picked].chooses = True
            each = Value(scores=frozenset({eid}), stats=frozenset({picked}))
            return Value(items=(each, each), scores=each.scores, stats=each.stats)
        return Value(scores=frozenset({eid}))

    def _fold_models(
        self, model: int, x: Data | None, y: Data | None, cv: Value | None, at: ast.keyword, call: ast.Call
    ) -> Obj:
        """The list of the models cross_validate(return_estimator=True) fitted, one per fold: one object built as
        ``model`` was, built anew in each of the folds' passes (as many as `cv` says, 5 by default), trained where
        the call is (a finding about their training is the cross-validation's, one finding)."""
        built = self.record.objects[model]
        fold = self.obj(at, built.qualname, built.role)
        fold.node, fold.steps, fold.params = built.node, list(built.steps), dict(built.params)
        fold.selects, fold.baked = built.selects, built.baked
        passes, _ = self.key_id("loop", at.value)  # the folds, as a loop whose every pass fits another model
        count = cv.const if cv is not None else 5
        if cv is not None and count is None:
            for oid in cv.objects:
                count = self.record.objects[oid].params.get("n_splits", NOTHING).const
        if type(count) is int and count > 0:
            self.record.pass_counts[passes] = count
        fold.loops = (*self.loops, passes)
        trained = self.train(call, f"{built.name}.fit (a fold of cross_validate)", fold, x, y)
        trained.loops = fold.loops
        fold.trains = frozenset({trained.id})
        return self.container(at.value, Value(objects=frozenset({fold.id})))

    def _split_folds(self, value: Value) -> str | None:
        """The split whose folds ``value`` is, a splitter's split() (or a list of its folds); None otherwise."""
        for oid in value.objects:
            found = self.record.objects[oid]
            if found.qualname in (SPLITS, CONTAINER) and found.split is not None and found.split in self.record.splits:
                return found.split
        return None

    def one_fold_taken(self, value: Value) -> None:
        """One split taken of a splitter's folds (`next(kf.split(X))`, `list(kf.split(X))[0]`), not a loop over
        them: its held-out side is the test part."""
        split = self._split_folds(value)
        if split is not None:
            self.record.splits[split].folds = False

    def sbert_evaluated(self, evaluator: Obj, model: Value, node: ast.Call) -> Value:
        """A sentence-transformers evaluator called with a model: that model scored on the evaluator's rows."""
        rows = evaluator.entries["#rows"].data
        what = str(evaluator.params["#name"].const)
        return Value(scores=frozenset({self.evaluation(node, what, model.objects, rows, None)}))

    def metric(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = [*args, *(kwargs[k] for k in (*_TRUTH_NAMES, *_PREDICTED_NAMES) if k in kwargs)]
        # ndcg_score([y_q], [pred_q]): one query's labels and scores, each wrapped in a list of rows
        # (or a list a loop appended each step's forecast to, scored as it is)
        given = [Value(data=self.rows_of([v])) if v.data is None and (v.items or self._listed(v)) else v for v in given]
        predicted = [v.data for v in given if v.data is not None and v.data.predicted]
        truth = [v.data for v in given if v.data is not None and not v.data.predicted]
        curve = name in catalog.CURVE_METRICS
        if predicted:
            x = join_datas(predicted)
            if x is not None and truth and ((x.horizon and not x.rows) or _forecast_inputs(x, truth)):
                # a forecast: of the rows it is compared with
                x = replace(x, rows=frozenset().union(*(d.rows for d in truth)), horizon=True)
            models = frozenset().union(*(d.predicted for d in predicted))
            cv = any(d.cross_validated for d in predicted)
            eid = self.evaluation(node, name, models, x, join_datas(truth), cross_validation=cv, curve=curve)
            return _scored_by(eid, curve)
        if len(truth) >= 2:  # labels against predictions of unknown origin: rows scored, by no model known
            eid = self.evaluation(node, name, frozenset(), truth[-1], truth[0], curve=curve)
            return _scored_by(eid, curve)
        return Value(scores=self.scores_in(given))

    def _surprise(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value | None:
        """The surprise library's ratings: `Dataset.load_from_df(df, reader)` holds the frame's rows, its
        `train_test_split(data)` splits them, `accuracy.rmse(algo.test(testset))` scores the predictions of a
        model fitted on a trainset (None for the rest of the library)."""
        last = qualname.rpartition(".")[2]
        if last in _SURPRISE_ALGORITHMS:  # SVD(), KNNBasic(...): a model, fitted on a trainset, predicting by test()
            return Value(objects=frozenset({self.obj(node, qualname, Role(Kind.MODEL)).id}))
        if last == "load_from_df":
            frame = argument(args, kwargs, 0, "df")
            return Value(data=replace(frame.data, columns=None)) if frame.data is not None else NOTHING
        if last in ("load_from_file", "load_builtin"):
            return Value(data=self.source(node, f"Dataset.{last}({self.text(node.args[0]) if node.args else ''})"))
        if last == "train_test_split" and ".model_selection" in qualname:
            return self.train_test_split([argument(args, kwargs, 0, "data")], {}, node)
        if qualname.startswith("surprise.accuracy.") and last in ("rmse", "mae", "mse", "fcp"):
            predicted = argument(args, kwargs, 0, "predictions").data
            if predicted is None or not predicted.predicted:
                return NOTHING
            return Value(scores=frozenset({self.evaluation(node, last, predicted.predicted, predicted, None)}))
        return None

    def _listed(self, value: Value) -> bool:
        """Whether the value is a list or dict the program filled (`preds.append(fit.forecast()[0])`)."""
        return any(self.record.objects[oid].qualname == CONTAINER for oid in value.objects)

    def concat(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = argument(args, kwargs, 0, "objs", "arrays", "tup", "arr", "tensors", "datasets", "dsets")
        parts = [v for v in (given.items or ()) if v.data is not None]
        if parts and all(v.data is not None and v.data.rows and all(a.parts for a in v.data.rows) for v in parts):
            # np.concatenate([dev_idx[tr_pos], test_idx]): positions mapped back beside a split's own positions,
            # each the rows it stands for
            parts += [Value(data=d) for v in (given.items or ()) if v.data is None and (d := self.parts_rows(v.parts))]
        if qualname.endswith("ConcatDataset"):
            # Dataset classes of the file among them: every row each holds (what its __getitem__ gives by index)
            held = [self.iterate(v) for v in (given.items or ()) if v.data is None and v.objects]
            parts += [Value(data=replace(h.data, each_row=False)) for h in held if h.data is not None]
        if not parts:
            # np.vstack(s.values), np.stack(images) of a list a loop appended rows to: the arrays of every row,
            # stacked back into those rows (not one row's)
            each = self.iterate(given)
            if each.data is not None and (given.data is None or not given.data.each_row):
                each = replace(each, data=replace(each.data, each_row=False))
            parts = [each] if each.data is not None else []
        if qualname.endswith("append") and len(args) > 1:
            parts = [v for v in args[:2] if v.data is not None]
        axis = kwargs.get("axis") or kwargs.get("dim")  # torch.cat names it dim
        if axis is None and len(args) > 1 and not qualname.endswith("append"):
            axis = args[1]  # concatenate(arrays, 1), pd.concat(frames, 1)
        if axis is not None and axis.const in (1, "columns"):
            return self._columns_joined(parts, node)
        datas = [v.data for v in parts if v.data is not None]
        if not datas:
            return NOTHING
        self.note_appended_after_fit(datas, node)
        keys = kwargs.get("keys")
        names = keys.strings() if keys is not None else None
        if names is not None and len(names) == len(datas):  # concat(..., keys=[...]): .loc[key] takes a part back
            kid = f"keys:{self.key_id('keys', node)[0]}"
            datas = [d.with_parts(Part(kid, name)) for d, name in zip(datas, names, strict=True)]
        joined = join_datas(datas)
        assert joined is not None
        if joined.columns is not None and not joined.columns.opaque:
            # a column dropped from a part (y = train.pop("Survived"), then pd.concat([train, test])) holds no
            # value for that part's rows, whatever the other parts hold
            absent = {
                (c, a.origin)
                for d in datas
                if d.columns is not None and not d.columns.opaque
                for c in d.columns.removed
                for a in d.rows
            }
            absent |= {e for d in datas if d.columns is not None for e in d.columns.absent}
            joined = replace(joined, columns=replace(joined.columns, absent=frozenset(absent)))
        if _both_sides(datas):
            joined = replace(joined, merged=joined.merged | {node.lineno})
        origins = {a.origin for d in datas for a in d.rows}
        if len(origins) > 1:
            joined = replace(joined, gathered=joined.gathered | {(o, node.lineno) for o in origins})
        passing = self.record.pass_names.get(self.loops[-1], frozenset()) if self.loops else frozenset()
        if _repeats(datas, passing) and not all(d.each_row for d in datas):  # some rows come in twice: a pool of copies
            joined = replace(joined, rows=self.pool(node, joined.rows, f"{self.text(node.func)} of rows already in it"))
        if kwargs.get("ignore_index", NOTHING).const is True:  # its rows numbered 0..n-1, as reset_index does
            numbered = {(a.parts[-1], node.lineno) for a in joined.rows if a.parts}
            joined = replace(joined, renumbered=joined.renumbered | numbered)
        return Value(data=replace(joined, mask=None))

    def _minimized(self, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """`minimize(loss, x0)` of scipy: the function walked as the body of a loop over the settings it is tried
        with, and the setting kept chosen among the scores it returns (blend weights fitted to a test score are
        chosen on the test set). Its result's `.x` and `.fun` are that choice."""
        given = argument(args, kwargs, 0, "fun", "func")
        written = node.args[0] if node.args else next(k.value for k in node.keywords if k.arg in ("fun", "func"))
        lid, _ = self.key_id("loop", node)
        self.loops.append(lid)
        try:
            setting = NOTHING  # the weights tried: no rows
            # minimize(loss, x0, args=(P_te, y_te)): the function is given those after the setting
            extra = list(kwargs["args"].items or ()) if "args" in kwargs else []
            if isinstance(written, ast.Lambda):
                result = self.call_lambda(
                    written, [setting, *extra] + [setting] * (len(written.args.args) - 1 - len(extra))
                )
            else:
                result = NOTHING
                for fid in sorted(given.functions):
                    result = result.join(self.call_function(fid, [setting, *extra], {}, node))
        finally:
            self.loops.pop()
        scores = self.scores_in([result])
        # each score a setting tried (a temperature, blend weights), however many models the predictions came from
        setting_at = (f"{node.lineno}:{node.col_offset}", (lid,))
        for eid in scores:
            e = self.record.evaluations[eid]
            if lid in e.loops and e.x is not None:
                e.x = replace(e.x, tuned=e.x.tuned | {setting_at})
        self.choose(node, f"{qualname.rpartition('.')[2]}()", scores)
        found = self.obj(node, f"{qualname}<result>")
        found.entries.update(x=Value(stats=result.stats), fun=Value(scores=scores))
        return Value(objects=frozenset({found.id}), scores=scores)

    def _score_columns(self, given: Value) -> dict[str, Value] | None:
        """The scores of each column of a table made of a dict of lists (`{"val": val_scores, "test": ...}`) or a
        list of dicts (`rows.append({"val": ..., "test": ...})`), by column name; None when the columns cannot be
        told apart (a list of tuples, keys that are not names)."""
        outer = [self.record.objects[o] for o in sorted(given.objects)]
        if outer and all(o.entries and all(isinstance(k, str) for k in o.entries) for o in outer):
            records = outer  # the dict of columns itself
        else:
            records = [self.record.objects[o] for o in sorted(self.iterate(given).objects)]
        if not records or given.data is not None:
            return None
        columns: dict[str, Value] = {}
        for found in records:
            if found.qualname != CONTAINER or not found.entries or not all(isinstance(k, str) for k in found.entries):
                return None
            for key, value in found.entries.items():
                columns[str(key)] = columns.get(str(key), NOTHING).join(Value(scores=self.scores_in([value])))
        return columns if any(v.scores for v in columns.values()) else None

    def _columns_joined(self, values: list[Value], node: ast.AST | None = None) -> Value:
        datas: list[Data | None] = []
        for v in values:  # np.hstack([X, y[:, None]]): each item's columns, side by side
            if v.items and v.data is None:
                datas += [i.data if i.items is None else self.iterate(i).data for i in v.items]
                # and what was appended since the list was written (its elements beyond those items)
                grown = [o for o in v.objects if self.record.objects[o].elements != join_all(list(v.items))]
                datas += [self.iterate(Value(objects=frozenset(grown))).data] if grown else []
            else:
                datas.append(self.iterate(v).data if v.items is not None or v.objects else v.data)
        present = [d for d in datas if d is not None]
        if not present:
            return NOTHING
        present = [named_column(d) for d in present]
        joined = join_datas(present)
        assert joined is not None
        line = getattr(node, "lineno", None)
        stacked = {(c, line) for d in present for c in d.sources if line is not None and len(present) > 1}
        columns = None if any(d.columns is None for d in present) else joined.columns
        return Value(data=replace(joined, columns=columns, stacked=joined.stacked | stacked))

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

    def _keyed(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """What a chooser's ``key=`` computes for one candidate: ``key=lambda t: f1_score(y_te, p > t)`` or the
        file's own function (`max(depths, key=fit_eval)`) walked as the body of a loop over the candidates (one
        call per candidate, each a setting tried); a dict's `key=corrs.get` reads the values it holds."""
        key = next((k.value for k in node.keywords if k.arg == "key"), None)
        if key is None or len(args) != 1:
            return NOTHING
        if not isinstance(key, ast.Lambda) and not kwargs["key"].functions:
            return kwargs["key"]  # corrs.get, imp.__getitem__: its holder, whose values order the candidates
        return self._called_per_item(key, kwargs["key"], self.iterate(args[0]), node)

    def _filtered(self, args: list[Value], node: ast.Call) -> Value:
        """`filter(lambda c: imp[c] > 0.01, cols)`: the items its function keeps, chosen with what it computes."""
        element = self.iterate(args[1])
        kept = self._called_per_item(node.args[0], args[0], element, node)
        found = self.container(node, element)
        return Value(objects=frozenset({found.id}), stats=self.stats_in([kept]) | args[1].stats)

    def _called_per_item(self, written: ast.expr, function: Value, item: Value, node: ast.Call) -> Value:
        """A function a builtin calls once per item (a chooser's key, filter's test), a lambda or the file's own,
        walked with one item as the body of a loop over them: what one call computes."""
        lid, _ = self.key_id("loop", written)
        self.loops.append(lid)
        try:
            if isinstance(written, ast.Lambda):
                return self.call_lambda(written, [item] * len([*written.args.posonlyargs, *written.args.args]))
            return self.call_value(function, [item], {}, node)
        finally:
            self.loops.pop()

    def builtin(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = [*args, *kwargs.values()]
        if name in _CHOOSERS:
            keyed = self._keyed(args, kwargs, node)
            # max(rows, key=lambda r: r["val"]): chosen by the scores the key reads, not every score a row holds
            by_key = self.scores_in([keyed]) if "key" in kwargs else frozenset()
            scores = by_key or self.scores_in([*args, *(v for k, v in kwargs.items() if k != "key")])
            # sorted(corrs.items(), key=lambda kv: kv[1]): an order, and so the first few, chosen by statistics
            ordered_by = self.stats_in([keyed])
            if scores:
                among = self.iterate(args[0]) if len(args) == 1 else join_all(args)
                picks = "key" in kwargs or not self.only_scores(among)  # max(scores) is a value, not a choice
                self.choose(node, f"{name}()", scores, picks)
            if name == "sorted" and args:
                # sorted(glob.glob("img_*.nii.gz")): every row of what it orders, as list() keeps them
                found = self.container(node, self.iterate(args[0]))
                return Value(
                    objects=frozenset({found.id}),
                    scores=scores,
                    stats=ordered_by,
                    data=args[0].data,
                    names_of=args[0].names_of,
                )
            chosen = self.iterate(args[0]) if len(args) == 1 else join_all(args)  # max(xs) is one of xs
            return chosen.join(Value(scores=scores, stats=ordered_by))
        if name == "filter" and len(args) == 2 and node.args:
            return self._filtered(args, node)
        if name == "zip":
            elements = Value(items=tuple(self.iterate(a) for a in args))
            return Value(objects=frozenset({self.container(node, elements).id}))
        if name == "enumerate" and args:
            elements = Value(items=(NOTHING, self.iterate(args[0])))
            return Value(objects=frozenset({self.container(node, elements).id}))
        if name == "next" and args:  # next(splitter.split(X)): the first fold
            self.one_fold_taken(args[0])
            return self.iterate(args[0])
        if name == "iter" and args and self._split_folds(args[0]):
            return args[0]  # next(iter(kf.split(X))) takes one split as next(kf.split(X)) does
        if name == "dict" and kwargs and not args:  # dict(n_estimators=..., early_stopping_rounds=...)
            found = self.container(node, join_all(kwargs.values()))
            found.entries.update(kwargs)
            return Value(objects=frozenset({found.id}))
        if name in ("list", "tuple") and args and self._split_folds(args[0]):
            # list(kf.split(X)): the folds, still of that split (a cross-validation given them splits by it)
            folds = self.container(node, self.iterate(args[0]))
            folds.split = self._split_folds(args[0])
            return Value(objects=frozenset({folds.id}))
        if name == "dict" and len(args) == 1:
            pair = self.iterate(args[0])
            if pair.items is not None and len(pair.items) == 2:
                # dict(zip(X.columns, rf.feature_importances_)): each name keyed to its value, so imp[c] is a value
                return Value(objects=frozenset({self.container(node, pair.items[1], pair.items[0]).id}))
        if name in ("list", "tuple", "set", "dict", "reversed", "iter", "sorted") and args:
            return Value(objects=frozenset({self.container(node, self.iterate(args[0])).id})).join(
                Value(data=args[0].data, scores=self.scores_in(args), names_of=args[0].names_of)
            )
        if name == "map" and len(args) >= 2:
            each = self._mapped_items(args, node)
            if each is not None:
                return each
            # map(str, tok.encode(t).ids): one value per value of the rows given
            return Value(data=self.rows_of(args[1:]))
        if name == "str" and args and args[0].data is not None:  # str(i) of an id, a key of {str(i): 1 for ...}
            return Value(data=args[0].data)
        if name == "str" and len(args) == 1 and not kwargs and type(args[0].const) in (int, str):
            return Value(consts=frozenset({str(args[0].const)}))  # "lag_" + str(k): a name of a known number
        if name in ("set", "dict") and not given:  # set(): filled later, by update() in a loop (a vocabulary)
            return Value(objects=frozenset({self.container(node, NOTHING).id}))
        if name == "getattr" and len(args) >= 2 and isinstance(args[1].const, str):
            return self.attribute(args[0], str(args[1].const), node)
        if name in ("sum", "len") and args and args[0].data is not None and args[0].data.against_truth:
            eid = self.evaluation(node, self.text(node), args[0].data.predicted, args[0].data, None)
            return Value(scores=frozenset({eid}))
        if name == "len":  # a count of what was learned (len(vocab)) still says what was learned
            return Value(stats=stats_of(given) | stats_of([self.iterate(v) for v in given]))
        if name in _PASS_THROUGH_BUILTINS:
            return Value(data=data_of(given), scores=self.scores_in(given), stats=stats_of(given))
        return NOTHING

    def _mapped_items(self, args: list[Value], node: ast.Call) -> Value | None:
        """`map(np.asarray, (X_train, X_test))`, `map(sc.transform, (X_tr, X_te))`: the function called on each item
        of a literal tuple of a few parts, each result kept apart, so unpacking gives each part its own rows (not
        both parts put back together). None for any other map."""
        items = args[1].items
        if len(args) != 2 or items is None or not 1 <= len(items) <= EACH_ITEM:
            return None
        if any(item.data is None for item in items):
            return None
        function = node.args[0] if node.args else None
        if isinstance(function, ast.Lambda):
            made = tuple(self.call_lambda(function, [item]) for item in items)
        else:
            made = tuple(self.call_value(args[0], [item], {}, node) for item in items)
        found = self.container(node, join_all(made))
        found.entries.update(enumerate(made))
        return Value(objects=frozenset({found.id}), items=made)

    def _pieces(
        self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call, data: Data
    ) -> Value | None:
        """np.array_split(rows, 5) or np.split(rows, [a, b]): consecutive pieces of the rows, no two sharing one, as
        a list of them (None when the number of pieces is not known, or columns are split)."""
        axis = argument(args, kwargs, 2, "axis")
        if axis is not NOTHING and axis.const != 0:
            return None
        sections = argument(args, kwargs, 1, "indices_or_sections")
        count = sections.const
        if type(count) is not int:
            count = len(sections.items) + 1 if sections.items is not None else None
        if count is None or not 2 <= count <= MAX_PIECES:
            return None
        sid = self.split(node, f"np.{name}", False, data)
        pieces = tuple(Value(data=data.with_parts(Part(sid, _piece(i)))) for i in range(count))
        found = self.container(node, join_all(pieces))
        found.entries.update(enumerate(pieces))
        return Value(objects=frozenset({found.id}), items=pieces)

    def record_replaced(self, found: Obj, changed: dict[str, Value], node: ast.Call) -> Value:
        """A copy of a `NamedTuple` or `@dataclass` object of the file with some fields given anew (`_replace`,
        `dataclasses.replace`)."""
        fields = self.record_fields(found.qualname)
        copy = self.obj(node, found.qualname)
        copy.entries.update(found.entries)
        copy.entries.update({k: v for k, v in changed.items() if k in fields})
        made = Value(objects=frozenset({copy.id}))
        if all(f in copy.entries for f in fields):
            return Value(objects=made.objects, items=tuple(copy.entries[f] for f in fields))
        return made

    def _rows_counted(self, shape: ast.expr) -> Data | None:
        """The rows a shape's first length counts: `len(texts)` or `X.shape[0]`, alone or first of a tuple."""
        first = shape.elts[0] if isinstance(shape, ast.Tuple) and shape.elts else shape
        if isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "len" and first.args:
            return self.ev(first.args[0]).data
        if (
            isinstance(first, ast.Subscript)
            and isinstance(first.value, ast.Attribute)
            and first.value.attr == "shape"
            and isinstance(first.slice, ast.Constant)
            and first.slice.value == 0
        ):
            return self.ev(first.value.value).data
        return None

    def numpy(self, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        given = [*args, *kwargs.values()]
        first = args[0] if args else NOTHING
        scores = self.scores_in(given)
        if name in _CHOOSING_FUNCTIONS and scores:
            # np.max(scores) is the best value; np.argmax(scores) says which pass gave it; the point where two
            # error rates cross, np.nanargmin(np.abs(fnr - fpr)), is where the equal error rate is read, no best
            picks = ("arg" in name and not _crossing(node)) or not self.only_scores(self.iterate(first))
            self.choose(node, f"np.{name}()", scores, picks)
            # np.argmax of a validation curve's scores: the setting it picks was chosen as those scores were
            chosen = frozenset(f for f in self.stats_in(given) if self.record.fits[f].chooses)
            folded = [self.record.evaluations[e] for e in sorted(scores)]
            if not chosen and "arg" in name and folded and all(e.cross_validation and e.x is not None for e in folded):
                # np.argmax([cross_val_score(SVC(C=c), X, y).mean() for c in Cs]): a search written by hand, its
                # setting chosen on the rows it cross-validated
                rows = join_datas([e.x for e in folded if e.x is not None])
                picked = self.fit(node, f"np.{name}()", "the hyper-parameters", Strength.TARGET, rows, reported=False)
                self.record.fits[picked].chooses = True
                chosen |= {picked}
            return Value(scores=scores, stats=chosen)
        if name in ("isin", "in1d") and len(args) >= 2 and first.data is not None:
            # np.isin(qid, test_qids): the rows whose value is among those, as qid.isin(test_qids) is
            held = self.data_method(Value(data=first.data), "isin", args[1:], kwargs, node)
            if held is not None:
                return held
        positions = name in ("flatnonzero", "nonzero", "argwhere") or (name == "where" and len(args) == 1)
        if positions and first.data is not None and first.data.mask is not None and not first.data.predicted:
            # np.where(is_te)[0], np.flatnonzero(mask): the positions of the rows where the mask holds
            taken = Value(data=replace(self.rows_where(first.data, node), columns=None, mask=None, picked=False))
            return taken if name in ("flatnonzero", "argwhere") else Value(items=(taken,), data=taken.data)
        if name == "argsort" and first.data is not None and first.data.predicted:
            # np.argsort(-proba): the test rows' positions, best ranked first (or last), each a row predicted
            return Value(data=replace(first.data, ranked=first.data.predicted, mask=None))
        if name in ("zeros", "ones", "empty", "full") and node.args:
            counted = self._rows_counted(node.args[0])
            if counted is not None:
                # np.zeros((len(texts), k)): an array of one row per text, filled later (a bag of words by hand)
                return Value(data=Data(counted.rows, blank=True))
        if name == "insert" and len(args) >= 3 and first.data is not None:
            axis = kwargs.get("axis") or (args[3] if len(args) > 3 else None)
            if axis is not None and axis.const == 1:  # np.insert(X, k, y, axis=1): y as a column of X
                return self._columns_joined([args[0], args[2]], node)
        if name == "delete" and len(args) >= 2 and first.data is not None:
            axis = kwargs.get("axis") or (args[2] if len(args) > 2 else None)
            if axis is not None and axis.const == 1:  # np.delete(X, -1, axis=1): columns taken out by position
                return Value(data=replace(first.data, columns=Columns(opaque=True), mask=None))
        if name == "setdiff1d" and len(args) >= 2 and first.data is not None and args[1].data is not None:
            # np.setdiff1d(df.index, train.index): the labels of the rows left once train's are taken out
            rest = complement(first.data.rows, args[1].data.rows) if args[1].parts else None
            if rest is not None:
                parts = frozenset(a.parts[-1] for a in rest) if all(a.parts for a in rest) else frozenset()
                return Value(parts=parts, data=replace(first.data, rows=rest))
        if name in ("array_split", "split") and first.data is not None:
            pieces = self._pieces(name, args, kwargs, node, first.data)
            if pieces is not None:
                return pieces
        axis = kwargs.get("axis") or (args[1] if len(args) > 1 else None)
        if first.data is not None and first.data.against_truth and name in ("mean", "sum", "average"):
            if within_rows(axis):  # np.mean((X_hat - X) ** 2, axis=1): each row's error, not a metric
                return Value(data=replace(first.data, columns=None, against_truth=False, mask=None))
            # said as written (np.sqrt(np.mean((pred - y) ** 2)) is an RMSE, not an accuracy)
            eid = self.evaluation(node, self.text(node), first.data.predicted, first.data, None)
            return Value(scores=frozenset({eid}))
        if name in catalog.ROW_REDUCTIONS_NUMPY and first.data is not None:
            at = 2 if "percentile" in name or "quantile" in name else 1  # np.percentile(a, q, axis)
            axis = kwargs.get("axis") or (args[at] if len(args) > at else None)
            if first.data.each_row:  # one row's own
                return Value(data=replace(first.data, columns=None))
            if within_rows(axis):  # np.mean(X, axis=1): each row's own, until the table is turned
                if first.data.predicted:
                    return Value(data=replace(first.data, columns=None))
                along = self.fit(
                    node, self.text(node), f"the {name} across the columns", Strength.STATISTICS, first.data
                )
                return Value(data=replace(first.data, columns=None, sideways=first.data.sideways | {along}))
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
        compared = [a.data for a in args[:2] if a.data is not None]
        if name in ("corrcoef", "cov") and first.data is not None and not any(d.predicted for d in compared):
            # np.corrcoef(X[c], y)[0, 1]: how the columns correlate over every row given, as df.corr() learns it
            given_rows = self.rows_of([a for a in args[:2] if a.data is not None]) or first.data
            fid = self.fit(node, f"np.{name}()", catalog.CORRELATION, Strength.STATISTICS, given_rows)
            return Value(stats=frozenset({fid}))
        if scores and first.data is None:
            return Value(scores=scores)
        if name == "setdiff1d" and len(args) == 2:
            # np.setdiff1d(np.arange(n), test_idx): the positions a drawn sample left
            remaining = positions_left(first.data, args[1].data)
            if remaining is not None:
                return Value(data=remaining)
        data = self.rows_of(given)
        if data is None:
            return Value(stats=stats_of(given) | stats_of([self.iterate(v) for v in given]))
        return Value(data=replace(self.with_fits(data, stats_of(given)), mask=None))  # elementwise: np.abs(pred - y)


_PIECES = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
MAX_PIECES = 32  # np.array_split into more pieces than this is read as the rows it splits


def _piece(i: int) -> str:
    """The side of the piece at position ``i`` of a split into pieces ('first', ..., 'tenth', '11th', '22nd')."""
    if i < len(_PIECES):
        return _PIECES[i]
    n = i + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def positions_left(every: Data | None, taken: Data | None) -> Data | None:
    """np.setdiff1d(np.arange(n), test_idx), `[i for i in range(n) if i not in test_idx]`: the other side of the
    split that took ``taken``, when each of its rows was taken by one (positions left out of a drawn sample are the
    rest of it); None otherwise."""
    if taken is None or not taken.rows or not all(a.parts for a in taken.rows):
        return None
    if every is not None and {a.origin for a in every.rows} != {a.origin for a in taken.rows}:
        return None
    # of every position (np.arange(n) holds the rows whole): the other side of each cut that made ``taken``
    whole = every.rows if every is not None and every.rows else frozenset(Atom(a.origin, ()) for a in taken.rows)
    rows = complement(whole, taken.rows)
    return replace(taken, rows=rows) if rows else None


# Hugging Face's builders of a data set from local files: given one file or a list, its one split is every row
_FILE_BUILDERS = frozenset({"csv", "json", "parquet", "text", "arrow", "pandas"})
# The implicit library's ranking metrics of a model: (model, train_user_items, test_user_items, K)
_IMPLICIT_METRICS = frozenset(
    {"ndcg_at_k", "precision_at_k", "mean_average_precision_at_k", "AUC_at_k", "ranking_metrics_at_k"}
)
# The surprise library's prediction algorithms
_SURPRISE_ALGORITHMS = frozenset(
    {"SVD", "SVDpp", "NMF", "SlopeOne", "CoClustering", "BaselineOnly", "NormalPredictor"}
    | {"KNNBasic", "KNNWithMeans", "KNNWithZScore", "KNNBaseline"}
)
# LightFM's ranking metrics of a model: (model, test_interactions, train_interactions=None, k=10, ...)
_LIGHTFM_METRICS = frozenset({"precision_at_k", "recall_at_k", "auc_score", "reciprocal_rank"})
# scipy.optimize's searches for the argument that minimises a function the program gives
_MINIMIZERS = frozenset(
    {"minimize", "minimize_scalar", "differential_evolution", "dual_annealing", "basinhopping", "brute", "shgo"}
    | {"fmin", "fmin_powell", "fmin_cg", "fmin_bfgs", "fmin_l_bfgs_b", "fmin_slsqp"}
)


def _repeats(datas: list[Data], passing: frozenset[str] = frozenset()) -> bool:
    """Whether two of the tables put together may hold the same rows; a loop's row of each pass (`test.iloc[[t]]`,
    counted from a name each pass takes anew) is another row each pass, not a repeat of the one before."""

    def each_pass(atom: Atom) -> bool:
        return bool(atom.parts) and any(counts_from(atom.parts[-1], name) for name in passing)

    for i, a in enumerate(datas):
        for b in datas[i + 1 :]:
            if any(not x.disjoint(y) and not (each_pass(x) and each_pass(y)) for x in a.rows for y in b.rows):
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


def _index_dated(index: Value, kwargs: dict[str, Value]) -> bool:
    """Whether read_csv's index_col is read as dates (parse_dates=True, or parse_dates names it)."""
    parse = kwargs.get("parse_dates")
    if parse is None:
        return False
    if parse.const is True:
        return True
    return bool(set(index.strings() or []) & set(parse.strings() or []))


def _crossing(node: ast.Call) -> bool:
    """Whether an argmin is of the distance between two curves (`np.nanargmin(np.abs(fnr - fpr))`): where they
    cross, as an equal error rate is read."""
    given = node.args[0] if node.args and "argmin" in ast.unparse(node.func) else None
    if not (isinstance(given, ast.Call) and len(given.args) == 1 and isinstance(given.args[0], ast.BinOp)):
        return False
    called = given.func.attr if isinstance(given.func, ast.Attribute) else getattr(given.func, "id", "")
    return called in ("abs", "absolute", "fabs") and isinstance(given.args[0].op, ast.Sub)


def _scored_by(eid: int, curve: bool) -> Value:
    """A metric's result: its score; for a curve, (scores, scores, thresholds), the thresholds only the cut-offs
    the predictions take (choosing by them alone, `np.argmin(abs(thr - 0.5))`, chooses by no score)."""
    scores = Value(scores=frozenset({eid}))
    return Value(items=(scores, scores, NOTHING)) if curve else scores


def _is_classmethod(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``fn`` is decorated @classmethod: called on its class, its first parameter is the class."""
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list)


def _stops_early(node: ast.Call) -> bool:
    """Whether a boosting library's cv() stops early: `early_stopping_rounds=`, or an early-stopping callback."""
    for keyword in node.keywords:
        if keyword.arg == "early_stopping_rounds" and not (
            isinstance(keyword.value, ast.Constant) and keyword.value.value is None
        ):
            return True
        if keyword.arg == "callbacks" and any(
            (n.attr if isinstance(n, ast.Attribute) else n.id) in ("early_stopping", "EarlyStopping")
            for n in ast.walk(keyword.value)
            if isinstance(n, ast.Attribute | ast.Name)
        ):
            return True
    return False


def _tested_against_each_other(args: list[Value], samples: bool) -> tuple[Data, frozenset[str]] | None:
    """The rows a scipy test compares and the columns it compares them by: the column of one mask whose sides it
    compares (`X[y == 1]` with `X[y == 0]`) or, for a test of two columns, the columns (`pearsonr(X[c], y)`); None
    for any other test (of predictions, of parts a mask did not make, of a cut in time)."""
    datas = [a.data for a in args if a.data is not None]
    if len(datas) < 2 or len(datas) != len(args) or any(d.predicted for d in datas):
        return None
    against: set[str] = set()
    if samples:
        masks = [{p for a in d.rows for p in a.parts if p.split.startswith("mask:")} for d in datas]
        splits = [{p.split for p in m} for m in masks]
        if not splits[0] or not all(s == splits[0] for s in splits):
            return None
        if not all(_tests_values(p.side) for m in masks for p in m):
            return None  # ks_2samp(df[df.date < cut].x, df[df.date >= cut].x): a drift in time, not the label
        against = {c for s in splits[0] for c in s.removeprefix("mask:").split(",")}
    else:
        # one of them a column the walk can name (`y`; `X[c]` of a loop over the columns is one it cannot)
        against = {c for d in datas if d.picked for c in d.sources if not c.startswith("<")}
    joined = join_datas(datas)
    return (joined, frozenset(against)) if joined is not None and against else None


def _tests_values(side: str) -> bool:
    """Whether a mask's side keeps rows by a value of its column (`y == 1`, `y != "no"`, `y`, `~y`), not by a cut."""
    try:
        expr = ast.parse(side, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return False
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert | ast.Not):
        expr = expr.operand
    if isinstance(expr, ast.Compare):
        return all(isinstance(op, ast.Eq | ast.NotEq) for op in expr.ops)
    return isinstance(expr, ast.Name | ast.Subscript | ast.Attribute)


def _datas_in(value: Value) -> list[Data]:
    """The rows ``value`` holds, itself or as the items of a tuple it returns (`return X, y`)."""
    found = [value.data] if value.data is not None else []
    for item in value.items or ():
        found += _datas_in(item)
    return found


def _forecast_inputs(predicted: Data, truth: list[Data]) -> bool:
    """Whether predictions were asked of rows of the labels' source apart from the labels themselves
    (`model.predict(history[-5:])` against `test`): a series' last rows, the next one forecast from them."""
    labels = [b for d in truth for b in d.rows]
    origins = {b.origin for b in labels}
    return bool(labels) and any(a.origin in origins and all(a.disjoint(b) for b in labels) for a in predicted.rows)
