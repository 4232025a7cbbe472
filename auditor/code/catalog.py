"""What the libraries' names mean to the dataflow: which classes learn from rows (and what), resample rows,
train models, split rows or search hyper-parameters, and which functions read data, split, score or
cross-validate. Names are matched by their package and last component, so `sklearn.preprocessing.StandardScaler`
and `sklearn.preprocessing._data.StandardScaler` are one class."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.StrEnum):
    """What an object of a class does with the rows it is given."""

    LEARNER = "learner"  # learns statistics from rows: fitting it on rows a model is scored on leaks them
    STATELESS = "stateless"  # transforms each row alone; fitting it learns nothing about the rows
    SAMPLER = "sampler"  # fit_resample: adds (over-sampling) or drops rows
    MODEL = "model"  # fit trains it; predict and score use it
    PIPELINE = "pipeline"  # steps fitted together on the rows the pipeline is fitted on
    SEARCH = "search"  # a hyper-parameter search: cross-validates on the rows it is fitted on, then refits
    SPLITTER = "splitter"  # a cross-validation splitter: split() yields train and test indices
    CALLBACK = "callback"  # a training callback that chooses by the validation data (early stopping)


class Strength(enum.StrEnum):
    """How much a learner takes from the rows it is fitted on: ``categories`` only the set of values (a weak
    leak), ``statistics`` means, scales, components or a vocabulary, ``target`` the labels too."""

    CATEGORIES = "categories"
    STATISTICS = "statistics"
    TARGET = "target"


@dataclass(frozen=True)
class Role:
    """What a class is to the dataflow."""

    kind: Kind
    learns: str = ""  # what a learner learns, in words
    strength: Strength = Strength.STATISTICS
    oversamples: bool = False  # a sampler that adds rows (copies or synthetic rows)
    shuffles: bool | None = None  # a splitter's default for shuffle (None: it has no such option)
    always_shuffles: bool = False  # a splitter that shuffles whatever its options say
    temporal: bool = False  # a splitter that keeps time order (TimeSeriesSplit)
    fit_method: str = "fit"  # the method that fits it, when not `fit` (Keras: fit_on_texts, adapt)
    rows_at_init: bool = False  # given its rows when built, fitted by fit() alone (statsmodels: OLS(y, X).fit())
    # a model that learns from rows without their labels (clusters, outliers): what it says of rows (a cluster id,
    # an outlier flag) carries what it learned from the rows it was fitted on, as a learner's output does
    unsupervised: bool = False
    # a learner that learns anew from every batch it transforms (a FunctionTransformer whose function takes the
    # rows' mean and std): the test part transformed alone is transformed with statistics of its own
    refits: bool = False


def _learners(names: str, learns: str, strength: Strength = Strength.STATISTICS, fit: str = "fit") -> dict[str, Role]:
    return {name: Role(Kind.LEARNER, learns, strength, fit_method=fit) for name in names.split()}


_SKLEARN_CLASSES: dict[str, Role] = {
    **_learners(
        "StandardScaler MinMaxScaler MaxAbsScaler RobustScaler QuantileTransformer PowerTransformer",
        "the scale and centre of every column",
    ),
    **_learners("KBinsDiscretizer SplineTransformer", "bin edges (quantiles) of every column"),
    **_learners(
        "OneHotEncoder OrdinalEncoder LabelEncoder LabelBinarizer MultiLabelBinarizer DictVectorizer MissingIndicator",
        "the set of categories",
        Strength.CATEGORIES,
    ),
    **_learners("TargetEncoder", "each category's mean label", Strength.TARGET),
    **_learners("SimpleImputer KNNImputer IterativeImputer", "the values that fill missing cells"),
    **_learners(
        "PCA TruncatedSVD KernelPCA IncrementalPCA SparsePCA MiniBatchSparsePCA FastICA NMF MiniBatchNMF "
        "LatentDirichletAllocation FactorAnalysis DictionaryLearning MiniBatchDictionaryLearning Nystroem "
        "TSNE Isomap LocallyLinearEmbedding MDS SpectralEmbedding",
        "components fitted to the rows",
    ),
    **_learners("CountVectorizer", "the vocabulary and its document frequencies"),
    **_learners("TfidfVectorizer TfidfTransformer", "the vocabulary and its inverse document frequencies"),
    **_learners("VarianceThreshold", "which columns vary"),
    **_learners(
        "SelectKBest SelectPercentile SelectFpr SelectFdr SelectFwe GenericUnivariateSelect RFE RFECV "
        "SelectFromModel SequentialFeatureSelector",
        "which columns predict the label",
        Strength.TARGET,
    ),
    **{
        name: Role(Kind.STATELESS)
        for name in [
            "Normalizer",
            "Binarizer",
            "FunctionTransformer",
            "PolynomialFeatures",
            "HashingVectorizer",
            "FeatureHasher",
            "GaussianRandomProjection",
            "SparseRandomProjection",
            "RBFSampler",
            "AdditiveChi2Sampler",
            "SkewedChi2Sampler",
        ]
    },
    **{
        name: Role(Kind.MODEL, "clusters fitted to the rows", unsupervised=True)
        for name in [
            "KMeans",
            "MiniBatchKMeans",
            "BisectingKMeans",
            "GaussianMixture",
            "BayesianGaussianMixture",
            "DBSCAN",
            "HDBSCAN",
            "OPTICS",
            "AgglomerativeClustering",
            "Birch",
            "MeanShift",
            "SpectralClustering",
            "AffinityPropagation",
        ]
    },
    **{
        name: Role(Kind.MODEL, "which rows are outliers among the rows", unsupervised=True)
        for name in ["IsolationForest", "LocalOutlierFactor", "EllipticEnvelope", "OneClassSVM", "SGDOneClassSVM"]
    },
    **{name: Role(Kind.PIPELINE) for name in ["Pipeline", "FeatureUnion", "ColumnTransformer"]},
    **{
        name: Role(Kind.SEARCH)
        for name in ["GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV"]
    },
    "KFold": Role(Kind.SPLITTER, shuffles=False),
    "StratifiedKFold": Role(Kind.SPLITTER, shuffles=False),
    "GroupKFold": Role(Kind.SPLITTER, shuffles=False),
    "StratifiedGroupKFold": Role(Kind.SPLITTER, shuffles=False),
    "ShuffleSplit": Role(Kind.SPLITTER, always_shuffles=True),
    "StratifiedShuffleSplit": Role(Kind.SPLITTER, always_shuffles=True),
    "GroupShuffleSplit": Role(Kind.SPLITTER, always_shuffles=True),
    "RepeatedKFold": Role(Kind.SPLITTER, always_shuffles=True),
    "RepeatedStratifiedKFold": Role(Kind.SPLITTER, always_shuffles=True),
    "TimeSeriesSplit": Role(Kind.SPLITTER, temporal=True),
    "LeaveOneOut": Role(Kind.SPLITTER),
    "LeavePOut": Role(Kind.SPLITTER),
    "LeaveOneGroupOut": Role(Kind.SPLITTER),
    "LeavePGroupsOut": Role(Kind.SPLITTER),
    "PredefinedSplit": Role(Kind.SPLITTER),
}

# Stateless classes that learn from the rows when given one of these option values: (class, option, value) -> what
# they learn (RBFSampler(gamma="scale") divides by the variance of the rows it is fitted on).
LEARNS_WITH_OPTION: dict[tuple[str, str, str], str] = {
    ("RBFSampler", "gamma", "scale"): "the variance of every column (gamma='scale')",
}

# Learners whose state is all written out when these options are given (not None, not "auto"), unless the other
# options listed still learn from the rows: class -> (the options, options that keep it learning when given, and
# (option, value) pairs it must be given too). CountVectorizer(vocabulary=KEYWORDS) counts fixed words; a
# TfidfVectorizer still learns idf from the rows unless use_idf=False.
STATE_WRITTEN_OUT: dict[str, tuple[str, tuple[str, ...], tuple[tuple[str, object], ...]]] = {
    "CountVectorizer": ("vocabulary", (), ()),
    "TfidfVectorizer": ("vocabulary", (), (("use_idf", False),)),
    "OneHotEncoder": ("categories", ("min_frequency", "max_categories"), ()),
    "OrdinalEncoder": ("categories", ("min_frequency", "max_categories"), ()),
    "MultiLabelBinarizer": ("classes", (), ()),
}

# Packages whose classes are models unless a table above says otherwise.
MODEL_PACKAGES = frozenset({"sklearn", "xgboost", "lightgbm", "catboost", "keras", "tensorflow", "statsmodels"})

_OTHER_CLASSES: dict[tuple[str, str], Role] = {
    **{("imblearn", name): Role(Kind.PIPELINE) for name in ("Pipeline",)},
    **{
        ("category_encoders", name): Role(Kind.LEARNER, "each category's mean label", Strength.TARGET)
        for name in [
            "TargetEncoder",
            "MEstimateEncoder",
            "LeaveOneOutEncoder",
            "CatBoostEncoder",
            "WOEEncoder",
            "JamesSteinEncoder",
            "GLMMEncoder",
            "QuantileEncoder",
            "SummaryEncoder",
        ]
    },
    **{
        ("category_encoders", name): Role(Kind.LEARNER, "the set of categories", Strength.CATEGORIES)
        for name in ["OneHotEncoder", "OrdinalEncoder", "BinaryEncoder", "BaseNEncoder", "HelmertEncoder", "SumEncoder"]
    },
    ("category_encoders", "CountEncoder"): Role(Kind.LEARNER, "each category's frequency"),
    ("category_encoders", "HashingEncoder"): Role(Kind.STATELESS),
    ("umap", "UMAP"): Role(Kind.LEARNER, "an embedding fitted to the rows"),
    # sentence-transformers' encoders: fit(train_objectives=[(loader, loss)]) fine-tunes them on the examples'
    # pairs and labels; encode() gives embeddings made with what they learned
    ("sentence_transformers", "SentenceTransformer"): Role(Kind.MODEL),
    ("sentence_transformers", "CrossEncoder"): Role(Kind.MODEL),
    ("skopt", "BayesSearchCV"): Role(Kind.SEARCH),
    # FLAML's AutoML: a search over learners and their settings, scored on X_val when given, on a part of
    # X_train otherwise; the best is trained and kept
    ("flaml", "AutoML"): Role(Kind.MODEL),
    # Keras' image generator: fit(X) learns the pixels' mean and spread (featurewise options) or nothing (only
    # augmentation); flow(X, y) yields the images it transformed
    **{
        (pkg, "ImageDataGenerator"): Role(Kind.LEARNER, "the mean and spread of every pixel over the images")
        for pkg in ("keras", "tensorflow")
    },
    # keras-tuner: search() trains a model per trial and keeps the ones whose objective (val_loss unless told)
    # is best on the data it watches; get_best_models() gives them back
    **{
        (pkg, name): Role(Kind.MODEL, fit_method="search")
        for pkg in ("keras_tuner", "kerastuner")
        for name in ("RandomSearch", "Hyperband", "BayesianOptimization", "GridSearch")
    },
    # Keras preprocessing: fitted by adapt() or fit_on_texts().
    **{
        (pkg, name): Role(Kind.LEARNER, what, strength, fit_method="adapt")
        for pkg in ("keras", "tensorflow")
        for name, what, strength in (
            ("TextVectorization", "the vocabulary", Strength.STATISTICS),
            ("Normalization", "the mean and variance of every feature", Strength.STATISTICS),
            ("StringLookup", "the vocabulary", Strength.CATEGORIES),
            ("IntegerLookup", "the vocabulary", Strength.CATEGORIES),
            ("Discretization", "bin edges (quantiles)", Strength.STATISTICS),
        )
    },
    **{
        (pkg, "Tokenizer"): Role(Kind.LEARNER, "the vocabulary and its word counts", fit_method="fit_on_texts")
        for pkg in ("keras", "tensorflow")
    },
    **{
        (pkg, name): Role(Kind.CALLBACK)
        for pkg in ("keras", "tensorflow")
        for name in ("EarlyStopping", "ModelCheckpoint", "ReduceLROnPlateau")
    },
    ("tokenizers", "Tokenizer"): Role(Kind.LEARNER, "the vocabulary", fit_method="train_from_iterator"),
    **{
        ("statsmodels", name): Role(Kind.MODEL, rows_at_init=True)
        for name in [
            "OLS",
            "WLS",
            "GLS",
            "GLSAR",
            "QuantReg",
            "RLM",
            "Logit",
            "Probit",
            "MNLogit",
            "Poisson",
            "NegativeBinomial",
            "GLM",
            # time series: given the series when built, then fit() and forecast(steps) of the rows after it
            "ARIMA",
            "SARIMAX",
            "AutoReg",
            "ExponentialSmoothing",
            "SimpleExpSmoothing",
            "Holt",
            "ETSModel",
            "UnobservedComponents",
        ]
    },
}

# Samplers: imbalanced-learn's over-samplers (and combinations) add rows; its under-samplers only drop them.
_OVERSAMPLING_MODULES = ("imblearn.over_sampling", "imblearn.combine")
_OVERSAMPLERS = frozenset(
    [
        "SMOTE",
        "ADASYN",
        "BorderlineSMOTE",
        "SVMSMOTE",
        "KMeansSMOTE",
        "SMOTENC",
        "SMOTEN",
        "RandomOverSampler",
        "SMOTEENN",
        "SMOTETomek",
    ]
)


def class_role(qualname: str) -> Role | None:
    """The role of the class named ``qualname`` (a dotted import path), None when it is not known."""
    package = qualname.partition(".")[0]
    name = qualname.rpartition(".")[2]
    if package == "sklearn":
        role = _SKLEARN_CLASSES.get(name)
        if role is not None:
            return role
        if name.startswith("_") or not name[:1].isupper():
            return None
        return Role(Kind.MODEL)
    if package == "imblearn":
        if name in _OVERSAMPLERS or qualname.startswith(_OVERSAMPLING_MODULES):
            return Role(Kind.SAMPLER, oversamples=True)
        if qualname.startswith("imblearn.under_sampling"):
            return Role(Kind.SAMPLER)
        if name == "Pipeline":
            return Role(Kind.PIPELINE)
        return None
    role = _OTHER_CLASSES.get((package, name))
    if role is not None:
        return role
    if package in ("xgboost", "lightgbm", "catboost") and name[:1].isupper():
        return None if name in _DATA_WRAPPERS else Role(Kind.MODEL)
    if qualname.startswith("sktime.forecasting.") and name[:1].isupper():  # a forecaster: fit(y), predict(fh)
        return Role(Kind.MODEL)
    if package == "pmdarima" and name in ("ARIMA", "AutoARIMA"):  # fit(y), predict(n_periods)
        return Role(Kind.MODEL)
    if package == "darts" and name == "Scaler":  # darts' Scaler: a scikit-learn scaler (MinMaxScaler) per series
        return Role(Kind.LEARNER, "the scale of every component")
    if qualname.startswith("darts.models.") and name[:1].isupper():  # a forecaster: fit(series), predict(n)
        return Role(Kind.MODEL)
    if qualname.startswith(("torchvision.transforms.", "torchvision.transforms.v2.")) and name[:1].isupper():
        return Role(Kind.STATELESS)  # ToTensor(), Resize(...), Compose([...]): applied image by image
    if package in ("keras", "tensorflow") and name in ("Sequential", "Model", "Functional"):
        return Role(Kind.MODEL)
    if qualname.startswith("torch.nn.") and name[:1].isupper():
        return Role(Kind.STATELESS) if name.endswith("Loss") else TORCH_NETWORK
    if qualname.startswith(MONAI_TRANSFORMS) and name[:1].isupper():  # LoadImaged, AsDiscrete: item by item
        return Role(Kind.STATELESS)
    if qualname.startswith("monai.networks.nets.") and name[:1].isupper():  # MONAI's UNet, DenseNet121, ...
        return TORCH_NETWORK
    if qualname.startswith("torch_geometric.nn.") and name[:1].isupper():  # GCNConv, GAT, GraphSAGE: torch modules
        return TORCH_NETWORK
    if qualname.startswith(MONAI_LOSSES) and name[:1].isupper():  # DiceLoss, FocalLoss: a torch loss module
        return Role(Kind.STATELESS)
    return None


# A torch module other than a loss: trained by the steps of a hand-written loop (torchloops.py), no fit to name it.
TORCH_NETWORK = Role(Kind.MODEL, "the network's weights")


# Data wrappers of the boosting libraries: a Dataset/DMatrix/Pool holds rows and their labels.
_DATA_WRAPPERS = frozenset({"DMatrix", "QuantileDMatrix", "DeviceQuantileDMatrix", "Dataset", "Pool"})


def is_data_wrapper(qualname: str) -> bool:
    package = qualname.partition(".")[0]
    return package in ("xgboost", "lightgbm", "catboost") and qualname.rpartition(".")[2] in _DATA_WRAPPERS


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# What a FunctionTransformer learns whose function takes statistics of the rows it is given (A.mean(0)): anew
# from every batch it transforms, so no pipeline keeps the test part from its own.
BATCH_STATISTICS = "statistics of the rows it is given"
# What a supervised model's predictions carry of its training: used as features, they are that learning applied.
LABELS_LEARNED = "the labels of the rows it was trained on"
PIPELINE_FUNCTIONS = _names("make_pipeline make_union make_column_transformer")
# What a table of each column's statistics learns (df.describe(), df.agg(["mean", "std"])): its values, not its
# labels, which name the columns (describe().columns) and the statistics.
SUMMARY_LEARNS = "the statistics of every column"
CORRELATION = "how the columns correlate"  # what df.corr() learns
# What a group's transform learns, as its finding says it.
PER_GROUP = "a statistic per group"

# statsmodels' formula API: a model built from a formula and a table, `smf.logit("y ~ age", data=train)`, as
# `Logit.from_formula(...)` is; fitted by fit() alone, as the statsmodels classes.
FORMULA_MODELS = _names(
    "ols wls gls glsar quantreg rlm logit probit mnlogit poisson negativebinomial glm mixedlm from_formula"
)

SPLIT_FUNCTIONS = _names("train_test_split")
# sktime's functions that build a forecaster (around a scikit-learn model: make_reduction(RandomForestRegressor()))
SKTIME_FORECASTER_MAKERS = frozenset({"sktime.forecasting.compose.make_reduction"})


# torchvision's published data sets: a class per data set, its part chosen by train=True/False or split="test".
def is_published_image_set(qualname: str) -> bool:
    name = qualname.rpartition(".")[2]
    return qualname.startswith("torchvision.datasets.") and name[:1].isupper() and name not in _IMAGE_FOLDERS


# Loaders that hand out a data set's rows a batch at a time.
BATCH_LOADERS = frozenset(
    {
        "torch.utils.data.DataLoader",
        "torch.utils.data.dataloader.DataLoader",
        "monai.data.DataLoader",  # MONAI's: torch's DataLoader with its own collation
        "monai.data.dataloader.DataLoader",
    }
)
MONAI_LOSSES = "monai.losses."
MONAI_TRANSFORMS = "monai.transforms."
# MONAI's data sets of a list of files (or dicts of them) and a transform applied to each
MONAI_DATASETS = frozenset(
    f"monai.data{module}.{name}"
    for module in ("", ".dataset")
    for name in ("Dataset", "CacheDataset", "PersistentDataset", "SmartCacheDataset")
)
# MONAI's decollate_batch: a batch as a list of its rows, each one row's tensor
MONAI_DECOLLATE = frozenset({"monai.data.decollate_batch", "monai.data.utils.decollate_batch"})


# torch's view of a data set's rows at some positions: Subset(ds, indices).
TORCH_SUBSETS = frozenset({"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})


def is_image_folder(qualname: str) -> bool:
    """torchvision's ImageFolder and DatasetFolder: the images under a folder, as they lie."""
    return qualname.startswith("torchvision.datasets.") and qualname.rpartition(".")[2] in _IMAGE_FOLDERS


