"""fr.image ops: ``Session.run`` of image graphs, flowrt and TensorFlow side by side.

Run from the project root:  python benchmarks/image_ops.py [--quick] [--no-tf]

Each case is one graph built in flowrt and, when importable, in TensorFlow 2.21
(``tf.compat.v1`` graph mode), its input fed through a placeholder; the two are timed
in alternating rounds. Each row gives wall time per run (min and median, ms) and the
ratio TF / flowrt of the medians (above 1: flowrt faster).

1. A CIFAR-style augmentation of a batch of 128 uint8 32x32x3 images: convert to
   float, crop-or-pad to 36x36, random crop back to 32x32, random flip, random
   brightness and contrast, per-image standardization.
2. Color: ``adjust_hue``, ``adjust_saturation``, ``rgb_to_hsv`` of a [64, 64, 64, 3]
   float32 batch.
3. Resizing a [16, 64, 64, 3] batch to 96x96: bilinear, bicubic, area; and the bicubic
   gradient.
4. ``crop_and_resize`` of 256 boxes to 14x14 from a [4, 64, 64, 16] batch;
   ``non_max_suppression`` of 2000 boxes.

Figures are noisy on a shared host: run it a few times and compare ratios.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import flowrt as fr

QUICK = "--quick" in sys.argv
ROUNDS = 3 if QUICK else 7

try:
    if "--no-tf" in sys.argv:
        raise ImportError
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    from tensorflow.python.ops import gen_image_ops as tf_gen
except ImportError:
    tf = None

rng = np.random.default_rng(0)
CIFAR = rng.integers(0, 256, (128, 32, 32, 3), dtype=np.uint8)
COLOR = rng.random((64, 64, 64, 3), dtype=np.float32)
SMALL = rng.random((16, 64, 64, 3), dtype=np.float32)
FEAT = rng.random((4, 64, 64, 16), dtype=np.float32)
_c = rng.random((256, 2), dtype=np.float32) * 0.8
BOXES = np.concatenate([_c, _c + 0.2], axis=1).astype(np.float32)
BOX_IND = rng.integers(0, 4, 256).astype(np.int32)
_n = rng.random((2000, 2), dtype=np.float32)
NMS_BOXES = np.concatenate([_n, _n + rng.random((2000, 2), dtype=np.float32) * 0.1], axis=1)
NMS_SCORES = rng.random(2000, dtype=np.float32)


def _cifar(m, x):
    def one(img):
        img = m.image.convert_image_dtype(img, m.float32)
        img = m.image.resize_image_with_crop_or_pad(img, 36, 36)
        img = m.random_crop(img, [32, 32, 3], seed=1)
        img = m.image.random_flip_left_right(img, seed=2)
        img = m.image.random_brightness(img, 63 / 255, seed=3)
        img = m.image.random_contrast(img, 0.2, 1.8, seed=4)
        return m.image.per_image_standardization(img)

    return m.map_fn(one, x, dtype=m.float32)


def cases(m):
    """``[(name, fetch, feed)]`` built in a fresh graph of ``m`` (flowrt or TF)."""
    bicubic = m.image.resize_bicubic if m is fr else tf_gen.resize_bicubic
    area = m.image.resize_area if m is fr else tf_gen.resize_area
    out = []
    m.set_random_seed(7)
    u8 = m.placeholder(m.uint8, CIFAR.shape)
    out.append(("CIFAR augmentation, 128 images", _cifar(m, u8), {u8: CIFAR}))
    c = m.placeholder(m.float32, COLOR.shape)
    out.append(("adjust_hue [64, 64, 64, 3]", m.image.adjust_hue(c, 0.2), {c: COLOR}))
    out.append(("adjust_saturation", m.image.adjust_saturation(c, 1.5), {c: COLOR}))
    out.append(("rgb_to_hsv", m.image.rgb_to_hsv(c), {c: COLOR}))
    s = m.placeholder(m.float32, SMALL.shape)
    out.append(
        ("resize_bilinear [16, 64, 64, 3] -> 96", m.image.resize_bilinear(s, [96, 96]), {s: SMALL})
    )
    bic = bicubic(s, [96, 96])
    out.append(("resize_bicubic -> 96", bic, {s: SMALL}))
    out.append(("resize_bicubic gradient", m.gradients(bic, s)[0], {s: SMALL}))
    out.append(("resize_area -> 96", area(s, [96, 96]), {s: SMALL}))
    f = m.placeholder(m.float32, FEAT.shape)
    crops = m.image.crop_and_resize(f, BOXES, BOX_IND, [14, 14])
    out.append(("crop_and_resize 256 boxes -> 14x14", crops, {f: FEAT}))
    b = m.placeholder(m.float32, NMS_BOXES.shape)
    nms = m.image.non_max_suppression(b, NMS_SCORES, 100, 0.5)
    out.append(("non_max_suppression 2000 boxes", nms, {b: NMS_BOXES}))
    return out


def _time(sess, fetch, feed):
    sess.run(fetch, feed)
    t0 = time.perf_counter()
    n = 0
    while True:
        sess.run(fetch, feed)
        n += 1
        dt = time.perf_counter() - t0
        if dt > (0.1 if QUICK else 0.3):
            return dt / n * 1e3


def main():
    libs = [("flowrt", fr)] + ([("tf", tf)] if tf is not None else [])
    runs = {}
    for name, m in libs:
        g = m.Graph()
        with g.as_default():
            cs = cases(m)
            sess = m.Session()
        runs[name] = (sess, cs)
    times = {name: [[] for _ in runs["flowrt"][1]] for name in runs}
    for _ in range(ROUNDS):
        for name, (sess, cs) in runs.items():
            for i, (_, fetch, feed) in enumerate(cs):
                times[name][i].append(_time(sess, fetch, feed))
    print("%-40s %16s %16s %7s" % ("case (ms per run)", "flowrt min/med", "tf min/med", "tf/fr"))
    for i, (label, _, _) in enumerate(runs["flowrt"][1]):
        f = times["flowrt"][i]
        row = "%-40s %7.2f %8.2f" % (label, min(f), statistics.median(f))
        if "tf" in times:
            t = times["tf"][i]
            row += " %7.2f %8.2f %6.2fx" % (
                min(t),
                statistics.median(t),
                statistics.median(t) / statistics.median(f),
            )
        print(row)
    for sess, _ in runs.values():
        sess.close()


if __name__ == "__main__":
    main()
