"""Intent classification on frozen sentence embeddings."""
import numpy as np
import pandas as pd
from sentence_transformers import SentenceTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report
from sklearn.model_selection import train_test_split

df = pd.read_csv("intents.csv")  # text, intent
print(df["intent"].value_counts())

# pretrained encoder (a local copy of all-MiniLM-L6-v2), used as a fixed feature extractor:
# nothing is fitted on our rows
encoder = SentenceTransformer("models/all-MiniLM-L6-v2")
embeddings = encoder.encode(df["text"].tolist(), batch_size=64, show_progress_bar=True, normalize_embeddings=True)
np.save("embeddings.npy", embeddings)

X_train, X_test, y_train, y_test = train_test_split(
    embeddings, df["intent"], test_size=0.2, stratify=df["intent"], random_state=0
)
clf = LogisticRegression(max_iter=2000, C=10)
clf.fit(X_train, y_train)
print(classification_report(y_test, clf.predict(X_test)))