def is_network_maker(qualname: str) -> bool:
    """A function that builds a torch network: torchvision's `models.resnet18(...)` and the like, timm's
    `create_model(...)`."""
    name = qualname.rpartition(".")[2]
    if qualname.startswith("torchvision.models.") and name[:1].islower() and not name.startswith(("get_", "list_")):
        return True
    if qualname.startswith("transformers.") and name in ("from_pretrained", "from_config"):
        # AutoModelForSequenceClassification.from_pretrained(...), BertModel.from_config(...): a torch network
        # (not a tokenizer's, a config's or a processor's)
        made = qualname.rpartition(".")[0].rpartition(".")[2]
        if made.startswith(("TF", "Flax")):  # Keras' and JAX's networks: not trained by a torch loop
            return False
        return made.startswith("AutoModel") or "For" in made or made.endswith("Model")
    return qualname in ("timm.create_model", "timm.models.create_model")


# Folders of images read as they lie (no published parts): each call its own rows.
_IMAGE_FOLDERS = frozenset({"ImageFolder", "DatasetFolder", "VisionDataset"})
# Functions that fit a model of a series and return it: pmdarima's auto_arima(y) chooses the order and fits it.
SERIES_FIT_FUNCTIONS = frozenset({"pmdarima.auto_arima", "pmdarima.arima.auto_arima"})
# sktime's split of a series in time: its head for training, its last rows for the test (y, then X when given:
# y_train, y_test, X_train, X_test).
TEMPORAL_SPLIT_FUNCTIONS = frozenset(
    {"sktime.forecasting.model_selection.temporal_train_test_split", "sktime.split.temporal_train_test_split"}
)
# Recommender libraries' splits of one interaction matrix: its entries dealt at random to a training and a test
# matrix of the same shape, returned in that order (implicit's, LightFM's).
MATRIX_SPLIT_FUNCTIONS = frozenset(
    {
        "implicit.evaluation.train_test_split",
        "implicit.evaluation.leave_k_out_split",
        "lightfm.cross_validation.random_train_test_split",
    }
)
TORCH_FUNCTIONAL = "torch.nn.functional."
# torch.nn.functional's losses: called on a network's predictions and labels, each is a score of those rows.
TORCH_LOSS_FUNCTIONS = _names(
    "mse_loss l1_loss smooth_l1_loss huber_loss cross_entropy nll_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits kl_div poisson_nll_loss gaussian_nll_loss soft_margin_loss "
    "multilabel_soft_margin_loss multi_margin_loss multilabel_margin_loss hinge_embedding_loss "
    "cosine_embedding_loss margin_ranking_loss triplet_margin_loss ctc_loss"
)
TORCH_RANDOM_SPLIT = _names("torch.utils.data.random_split torch.utils.data.dataset.random_split")
CV_FUNCTIONS = _names(
    "cross_val_score cross_validate cross_val_predict learning_curve validation_curve permutation_test_score"
)
# Functions that fit a statistic on the rows they are given and return them transformed, in one call.
FIT_FUNCTIONS: dict[tuple[str, str], tuple[str, Strength]] = {
    **{
        ("sklearn", name): ("the scale and centre of every column", Strength.STATISTICS)
        for name in ("scale", "minmax_scale", "robust_scale", "maxabs_scale", "quantile_transform", "power_transform")
    },
    ("scipy", "zscore"): ("the mean and standard deviation", Strength.STATISTICS),
    ("torchtext", "build_vocab_from_iterator"): ("the vocabulary", Strength.STATISTICS),
}
# Functions that estimate a power transform's lambda from the rows given unless it is given (lmbda=): they return
# the transformed values and the lambda learned.
LAMBDA_FUNCTIONS = frozenset({("scipy", "boxcox"), ("scipy", "yeojohnson")})
# Their inverses, given values and a lambda: the values back on their own scale (predictions stay predictions).
INVERSE_LAMBDA_FUNCTIONS = frozenset({("scipy", "inv_boxcox"), ("scipy", "inv_boxcox1p")})
# Functions that score each column against the label over the rows they are given (a selector's scores without
# the selector): columns kept by them were chosen with those rows.
SCORE_FUNCTIONS = frozenset(
    ("sklearn", name)
    for name in ("mutual_info_classif", "mutual_info_regression", "f_classif", "f_regression", "chi2", "r_regression")
)
# permutation_importance(model, X, y): each column's worth to a model, measured by scoring it on those rows
IMPORTANCE_FUNCTIONS = frozenset({("sklearn", "permutation_importance")})
# scipy's tests of two samples (a column's values where the label is 1 against where it is 0) and of two columns
# against each other (a feature and the label): columns kept by their p-values were chosen with those rows.
SAMPLE_TESTS = frozenset(
    ("scipy", name) for name in ("ttest_ind", "mannwhitneyu", "ranksums", "ks_2samp", "kruskal", "f_oneway")
)
PAIR_TESTS = frozenset(("scipy", name) for name in ("pearsonr", "spearmanr", "pointbiserialr", "kendalltau"))
# Classes whose constructor fits on the rows it is given (gensim's models and dictionaries, counts of words).
FITTING_CONSTRUCTORS = frozenset(
    {("gensim", name) for name in ("Word2Vec", "FastText", "Doc2Vec", "Dictionary", "TfidfModel", "Phrases")}
    | {("nltk", "FreqDist"), ("collections", "Counter")}
)
# Counts of words (a Counter, a FreqDist), made empty and filled by update() in a loop over the texts: each
# update() learns from the rows it is given as the constructor would.
COUNTERS = frozenset({("nltk", "FreqDist"), ("collections", "Counter")})
# Training functions of the boosting libraries: train(params, data, ..., evals/valid_sets=...).
TRAIN_FUNCTIONS = frozenset({("xgboost", "train"), ("lightgbm", "train"), ("catboost", "train")})
BOOSTING_CV_FUNCTIONS = frozenset({("xgboost", "cv"), ("lightgbm", "cv"), ("catboost", "cv")})
EARLY_STOPPING_FUNCTIONS = frozenset(
    {("lightgbm", "early_stopping"), ("xgboost", "EarlyStopping"), ("transformers", "EarlyStoppingCallback")}
)
# Hugging Face's training loops: built with the model, its arguments and the data sets, trained by train(),
# scored by evaluate() and predict(); and the arguments that say whether the best checkpoint is kept.
HF_TRAINERS = frozenset({("transformers", "Trainer"), ("transformers", "Seq2SeqTrainer"), ("trl", "SFTTrainer")})
# Lightning's Trainer: fit(model, train_dataloaders, val_dataloaders) trains watching the validation loaders; its
# ModelCheckpoint and EarlyStopping callbacks keep or stop by a metric they monitor; test() and validate() score.
LIGHTNING_TRAINERS = frozenset({("pytorch_lightning", "Trainer"), ("lightning", "Trainer")})
LIGHTNING_CALLBACKS = frozenset(
    {(pkg, name) for pkg in ("pytorch_lightning", "lightning") for name in ("ModelCheckpoint", "EarlyStopping")}
)
HF_TRAINING_ARGUMENTS = frozenset(
    {("transformers", "TrainingArguments"), ("transformers", "Seq2SeqTrainingArguments"), ("trl", "SFTConfig")}
)


