"""Red wine quality with an RBF SVR: three-way split, grid on the validation part, one test number."""

import pandas as pd
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

wine = pd.read_csv("winequality-red.csv", sep=";")
X, y = wine.drop(columns="quality"), wine["quality"]

X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.2, random_state=4)
X_train, X_val, y_train, y_val = train_test_split(X_rest, y_rest, test_size=0.25, random_state=4)

val_mae = {}
for C in (0.3, 1.0, 3.0, 10.0):
    for gamma in ("scale", 0.03, 0.1):
        m = make_pipeline(StandardScaler(), SVR(C=C, gamma=gamma)).fit(X_train, y_train)
        val_mae[(C, gamma)] = mean_absolute_error(y_val, m.predict(X_val))
C, gamma = min(val_mae, key=val_mae.get)

final = make_pipeline(StandardScaler(), SVR(C=C, gamma=gamma))
final.fit(pd.concat([X_train, X_val]), pd.concat([y_train, y_val]))
print(f"C={C} gamma={gamma}  test MAE {mean_absolute_error(y_test, final.predict(X_test)):.3f}")
