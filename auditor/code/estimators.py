"""Objects in the walk: the estimators, samplers, splitters and pipelines the libraries' classes build, what
their methods do to rows (fit records what was learned from which rows, transform carries it on, predict and
score say which rows a model is judged on), and the lists and dicts the program keeps them in."""

from __future__ import annotations

import ast
from dataclasses import replace

from auditor.code.catalog import (
    BATCH_STATISTICS,
    COUNTERS,
    LABELS_LEARNED,
    LEARNS_WITH_OPTION,
    ROW_REDUCTIONS_NUMPY,
    STATE_WRITTEN_OUT,
    Kind,
    Role,
    Strength,
)
from auditor.code.events import Obj, Train, nested_steps
from auditor.code.sources import Program
from auditor.code.state import (
    ARGUMENT_PARSER,
    ARGUMENTS,
    CONTAINER,
    DATASET_DICT,
    LOCAL,
    NEIGHBOURS,
    NOT_SELF,
    OTHER_NEIGHBOURS,
    PARTIAL,
    SBERT_EVALUATOR,
    SCORE_TABLE,
    SPLITS,
    WalkState,
)
from auditor.code.values import (
    EACH_ITEM,
    NOTHING,
    TRAIN_SIDES,
    Columns,
    Data,
    Part,
    Value,
    argument,
    counts_from,
    data_of,
    is_given,
    join_all,
    join_datas,
    narrowed_from,
    selected_columns,
)

# A hyper-parameter search that calls the program's objective once per trial and keeps the best value
# (optuna's Study), and the trial it passes, whose suggest_*() draws a setting.
STUDY = "optuna.Study"
TRIAL = "optuna.Trial"
RAY_TUNER = "ray.tune.Tuner"  # built with a trainable, its fit() runs the trials and picks the best
STUDY_MAKERS = frozenset(["optuna.create_study", "optuna.study.create_study", "optuna.load_study"])
# The attributes that give a search's choice of settings: scikit-learn's, and a study's (best_trial.params too).
_SEARCH_CHOICES = frozenset(["best_params_", "best_index_"])
_CHOICES = {STUDY: frozenset(["best_params", "params"])}
# Keyword names a fit takes its inputs by.
X_NAMES = (
    "X",
    "x",
    "raw_documents",
    "texts",
    "sentences",
    "corpus",
    "data",
    "documents",
    "iterator",
    "train_set",
    "X_train",  # FLAML's AutoML.fit(X_train=..., y_train=...)
)
Y_NAMES = ("y", "labels", "target", "Y", "y_train")
_TRANSFORMS = frozenset(
    [
        "transform",
        "inverse_transform",
        "texts_to_sequences",
        "texts_to_matrix",
        "sequences_to_matrix",
        "encode",
        "encode_batch",
        "encode_plus",
        "batch_encode_plus",
        "tokenize",  # a tokenizer's pieces of a text: of the vocabulary it learned
        "convert_tokens_to_ids",
        "doc2bow",
        "infer_vector",
        "flow",  # an ImageDataGenerator's batches of the images given, transformed
    ]
)
# What a learner without scikit-learn's trailing underscore keeps of the rows (an ImageDataGenerator's).
# Learned state under a plain name: an ImageDataGenerator's mean and std; gensim's word and document vectors
# (w2v.wv[word], d2v.dv[i], the older docvecs).
_LEARNED_ATTRIBUTES = ("mean", "std", "principal_components", "wv", "dv", "docvecs")
_DOCUMENT_VECTORS = ("dv", "docvecs")
# scikit-learn's splitters that keep each group's rows in one part, given the groups
_GROUP_SPLITTERS = ("Group", "StratifiedGroup", "LeaveOneGroup", "LeavePGroups")
# Keywords of a prediction that choose how much of a boosted model predicts (the number of trees)
_PREDICT_SETTINGS = frozenset(
    ["num_iteration", "iteration_range", "ntree_limit", "ntree_start", "ntree_end", "start_iteration", "num_trees"]
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
        "forecast",  # statsmodels' and darts' forecasts of the rows after the series (forecast(steps=24))
        # lifelines' survival models: each row's risk, expected or median time, survival curve
        "predict_partial_hazard",
        "predict_log_partial_hazard",
        "predict_expectation",
        "predict_median",
        "predict_percentile",
        "predict_survival_function",
        "predict_cumulative_hazard",
    ]
)
# What a trained model says of its columns (how much each one predicts the label): columns kept by it were chosen
# with the rows the model was trained on.
# What a trained model says of each column: its importances, coefficients, and a statsmodels fit's estimates and
# tests of them (`res.pvalues < 0.05`, the first step of a stepwise selection)
_IMPORTANCES = frozenset(["feature_importances_", "coef_", "pvalues", "params", "tvalues", "bse"])
_IMPORTANCE_METHODS = frozenset(["get_feature_importance", "feature_importance"])
# A series model's predictions of the rows it was trained on (statsmodels' results, pmdarima's models).
_IN_SAMPLE = frozenset(["fittedvalues", "predict_in_sample"])
# A fitted neighbours search's queries: which fitted rows lie nearest each row asked about.
_NEIGHBOUR_QUERIES = frozenset(["kneighbors", "radius_neighbors"])
# What leaves an array's elements as they are: the indices of a neighbours search keep what they are.
_RESHAPES = frozenset(["reshape", "astype", "copy", "ravel", "flatten", "squeeze", "tolist"])
# Trees built on rows and asked query(X, k): the same indices (scikit-learn's KDTree and BallTree, scipy's).
_NEIGHBOUR_TREES = (".KDTree", ".BallTree", ".cKDTree")
# Hugging Face: a Trainer (its train(), evaluate(), predict()), and a DatasetDict of a data set's published splits.
HF_TRAINER = "transformers.Trainer"
HF_PREDICTION_OUTPUT = "transformers.trainer_utils.PredictionOutput"
LIGHTNING_TRAINER = "lightning.Trainer"
LIGHTNING_CALLBACK = "lightning.callbacks"
_HF_TRAINER_ARGS = ("model", "args", "data_collator", "train_dataset", "eval_dataset")
# The splits a data set on the Hub is published with, each its own rows (ds["train"], ds["test"]).
_PUBLISHED_SPLITS = ("train", "test", "validation", "valid", "dev", "eval", "unsupervised")
# A Hugging Face tokenizer's train_new_from_iterator(texts, vocab_size): a new tokenizer, its vocabulary learned
# from the texts (a pretrained one used as it is learns nothing from the rows).
HF_TRAIN_NEW = "train_new_from_iterator"
HF_TOKENIZER = "transformers.PreTrainedTokenizer"
_FITS = frozenset({"fit", "partial_fit", "fit_partial", "fit_on_texts", "adapt", "train_from_iterator", "build_vocab"})
_SCORES = frozenset({"score", "evaluate"})