# Metrics that score the predictions at every threshold at once: (the two score arrays, the thresholds).
CURVE_METRICS = _names("precision_recall_curve roc_curve det_curve")


def is_metric(qualname: str) -> bool:
    """A function of sklearn.metrics (accuracy_score, roc_auc_score, classification_report, ...), of
    torchmetrics.functional (accuracy(preds, target, task=...), f1_score, ...) or of sktime's forecasting metrics
    (mean_absolute_percentage_error(y_test, y_pred))."""
    function = not qualname.rpartition(".")[2][:1].isupper()
    return function and (
        qualname.startswith(
            (
                "sklearn.metrics.",
                "torchmetrics.functional.",
                "sktime.performance_metrics.forecasting.",
                "sksurv.metrics.",
                "darts.metrics.",
            )
        )
        or qualname in ("lifelines.utils.concordance_index", "lifelines.utils.concordance.concordance_index")
    )


# A polars expression: built by these functions of the module and by any method called on one; it holds no rows
# until a frame evaluates it (with_columns, select, filter), so it is never a source of its own.
POLARS_EXPRESSION = "polars.<expression>"
POLARS_EXPRESSION_MAKERS = _names(
    "col all exclude lit when first last len count element struct concat_str concat_list format coalesce "
    "sum_horizontal min_horizontal max_horizontal mean_horizontal any_horizontal all_horizontal int_range arange"
)


