"""The generators of the benchmark datasets of the high-dimensional private k-means (dpclust_book.datasets).

The estimator itself, LSHCoresetKMeans, is tested in ``test_lsh_coreset.py``.
"""
import numpy as np
import pytest

import dpclust_book.datasets as data


# ------------------------------------------------------------------------------------------------ generators
def test_generators():
    X, y = data.make_lsh_mixture(3_000, 50, 16, random_state=0)
    assert X.shape == (3_000, 50) and np.linalg.norm(X, axis=1).max() <= 1 + 1e-12
    assert np.bincount(y).min() == 3_000 // 16
    sd = np.mean([X[y == j].std(axis=0).mean() for j in range(16)])
    assert sd == pytest.approx(1.0 / (8 * np.sqrt(50)), rel=0.05)  # Google's per-coordinate sd
    raw, yl = data.make_letter_like(4_000, random_state=0, return_raw=True)
    assert raw.shape == (4_000, 16) and set(np.unique(raw)) <= set(range(16)) and yl.max() <= 25
    Xl, _ = data.make_letter_like(4_000, random_state=0)
    np.testing.assert_allclose(Xl, raw / 7.5 - 1)
    assert np.abs(raw.mean(axis=0) - data._LETTER_MEAN).max() < 1.0
    raw, ys = data.make_segment_like(random_state=0, return_raw=True)
    lo, hi = data.SEGMENT_BOUNDS
    assert raw.shape == (2_310, 18) and np.all(raw >= lo) and np.all(raw <= hi)
    assert np.bincount(ys).tolist() == [330] * 7
    Xs, _ = data.make_segment_like(random_state=0)
    assert np.abs(Xs).max() <= 1
    again = data.make_segment_like(random_state=5)[0]
    np.testing.assert_array_equal(data.make_segment_like(random_state=5)[0], again)
