# Tuning a random forest with Optuna by 5-fold cross-validation on the training part, then the held-out quarter
import optuna
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score, train_test_split

X, y = load_wine(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)


def objective(trial):
    params = {
        "n_estimators": trial.suggest_int("n_estimators", 50, 400),
        "max_depth": trial.suggest_int("max_depth", 2, 12),
        "min_samples_leaf": trial.suggest_int("min_samples_leaf", 1, 8),
    }
    return cross_val_score(RandomForestClassifier(**params, random_state=0), X_train, y_train, cv=5).mean()


study = optuna.create_study(direction="maximize")
study.optimize(objective, n_trials=30)
model = RandomForestClassifier(**study.best_trial.params, random_state=0).fit(X_train, y_train)
print("test accuracy:", model.score(X_test, y_test))