def is_polars_expression(qualname: str) -> bool:
    """Whether calling ``qualname`` builds a polars expression (``pl.col("x")``, ``<expression>.mean()``)."""
    return qualname.startswith(POLARS_EXPRESSION) or (
        qualname.partition(".")[0] == "polars" and qualname.rpartition(".")[2] in POLARS_EXPRESSION_MAKERS
    )


# Readers of rows: each call is a source of its own rows.
_READERS = {
    "pandas": _names(
        "read_csv read_table read_excel read_parquet read_json read_feather read_pickle read_sql read_sql_query "
        "read_sql_table read_hdf read_orc read_fwf read_sas read_spss read_stata read_xml DataFrame"
    ),
    "polars": _names("read_csv read_parquet read_json read_ndjson read_excel scan_csv scan_parquet DataFrame"),
    "numpy": _names("load loadtxt genfromtxt fromfile"),
    "datasets": _names("load_dataset load_from_disk"),
    "glob": _names("glob iglob"),  # glob.glob("test/img_*.nii.gz"): the files of a data set, one row each
}


# numpy's samplers of values: called for a table of rows, they build a synthetic data set as make_* does.
# Those that draw indices or reorder rows (choice, permutation, shuffle, randint, integers) are not sources.
_SAMPLERS = _names(
    "rand randn random random_sample ranf sample normal standard_normal uniform multivariate_normal lognormal "
    "exponential poisson binomial beta gamma laplace logistic"
)


