"""What every centroid-based k-means estimator in this package shares: nearest-centroid prediction."""
from __future__ import annotations

from .._validation import check_data
from ..data import scale_to_domain
from ..metrics import assign


class CentroidPredictorMixin:
    """``predict`` and ``fit_predict`` for estimators that set ``scaled_centers_``, ``bounds_`` and ``r``.

    Prediction maps ``X`` into the scaled domain ``[-r, r]^d`` exactly as ``fit`` does (points outside the
    public bounds are clipped) and returns the index of the nearest centroid, ties to the lowest index.
    Labels of private data computed this way are not themselves differentially private.
    """

    def predict(self, X):
        """Nearest centroid, measured in the scaled domain ``[-r, r]^d`` (X clipped to the bounds)."""
        if not hasattr(self, "scaled_centers_"):
            raise ValueError("this estimator is not fitted yet; call fit(X) first")
        X = check_data(X, n_features=self.scaled_centers_.shape[1])
        return assign(scale_to_domain(X, self.bounds_, r=self.r), self.scaled_centers_)

    def fit_predict(self, X, y=None):
        """``fit(X)`` then ``predict(X)``."""
        return self.fit(X).predict(X)