class Estimators(WalkState):
    """What the objects the libraries build do with the rows they are given."""

    def __init__(self, program: Program) -> None:
        super().__init__(program)
        self._layers_in: dict[int, set[int]] = {}  # a Keras layer -> the models built with it
        # a published data set read by name and folder (torchvision's): its rows and the split of its parts, one
        # for every call that reads a part of it
        self._published: dict[tuple[str, str], tuple[Data, str]] = {}
        self._folders: dict[str, Data] = {}  # the images under a folder, by the folder named (its text)
        self._files: dict[tuple[str, str], Data] = {}  # the rows of a file, by its reader and path
        self._read_in_part: set[tuple[str, str]] = set()  # files whose first read kept a run of rows only

    def construct(
        self, qualname: str, role: Role, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if role.kind is Kind.STATELESS:
            role = _with_learning_option(qualname, role, kwargs)
            if qualname.rpartition(".")[2] == "FunctionTransformer" and self._takes_statistics(node, args, kwargs):
                role = Role(Kind.LEARNER, BATCH_STATISTICS, refits=True)
        elif (
            role.kind is Kind.LEARNER and qualname.startswith("sklearn.") and self._state_written_out(qualname, kwargs)
        ):
            role = Role(Kind.STATELESS)
        found = self.obj(node, qualname, role)
        found.node = node
        found.params.update(kwargs)
        if qualname.rpartition(".")[2] == "FunctionTransformer":
            found.selects = self._function_selects(node, args, kwargs)
        if role.rows_at_init:
            found.params["#args"] = Value(items=tuple(args))
        found.baked |= self.stats_in([*args, *kwargs.values()])
        for given in [*args, *kwargs.values()]:
            # TfidfVectorizer(tokenizer=tok.tokenize): what the tokenizer learned splits every text it is given;
            # so does a function of the file that calls it (tokenizer=split_words)
            bound = given.method[0] if given.method is not None else NOTHING
            found.baked |= frozenset().union(*(self.record.objects[o].fits for o in bound.objects))
            for fid in sorted(given.functions):
                found.baked |= self._learned_in(self.function_node(fid))
        for written in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(written, ast.Lambda):  # CountVectorizer(analyzer=lambda t: tok.tokenize(t)): the same
                found.baked |= self._learned_in(written)
        if role.kind is Kind.STATELESS:  # Compose([ToTensor(), Normalize(mean, std)]): what its steps were built with
            found.baked |= self._baked_in([*args, *kwargs.values()])
        if _keras_model(qualname):
            found.baked |= self._layer_fits(found, [*args, *kwargs.values()])
        if role.kind is Kind.PIPELINE:
            found.steps = sorted(self._estimators([*args, *kwargs.values()]))
            if found.name == "ColumnTransformer":
                transformers = argument(args, kwargs, 0, "transformers")
                found.selects = self.selection(list(transformers.items or ()), kwargs, named=True)
            else:
                self.select_first(found, [*args, *kwargs.values()])
        elif role.kind is Kind.SEARCH:
            found.steps = sorted(self._estimators([argument(args, kwargs, 0, "estimator")]))
        elif role.kind is Kind.MODEL:
            found.wrapped = sorted(self._estimators([argument(args, kwargs, 0, "estimator", "base_estimator")]))
        return Value(objects=frozenset({found.id}))

    def _learned_in(self, function: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[int]:
        """What the learners a function reads from outside it (not its own parameters) learned."""
        own = {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}
        body = [function.body] if isinstance(function, ast.Lambda) else function.body
        read = {
            n.id: n
            for part in body
            for n in ast.walk(part)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own
        }
        objects = frozenset().union(*(self.ev(n).objects for n in read.values()))
        return frozenset().union(*(self.record.objects[o].fits for o in objects))

    def _baked_in(self, given: list[Value]) -> frozenset[int]:
        """The statistics built into the steps given (directly or in a list) to a step that chains them."""
        found: frozenset[int] = frozenset()
        for value in given:
            if value.data is not None:  # Normalize(mean, std) of sums accumulated batch by batch: their statistics
                found |= value.data.fits
            for oid in value.objects | self.iterate(value).objects:
                found |= self.record.objects[oid].baked
        return found

    def _takes_statistics(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> bool:
        """Whether the function given to a FunctionTransformer, written in the file, takes a statistic of the rows
        it is given (`lambda A: (A - A.mean(0)) / A.std(0)`); np.log1p or a per-row one (`A.max(axis=1)`) does not."""
        given: ast.expr | None = node.args[0] if node.args else None
        for keyword in node.keywords:
            if keyword.arg == "func":
                given = keyword.value
        if isinstance(given, ast.Lambda):
            return _column_statistic(given)
        function = argument(args, kwargs, 0, "func")
        if len(function.functions) == 1:
            return _column_statistic(self.function_node(next(iter(function.functions))))
        return False

    def selection(self, specs: list[Value], kwargs: dict[str, Value], named: bool) -> Columns:
        """The columns a column transformer uses: those its (name,) transformer, columns entries name; every
        column with `remainder="passthrough"` (or an estimator); unknown when one entry names them otherwise."""
        remainder = kwargs.get("remainder")
        if remainder is not None and (remainder.const == "passthrough" or remainder.objects):
            return Columns()
        kept: list[str] = []
        listed: Columns | None = None  # lists made from a table's names (`[c for c in df.columns if c != "y"]`)
        for spec in specs:
            parts = spec.items
            entry = parts[-1] if parts is not None and len(parts) == (3 if named else 2) else None
            columns = entry.strings() if entry is not None else None
            if columns is not None:
                kept += columns
            elif entry is not None and entry.names_of is not None and not entry.names_of.opaque:
                listed = entry.names_of if listed is None else listed.union(entry.names_of)
            else:
                return Columns(opaque=True)
        if listed is None:
            return Columns(frozenset(kept))
        return listed.union(Columns(frozenset(kept))) if kept else listed

    def select_first(self, found: Obj, given: list[Value]) -> None:
        """A pipeline whose first step is a column transformer uses only that step's columns, as it does when that
        step is a class of the file whose transform() returns a list of columns (`return X[self.cols]`), or a
        FunctionTransformer of a function that does (`def pick(X): return X[FEATS]`)."""
        ordered = self._steps_in_order(given)
        if ordered and ordered[0].qualname.startswith(LOCAL):
            found.selects = self._class_selects(ordered[0])
        elif ordered:
            found.selects = ordered[0].selects
        elif found.steps:
            found.selects = self.record.objects[found.steps[0]].selects

    def _function_selects(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Columns | None:
        """The columns a FunctionTransformer keeps whose function, a lambda or one of the file's, returns its
        table's columns named by a list (`lambda X: X[FEATS]`); None for any other function."""
        given: ast.expr | None = node.args[0] if node.args else None
        for keyword in node.keywords:
            if keyword.arg == "func":
                given = keyword.value
        body: list[ast.stmt]
        if isinstance(given, ast.Lambda):
            params, body = given.args.args, [ast.Return(value=given.body)]
        else:
            function = argument(args, kwargs, 0, "func")
            if len(function.functions) != 1:
                return None
            defined = self.function_node(next(iter(function.functions)))
            params, body = defined.args.args, _statements(defined)
        if not params or len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            return None
        return self._columns_returned(body[0].value, params[0].arg, None)

    def _steps_in_order(self, values: list[Value], depth: int = 0) -> list[Obj]:
        """The steps a pipeline is given, in the order written: estimators and objects of the file's classes."""
        found: list[Obj] = []
        for value in values:
            items = list(value.items) if value.items is not None else []
            for oid in sorted(value.objects):
                obj = self.record.objects[oid]
                if obj.qualname == CONTAINER and depth < 3:
                    items = [*items, *obj.entries.values()] if obj.entries else [*items, obj.elements]
                elif obj.role is not None or obj.qualname.startswith(LOCAL):
                    found.append(obj)
            if items and depth < 3:
                found += self._steps_in_order(items, depth + 1)
        return found

    def _class_selects(self, step: Obj) -> Columns | None:
        """The columns a step of the file's own class keeps, when its transform() is one return of the table's
        columns named by a list: written there, or held in an attribute the constructor was given. None else."""
        if not step.qualname.startswith(LOCAL):
            return None
        fid = self.local_method(step.qualname, "transform")
        if fid is None:
            return None
        method = self.function_node(fid)
        params = [a.arg for a in method.args.args]
        body = _statements(method)
        if len(params) < 2:
            return None
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            # columns picked by a list held by the object (`d[self.feature_names_]`): some columns, not known which
            picks = any(
                isinstance(n, ast.Subscript)
                and isinstance(n.slice, ast.Attribute)
                and any(isinstance(r, ast.Name) and r.id == params[0] for r in ast.walk(n.slice))
                for n in ast.walk(method)
            )
            return Columns(opaque=True) if picks else None
        return self._columns_returned(body[0].value, params[1], (params[0], step))

    def _columns_returned(self, taken: ast.expr, table: str, owner: tuple[str, Obj] | None) -> Columns | None:
        """The columns of parameter ``table`` that ``taken`` returns, named by a list: written there, held by a
        name, or held in an attribute of ``owner`` (its `self` and object) its constructor was given. A name
        or attribute whose list is not known keeps some columns, not known which; None for any other return."""
        if isinstance(taken, ast.Subscript) and isinstance(taken.value, ast.Attribute) and taken.value.attr == "loc":
            index = taken.slice  # X.loc[:, self.cols]
            if not (isinstance(index, ast.Tuple) and len(index.elts) == 2 and isinstance(index.elts[0], ast.Slice)):
                return None
            taken = ast.Subscript(value=taken.value.value, slice=index.elts[1], ctx=ast.Load())
        if not (isinstance(taken, ast.Subscript) and isinstance(taken.value, ast.Name) and taken.value.id == table):
            return None
        named = taken.slice
        if isinstance(named, ast.Name):  # X[FEATS], FEATS = ["a", "b"] in the file: what it holds when the step is made
            held = self.lookup(named)
            if held.names_of is not None:  # FEATS = [c for c in df.columns if c != "id"]: a table's names, less some
                return held.names_of
            strings = held.strings()
            return Columns(frozenset(strings)) if strings else Columns(opaque=True)
        if isinstance(named, ast.List | ast.Tuple):
            return _listed(named)
        if owner is None or not isinstance(named, ast.Attribute) or not isinstance(named.value, ast.Name):
            return None
        if named.value.id != owner[0]:
            return None
        entry = owner[1].entries.get(named.attr)
        strings = entry.strings() if entry is not None else None
        return Columns(frozenset(strings)) if strings else Columns(opaque=True)

    def _layer_fits(self, model: Obj, values: list[Value]) -> frozenset[int]:
        """What the adapted layers among a Keras model's layers learned: `Sequential([norm, ...])`, or a functional
        `Model(inputs, outputs)` whose outputs went through `norm(inputs)`; the model applies it to every row given.
        Each layer is noted as the model's, so an adapt() after the model is built reaches it too."""
        learned: set[int] = set()
        for oid in self._estimators(values):
            layer = self.record.objects[oid]
            if layer.role is not None and layer.role.kind is Kind.LEARNER:
                learned |= layer.fits
                self._layers_in.setdefault(oid, set()).add(model.id)
        for value in values:
            if value.data is not None:
                learned |= value.data.fits
        return frozenset(learned)

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
        counter = (qualname.partition(".")[0], qualname.rpartition(".")[2]) in COUNTERS
        fit_method = "update" if counter else "build_vocab"
        found = self.obj(node, qualname, Role(Kind.LEARNER, "a vocabulary and embeddings", fit_method=fit_method))
        texts = self.rows_of(
            [argument(args, kwargs, 0, "sentences", "documents", "corpus", "corpus_iterable", "samples", "iterable")]
        )
        per_item = counter and bool(self.loops) and not _over_items(node)
        if texts is not None and not per_item:  # Counter(doc) in a loop over the texts counts one text's words
            fid = self.fit(node, f"{found.name}(...)", "the vocabulary and its counts", Strength.STATISTICS, texts)
            found.fits = frozenset({fid})
        return Value(objects=frozenset({found.id}))

    def tokenizer_trained(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """AutoTokenizer.from_pretrained(...).train_new_from_iterator(texts, ...): a tokenizer whose vocabulary is
        learned from ``texts``, applied when called (tok(texts)["input_ids"]) as a fitted vectorizer is."""
        found = self.obj(node, HF_TOKENIZER, Role(Kind.LEARNER, "the vocabulary", fit_method=HF_TRAIN_NEW))
        texts = self.rows_of([argument(args, kwargs, 0, "text_iterator")])
        if texts is not None:
            fid = self.fit(node, f"{HF_TRAIN_NEW}()", "the vocabulary", Strength.STATISTICS, texts)
            found.fits = frozenset({fid})
        return Value(objects=frozenset({found.id}))

    def object_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value | None:
        if found.qualname == CONTAINER:
            return self._container_method(found, name, args, kwargs, node)
        if found.qualname == SCORE_TABLE:
            return self._score_table_method(found, name, args, kwargs, node)
        if found.qualname in (NEIGHBOURS, OTHER_NEIGHBOURS, NOT_SELF) and name in _RESHAPES:
            return Value(objects=frozenset({found.id}))  # ind[mask].reshape(n, k): the same indices, shaped anew
        method = self.local_method(found.qualname, name) if found.qualname.startswith(LOCAL) else None
        if method is not None:  # a method of the file's own class: walked with self bound
            return self.call_function(method, [Value(objects=frozenset({found.id})), *args], dict(kwargs), node)
        if found.qualname == HF_TRAINER:
            return self._hf_trainer_method(found, name, args, kwargs, node)
        if found.qualname == LIGHTNING_TRAINER:
            return self._lightning_method(found, name, args, kwargs, node)
        if found.qualname == DATASET_DICT:
            return self._dataset_dict_method(found, name, args, kwargs, node)
        if found.qualname == ARGUMENT_PARSER:
            return self._parser_method(found, name, args, kwargs, node)
        if found.qualname.startswith(LOCAL) and name == "fit_transform":
            inherited = self._inherited_fit_transform(found, args, kwargs, node)
            if inherited is not None:
                return inherited
        if found.qualname == TRIAL:  # trial.suggest_float("C", ...): a setting drawn, no rows
            return NOTHING
        if found.qualname == STUDY:
            return self.optimize(found, args, node) if name == "optimize" else NOTHING
        if found.qualname == RAY_TUNER and name == "fit" and isinstance(found.node, ast.Call):
            # tune.Tuner(trainable, param_space=...).fit(): the trainable walked once per trial, what it reports the
            # scores the best result is picked by
            self.optimize(found, [], node, "Tuner.fit()", found.node)
            return Value(objects=frozenset({found.id}))
        role = found.role
        kind = role.kind if role is not None else None
        if kind is Kind.SPLITTER and name == "split":
            x = argument(args, kwargs, 0, "X").data
            made_at = found.node if found.node is not None else node  # KFold(shuffle=True) is where it is decided
            found.split = self.split(made_at, found.name, shuffles(found), x, bool(role and role.temporal))
            # a PredefinedSplit's held-out fold is whatever rows it was told: the test part, for all the walk knows
            # (and a splitter of one split deals the test part once: `GroupShuffleSplit(n_splits=1)`)
            self.record.splits[found.split].folds = not found.qualname.endswith(".PredefinedSplit") and not _one_split(
                found
            )
            given = len(args) > 2 or "groups" in kwargs
            self._by_group(found, argument(args, kwargs, 2, "groups") if given else None)
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
            return self._transform(found, args, kwargs, node)
        if name in _PREDICTS:
            return self._predict(found, args, kwargs, name, node)
        if name == "test" and found.qualname.startswith("surprise.") and args:
            return self._predict(found, args, kwargs, name, node)  # algo.test(testset): its rows' predictions
        if name == "fit_predict":
            self._fit(found, name, args, kwargs, node, transform=False)
            return self._predict(found, args, kwargs)
        if name in _SCORES:
            x = argument(args, kwargs, 0, "X", "x").data
            y = argument(args, kwargs, 1, "y").data
            if x is None and y is None:
                return None
            x = self._refitted(found, x, node) if x is not None else None
            eid = self.evaluation(node, f"{found.name}.{name}", frozenset({found.id}), x, y)
            return Value(scores=frozenset({eid}))
        if name == "add" and _keras_model(found.qualname):  # model.add(norm): a layer adapted to rows
            found.baked |= self._layer_fits(found, args)
            return Value(objects=frozenset({found.id}))
        if name in ("set_params", "compile", "set_output", "get_booster", "copy"):
            if name == "set_params":  # set_params(**search.best_params_): built from what was chosen
                found.baked |= self.stats_in(list(kwargs.values()))
            return Value(objects=frozenset({found.id}))
        if name in _IN_SAMPLE and found.trains:
            return self._in_sample(found)
        if name == "get_best_models" and found.qualname.startswith(("keras_tuner.", "kerastuner.")):
            models = {found.id}
            wanted = argument(args, kwargs, 0, "num_models").const
            if type(wanted) is int and wanted > 1:  # the other trials' models beside the best: other settings
                others = self.obj(node.func, found.qualname, found.role)
                others.trains, others.node = found.trains, found.node
                models.add(others.id)
            best = self.container(node, Value(objects=frozenset(models)))  # the trials' models, best first
            return Value(objects=frozenset({best.id}))
        if name in _NEIGHBOUR_QUERIES or (name == "query" and found.qualname.endswith(_NEIGHBOUR_TREES)):
            return self._neighbours(found, args, kwargs, node)
        if name in _IMPORTANCE_METHODS and found.trains:
            return self._importances(found, name, node)
        if found.fits:  # get_feature_names_out(), most_common(), get_vocab(): what the learner learned
            return Value(stats=found.fits)
        return None

    def _neighbours(self, found: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """kneighbors(X): distances and the indices of the fitted rows nearest each row of X. Asked of no rows,
        they are the fitted rows' neighbours with each row left out of its own (scikit-learn's rule)."""
        given = bool(args) or "X" in kwargs
        queried = argument(args, kwargs, 0, "X")
        others = not given or queried.consts == frozenset({None})
        indices = self.obj(node, OTHER_NEIGHBOURS if others else NEIGHBOURS)
        indices.elements = Value(objects=frozenset({indices.id}))  # each row's indices: `for row in ind`
        found_at = Value(objects=frozenset({indices.id}), stats=found.fits)
        distance = kwargs.get("return_distance")
        if distance is not None and distance.const is False:
            return found_at
        return Value(stats=found.fits, items=(Value(stats=found.fits), found_at))

    def _score_table_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """A table of scores sorted or ranked by its columns (`table.sort_values("val")`, `nlargest(1, "test")`):
        a choice among the scores of the columns named; any other method gives the table again."""
        every = frozenset().union(*(v.scores for v in found.entries.values()))
        if name in ("sort_values", "nlargest", "nsmallest"):
            by = argument(args, kwargs, 0 if name == "sort_values" else 1, "by", "columns").strings()
            named = [found.entries[c] for c in by or () if c in found.entries]
            chosen = frozenset().union(*(v.scores for v in named)) if by and len(named) == len(by) else every
            self.choose(node, f".{name}()", chosen)
        elif name in ("idxmax", "idxmin", "max", "min"):  # of every column at once
            self.choose(node, f".{name}()", every, picks=name.startswith("idx"))
            return Value(scores=every)
        return Value(objects=frozenset({found.id}))

    def object_attribute(self, found: Obj, attr: str, node: ast.AST | None = None) -> Value:
        if found.qualname == SCORE_TABLE:  # table.val: that column's scores; table.loc: the table, to index
            if attr in found.entries:
                return found.entries[attr]
            if attr in ("loc", "iloc", "at", "iat", "T", "values", "style"):
                return Value(objects=frozenset({found.id}))
            return Value(scores=frozenset().union(*(v.scores for v in found.entries.values())))
        if found.qualname == HF_PREDICTION_OUTPUT and attr == "metrics" and node is not None:
            # trainer.predict(ds["test"]).metrics: the model's scores of the rows it predicted
            predicted = found.entries["predictions"].data
            assert predicted is not None
            eid = self.evaluation(node, "Trainer.predict().metrics", predicted.predicted, predicted, None)
            return Value(scores=frozenset({eid}))
        if attr in found.entries:
            return found.entries[attr]
        if attr in _IN_SAMPLE and found.trains:
            return self._in_sample(found)
        if attr in _IMPORTANCES and found.trains and node is not None:
            return self._importances(found, attr, node)
        if attr == "best_estimator_" or attr == "estimator_":
            return Value(objects=frozenset({found.id}))
        if attr == "best_trial" and found.qualname == STUDY:  # its .params: read as the study's own
            return Value(objects=frozenset({found.id}))
        if attr in _CHOICES.get(found.qualname, _SEARCH_CHOICES) and found.chosen is not None:
            return Value(stats=frozenset({found.chosen}))
        if attr == "history" and found.qualname == KERAS_HISTORY and node is not None:
            # h.history["val_accuracy"]: the model's scores of the rows validation_split held out
            models = found.params["#model"].objects
            x = found.entries["#validation"].data
            what = f"{self.record.objects[min(models)].name}.fit(validation_split=...)"
            return Value(scores=frozenset({self.evaluation(node, what, models, x, None)}))
        if attr in ("best_score_", "cv_results_") and found.evaluation is not None:
            self.record.evaluations[found.evaluation].shown = True
            return Value(scores=frozenset({found.evaluation}))
        watched = [(x, y) for t in sorted(found.trains) for x, y in self.record.trains[t].watched if x is not None]
        if attr in ("best_score_", "best_score", "evals_result_") and watched and node is not None:
            # clf.best_score_["valid_0"]["auc"] of a model that watched an eval_set: its score of the rows watched
            x, y = watched[-1]
            return Value(scores=frozenset({self.evaluation(node, f"{found.name}.{attr}", frozenset({found.id}), x, y)}))
        if attr in ("named_steps", "steps", "estimators_"):
            return Value(objects=frozenset(found.steps))
        if attr.endswith("_") and not attr.startswith("_") and found.fits:  # learned statistics (mean_, scale_)
            return Value(stats=found.fits)
        if attr in _DOCUMENT_VECTORS and found.fits:
            # d2v.dv[i]: the vector learned for each document trained on, one per row of those documents
            trained = [self.record.fits[f].data for f in sorted(found.fits)]
            rows = join_datas([d for d in trained if d is not None])
            if rows is not None:
                return Value(data=self.with_fits(rows, found.fits), stats=found.fits)
        if attr in _LEARNED_ATTRIBUTES and found.fits:  # an ImageDataGenerator's gen.mean and gen.std
            return Value(stats=found.fits)
        return NOTHING

    def hf_trainer(self, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A Hugging Face Trainer: its model, arguments and data sets kept, for train() and evaluate() to read."""
        found = self.obj(node, HF_TRAINER, Role(Kind.MODEL))
        found.node = node
        found.params.update(dict(zip(_HF_TRAINER_ARGS, args, strict=False)))
        found.params.update(kwargs)
        return Value(objects=frozenset({found.id}))

    def _hf_trainer_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """train() trains on train_dataset watching eval_dataset, and keeps the checkpoint that scores best on it
        when the arguments say load_best_model_at_end (or an EarlyStoppingCallback stops by it); evaluate() scores
        the data set it is given (eval_dataset without one); predict() gives predictions of the rows given."""
        if name == "train":
            x = self.rows_of([found.params.get("train_dataset", NOTHING)])
            train = self.train(node, "Trainer.train", found, x, None)
            watched = self.rows_of([found.params.get("eval_dataset", NOTHING)])
            if watched is not None:
                train.watched = [(watched, None)]
                train.chooses_by_watched = self._keeps_best(found)
            found.trains = frozenset({train.id})
            return NOTHING
        if name == "evaluate":
            given = argument(args, kwargs, 0, "eval_dataset")
            rows = self.rows_of([given if given is not NOTHING else found.params.get("eval_dataset", NOTHING)])
            eid = self.evaluation(node, "Trainer.evaluate", frozenset({found.id}), rows, None)
            return Value(scores=frozenset({eid}))
        if name == "predict":
            rows = self.rows_of([argument(args, kwargs, 0, "test_dataset")])
            if rows is None:
                return NOTHING
            predicted = replace(rows, predicted=frozenset({found.id}), columns=None, mask=None, fed=rows.fits)
            # its .predictions, its .label_ids, and .metrics: the scores of those rows (read where they are asked)
            output = self.obj(node, HF_PREDICTION_OUTPUT)
            output.entries.update(predictions=Value(data=predicted), label_ids=Value(data=rows))
            return Value(data=predicted, objects=frozenset({output.id}))
        return NOTHING

    def lightning_trainer(self, kwargs: dict[str, Value], node: ast.Call) -> Value:
        """A Lightning Trainer: its callbacks kept, for fit() to read which metric they keep or stop by."""
        found = self.obj(node, LIGHTNING_TRAINER)
        found.params.update(kwargs)
        return Value(objects=frozenset({found.id}))

    def _lightning_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """fit(model, train_dataloaders, val_dataloaders) trains the model on the training loaders' rows, watching
        the validation loaders' (choosing by them when a callback keeps or stops by a validation metric);
        test() and validate() score the model on the loaders they are given."""
        model = argument(args, kwargs, 0, "model")
        module = kwargs.get("datamodule", NOTHING)
        if module is NOTHING and self._datamodules(argument(args, kwargs, 1, "train_dataloaders")):
            module = args[1]  # trainer.fit(model, dm): a data module given in the loaders' place
        if name == "fit":
            trained = [self.record.objects[o] for o in sorted(model.objects)] or [self.obj(node, "lightning model")]
            x = self.rows_of([argument(args, kwargs, 1, "train_dataloaders")])
            watched = self.rows_of([argument(args, kwargs, 2, "val_dataloaders")])
            if module is not NOTHING:
                x = self._module_rows(module, "train_dataloader", node)
                watched = self._module_rows(module, "val_dataloader", node)
            for target in trained:
                train = self.train(node, "Trainer.fit", target, x, None)
                if watched is not None:
                    train.watched = [(watched, None)]
                    train.chooses_by_watched = self._lightning_keeps_best(found)
                target.trains = frozenset({train.id})
            found.entries["#model"] = Value(objects=frozenset(m.id for m in trained))  # what test() scores unless told
            return NOTHING
        if name in ("test", "validate"):
            rows = self.rows_of([argument(args, kwargs, 1, "dataloaders")])
            if module is not NOTHING:
                rows = self._module_rows(module, f"{'test' if name == 'test' else 'val'}_dataloader", node)
            models = model.objects or found.entries.get("#model", NOTHING).objects
            eid = self.evaluation(node, f"Trainer.{name}", models, rows, None)
            return Value(scores=frozenset({eid}))
        if name == "predict":
            rows = self.rows_of([argument(args, kwargs, 1, "dataloaders")])
            if rows is None or not model.objects:
                return NOTHING
            return Value(data=replace(rows, predicted=frozenset(model.objects), columns=None, mask=None, fed=rows.fits))
        return NOTHING

    def _datamodules(self, value: Value) -> list[Obj]:
        """The file's own LightningDataModule objects among ``value`` (classes with a train_dataloader())."""
        found = [self.record.objects[o] for o in sorted(value.objects)]
        return [o for o in found if o.qualname.startswith(LOCAL) and self.local_method(o.qualname, "train_dataloader")]

    def _module_rows(self, module: Value, loader: str, node: ast.Call) -> Data | None:
        """The rows a data module's ``loader`` method yields, its setup() walked first (once), as Lightning calls it."""
        given: list[Value] = []
        for found in self._datamodules(module):
            this = Value(objects=frozenset({found.id}))
            setup = self.local_method(found.qualname, "setup")
            if setup is not None and "#set up" not in found.entries:
                found.entries["#set up"] = Value(consts=frozenset({True}))
                self.call_function(setup, [this], {}, node)
            method = self.local_method(found.qualname, loader)
            if method is not None:
                given.append(self.call_function(method, [this], {}, node))
        return self.rows_of(given)

    def _lightning_keeps_best(self, found: Obj) -> bool:
        """Whether a callback of the Trainer keeps the best checkpoint or stops by a validation metric: its monitor
        names one (`val_loss`, `valid/acc`) or cannot be read. A checkpoint without a monitor keeps the last one."""
        callbacks = found.params.get("callbacks")
        if callbacks is None:
            return False
        for oid in sorted(set(callbacks.objects) | set(self.iterate(callbacks).objects)):
            callback = self.record.objects[oid]
            if callback.qualname != LIGHTNING_CALLBACK:
                continue
            monitor = callback.params.get("monitor")
            if monitor is None or monitor.consts == {None}:
                continue
            named = monitor.const
            if not isinstance(named, str) or "val" in named.lower():
                return True
        return False

    def _keeps_best(self, found: Obj) -> bool:
        """Whether a Trainer keeps the checkpoint that scores best on its eval_dataset, or stops by that score."""
        for oid in found.params.get("args", NOTHING).objects:
            best = self.record.objects[oid].entries.get("load_best_model_at_end")
            if best is not None and best.const is True:
                return True
        callbacks = found.params.get("callbacks")
        if callbacks is None:
            return False
        stoppers = self._estimators([callbacks]) | set(callbacks.objects)
        return any((r := self.record.objects[oid].role) is not None and r.kind is Kind.CALLBACK for oid in stoppers)

    def dataset_dict(self, node: ast.Call, data: Data, whole: bool = False) -> Value:
        """load_dataset() without split=: the data set's published splits, each its own side of them (ds["train"],
        ds["test"]); another key gives every row. ``whole``: a data set of local files given as one, whose one
        split, "train", is every row of them."""
        found = self.obj(node, DATASET_DICT)
        sid = self.split(node, "load_dataset's splits", False, data, published=True)
        for key in _PUBLISHED_SPLITS:
            found.entries[key] = Value(data=data.with_parts(Part(sid, key)))
        if whole:
            found.entries["train"] = Value(data=data)
        found.elements = Value(data=data)
        return Value(objects=frozenset({found.id}))

    def _dataset_dict_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """ds.map(...), ds.filter(...), ds.remove_columns(...): each split changed as a Dataset's method changes it,
        still kept apart under its name."""
        made = self.obj(node, DATASET_DICT)
        for key, value in found.entries.items():
            made.entries[key] = self.data_method(value, name, args, kwargs, node) if value.data is not None else value
        if found.elements.data is not None:
            made.elements = self.data_method(found.elements, name, args, kwargs, node)
        return Value(objects=frozenset({made.id}))

    def _parser_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        """An argparse parser: each option's default kept under its name (`add_argument("--data-dir",
        default="data")` is `args.data_dir`), what parse_args() gives when the script runs without arguments; an
        option of no known default is not known."""
        if name in ("add_argument_group", "add_mutually_exclusive_group"):
            return Value(objects=frozenset({found.id}))  # its options are the parser's
        if name == "add_argument":
            flags = [str(a.const) for a in args if isinstance(a.const, str)]
            dest = kwargs["dest"].const if "dest" in kwargs and isinstance(kwargs["dest"].const, str) else None
            if dest is None and flags:
                long = next((f for f in flags if f.startswith("--")), None)
                dest = (long or flags[0]).lstrip("-").replace("-", "_")
            if dest:
                action = kwargs.get("action", NOTHING).const
                default = kwargs.get("default")
                if default is None and action in ("store_true", "store_false"):
                    default = Value(consts=frozenset({action == "store_false"}))
                elif default is None and flags and flags[0].startswith("-"):
                    default = Value(consts=frozenset({None}))  # an option not given is None
                found.entries[dest] = default if default is not None else NOTHING
            return NOTHING
        if name == "set_defaults":
            found.entries.update((k, v) for k, v in kwargs.items() if k != "**")
            return NOTHING
        if name in ("parse_args", "parse_known_args", "parse_intermixed_args"):
            namespace = self.obj(node, ARGUMENTS)
            if not args and "args" not in kwargs:  # arguments given in the code may set any option: none known
                namespace.entries.update(found.entries)
            parsed = Value(objects=frozenset({namespace.id}))
            return Value(items=(parsed, NOTHING)) if name == "parse_known_args" else parsed
        return NOTHING

    def _inherited_fit_transform(
        self, found: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value | None:
        """fit_transform of the file's own class that defines fit and transform but not fit_transform: inherited
        (TransformerMixin's), it is fit(X, y) then transform(X), so both are walked as that call would run them."""
        fit = self.local_method(found.qualname, "fit")
        transform = self.local_method(found.qualname, "transform")
        if fit is None or transform is None:
            return None
        this = Value(objects=frozenset({found.id}))
        self.call_function(fit, [this, *args], dict(kwargs), node)
        x = args[:1] if args else []
        given = {k: v for k, v in kwargs.items() if k == "X"} if not args else {}
        return self.call_function(transform, [this, *x], given, node)

    def _importances(self, found: Obj, attr: str, node: ast.AST) -> Value:
        """A trained model's importance of each column (feature_importances_, coef_): learned from the rows it was
        trained on, as a selector's scores are, so columns picked by it were picked with those rows."""
        trained = [t.x for tid in sorted(found.trains) if (t := self.record.trains[tid]).x is not None]
        if not trained:
            return NOTHING
        rows = trained[0]
        for more in trained[1:]:
            rows = rows.join(more)
        fid = self.fit(node, f"{found.name}.{attr}", "which columns predict the label", Strength.TARGET, rows)
        return Value(stats=frozenset({fid}))

    def optimize(
        self,
        found: Obj,
        args: list[Value],
        node: ast.Call,
        what: str = "study.optimize()",
        written: ast.Call | None = None,
    ) -> Value:
        """``study.optimize(objective, n_trials=50)``: the objective walked as the body of a loop over trials
        (each trial a setting), and the study's choice of the best trial made among the scores it returns (or
        reports, Ray Tune's `tune.report(...)`). An objective that cross-validates makes the study a search: its
        best parameters are chosen on those rows. ``written``: the call that was given the objective, where it is
        not ``node`` (`Tuner(trainable, ...)`, then `.fit()`)."""
        given_at = written if written is not None else node
        named = (k.value for k in given_at.keywords if k.arg in ("func", "fn", "trainable", "run_or_experiment"))
        objective = given_at.args[0] if given_at.args else next(named, None)
        if objective is None:
            return NOTHING
        lid, _ = self.key_id("loop", node)
        self.loops.append(lid)
        self.reports.append(NOTHING)
        try:
            trial = Value(objects=frozenset({self.obj(node, TRIAL).id}))
            if isinstance(objective, ast.Lambda):  # study.optimize(lambda t: objective(t, X_tr, y_tr))
                result = self.call_lambda(objective, [trial])
            else:
                given = args[0] if given_at.args and args else self.ev(objective)
                result = NOTHING
                for fid in sorted(given.functions):
                    result = result.join(self.call_function(fid, [trial], {}, node))
                for oid in sorted(given.objects):  # Objective(X_tr, y_tr, X_ev, y_ev): its __call__, with self bound
                    made = self.record.objects[oid]
                    if made.qualname == PARTIAL:  # partial(objective, X_ev=X_te, y_ev=y_te): called with its arguments
                        result = result.join(self.call_value(Value(objects=frozenset({oid})), [trial], {}, node))
                        continue
                    call = self.local_method(made.qualname, "__call__") if made.qualname.startswith(LOCAL) else None
                    if call is not None:
                        result = result.join(
                            self.call_function(call, [Value(objects=frozenset({oid})), trial], {}, node)
                        )
            result = result.join(self.reports[-1])
        finally:
            self.loops.pop()
            self.reports.pop()
        self.choose(node, what, self.scores_in([result]))
        validated = [
            e.x for e in self.record.evaluations.values() if lid in e.loops and e.cross_validation and e.x is not None
        ]
        if validated:
            rows = validated[0]
            for more in validated[1:]:
                rows = rows.join(more)
            chosen = self.fit(node, what, "the hyper-parameters", Strength.TARGET, rows, reported=False)
            self.record.fits[chosen].chooses = True
            found.chosen = chosen
        return NOTHING

    def _items_changed(self, receiver: ast.expr, found: Obj, name: str, args: list[Value]) -> None:
        """A list whose items were written out, changed in place (`FEATS.append("y")`): its name holds the new
        items, so the columns it names are known with the change, or unknown when the change is. In a loop, only
        rows that are the same in every pass are added (`for _ in range(3): xs.append(X + noise)`: copies of X,
        once per pass walked); anything else stays as written, the list's elements taking what each pass adds."""
        if not isinstance(receiver, ast.Name) or not args:
            return
        held = self.lookup(receiver)
        if held.items is None or found.id not in held.objects:
            return
        if self.loops and name == "append" and _models_only(args[-1]):
            # models = [LogisticRegression()]; for C in Cs: models.append(SVC(C=C)): the model each pass builds
            # is one more item (one for every pass, as the loop's own model is), so going over the list meets it
            if args[-1] not in held.items:
                self.mutate(receiver, replace(held, items=(*held.items, args[-1])))
            return
        # for k in [1, 7]: cols.append(f"lag_{k}"): a loop walked item by item makes each pass once, in order, so
        # what it adds is known as written
        once_each = len(self.item_passes) >= len(self.loops)
        if self.loops and not once_each and not (name == "append" and self._same_rows_each_pass(args[-1])):
            return
        items: tuple[Value, ...] | None = None
        if name in ("append", "insert"):
            items = (*held.items, args[-1])
        elif name == "extend" and args[0].items is not None:
            items = (*held.items, *args[0].items)
        elif name == "remove" and args[0].const is not None:
            items = tuple(i for i in held.items if i.const != args[0].const)
        self.mutate(receiver, replace(held, items=items))

    def _positions_added(self, found: Obj, node: ast.Call, added: Value) -> None:
        """`labeled = list(rng.choice(pool_idx, 100))`, then `labeled.extend(query.tolist())`: a list made of rows
        (positions) holds the rows added to it too, so `X[labeled]` takes them."""
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        if not isinstance(receiver, ast.Name) or added.data is None:
            return
        held = self.lookup(receiver)
        if held.data is None or found.id not in held.objects:
            return
        self.mutate(receiver, replace(held, data=held.data.join(replace(added.data, each_row=False))))

    def _same_rows_each_pass(self, value: Value) -> bool:
        """Whether ``value`` is rows of a table (not one row, not predictions) that no loop being walked reads or
        cuts anew in each pass: the same rows, whichever pass adds them."""
        data = value.data
        if data is None or value.objects or data.each_row or data.predicted or not data.rows:
            return False
        if not all(self._counts_passes(self.loop_nodes.get(lid)) for lid in self.loops):
            return False  # for chunk in reader: each pass's element is other rows
        walked = set(self.loops)
        for atom in data.rows:
            origin = self.record.origins.get(atom.origin)
            if origin is None or origin.passes & walked or origin.made_from:
                return False
            for part in atom.parts:
                split = self.record.splits.get(part.split)
                if split is None or walked & set(split.loops):
                    return False
        return True

    def _counts_passes(self, loop: ast.AST | None) -> bool:
        """Whether a loop only counts its passes: over `range(...)` or listed constants (seeds, copies), not over
        rows, batches or files."""
        if not isinstance(loop, ast.For):
            return False
        over = loop.iter
        if isinstance(over, ast.Call) and isinstance(over.func, ast.Name) and over.func.id == "range":
            return True
        if isinstance(over, ast.List | ast.Tuple):
            return all(isinstance(e, ast.Constant) for e in over.elts)
        if isinstance(over, ast.Name):
            held = self.lookup(over)
            if held.items is not None:  # SEEDS = [0, 1, 2]
                return held.data is None and all(i.data is None and not i.objects for i in held.items)
            return held.data is None and not held.objects and bool(held.consts)
        return False

    def note_appended_after_fit(self, datas: list[Data], node: ast.expr | ast.stmt) -> None:
        """Note the rows of each pass's own row or slice (`test.iloc[t:t + 1]`, `test[t]`, the `obs` of `for obs in
        test`) added in a loop after a model of that loop was trained (the next pass's model trains on them), or
        before it (the pass's model has seen the row it forecasts)."""
        if not self.loops:
            return
        lid = self.loops[-1]
        names = self.record.pass_names.get(lid, frozenset())
        trained_before = any(
            lid in t.loops and t.site.line < node.lineno and t.site.via == self.site(node).via
            for t in self.record.trains.values()
        )
        for data in datas:
            for atom in data.rows:
                if atom.parts and any(counts_from(atom.parts[-1], name) for name in names):
                    if trained_before:
                        self.record.appended_after_fit.add(atom)
                    else:
                        self.record.added_before_fit.setdefault(atom, node.lineno)

    def _own_row_read(self, x: Data, node: ast.AST) -> frozenset[tuple[int, int]]:
        """(the line adding it, this line) where a forecast's inputs hold the pass's own row, added to the history
        earlier in the same pass (`history.append(test[t])`, then `model.predict(history[-5:])`): the forecast
        reads the value it forecasts."""
        if not self.loops:
            return frozenset()
        names = self.record.pass_names.get(self.loops[-1], frozenset())
        line = getattr(node, "lineno", 0)
        return frozenset(
            (added, line)
            for atom in x.rows
            for inner in narrowed_from(atom)
            if (added := self.record.added_before_fit.get(inner)) is not None
            and added < line
            and any(counts_from(inner.parts[-1], name) for name in names)
        )

    def _container_method(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call
    ) -> Value:
        if name in ("append", "insert", "extend", "remove") and isinstance(node.func, ast.Attribute):
            self._items_changed(node.func.value, found, name, args)
        if name in ("append", "add", "insert", "extend", "update", "setdefault", "appendleft"):
            value = args[-1] if args else join_all(kwargs.values())
            chosen = frozenset().union(*self.branch_stats)
            if chosen:
                # for c in X.columns: if mannwhitneyu(X[c][y == 1], X[c][y == 0])[1] < 0.01: keep.append(c)
                value = value.join(Value(stats=chosen))
            if name == "update" and value.data is not None and args:
                # words.update(t.split()) over every text: the set of words seen is learned from those rows
                what = f"{self.text(node.func)}()"
                fid = self.fit(node, what, "the vocabulary", Strength.STATISTICS, value.data)
                value = Value(stats=frozenset({fid}))
            if name in ("extend", "update"):
                value = self.iterate(value) if name == "extend" else value
                if name == "update":
                    for oid in value.objects:
                        other = self.record.objects[oid]
                        if other.qualname == CONTAINER:
                            value = value.join(other.elements)
            if name in ("append", "extend", "insert") and self.branch_sides and value.data is not None:
                # under one branch of an if/else in a loop: the rows that branch deals to its side
                value = replace(value, data=value.data.with_parts(self.branch_sides[-1]))
            if name in ("append", "extend", "insert"):
                self._positions_added(found, node, value)
                if value.data is not None:  # history.append(test[t]) after the pass's forecast
                    self.note_appended_after_fit([value.data], node)
            found.elements = found.elements.join(value)
            return NOTHING
        if name == "sort":  # scores.sort(), results.sort(reverse=True): the scores ranked in place
            scores = self.scores_in([found.elements])
            if scores:
                picks = "key" in kwargs or not self.only_scores(found.elements)
                self.choose(node, ".sort()", scores, picks)
            return NOTHING
        if name in ("items",):
            pair = Value(items=(found.keys, found.elements))
            out = self.container(node, pair)
            if _all_entries(found):
                # {"train": X_train, "test": X_test}.items(): one pair per key, in order, so a loop or a
                # comprehension over them takes each part apart from the others
                pairs = tuple(Value(items=(Value(consts=frozenset({k})), v)) for k, v in found.entries.items())
                return Value(objects=frozenset({out.id}), items=pairs)
            return Value(objects=frozenset({out.id}))
        if name in ("values", "copy", "get", "pop", "popitem", "keys"):
            if name == "keys":
                return found.keys
            if name == "copy":
                return Value(objects=frozenset({found.id}))
            if name in ("get", "pop") and found.keys.stats:
                # stoi.get(w, 1) of a learned vocabulary, as stoi[w]: which words it knows was learned
                return found.elements.join(Value(stats=found.keys.stats))
            return found.elements
        return NOTHING

    def _given_rows(self, given: Value) -> Data | None:
        """The rows a fit, transform or predict is given: the value's own, or those of a list a loop filled with
        one element per row (`for t in df.text: texts.append(t.lower())`), as a comprehension's would be."""
        if given.data is not None or not given.objects:
            return given.data
        if not all(self.record.objects[o].qualname == CONTAINER for o in given.objects):
            return None
        element = self.iterate(given)
        # list(zip(test.user, test.item)): each element a tuple of one row's values, the rows of each column
        each = element.data if element.data is not None or element.items is None else data_of(list(element.items))
        return replace(each, each_row=False) if each is not None and each.each_row else None

    def _fit(
        self, found: Obj, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.Call, transform: bool
    ) -> Value:
        x = self._given_rows(argument(args, kwargs, 0, *X_NAMES))
        y = argument(args, kwargs, 1, *Y_NAMES).data
        if found.qualname.startswith("sentence_transformers.") and name == "fit":
            # fit(train_objectives=[(loader, loss)]) or a CrossEncoder's fit(train_dataloader=loader): the examples
            # hold the texts and their labels (or the pairs that stand for them) both
            x = self._objectives_rows(argument(args, kwargs, 0, "train_objectives", "train_dataloader"))
            y = x
        if found.qualname.startswith("sktime.") and name == "fit":
            # an sktime forecaster's fit(y, X=None, fh=None): the series first, its exogenous columns beside it
            y = argument(args, kwargs, 0, "y").data
            x = argument(args, kwargs, 1, "X").data
        if found.role is not None and found.role.rows_at_init and not args:  # OLS(y, X).fit(): given when built
            given = list(found.params.get("#args", NOTHING).items or ())
            y = argument(given, found.params, 0, "endog").data
            x = argument(given, found.params, 1, "exog").data
        survival = [kwargs[k].const for k in ("duration_col", "event_col") if k in kwargs]
        if x is not None and y is None and survival and all(isinstance(c, str) for c in survival):
            # lifelines' fit(df, duration_col="T", event_col="E"): the label is those columns, the features the rest
            labels = [str(c) for c in survival]
            y = replace(x, columns=None, sources=frozenset(labels), picked=True, mask=None)
            x = replace(x, columns=x.columns.without(labels)) if x.columns is not None else x
        kind = found.role.kind if found.role is not None else None
        pipeline_trains = kind is Kind.PIPELINE and self._trains(found)
        if kind is Kind.PIPELINE and not pipeline_trains and self._stateless(found):
            kind = Kind.STATELESS  # make_pipeline(FunctionTransformer(np.log1p), Normalizer()): learns nothing
        if found.qualname.endswith(".ImageDataGenerator") and not _featurewise(found):
            kind = Kind.STATELESS  # rotations and flips only: fit() learns nothing of the images
        what = f"{found.name}.{name}"
        if (
            kind is Kind.LEARNER
            or (kind is Kind.PIPELINE and not pipeline_trains)
            or (transform and kind is Kind.MODEL)
        ):
            learns, strength = self._learns(found, y is not None)
            fid = self.fit(node, what, learns, strength, x)
            found.fits = frozenset({fid})
            for model in self._layers_in.get(found.id, ()):  # adapted after the model was built: it applies it
                self.record.objects[model].baked |= {fid}
            if transform:
                if x is None:
                    return NOTHING
                x = selected_columns(x, found.selects) or x  # a ColumnTransformer's named columns only
                return Value(data=replace(x, fits=x.fits | {fid} | found.baked))
            return Value(objects=frozenset({found.id}))
        if kind is Kind.STATELESS or kind is Kind.SAMPLER or kind is Kind.SPLITTER or kind is Kind.CALLBACK:
            if transform and x is not None:
                # statistics given to a step when it was built (kw_args={"a_min": lo}) are in what it returns
                baked = frozenset().union(*(s.baked for s in nested_steps(self.record.objects, [found.id])))
                return Value(data=self.with_fits(x, baked))
            return Value(objects=frozenset({found.id}))
        if transform:  # a class the walk does not know: its statistics are followed, never reported
            fid = self.fit(node, what, "what this class learns", Strength.STATISTICS, x, reported=False)
            found.fits = frozenset({fid})
            return Value(data=replace(x, fits=x.fits | {fid})) if x is not None else NOTHING
        history = self._validation_split(found, kwargs, x, node, what)
        if found.role is not None and found.role.unsupervised:
            # its cluster ids or outlier flags (predict, labels_) carry the rows it was fitted on
            found.fits = frozenset({self.fit(node, what, found.role.learns, Strength.STATISTICS, x)})
        train = self.train(node, what, found, x, y)
        train.search = kind is Kind.SEARCH
        self._watched(train, found, kwargs)
        if name == "search" and found.qualname.startswith(("keras_tuner.", "kerastuner.")) and train.watched:
            objective = found.params.get("objective")
            named = objective.const if objective is not None else "val_loss"
            # the trials are ranked by the watched data's score unless the objective is a training metric
            train.chooses_by_watched = not (isinstance(named, str) and not named.startswith("val_"))
            train.search = True  # a model per trial
        found.trains = frozenset({train.id})
        if history is not None:
            return Value(objects=frozenset({found.id, history.id}))
        if kind is Kind.SEARCH:
            chosen = self.fit(node, what, "the hyper-parameters", Strength.TARGET, x, reported=False)
            self.record.fits[chosen].chooses = True
            found.chosen = chosen
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
                splitter=self._splitter(cv, node, x, kwargs.get("groups")),
                shown=False,
            )
        return Value(objects=frozenset({found.id}))

    def _state_written_out(self, qualname: str, kwargs: dict[str, Value]) -> bool:
        """Whether a learner is given all it would learn (`CountVectorizer(vocabulary=KEYWORDS)`,
        `OneHotEncoder(categories=[DAYS])`): written in the code, not computed from rows, so fitting learns nothing."""
        known = STATE_WRITTEN_OUT.get(qualname.rsplit(".", 1)[-1])
        if known is None or not qualname.startswith("sklearn."):
            return False
        option, still_learning, required = known
        given = kwargs.get(option)
        if given is None or given.consts & {None, "auto"} or not self._written_out(given):
            return False
        if self.stats_in([given]) or any(is_given(kwargs.get(o)) for o in still_learning):
            return False
        return all(kwargs.get(o) is not None and kwargs[o].consts == {v} for o, v in required)

    def _written_out(self, value: Value, depth: int = 0) -> bool:
        """Whether a value is written in the code: constants, or lists and dicts of them (no rows, nothing learned,
        nothing the walk could not read)."""
        if value.data is not None or value.stats or value.scores or value.names or value.functions or depth > 3:
            return False
        items = value.items or ()
        if not all(self._written_out(item, depth + 1) for item in items):
            return False
        for oid in value.objects:
            found = self.record.objects[oid]
            if found.qualname != CONTAINER:
                return False
            inner = [found.elements, found.keys, *found.entries.values()]
            if not all(v is NOTHING or self._written_out(v, depth + 1) for v in inner):
                return False
        return bool(value.consts or value.items is not None or value.objects)

    def _validation_split(
        self, found: Obj, kwargs: dict[str, Value], x: Data | None, node: ast.Call, what: str
    ) -> Obj | None:
        """Keras' `fit(X, y, validation_split=0.2)` on rows that are no training part: the last rows are held out,
        and the History it returns scores them when its `history` is read, the only score of rows the model did not
        train on. On a training part, a test part is kept for the score: the split only watches training. The
        model stays trained on every row given (its other scores read as before); the History's scores are those
        of the model as trained on the first rows, kept apart."""
        fraction = kwargs.get("validation_split")
        given = next((k.value for k in node.keywords if k.arg == "validation_split"), None)
        if (
            not _keras_model(found.qualname)
            or x is None
            or given is None
            or fraction is None
            or not isinstance(fraction.const, float)
            or not 0 < fraction.const < 1
            or any(p.side in TRAIN_SIDES for a in x.rows for p in a.parts)
            or self._other_side_held(x)
        ):
            return None
        sid = self.split(node, "validation_split", False, x)
        # keyed by the keyword's value, apart from the model and training of the call; no label, so the label's
        # place among the features is said once, of the call's training
        trained = self.obj(given, found.qualname, found.role)
        trained.baked = found.baked
        trained.trains = frozenset({self.train(given, what, trained, x.with_parts(Part(sid, "train")), None).id})
        history = self.obj(node, KERAS_HISTORY)
        history.params["#model"] = Value(objects=frozenset({trained.id}))
        history.entries["#validation"] = Value(data=x.with_parts(Part(sid, "validation")))
        return history

    def _other_side_held(self, x: Data) -> bool:
        """Whether a name holds rows of another side of a split ``x`` is one side of (`meta[meta.fold != 5]`
        trained on while `meta[meta.fold == 5]` is kept): a test part kept for the score, as a training part's."""
        sides = {(p.split, p.side) for a in x.rows for p in a.parts}
        splits = {split for split, _ in sides}
        for held in self.defs.values():
            rows = held.data.rows if held.data is not None else frozenset()
            if any(p.split in splits and (p.split, p.side) not in sides for a in rows for p in a.parts):
                return True
        return False

    def _stateless(self, found: Obj) -> bool:
        """Whether every step of a pipeline (nested pipelines' too) is known to learn nothing from the rows."""
        steps = [
            s
            for s in nested_steps(self.record.objects, found.steps)
            if s.role is None or s.role.kind is not Kind.PIPELINE
        ]
        return bool(steps) and all(s.role is not None and s.role.kind is Kind.STATELESS for s in steps)

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
            # also those of a pipeline nested in it (a scaler in a make_pipeline inside a column transformer)
            learners = [
                p for p in nested_steps(self.record.objects, found.steps) if p.role and p.role.kind is Kind.LEARNER
            ]
            if learners:
                strongest = max(learners, key=lambda p: list(Strength).index(p.role.strength))  # type: ignore[union-attr]
                # "each category's mean label (TargetEncoder; also StandardScaler)": what the strongest step
                # learns, named, then the other steps that learn
                others = sorted({p.name for p in learners if p.name != strongest.name})
                also = f"; also {' and '.join(others)}" if others else ""
                learns = f"{strongest.role.learns} ({strongest.name}{also})"  # type: ignore[union-attr]
                return learns, strongest.role.strength  # type: ignore[union-attr]
            return "its steps' statistics", Strength.STATISTICS
        return "a transformation fitted to the rows", Strength.TARGET if supervised else Strength.STATISTICS

    def _watched(self, train: object, found: Obj, kwargs: dict[str, Value]) -> None:
        """The data a training watches (eval_set, validation_data) and whether it chooses by it."""

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
        evaluators = [
            self.record.objects[o]
            for o in sorted(kwargs.get("evaluator", NOTHING).objects)
            if self.record.objects[o].qualname == SBERT_EVALUATOR
        ]
        for evaluator in evaluators:  # sentence-transformers' fit(evaluator=ev): scored on ev's rows as it trains
            watched.append((evaluator.entries["#rows"].data, None))
        if "X_val" in kwargs:  # FLAML's AutoML: its search keeps the learner and settings best on X_val, y_val
            y_val = kwargs.get("y_val")
            watched.append((kwargs["X_val"].data, y_val.data if y_val is not None else None))
        if not watched:
            return
        train.watched = watched
        stops = "early_stopping_rounds" in kwargs or "early_stopping_rounds" in found.params
        stops |= "X_val" in kwargs and found.qualname.startswith("flaml.")
        callbacks = kwargs.get("callbacks")
        if callbacks is not None:
            for oid in self._estimators([callbacks]) | set(callbacks.objects):
                callback = self.record.objects[oid]
                role = callback.role
                stops |= role is not None and role.kind is Kind.CALLBACK and _watches_validation(callback)
        best = kwargs.get("use_best_model") or found.params.get("use_best_model")
        if found.qualname.startswith("catboost") and not (best is not None and best.const is False):
            stops = True  # CatBoost keeps the best iteration on eval_set unless told otherwise
        if evaluators and "output_path" in kwargs:
            # it saves the checkpoint its evaluator scores best to output_path, unless told not to
            keeps = kwargs.get("save_best_model")
            stops |= not (keeps is not None and keeps.const is False)
        train.chooses_by_watched = stops

    def _objectives_rows(self, given: Value) -> Data | None:
        """The rows of sentence-transformers' training objectives, `[(loader, loss), ...]`: each pair's loader
        (its loss, built on the model, holds none); a loader given alone is its own rows."""
        pair = self.iterate(given) if given.data is None else given
        if pair.items:
            return self.rows_of([pair.items[0]])
        return self.rows_of([given])

    def _transform(self, found: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        x = self._given_rows(argument(args, kwargs, 0, *X_NAMES))
        if x is None:
            return NOTHING
        x = self._refitted(found, x, node)
        # statistics set on it by hand (test_gen.mean = gen.mean) are applied as its own
        given = self.stats_in([found.entries[a] for a in _LEARNED_ATTRIBUTES if a in found.entries])
        # prep.fit_transform(train) of a ColumnTransformer: only the columns it names (remainder dropped)
        x = selected_columns(x, found.selects) or x
        # an encoder fine-tuned on labelled examples (model.fit(...) then model.encode(texts)): its embeddings
        # carry what it learned of those labels
        learned = self._labels_learned(found) if found.trains else frozenset()
        return Value(data=replace(x, fits=x.fits | found.fits | given | found.baked | learned))

    def _refitted(self, found: Obj, x: Data, node: ast.AST | None) -> Data:
        """The rows ``x`` with what a step of ``found`` that learns anew from every batch (a FunctionTransformer
        taking the rows' mean) learns from them when ``found`` transforms, predicts or scores them."""
        if node is None:
            return x
        steps = [s for s in nested_steps(self.record.objects, [found.id]) if s.role is not None and s.role.refits]
        if not steps:
            return x
        fid = self.fit(node, f"{steps[0].name}'s function", steps[0].role.learns, Strength.STATISTICS, x)  # type: ignore[union-attr]
        return replace(x, fits=x.fits | {fid})

    def _predict(
        self,
        found: Obj,
        args: list[Value],
        kwargs: dict[str, Value],
        name: str = "predict",
        node: ast.AST | None = None,
    ) -> Value:
        x = self._given_rows(argument(args, kwargs, 0, "X", "x", "data"))
        named = found.entries["#formula"].strings() if "#formula" in found.entries else None
        if x is not None and x.columns is not None and named is not None:
            # a statsmodels formula's model given the whole table: it reads the columns its formula names
            x = replace(x, columns=x.columns.only(named), mask=None).pruned(x.columns)
        rows = (
            self._refitted(found, x, node)
            if x is not None
            else Data(frozenset(), self._series_fits(found), horizon=True)
            if _horizon(found, name, args, kwargs)
            else Data(frozenset())
        )
        # a model's own predictions, made by it (not out of fold, whatever its features were)
        rows = replace(
            rows, predicted=frozenset({found.id}), columns=None, mask=None, fed=rows.fits, cross_validated=False
        )
        if x is not None and node is not None:
            rows = replace(rows, reads_own=self._own_row_read(x, node))
        if found.role is not None and found.role.unsupervised:
            rows = replace(rows, fits=rows.fits | found.fits)
        elif x is not None:
            # what a model learned of its training rows' labels is in its predictions: used as features (a stack
            # of models fitted on every row, then split), they carry those labels; scored, they are its scores
            rows = replace(rows, fits=rows.fits | self._labels_learned(found))
        if node is not None and (name.startswith("staged_") or _PREDICT_SETTINGS & kwargs.keys()):
            # the predictions of the first n trees (staged_predict, num_iteration=n): n is a setting of its own,
            # and a staged prediction yields one per n (loop 0: its own loop over the numbers of trees)
            loops = (*self.loops, 0) if name.startswith("staged_") else tuple(self.loops)
            place = f"{getattr(node, 'lineno', 0)}:{getattr(node, 'col_offset', 0)}"
            rows = replace(rows, tuned=rows.tuned | {(place, loops)})
        return Value(data=rows)

    def _labels_learned(self, found: Obj) -> frozenset[int]:
        """A fit for each supervised training of ``found``: the labels of the rows it was trained on."""
        fids = set()
        for tid in sorted(found.trains):
            trained = self.record.trains[tid]
            node = self.train_nodes.get(tid)
            if trained.y is None or trained.rows is None or node is None:
                continue
            fid = self.fit(node, trained.what, LABELS_LEARNED, Strength.TARGET, trained.rows, kind="labels learned")
            fids.add(fid)
        return frozenset(fids)

    def _in_sample(self, found: Obj) -> Value:
        """A series model's in-sample predictions (fittedvalues, predict_in_sample()): of the rows it was trained
        on, each made with those rows seen."""
        rows: Data | None = None
        for tid in sorted(found.trains):
            series = self.record.trains[tid].rows
            if series is not None:
                rows = series if rows is None else rows.join(series)
        if rows is None:
            return NOTHING
        made = replace(rows, predicted=frozenset({found.id}), columns=None, mask=None, fed=rows.fits, in_sample=True)
        return Value(data=made)

    def _series_fits(self, found: Obj) -> frozenset[int]:
        """What a forecast asked of no rows (predict(fh=...), forecast(steps=24)) is made from: the series the model
        was trained on, with the statistics in it (a scaler fitted on the whole series)."""
        fits: frozenset[int] = frozenset()
        for tid in found.trains:
            trained = self.record.trains[tid]
            for data in (trained.x, trained.y):
                fits |= data.fits if data is not None else frozenset()
        return fits

    def _resampled(self, found: Obj, args: list[Value], kwargs: dict[str, Value], node: ast.Call) -> Value:
        x = argument(args, kwargs, 0, "X").data
        y = argument(args, kwargs, 1, "y").data
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
        data = argument(args, kwargs, 1, "dtrain", "train_set", "pool").data
        # num_boost_round=len(cv["valid auc-mean"]), params of a search: settings chosen on rows, built in
        settings = [args[0]] if args else []
        settings += [v for k, v in kwargs.items() if k in ("params", "num_boost_round", "iterations")]
        booster.baked |= self.stats_in(settings)
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

        assert isinstance(train, Train)
        stops = "early_stopping_rounds" in kwargs
        callbacks = kwargs.get("callbacks")
        if callbacks is not None:
            for oid in self._estimators([callbacks]) | set(callbacks.objects):
                callback = self.record.objects[oid]
                role = callback.role
                stops |= role is not None and role.kind is Kind.CALLBACK and _watches_validation(callback)
        train.chooses_by_watched = stops

    def _splitter(self, cv: Value | None, node: ast.AST, x: Data | None, groups: Value | None = None) -> int | None:
        """The splitter object a cross-validation uses (its split recorded on ``x``), None for an int or default;
        ``groups``: the rows' groups the cross-validation is given."""
        if cv is None:
            return None
        for oid in sorted(cv.objects):
            found = self.record.objects[oid]
            if found.qualname in (SPLITS, CONTAINER) and found.split is not None:
                # cv=gkf.split(X, y, groups=g), or a list of those folds: the folds of that split, its groups given
                return oid
            if found.role is not None and found.role.kind is Kind.SPLITTER:
                made_at = found.node if found.node is not None else node
                found.split = self.split(made_at, found.name, shuffles(found), x, found.role.temporal)
                self._by_group(found, groups)
                if found.qualname.endswith(".PredefinedSplit") and isinstance(found.node, ast.Call):
                    found.fold_rows = self._fold_rows(found.node)
                return oid
        return None

    def _fold_rows(self, call: ast.Call) -> Data | None:
        """The rows a PredefinedSplit's test_fold holds out: its array written as pieces, each as long as a part
        (`np.r_[np.full(len(X_tr), -1), np.zeros(len(X_te))]`, `[-1] * len(X_tr) + [0] * len(X_val)`), those
        filled with a fold number (0 or more) hold out that part's rows. None when a piece cannot be read."""
        fold = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "test_fold"), None)
        if isinstance(fold, ast.Name):
            fold = self.assigned_once(fold)
        pieces = _fold_pieces(fold) if fold is not None else None
        if not pieces:
            return None
        held: list[Data] = []
        for filled, part in pieces:
            if filled >= 0:
                data = self.ev(part).data
                if data is None or not data.rows:
                    return None
                held.append(data)
        return join_datas(held) if held else None

    def _by_group(self, splitter: Obj, groups: Value | None) -> None:
        """A group splitter given the groups keeps each group's rows in one part (shuffle=True shuffles groups);
        the columns they were taken from are kept when the walk knows them (`groups=df["card"]`)."""
        if is_given(groups) and splitter.split is not None and splitter.name.startswith(_GROUP_SPLITTERS):
            split = self.record.splits[splitter.split]
            split.by_group = True
            data = groups.data if groups is not None else None
            if data is not None and data.picked and data.sources and not data.columns:
                split.group_key = frozenset(data.sources)

    def _inside(self, models: frozenset[int]) -> tuple[bool, bool]:
        """Whether the estimators fit a learner, and over-sample, inside each fold (in a pipeline)."""
        roles = [f.role for f in nested_steps(self.record.objects, sorted(models)) if f.role is not None]
        learns = any(r.kind is Kind.LEARNER for r in roles)
        return learns, any(r.kind is Kind.SAMPLER and r.oversamples for r in roles)


def _one_split(found: Obj) -> bool:
    """Whether a splitter object is asked for one split only (n_splits=1, by name or as its first argument)."""
    given = found.params.get("n_splits")
    if given is None and isinstance(found.node, ast.Call) and found.node.args:
        first = found.node.args[0]
        return isinstance(first, ast.Constant) and first.value == 1
    return given is not None and given.const == 1


def shuffles(found: Obj) -> bool:
    """Whether a splitter object shuffles the rows before it splits them."""
    role = found.role
    if role is None:
        return False
    if role.always_shuffles:
        return True
    shuffle = found.params.get("shuffle")
    return shuffle is not None and shuffle.const is True


def _with_learning_option(qualname: str, role: Role, kwargs: dict[str, Value]) -> Role:
    """A stateless class's role, or a learner's when one of its options makes it learn from the rows."""
    name = qualname.rsplit(".", 1)[-1]
    for (cls, option, value), learns in LEARNS_WITH_OPTION.items():
        given = kwargs.get(option)
        if cls == name and given is not None and value in given.consts:
            return Role(Kind.LEARNER, learns)
    return role


def _column_statistic(function: ast.AST) -> bool:
    """Whether ``function`` calls a reduction over the rows (`A.mean(axis=0)`, `np.std(A, 0)`, `df.median()`),
    not one per row (`axis=1`)."""
    for call in ast.walk(function):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        if call.func.attr not in ROW_REDUCTIONS_NUMPY:  # no sum: a row's total, A / A.sum(axis=1), is the usual one
            continue
        # np.mean(A, 1) takes the axis second; A.mean(1) first
        module = isinstance(call.func.value, ast.Name) and call.func.value.id in ("np", "numpy")
        positional = call.args[1] if module and len(call.args) > 1 else None
        if not module and call.args:
            positional = call.args[0]
        axis = next((k.value for k in call.keywords if k.arg == "axis"), positional)
        if not (isinstance(axis, ast.Constant) and axis.value in (1, -1, "columns")):
            return True
    return False


def _over_items(node: ast.Call) -> bool:
    """Whether a counter is given a comprehension (the words of many texts), not one value of the loop it is in."""
    given = node.args[0] if node.args else None
    return isinstance(given, ast.GeneratorExp | ast.ListComp)


def _all_entries(found: Obj) -> bool:
    """Whether a dict holds only the entries kept under constant keys, at most a few (nothing stored under a key
    the walk could not read)."""
    entries = found.entries
    if not 2 <= len(entries) <= EACH_ITEM or not all(isinstance(k, str) for k in entries):
        return False
    return found.keys.consts == frozenset(entries) and found.elements == join_all(entries.values())


def _watches_validation(callback: Obj) -> bool:
    """Whether a Keras callback acts on the watched data: its monitor is a validation metric (`val_loss`, the
    default) or not known; `monitor="loss"` watches the training loss, the validation data only logged."""
    monitor = callback.params.get("monitor")
    if monitor is None:
        return True
    name = monitor.const
    return not isinstance(name, str) or name.startswith("val")


KERAS_HISTORY = "keras.callbacks.History"


def _keras_model(qualname: str) -> bool:
    """Whether ``qualname`` is a Keras model, whose layers apply what they were adapted to to the rows given."""
    package, name = qualname.partition(".")[0], qualname.rpartition(".")[2]
    return package in ("keras", "tensorflow") and name in ("Sequential", "Model", "Functional")


def _horizon(found: Obj, name: str, args: list[Value], kwargs: dict[str, Value]) -> bool:
    """Whether a prediction is asked of the steps after a series rather than of rows: forecast(24), an sktime
    forecaster's predict(fh, X) (X holds the exogenous columns of those steps), predict(start, end) with numbers,
    or of nothing at all."""
    if name == "forecast" or found.qualname.startswith(("sktime.", "darts.")):
        return True
    if any(k in kwargs for k in ("X", "x", "data")):
        return False
    if not args:
        return True
    first = args[0]
    steps = first.items if first.items is not None else (first,)
    return all(isinstance(s.const, int) and not isinstance(s.const, bool) for s in steps)


def _featurewise(found: Obj) -> bool:
    """Whether an ImageDataGenerator learns from the images fit() is given (centring, scaling or ZCA over them)."""
    options = ("featurewise_center", "featurewise_std_normalization", "zca_whitening")
    return any(found.params.get(o, NOTHING).const is True for o in options)


def _fold_pieces(node: ast.expr) -> list[tuple[float, ast.Name]] | None:
    """(the number filled in, the part whose length it has) for each piece of a fold array put together from
    pieces; None when any piece is another thing."""
    parts: list[ast.expr]
    if isinstance(node, ast.Subscript) and _attr_name(node.value) == "r_":  # np.r_[a, b]
        parts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    elif isinstance(node, ast.Call) and _attr_name(node.func) in ("concatenate", "hstack") and node.args:
        first = node.args[0]
        if not isinstance(first, ast.List | ast.Tuple):
            return None
        parts = list(first.elts)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # [-1] * len(a) + [0] * len(b)
        left, right = _fold_pieces(node.left), _fold_pieces(node.right)
        return left + right if left is not None and right is not None else None
    else:
        parts = [node]
    found = []
    for part in parts:
        piece = _fold_piece(part)
        if piece is None:
            return None
        found.append(piece)
    return found


def _fold_piece(node: ast.expr) -> tuple[float, ast.Name] | None:
    """`np.full(len(a), k)`, `np.zeros(len(a))`, `np.ones(len(a))`, `-np.ones(len(a))`, `[k] * len(a)`: (k, a)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for items, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(items, ast.List) and len(items.elts) == 1:
                value, part = _number(items.elts[0]), _length_of(count)
                if value is not None and part is not None:
                    return sign * value, part
        return None
    if not isinstance(node, ast.Call) or not node.args:
        return None
    name = _attr_name(node.func)
    part = _length_of(node.args[0])
    if part is None:
        return None
    if name in ("zeros", "zeros_like"):
        return 0.0, part
    if name in ("ones", "ones_like"):
        return float(sign), part
    if name == "full":
        keyword = next((k.value for k in node.keywords if k.arg == "fill_value"), None)
        given = node.args[1] if len(node.args) > 1 else keyword
        value = _number(given) if given is not None else None
        return (sign * value, part) if value is not None else None
    return None


def _length_of(node: ast.expr) -> ast.Name | None:
    """a in `len(a)`, `a.shape[0]`, `(len(a),)`."""
    if isinstance(node, ast.Tuple) and len(node.elts) == 1:
        node = node.elts[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        inner = node.args[0]
        return inner if isinstance(inner, ast.Name) else None
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
        and isinstance(node.value.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 0
    ):
        return node.value.value
    return None


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _attr_name(node: ast.expr) -> str | None:
    """The last name of `np.r_`, `numpy.concatenate`, `zeros`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """A function's statements less its docstring."""
    return [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]


def _listed(names: ast.List | ast.Tuple) -> Columns | None:
    """The columns a list of texts written out names; None if any of its items is not a text."""
    texts = [e.value for e in names.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return Columns(frozenset(texts)) if len(texts) == len(names.elts) else None


def _models_only(value: Value) -> bool:
    """Whether ``value`` is objects alone (a model, a pipeline), no rows, names or constants."""
    return bool(value.objects) and value.data is None and not value.items and not value.consts
