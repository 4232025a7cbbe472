import numpy as np
import tensorflow as tf
from pathlib import Path
from sklearn.model_selection import train_test_split

IMG_SIZE = 96
root = Path("data/skin_lesions")  # benign/ malignant/
classes = ["benign", "malignant"]


def load_images():
    images, labels = [], []
    for label, name in enumerate(classes):
        for f in sorted((root / name).glob("*.jpg")):
            img = tf.keras.utils.load_img(f, target_size=(IMG_SIZE, IMG_SIZE))
            images.append(tf.keras.utils.img_to_array(img) / 255.0)
            labels.append(label)
    return np.stack(images), np.array(labels)


images, labels = load_images()
print(images.shape, np.bincount(labels))

# augment: horizontal + vertical flips quadruple the (small) data set
flipped_lr = tf.image.flip_left_right(images).numpy()
flipped_ud = tf.image.flip_up_down(images).numpy()
rotated = tf.image.rot90(images).numpy()
images = np.concatenate([images, flipped_lr, flipped_ud, rotated])
labels = np.concatenate([labels] * 4)

x_train, x_test, y_train, y_test = train_test_split(images, labels, test_size=0.2, stratify=labels, random_state=3)

model = tf.keras.Sequential([
    tf.keras.layers.Input((IMG_SIZE, IMG_SIZE, 3)),
    tf.keras.layers.Conv2D(32, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Conv2D(64, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Conv2D(128, 3, activation="relu"),
    tf.keras.layers.GlobalAveragePooling2D(),
    tf.keras.layers.Dropout(0.3),
    tf.keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy", tf.keras.metrics.AUC()])
model.fit(x_train, y_train, epochs=8, batch_size=32)
print(model.evaluate(x_test, y_test, return_dict=True))
