"""Hotel booking cancellations with CatBoost; early stopping on a pool cut from the training part."""

import pandas as pd
from catboost import CatBoostClassifier, Pool
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

CAT = ["hotel", "meal", "market_segment", "distribution_channel", "deposit_type", "customer_type", "country"]
NOT_FEATURES = ["is_canceled", "reservation_status", "reservation_status_date", "booking_id"]


def make_pool(frame):
    return Pool(frame.drop(columns=NOT_FEATURES), frame["is_canceled"], cat_features=CAT)


def main():
    bookings = pd.read_csv("hotel_bookings.csv")
    bookings[CAT] = bookings[CAT].fillna("NA")

    train, test = train_test_split(bookings, test_size=0.2, stratify=bookings["is_canceled"], random_state=1)
    fit_part, stop_part = train_test_split(train, test_size=0.15, stratify=train["is_canceled"], random_state=1)

    model = CatBoostClassifier(
        iterations=3000, learning_rate=0.05, depth=7, eval_metric="AUC", od_type="Iter", od_wait=150, verbose=300
    )
    model.fit(make_pool(fit_part), eval_set=make_pool(stop_part), use_best_model=True)

    test_auc = roc_auc_score(test["is_canceled"], model.predict_proba(make_pool(test))[:, 1])
    print(f"best iteration {model.get_best_iteration()}, test AUC {test_auc:.4f}")


if __name__ == "__main__":
    main()
