"""Product category from catalogue titles; the latest version of each SKU only."""

import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline

catalogue = pd.read_csv("catalogue_history.csv", parse_dates=["updated_at"])
catalogue = catalogue.sort_values("updated_at").drop_duplicates("sku", keep="last")
catalogue = catalogue[catalogue["title"].str.len() > 3]

pipe = make_pipeline(
    TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
    SGDClassifier(loss="modified_huber", alpha=2e-5, random_state=0),
)
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
f1 = cross_val_score(pipe, catalogue["title"], catalogue["category"], cv=cv, scoring="f1_macro")
print(f"macro F1 {f1.mean():.3f} +/- {f1.std():.3f}")
