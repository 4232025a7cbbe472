# Week 5: model selection with a separate validation set
#
# 60% training / 20% validation / 20% test. The validation set picks the depth of the
# tree; training and validation are then merged for the final fit, and the test set is
# used once at the very end.

import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

data = load_breast_cancer(as_frame=True)
X, y = data.data, data.target

X_temp, X_test, y_temp, y_test = train_test_split(X, y, test_size=0.2, random_state=10, stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_temp, y_temp, test_size=0.25, random_state=10, stratify=y_temp)

val_acc = {}
for depth in range(1, 11):
    tree = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X_train, y_train)
    val_acc[depth] = tree.score(X_val, y_val)
best_depth = max(val_acc, key=val_acc.get)
print("validation accuracy by depth:", {d: round(a, 3) for d, a in val_acc.items()})
print("chosen depth:", best_depth)

X_final = pd.concat([X_train, X_val])
y_final = pd.concat([y_train, y_val])
final_tree = DecisionTreeClassifier(max_depth=best_depth, random_state=0).fit(X_final, y_final)
print("test accuracy:", round(final_tree.score(X_test, y_test), 3))
