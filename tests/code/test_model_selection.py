"""What is and is not a model chosen on the test set, and stateless steps before the split: correct code that
looked like a leak (a bootstrap interval of one model's score, the spread of one configuration over seeds or
folds, several metrics of one model, a stateless transformer fitted on every row), each beside its twin that is
a leak and stays one, at the same kind and severity; and choices the reading missed (scores sorted in place, a
search's best parameters chosen on the rows then scored)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from auditor.code.analysis import analyse_file

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, precision_score, roc_auc_score
from sklearn.model_selection import GridSearchCV, KFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Binarizer, FunctionTransformer, Normalizer, StandardScaler
df = pd.read_csv("d.csv")
X = df.drop(columns=["y"])
y = df["y"]
"""

# name -> (body after HEAD, the leaks it holds as (kind, line counted from the body's first line, an error))
CASES: dict[str, tuple[str, list[tuple[str, int, bool]]]] = {
    # 1. a bootstrap interval of one model's test score
    "bootstrap interval of one fixed model's test score": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        pred = model.predict(X_te)
        rng = np.random.default_rng(0)
        scores = []
        for _ in range(1000):
            idx = rng.integers(0, len(y_te), len(y_te))
            scores.append(accuracy_score(y_te.iloc[idx], pred[idx]))
        print(np.percentile(scores, [2.5, 97.5]), min(scores), max(scores), np.mean(scores))
        """,
        [],
    ),
    "bootstrap of two models, the better mean kept": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        boot = {}
        rng = np.random.default_rng(0)
        for C in [0.1, 10.0]:
            pred = LogisticRegression(C=C).fit(X_tr, y_tr).predict(X_te)
            runs = []
            for _ in range(200):
                idx = rng.integers(0, len(y_te), len(y_te))
                runs.append(accuracy_score(y_te.iloc[idx], pred[idx]))
            boot[C] = np.mean(runs)
        best_C = max(boot, key=boot.get)
        """,
        [("multi_test", 9, True)],
    ),
    # 2. one configuration over seeds or folds, one test set
    "spread over seeds in a comprehension, max reported": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def make_model(seed):
            return RandomForestClassifier(n_estimators=50, random_state=seed)
        scores = [accuracy_score(y_te, make_model(seed).fit(X_tr, y_tr).predict(X_te)) for seed in range(5)]
        print(np.mean(scores), np.std(scores), max(scores), min(scores))
        """,
        [],
    ),
    "spread over seeds in a loop, best and worst printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for seed in range(5):
            model = RandomForestClassifier(n_estimators=50, random_state=seed)
            model.fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
            print(f"seed {seed}: {scores[-1]:.3f}")
        print(f"{np.mean(scores):.3f} +- {np.std(scores):.3f} (best {np.max(scores):.3f}, worst {min(scores):.3f})")
        """,
        [],
    ),
    "spread over seeds of a pipeline, the seed in its model, max reported": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for seed in range(5):
            model = make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=50, random_state=seed))
            model.fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(np.mean(scores), np.std(scores), max(scores))
        """,
        [],
    ),
    "spread over seeds of a pipeline of a model built just before it, max reported": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for seed in range(5):
            forest = RandomForestClassifier(n_estimators=50, random_state=seed)
            model = make_pipeline(StandardScaler(), forest)
            model.fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(np.mean(scores), max(scores))
        """,
        [],
    ),
    "spread over seeds of a calibrated model wrapping one built just before it, max reported": (
        """
        from sklearn.calibration import CalibratedClassifierCV
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for seed in range(5):
            forest = RandomForestClassifier(n_estimators=50, random_state=seed)
            model = CalibratedClassifierCV(forest, method="isotonic", cv=5)
            model.fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(np.mean(scores), max(scores))
        """,
        [],
    ),
    "a bagged model wrapping one whose depth changes per pass, the best score reported": (
        """
        from sklearn.ensemble import BaggingClassifier
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for depth in range(2, 7):
            tree = RandomForestClassifier(max_depth=depth, random_state=0)
            model = BaggingClassifier(estimator=tree, random_state=0)
            model.fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(max(scores))
        """,
        [("multi_test", 8, True)],
    ),
    "a pipeline whose model's size changes per pass, the best score reported": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for seed in range(5):
            forest = RandomForestClassifier(n_estimators=10 + 20 * seed, random_state=seed)
            model = make_pipeline(StandardScaler(), forest)
            model.fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(max(scores))
        """,
        [("multi_test", 7, True)],
    ),
    "models of each fold scored on one test set, their mean and max": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for tr, va in KFold(5).split(X_tr):
            model = RandomForestClassifier(n_estimators=50, random_state=0)
            model.fit(X_tr.iloc[tr], y_tr.iloc[tr])
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(np.mean(scores), max(scores))
        """,
        [],
    ),
    "a split drawn per seed, the best split's score printed": (
        """
        scores = []
        for seed in range(20):
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=seed)
            model = LogisticRegression(random_state=seed).fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print("accuracy:", max(scores))
        """,
        [("multi_test", 5, True)],
    ),
    "the seed with the best test score kept and used": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def make_model(seed):
            return RandomForestClassifier(n_estimators=50, random_state=seed)
        scores = [accuracy_score(y_te, make_model(seed).fit(X_tr, y_tr).predict(X_te)) for seed in range(5)]
        best_seed = int(np.argmax(scores))
        final = make_model(best_seed).fit(X_tr, y_tr)
        print(accuracy_score(y_te, final.predict(X_te)))
        """,
        [("multi_test", 4, True)],
    ),
    "a running best value over seeds, printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        best_acc = 0.0
        for seed in range(5):
            model = RandomForestClassifier(n_estimators=50, random_state=seed).fit(X_tr, y_tr)
            acc = accuracy_score(y_te, model.predict(X_te))
            if acc > best_acc:
                best_acc = acc
        print("best of five seeds:", best_acc)
        """,
        [],
    ),
    "a running best value over folds by max(), printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        best = 0.0
        for tr, va in KFold(5).split(X_tr):
            model = RandomForestClassifier(random_state=0).fit(X_tr.iloc[tr], y_tr.iloc[tr])
            best = max(best, accuracy_score(y_te, model.predict(X_te)))
        print("best fold model on the test set:", best)
        """,
        [],
    ),
    # a string's split() is not a splitter's: a loop over its words is not a loop over folds
    "single features named in a string's split(), the best one's test score printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for feature in "age income debt".split():
            model = LogisticRegression().fit(X_tr[feature].to_frame(), y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te[feature].to_frame())))
        print("best single feature:", max(scores))
        """,
        [("multi_test", 5, True)],
    ),
    "single features taken as one-column frames, X_tr[[feature]], the best test score printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for feature in ["age", "income", "debt"]:
            model = LogisticRegression().fit(X_tr[[feature]], y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te.loc[:, [feature]])))
        print("best single feature:", max(scores))
        """,
        [("multi_test", 5, True)],
    ),
    "spread over seeds recorded as [seed, score] lists, the best value printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        runs = []
        for seed in range(5):
            model = RandomForestClassifier(n_estimators=50, random_state=seed).fit(X_tr, y_tr)
            runs.append([seed, accuracy_score(y_te, model.predict(X_te))])
        print(max(score for _, score in runs))
        """,
        [],
    ),
    "texts tokenised by a loop over their words, then split and fitted on the training part": (
        """
        from sklearn.feature_extraction.text import TfidfVectorizer
        stop = {"the", "a", "and"}
        cleaned = []
        for text in df["text"]:
            words = []
            for word in text.lower().split():
                if word not in stop:
                    words.append(word)
            cleaned.append(" ".join(words))
        lengths = [len(sentence.split()) for sentence in cleaned]
        print(np.mean(lengths), max(lengths))
        T_tr, T_te, y_tr, y_te = train_test_split(cleaned, y, random_state=0)
        vec = TfidfVectorizer().fit(T_tr)
        model = LogisticRegression().fit(vec.transform(T_tr), y_tr)
        print(f1_score(y_te, model.predict(vec.transform(T_te))))
        """,
        [],
    ),
    "folds of a splitter held in a variable, enumerated, their mean and max on one test set": (
        """
        from sklearn.model_selection import GroupKFold
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        cv = GroupKFold(n_splits=5)
        scores = []
        for fold, (train_idx, valid_idx) in enumerate(cv.split(X_tr, y_tr, groups=X_tr["site"])):
            model = RandomForestClassifier(random_state=0).fit(X_tr.iloc[train_idx], y_tr.iloc[train_idx])
            scores.append(accuracy_score(y_te, model.predict(X_te)))
            print(f"fold {fold}: {scores[-1]:.3f}")
        print(np.mean(scores), max(scores))
        """,
        [],
    ),
    "folds of a splitter given to a function, the best fold's model kept": (
        """
        def run(cv):
            models, scores = [], []
            for tr, va in cv.split(X_tr, y_tr):
                model = RandomForestClassifier(random_state=0).fit(X_tr.iloc[tr], y_tr.iloc[tr])
                models.append(model)
                scores.append(accuracy_score(y_te, model.predict(X_te)))
            return models[int(np.argmax(scores))], max(scores)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        best_model, best = run(KFold(5))
        """,
        [("multi_test", 9, True)],
    ),
    "folds of a splitter given to a function, their mean and max on one test set": (
        """
        def run(cv):
            scores = []
            for tr, va in cv.split(X_tr, y_tr):
                model = RandomForestClassifier(random_state=0).fit(X_tr.iloc[tr], y_tr.iloc[tr])
                scores.append(accuracy_score(y_te, model.predict(X_te)))
            return np.mean(scores), max(scores)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(run(KFold(5)))
        """,
        [],
    ),
    "a running best value over depths, printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        best_acc = 0.0
        for depth in [2, 4, 8]:
            model = RandomForestClassifier(max_depth=depth, random_state=0).fit(X_tr, y_tr)
            acc = accuracy_score(y_te, model.predict(X_te))
            if acc > best_acc:
                best_acc = acc
        print("best:", best_acc)
        """,
        [("multi_test", 5, True)],
    ),
    "the model of the best seed kept by a comparison and saved": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        import joblib
        best_acc, best_model = 0.0, None
        for seed in range(5):
            model = RandomForestClassifier(n_estimators=50, random_state=seed).fit(X_tr, y_tr)
            acc = accuracy_score(y_te, model.predict(X_te))
            if acc > best_acc:
                best_acc, best_model = acc, model
        joblib.dump(best_model, "model.pkl")
        """,
        [("multi_test", 6, True)],
    ),
    "seed and score pairs sorted, the first pair's model kept": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        runs = []
        for seed in range(5):
            model = RandomForestClassifier(n_estimators=50, random_state=seed).fit(X_tr, y_tr)
            runs.append((accuracy_score(y_te, model.predict(X_te)), seed, model))
        best_score, best_seed, best_model = sorted(runs, key=lambda r: r[0], reverse=True)[0]
        """,
        [("multi_test", 5, True)],
    ),
    "a depth per pass, only the best value printed: settings compared": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for depth in [2, 4, 8]:
            model = RandomForestClassifier(max_depth=depth, random_state=0).fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print("best:", max(scores))
        """,
        [("multi_test", 5, True)],
    ),
    "one model trained on in every pass, the best epoch's score": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        from sklearn.linear_model import SGDClassifier
        model = SGDClassifier(random_state=0)
        scores = []
        for epoch in range(20):
            model.partial_fit(X_tr, y_tr, classes=[0, 1])
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print("best epoch score:", max(scores))
        """,
        [("multi_test", 7, True)],
    ),
    "a learning rate halved in every pass is a setting per pass": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        C = 1.0
        scores = []
        for _ in range(4):
            C = C / 2
            scores.append(accuracy_score(y_te, LogisticRegression(C=C).fit(X_tr, y_tr).predict(X_te)))
        print(max(scores))
        """,
        [("multi_test", 6, True)],
    ),
    "settings drawn at random in each pass, only the best value printed": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        rng = np.random.default_rng(0)
        scores = []
        for _ in range(10):
            params = {"max_depth": int(rng.integers(2, 10)), "n_estimators": int(rng.integers(50, 300))}
            model = RandomForestClassifier(**params, random_state=0).fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print("best:", max(scores))
        """,
        [("multi_test", 7, True)],
    ),
    "models ranked by sorting their test score records in place": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        results = []
        for name, model in [("lr", LogisticRegression()), ("rf", RandomForestClassifier(random_state=0))]:
            model.fit(X_tr, y_tr)
            results.append((accuracy_score(y_te, model.predict(X_te)), name, model))
        results.sort(reverse=True)
        best_score, best_name, best_model = results[0]
        """,
        [("multi_test", 5, True)],
    ),
    "one configuration's scores over seeds sorted in place for the median": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        scores = []
        for seed in range(5):
            model = RandomForestClassifier(random_state=seed).fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        scores.sort()
        print("median", scores[2], "range", scores[0], scores[-1])
        """,
        [],
    ),
    "models' validation scores sorted in place, the best scored once on the test set": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=0)
        results = []
        for C in [0.1, 1.0, 10.0]:
            model = LogisticRegression(C=C).fit(X_fit, y_fit)
            results.append((accuracy_score(y_val, model.predict(X_val)), C))
        results.sort(reverse=True)
        final = LogisticRegression(C=results[0][1]).fit(X_tr, y_tr)
        print(accuracy_score(y_te, final.predict(X_te)))
        """,
        [],
    ),
    # 3. several metrics of one model
    "several metrics of one model in a dict, max over the metric names": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        pred = model.predict(X_te)
        proba = model.predict_proba(X_te)[:, 1]
        metrics = {
            "accuracy": accuracy_score(y_te, pred),
            "f1": f1_score(y_te, pred),
            "roc_auc": roc_auc_score(y_te, proba),
        }
        print(max(metrics, key=metrics.get), max(metrics.values()))
        """,
        [],
    ),
    "several metrics of one model in a loop over the metrics": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        pred = model.predict(X_te)
        results = {}
        for name, metric in [("accuracy", accuracy_score), ("f1", f1_score), ("precision", precision_score)]:
            results[name] = metric(y_te, pred)
        print(results, max(results.values()), min(results, key=results.get))
        """,
        [],
    ),
    "F1 at the 0.5 cut and ROC AUC of the probabilities of one model": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        report = {"f1": f1_score(y_te, proba >= 0.5), "roc_auc": roc_auc_score(y_te, proba)}
        print(max(report, key=report.get))
        """,
        [],
    ),
    **{
        f"accuracy and F1 of one model's probabilities cut at 0.5, {how}": (
            f"""
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        report = {{"accuracy": accuracy_score(y_te, {first}), "f1": f1_score(y_te, {second})}}
        print(max(report, key=report.get))
        """,
            [],
        )
        for how, first, second in (
            ("the cut written twice", "proba > 0.5", "proba > 0.5"),
            ("the cut written both ways round", "proba > 0.5", "0.5 < proba"),
        )
    },
    "metrics of one model's probabilities cut at 0.5 in a loop over the metric functions, the best reported": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        scores = {}
        for metric in (accuracy_score, f1_score, precision_score):
            scores[metric.__name__] = metric(y_te, proba > 0.5)
        print(max(scores.values()), max(scores, key=scores.get))
        """,
        [],
    ),
    "LEAK: F1 of one model's probabilities cut at each threshold of a loop, the best kept": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        scores = {}
        for t in (0.3, 0.5, 0.7):
            scores[t] = f1_score(y_te, proba > t)
        print(max(scores, key=scores.get))
        """,
        [("multi_test", 5, True)],
    ),
    "LEAK: accuracy and F1 of one model's probabilities at two cuts written inline, the better kept": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        report = {"at 0.3": f1_score(y_te, proba > 0.3), "at 0.5": f1_score(y_te, proba > 0.5)}
        print(max(report, key=report.get))
        """,
        [("multi_test", 3, True)],
    ),
    "F1 at two cuts of one model's probabilities, the better kept": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        low, high = f1_score(y_te, proba >= 0.3), f1_score(y_te, proba >= 0.5)
        threshold = 0.3 if low > high else 0.5
        """,
        [("multi_test", 3, True)],
    ),
    "the metric loop inside a loop over models, the best model kept": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        models = {"lr": LogisticRegression(), "rf": RandomForestClassifier(random_state=0)}
        results = {}
        for name, model in models.items():
            pred = model.fit(X_tr, y_tr).predict(X_te)
            for metric in (accuracy_score, f1_score):
                results[(name, metric.__name__)] = metric(y_te, pred)
        best = max(results, key=results.get)
        """,
        [("multi_test", 7, True)],
    ),
    "thresholds tried one by one on one model's probabilities": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        f1s = [f1_score(y_te, proba >= t) for t in np.linspace(0.1, 0.9, 9)]
        print(max(f1s))
        """,
        [("multi_test", 3, True)],
    ),
    # a threshold or a model chosen by a chooser's key: the key is scored once per candidate
    "a threshold chosen by max() with a key scoring the test set, then reported on it": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba_te = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        best_t = max(np.linspace(0, 1, 101), key=lambda t: f1_score(y_te, proba_te > t))
        print("F1 at the best threshold:", f1_score(y_te, proba_te > best_t))
        """,
        [("multi_test", 3, True)],
    ),
    "a threshold chosen by max() over a generator with a key scoring the test set": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        proba_te = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        best_t = max((t / 100 for t in range(101)), key=lambda t: f1_score(y_te, proba_te >= t))
        print(best_t, f1_score(y_te, proba_te >= best_t))
        """,
        [("multi_test", 3, True)],
    ),
    "a threshold chosen by argmax of a list of test scores, then reported on the test set": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        p = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
        ts = np.linspace(0.05, 0.95, 19)
        scores = [f1_score(y_te, p > t) for t in ts]
        t = ts[np.argmax(scores)]
        print("F1:", f1_score(y_te, p > t))
        """,
        [("multi_test", 4, True)],
    ),
    "a threshold chosen by max() with a key scoring a validation split, reported on the test set": (
        """
        X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        proba_val, proba_te = model.predict_proba(X_val)[:, 1], model.predict_proba(X_te)[:, 1]
        best_t = max(np.linspace(0, 1, 101), key=lambda t: f1_score(y_val, proba_val > t))
        print("F1 at the chosen threshold:", f1_score(y_te, proba_te > best_t))
        """,
        [],
    ),
    "a threshold chosen by argmax of validation scores, reported on the test set": (
        """
        X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        pv = model.predict_proba(X_val)[:, 1]
        ts = np.linspace(0.05, 0.95, 19)
        t = ts[np.argmax([f1_score(y_val, pv > t) for t in ts])]
        print("F1:", f1_score(y_te, model.predict_proba(X_te)[:, 1] > t))
        """,
        [],
    ),
    "a model chosen by max() with a key scoring the test set": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        models = [LogisticRegression(), RandomForestClassifier(random_state=0)]
        best = max(models, key=lambda m: m.fit(X_tr, y_tr).score(X_te, y_te))
        print(best.score(X_te, y_te))
        """,
        [("multi_test", 3, True)],
    ),
    "a model chosen by max() with a key scoring a validation split, scored once on the test set": (
        """
        X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        models = [LogisticRegression(), RandomForestClassifier(random_state=0)]
        best = max(models, key=lambda m: m.fit(X_tr, y_tr).score(X_val, y_val))
        print(best.score(X_te, y_te))
        """,
        [],
    ),
    "a depth kept as a (score, depth) record started at None, each depth scored on the test set": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        best = None
        for d in [2, 4, 8]:
            s = roc_auc_score(y_te, RandomForestClassifier(max_depth=d).fit(X_tr, y_tr).predict_proba(X_te)[:, 1])
            if best is None or s > best[0]:
                best = (s, d)
        print(best)
        """,
        [("multi_test", 4, True)],
    ),
    "a depth kept as a (score, depth) record started at None, each depth scored on a validation split": (
        """
        X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        best = None
        for d in [2, 4, 8]:
            s = roc_auc_score(y_val, RandomForestClassifier(max_depth=d).fit(X_tr, y_tr).predict_proba(X_val)[:, 1])
            if best is None or s > best[0]:
                best = (s, d)
        final = RandomForestClassifier(max_depth=best[1]).fit(X_tr, y_tr)
        print(roc_auc_score(y_te, final.predict_proba(X_te)[:, 1]))
        """,
        [],
    ),
    "a depth chosen by max() whose key is the file's function scoring the test set": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def fit_eval(d):
            m = RandomForestClassifier(max_depth=d).fit(X_tr, y_tr)
            return roc_auc_score(y_te, m.predict_proba(X_te)[:, 1])
        best = max([2, 4, 8, None], key=fit_eval)
        print(best, fit_eval(best))
        """,
        [("multi_test", 5, True)],
    ),
    "a depth chosen by max() whose key is the file's function scoring a validation split": (
        """
        X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        def fit_eval(d, X_eval=X_val, y_eval=y_val):
            m = RandomForestClassifier(max_depth=d).fit(X_tr, y_tr)
            return roc_auc_score(y_eval, m.predict_proba(X_eval)[:, 1])
        best = max([2, 4, 8, None], key=fit_eval)
        print(fit_eval(best, X_te, y_te))
        """,
        [],
    ),
    # an optuna study: the objective is walked as one trial of a loop, the study keeps the best score
    "an optuna objective scoring the test set, the best parameters scored on it": (
        """
        import optuna
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def objective(trial):
            depth = trial.suggest_int("max_depth", 2, 16)
            model = RandomForestClassifier(max_depth=depth, random_state=0).fit(X_tr, y_tr)
            return model.score(X_te, y_te)
        study = optuna.create_study(direction="maximize")
        study.optimize(objective, n_trials=50)
        best = RandomForestClassifier(**study.best_params, random_state=0).fit(X_tr, y_tr)
        print(best.score(X_te, y_te))
        """,
        [("multi_test", 8, True)],
    ),
    "an optuna objective given the test set by a lambda": (
        """
        from optuna import create_study
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def objective(trial, X_fit, y_fit, X_eval, y_eval):
            model = LogisticRegression(C=trial.suggest_float("C", 1e-3, 1e3, log=True)).fit(X_fit, y_fit)
            return f1_score(y_eval, model.predict(X_eval))
        study = create_study(direction="maximize")
        study.optimize(lambda trial: objective(trial, X_tr, y_tr, X_te, y_te), n_trials=30)
        print(study.best_value)
        """,
        [("multi_test", 7, True)],
    ),
    "an optuna objective scoring a validation split, the best parameters scored once on the test set": (
        """
        import optuna
        X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        def objective(trial):
            depth = trial.suggest_int("max_depth", 2, 16)
            model = RandomForestClassifier(max_depth=depth, random_state=0).fit(X_tr, y_tr)
            return model.score(X_val, y_val)
        study = optuna.create_study(direction="maximize")
        study.optimize(objective, n_trials=50)
        best = RandomForestClassifier(**study.best_params, random_state=0).fit(X_rest, y_rest)
        print(best.score(X_te, y_te))
        """,
        [],
    ),
    "an optuna objective by cross-validation on the training part, given by a lambda": (
        """
        import optuna
        from sklearn.model_selection import cross_val_score
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def objective(trial, X_fit, y_fit):
            model = LogisticRegression(C=trial.suggest_float("C", 1e-3, 1e3, log=True))
            return cross_val_score(model, X_fit, y_fit, cv=5).mean()
        study = optuna.create_study(direction="maximize")
        study.optimize(lambda trial: objective(trial, X_tr, y_tr), n_trials=30)
        best = LogisticRegression(**study.best_params).fit(X_tr, y_tr)
        print(best.score(X_te, y_te))
        """,
        [],
    ),
    # hyperopt's fmin: the objective walked once per trial, the settings it returns chosen by its scores
    "a hyperopt objective scoring the test set, minimised by fmin": (
        """
        from hyperopt import fmin, hp, tpe
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def objective(params):
            model = RandomForestClassifier(max_depth=int(params["max_depth"])).fit(X_tr, y_tr)
            return -roc_auc_score(y_te, model.predict_proba(X_te)[:, 1])
        space = {"max_depth": hp.quniform("max_depth", 2, 12, 1)}
        best = fmin(fn=objective, space=space, algo=tpe.suggest, max_evals=50)
        print(best)
        """,
        [("multi_test", 7, True)],
    ),
    "a hyperopt objective by cross-validation on the training part, the best depth scored once on the test set": (
        """
        from hyperopt import fmin, hp, tpe
        from sklearn.model_selection import cross_val_score
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def objective(params):
            model = RandomForestClassifier(max_depth=int(params["max_depth"]))
            return -cross_val_score(model, X_tr, y_tr, cv=5).mean()
        best = fmin(objective, {"max_depth": hp.quniform("max_depth", 2, 12, 1)}, algo=tpe.suggest, max_evals=50)
        final = RandomForestClassifier(max_depth=int(best["max_depth"])).fit(X_tr, y_tr)
        print(final.score(X_te, y_te))
        """,
        [],
    ),
    # Ray Tune: the trainable walked once per trial, the metric it reports what the best result is picked by
    "a Ray Tune trainable reporting its test score, the best result kept": (
        """
        from ray import tune
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def trainable(config):
            m = RandomForestClassifier(max_depth=config["max_depth"]).fit(X_tr, y_tr)
            tune.report({"auc": roc_auc_score(y_te, m.predict_proba(X_te)[:, 1])})
        space = {"max_depth": tune.choice([3, 6, 12])}
        tuner = tune.Tuner(trainable, param_space=space, tune_config=tune.TuneConfig(metric="auc", mode="max"))
        print(tuner.fit().get_best_result().metrics["auc"])
        """,
        [("multi_test", 8, True)],
    ),
    "the older tune.run with a trainable that reports through session.report": (
        """
        from ray import tune
        from ray.air import session
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def trainable(config):
            m = RandomForestClassifier(max_depth=config["max_depth"]).fit(X_tr, y_tr)
            session.report({"acc": m.score(X_te, y_te)})
        analysis = tune.run(trainable, config={"max_depth": tune.grid_search([3, 6, 12])}, metric="acc", mode="max")
        print(analysis.best_config)
        """,
        [("multi_test", 7, True)],
    ),
    "a Ray Tune trainable reporting a validation score, the best depth scored once on the test set": (
        """
        from ray import tune
        X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        def trainable(config):
            m = RandomForestClassifier(max_depth=config["max_depth"]).fit(X_tr, y_tr)
            tune.report({"auc": roc_auc_score(y_val, m.predict_proba(X_val)[:, 1])})
        best = tune.Tuner(trainable, param_space={"max_depth": tune.choice([3, 6])}).fit().get_best_result()
        final = RandomForestClassifier(max_depth=best.config["max_depth"]).fit(X_tr, y_tr)
        print(roc_auc_score(y_te, final.predict_proba(X_te)[:, 1]))
        """,
        [],
    ),
    # an objective given its rows by functools.partial or Ray Tune's with_parameters
    "a hyperopt objective given the test set by functools.partial": (
        """
        from functools import partial
        from hyperopt import fmin, hp, tpe
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def objective(params, Xa, ya, Xb, yb):
            model = RandomForestClassifier(max_depth=int(params["max_depth"])).fit(Xa, ya)
            return -roc_auc_score(yb, model.predict_proba(Xb)[:, 1])
        fn = partial(objective, Xa=X_tr, ya=y_tr, Xb=X_te, yb=y_te)
        print(fmin(fn=fn, space={"max_depth": hp.quniform("d", 2, 12, 1)}, algo=tpe.suggest, max_evals=20))
        """,
        [("multi_test", 8, True)],
    ),
    "a Ray Tune trainable given the test set by with_parameters": (
        """
        from ray import tune
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        def trainable(config, X_eval=None, y_eval=None):
            m = RandomForestClassifier(max_depth=config["max_depth"]).fit(X_tr, y_tr)
            tune.report({"acc": m.score(X_eval, y_eval)})
        bound = tune.with_parameters(trainable, X_eval=X_te, y_eval=y_te)
        print(tune.Tuner(bound, param_space={"max_depth": tune.choice([3, 6])}).fit().get_best_result())
        """,
        [("multi_test", 7, True)],
    ),
    # one class's predictions (pred == c) are not a cut at a threshold: nothing is tried
    "the class with the lowest F1 of one model, by argmin over classes": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        pred = model.predict(X_te)
        per_class = [f1_score(y_te == c, pred == c) for c in model.classes_]
        print("hardest class:", model.classes_[np.argmin(per_class)])
        """,
        [],
    ),
    "the class with the lowest F1 of one model, by min() with a key": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        pred = model.predict(X_te)
        print("hardest class:", min(model.classes_, key=lambda c: f1_score(y_te == c, pred == c)))
        """,
        [],
    ),
    # a search's choice
    "a grid search on the test rows, its best parameters trained on the training part": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        grid = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5)
        grid.fit(X_te, y_te)
        model = LogisticRegression(**grid.best_params_).fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """,
        [("multi_test", 3, True)],
    ),
    "a grid search on every row before the split, its parameters set on the model scored": (
        """
        grid = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5).fit(X, y)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().set_params(**grid.best_params_).fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """,
        [("multi_test", 1, True)],
    ),
    "a pipeline's grid search on every row, its parameters unprefixed by a comprehension, then scored": (
        """
        pipe = make_pipeline(StandardScaler(), LogisticRegression())
        grid = GridSearchCV(pipe, {"logisticregression__C": [0.1, 1, 10]}, cv=5).fit(X, y)
        params = {k.split("__")[1]: v for k, v in grid.best_params_.items()}
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = make_pipeline(StandardScaler(), LogisticRegression(**params)).fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """,
        [("multi_test", 2, True)],
    ),
    "a pipeline's grid search on the training part, its parameters unprefixed, scored once": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        pipe = make_pipeline(StandardScaler(), LogisticRegression())
        grid = GridSearchCV(pipe, {"logisticregression__C": [0.1, 1, 10]}, cv=5).fit(X_tr, y_tr)
        params = {k.split("__")[1]: v for k, v in grid.best_params_.items()}
        model = make_pipeline(StandardScaler(), LogisticRegression(**params)).fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """,
        [],
    ),
    "a grid search on the training part, its best parameters scored once on the test set": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        grid = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5)
        grid.fit(X_tr, y_tr)
        model = LogisticRegression(**grid.best_params_).fit(X_tr, y_tr)
        print(model.score(X_te, y_te), accuracy_score(y_te, grid.best_estimator_.predict(X_te)))
        """,
        [],
    ),
    "a grid search fitted on the test rows predicts them": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        grid = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5).fit(X_te, y_te)
        print(accuracy_score(y_te, grid.best_estimator_.predict(X_te)))
        """,
        [("overlap", 2, True)],
    ),
    "the number of trees chosen by staged predictions on the test set": (
        """
        from sklearn.ensemble import GradientBoostingClassifier
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        gbc = GradientBoostingClassifier(n_estimators=300).fit(X_tr, y_tr)
        scores = [accuracy_score(y_te, pred) for pred in gbc.staged_predict(X_te)]
        print("best number of trees:", int(np.argmax(scores)) + 1, max(scores))
        """,
        [("multi_test", 4, True)],
    ),
    "the number of trees chosen by num_iteration on the test set": (
        """
        import lightgbm as lgb
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        booster = lgb.train({"objective": "binary"}, lgb.Dataset(X_tr, y_tr), num_boost_round=200)
        aucs = {n: roc_auc_score(y_te, booster.predict(X_te, num_iteration=n)) for n in range(10, 201, 10)}
        print(max(aucs.values()))
        """,
        [("multi_test", 4, True)],
    ),
    "a bootstrap of one model's predictions made on each resample": (
        """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        scores = []
        for i in range(200):
            sample = X_te.sample(frac=1.0, replace=True, random_state=i)
            scores.append(accuracy_score(y_te.loc[sample.index], model.predict(sample)))
        print(np.percentile(scores, [2.5, 97.5]), max(scores))
        """,
        [],
    ),
    # 4. stateless steps fitted on every row
    "a stateless pipeline fitted on every row before the split": (
        """
        prep = make_pipeline(FunctionTransformer(np.log1p), Normalizer(), Binarizer(threshold=0.1))
        X = prep.fit_transform(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """,
        [],
    ),
    "a FunctionTransformer and a Normalizer fitted on every row before the split": (
        """
        X = FunctionTransformer(np.log1p).fit_transform(X)
        X = Normalizer().fit_transform(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "a pipeline with a scaler fitted on every row before the split": (
        """
        prep = make_pipeline(FunctionTransformer(np.log1p), StandardScaler())
        X = prep.fit_transform(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        model = LogisticRegression().fit(X_tr, y_tr)
        print(model.score(X_te, y_te))
        """,
        [("preprocessing", 2, True)],
    ),
    "random Fourier features of a fixed width fitted on every row before the split": (
        """
        X = RBFSampler(gamma=0.5, random_state=0).fit_transform(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "random Fourier features scaled by the rows' variance fitted on every row": (
        """
        X = RBFSampler(gamma="scale", random_state=0).fit_transform(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 1, True)],
    ),
    "a FunctionTransformer given percentiles of every row": (
        """
        lo, hi = np.percentile(X, [1, 99], axis=0)
        X = FunctionTransformer(np.clip, kw_args={"a_min": lo, "a_max": hi}).fit_transform(X)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 1, True)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_choice_on_the_test_set_is_told_from_a_report_of_one_model(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    script = tmp_path / "script.py"
    script.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    result = analyse_file(script)
    assert result.skipped == ()
    offset = HEAD.count("\n")
    found = sorted((p.leak.kind.value, p.place.line - offset, p.leak.serious) for p in result.leaks)
    assert found == sorted(expected)


def test_a_searchs_choice_of_settings_is_not_counted_as_a_fitted_statistic(tmp_path: Path) -> None:
    """The summary counts the statistics learned from rows; a grid search's choice is followed, not one of them."""
    script = tmp_path / "search.py"
    body = """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        grid = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5).fit(X_tr, y_tr)
        print(grid.score(X_te, y_te))
        """
    script.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    result = analyse_file(script)
    assert result.leaks == () and result.counts.fits == 0 and result.counts.trainings == 1