# numpy's legacy functions and generators that draw positions of rows: `np.random.permutation(len(X))` and
# `rng.choice(n, k, replace=False)` are indices of a split, `np.random.shuffle(idx)` reorders them in place.
RANDOM_POSITIONS = _names("permutation choice shuffle")
# The generators of numpy: their methods are numpy.random's functions again (rng.permutation, rng.shuffle).
RANDOM_GENERATOR = "numpy.random.<generator>"
RANDOM_GENERATOR_MAKERS = _names("default_rng RandomState Generator")
# Python's random module and its Random objects: shuffle(x) reorders positions in place, sample(population, k)
# draws k of them without replacement, as numpy's shuffle and choice(n, k, replace=False) do.
STDLIB_RANDOM_GENERATOR = "random.<Random>"
STDLIB_RANDOM_MAKERS = frozenset(["random.Random", "random.SystemRandom"])


# Splits whose parts are taken back by name: concat(..., keys=[...]) then .loc["train"], a Hugging Face
# DatasetDict (load_dataset("imdb")["test"], Dataset.train_test_split(...)["train"]).
DATASET_DICT_SPLITS = ("Dataset.train_test_split@", "load_dataset@")  # ds["test"] names a split, not a column
KEYED_SPLITS = ("keys:", *DATASET_DICT_SPLITS)
# The splits a data set on the Hugging Face hub is published with: load_dataset(name) without split= holds them.
HF_SPLIT_NAMES = (
    "train",
    "test",
    "validation",
    "valid",
    "val",
    "dev",
    "eval",
    "unsupervised",
    "validation_matched",
    "validation_mismatched",
    "test_matched",
    "test_mismatched",
)


def is_keras_dataset(qualname: str) -> bool:
    """keras.datasets.<name>.load_data (also under tensorflow.keras): a bundled data set, returned as
    ``(x_train, y_train), (x_test, y_test)``."""
    package = qualname.partition(".")[0]
    return package in ("keras", "tensorflow") and ".datasets." in qualname and qualname.endswith(".load_data")


def is_reader(qualname: str) -> bool:
    """A call that reads rows from a file or builds a data set: pandas.read_csv, sklearn's load_* and make_*,
    numpy.random.rand."""
    package, _, _ = qualname.partition(".")
    name = qualname.rpartition(".")[2]
    if package == "sklearn" and ".datasets" in qualname:
        return name.startswith(("load_", "make_", "fetch_"))
    if qualname.startswith("numpy.random."):
        return is_drawn(qualname)
    return name in _READERS.get(package, frozenset())


def is_drawn(qualname: str) -> bool:
    """A numpy sampler called for a table of values (np.random.rand, normal): rows with no column names."""
    return qualname.startswith("numpy.random.") and qualname.rpartition(".")[2] in _SAMPLERS


ROW_CONCAT_FUNCTIONS = frozenset(
    {
        ("pandas", "concat"),
        ("numpy", "concatenate"),
        ("numpy", "vstack"),
        ("numpy", "row_stack"),
        ("numpy", "append"),
        ("torch", "cat"),
        ("torch", "concat"),
        ("torch", "vstack"),
        ("torch", "ConcatDataset"),
        ("datasets", "concatenate_datasets"),  # Hugging Face datasets: rows of each, one after the other
    }
)
COLUMN_CONCAT_FUNCTIONS = frozenset({("numpy", "hstack"), ("numpy", "column_stack"), ("numpy", "dstack")})
RESAMPLE_FUNCTIONS = frozenset({("sklearn", "resample")})  # sklearn.utils.resample: replace=True by default
# Reductions over rows: their result is a statistic of the rows they read (mean, scale, quantiles).
ROW_REDUCTIONS = _names("mean median std var min max quantile mode sum nanmean nanmedian nanstd nanvar nanmin nanmax")
ROW_REDUCTIONS_NUMPY = _names(
    "mean median std var min max amin amax percentile quantile nanmean nanmedian nanstd nanvar nanmin nanmax "
    "nanpercentile nanquantile average ptp"
)
# Column-wise operations of pandas that learn nothing (same rows, same columns, values changed row by row).
TIME_FEATURE_METHODS = _names("shift rolling diff pct_change ewm expanding")


_REGRESSORS = frozenset(
    [
        "Ridge",
        "RidgeCV",
        "Lasso",
        "LassoCV",
        "ElasticNet",
        "ElasticNetCV",
        "Lars",
        "LarsCV",
        "LassoLars",
        "LassoLarsCV",
        "LassoLarsIC",
        "BayesianRidge",
        "KernelRidge",
        "SVR",
        "NuSVR",
        "LinearSVR",
        "OrthogonalMatchingPursuit",
        "PLSRegression",
        "CCA",
        "OLS",
        "WLS",
        "GLS",
        "GLSAR",
        "QuantReg",
        "RLM",
    ]
)


def is_regressor(name: str) -> bool:
    """A model whose target is a number (its name says so, or it is a known regressor); a logistic regression
    predicts classes."""
    if name.startswith("Logistic"):
        return False
    return name.endswith(("Regressor", "Regression")) or name in _REGRESSORS
