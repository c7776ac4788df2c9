"""The ground floor every estimator stands on: scikit-learn's contract plus the privacy bookkeeping.

:class:`Estimator` makes a class a scikit-learn estimator: ``__init__`` only stores its arguments (so
``clone``, ``get_params``/``set_params`` and ``repr`` come from :class:`sklearn.base.BaseEstimator`), every
parameter is checked once, at ``fit``, against a declarative table ``_parameters`` (one
:class:`~dpclust_core._validation.Spec` per argument), ``fit`` never changes a parameter, and an unfitted
estimator raises :class:`sklearn.exceptions.NotFittedError`.

:class:`DPEstimator` adds privacy. Its ``fit``:

1. checks every parameter (no data is read);
2. works out the fit's whole cost ``(epsilon, delta)`` from public inputs, and if a shared ``ledger=`` was
   given, reserves that cost in it at once (:meth:`~dpclust_core.accounting.PrivacyLedger.reserve`, atomic
   across threads) — a fit the shared budget cannot afford raises
   :class:`~dpclust_core.accounting.BudgetExceededError` **before the data is touched**, and a ledger that
   was unpickled (in a worker process) raises :class:`~dpclust_core.accounting.DetachedLedgerError`;
3. checks ``X`` and the public ``bounds`` (shape, dtype, finiteness);
4. runs the algorithm (``_fit``), which records every noisy release in a fresh ledger capped at the cost;
5. replaces the reservation in the shared ledger by that ledger's releases, as one group named after the
   estimator (dropping it if nothing was spent) — also when the algorithm fails half-way, since noise already
   drawn counts as spent — then checks that ledger (``ledger.check()``) and stores it as ``ledger_``.

Copies of an estimator (``clone``, ``copy.deepcopy``, and so every scikit-learn model-selection tool) share
the ``ledger=`` they were given: a ledger is never copied (see :class:`~dpclust_core.accounting.PrivacyLedger`).

It also provides the private count of records that many algorithms need (:meth:`DPEstimator._estimate_n`):
N is **private** unless the caller publishes it with ``n_public=``.

:class:`CentroidMixin` gives every k-means-style estimator ``predict``, ``fit_predict``, ``transform``,
``fit_transform`` and ``score``, computed with a chunked nearest-centroid kernel (memory bounded for any number
of points); each validates ``X`` once.

**What is released, and what is not.** Only what ``fit`` stores (the fitted attributes, totalled in ``ledger_``)
is differentially private. No fitted attribute of a private estimator holds one value per training record:
there is no ``labels_`` (scikit-learn's clusterers keep the label of every training record there; a private fit
cannot, as that list would release each record's cluster). ``predict``, ``fit_predict``, ``transform``,
``fit_transform`` and ``score`` are exact functions of the ``X`` they are given: on the private training data,
their labels, distances and scores are **not** private.

scikit-learn's tags (``__sklearn_tags__``, scikit-learn 1.6 and later) describe every estimator: dense, finite
input of ``_fit_ndim`` dimensions (no sparse matrices, no NaN), a clusterer whose ``transform`` returns float64
for the centroid estimators. A fit is deterministic for a fixed ``random_state``, so the estimators are not
tagged non-deterministic; without a seed, two fits draw different noise.
"""
from __future__ import annotations

import contextlib
import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import NotFittedError

from . import _kernels
from ._validation import ArrayLike, budget_shares, check_bounds, check_data, check_rng, is_dask_array
from .accounting import PrivacyLedger
from .count import noisy_count  # the one noisy count of the package
from ._grid import _grid_steps, _snap_release
from .mechanisms import laplace_grid

__all__ = ["Estimator", "DPEstimator", "CentroidMixin", "ScaledCentroidMixin", "NotFittedError", "PublishedNWarning",
           "N_PUBLIC_DOC", "N_SHARE_DOC"]

#: Docstring text shared by every estimator that needs the number of records.
N_PUBLIC_DOC = """n_public : float, optional
        The number of records N, **published** by the caller. ``None`` (the default) keeps N private: the fit
        spends ``n_share`` of its epsilon on a noisy count (a ledger entry named "N (noisy count)") and uses
        that estimate. Passing a number >= 1 — an int, or a noisy count released earlier by
        :func:`~dpclust_core.count.private_count` — treats it as a public constant: the fit is then epsilon-DP under
        add/remove for that fixed value. If you pass the true ``len(X)`` you publish N itself — N is revealed exactly, and
        among datasets of that size the release is 2·epsilon-DP under replace-one."""
N_SHARE_DOC = """n_share : float, default 0.05
        The share of epsilon spent on the noisy count of N when ``n_public`` is None (in (0, 0.5])."""


def _feature_names(X):
    """The column names of a DataFrame-like ``X`` when they are all strings (scikit-learn's rule), else None."""
    cols = getattr(X, "columns", None)
    if cols is None or isinstance(X, np.ndarray):
        return None
    names = np.asarray(list(cols), dtype=object)
    return names if names.size and all(isinstance(c, str) for c in names) else None


class PublishedNWarning(UserWarning):
    """Issued by a fit whose ``n_public`` equals the number of rows of ``X``: the exact N is published.

    That is right when N is public anyway (a census, a fixed panel, the size of a published data set); then
    silence it with ``warnings.simplefilter("ignore", PublishedNWarning)``. Otherwise pass a count released by
    :func:`~dpclust_core.count.private_count`."""


class Estimator(BaseEstimator):
    """Base of every estimator in the package (private or not).

    Subclasses define ``_parameters`` (a dict mapping every ``__init__`` argument to a Spec) and ``_fit(X, p)``
    where ``p`` holds the checked parameters. ``_accepts_dask`` lets ``X`` be a dask array.
    """

    _parameters: dict = {}
    _accepts_dask = False
    _x_name = "X"
    #: What ``fit`` reads: 2 for a data matrix (n_samples, n_features), 3 for an array of tuples, None for an
    #: object that is not an array (a transcript). Sets scikit-learn's input tags.
    _fit_ndim: int | None = 2

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> SimpleNamespace:
        """Check every parameter against the table; return the cleaned values (the attributes stay as given)."""
        params = self.get_params(deep=False)
        missing = set(params) - set(self._parameters)
        if missing:  # a programming error in a subclass, caught by the contract tests
            raise RuntimeError(f"{type(self).__name__}: no parameter spec for {sorted(missing)}")
        return SimpleNamespace(**{name: self._parameters[name](value, name) for name, value in params.items()})

    def _validate_data(self, X, reset=True):
        names = _feature_names(X)
        X = check_data(X, self._x_name, allow_dask=self._accepts_dask)
        if reset:
            self.n_features_in_ = int(X.shape[1])
            if names is not None:
                self.feature_names_in_ = names  # the column names of a DataFrame (public: the schema)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        return X

    def _check_feature_names(self, X):
        """Refuse a DataFrame whose columns differ from those seen in ``fit`` (as scikit-learn does)."""
        names = _feature_names(X)
        fitted = getattr(self, "feature_names_in_", None)
        if names is not None and fitted is not None and not np.array_equal(names, fitted):
            raise ValueError(f"X has columns {list(names)}, but {type(self).__name__} was fitted with columns "
                             f"{list(fitted)}")

    def _check_fitted(self, attribute="n_features_in_"):
        if not hasattr(self, attribute):
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; call fit(X) first.")

    def __sklearn_is_fitted__(self):
        return hasattr(self, "n_features_in_")

    def __sklearn_tags__(self):
        """scikit-learn's tags (version 1.6 and later): dense, finite arrays of ``_fit_ndim`` dimensions."""
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = self._fit_ndim == 2
        tags.input_tags.three_d_array = self._fit_ndim == 3
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        return tags

    def _check_X(self, X, fitted="n_features_in_"):
        """``X`` for ``predict``-like methods, validated once: the estimator is fitted, DataFrame columns match
        those seen in ``fit``, and ``X`` is a finite float array with ``n_features_in_`` columns."""
        self._check_fitted(fitted)
        self._check_feature_names(X)
        X = check_data(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input (as in fit)")
        return X

    # ------------------------------------------------------------------ fit
    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Estimator:
        """Fit on ``X`` of shape (n_samples, n_features); ``y`` is ignored. Returns self."""
        p = self._validate_params()
        X = self._validate_data(X)
        with _kernels.single_blas_thread():
            self._fit(X, p)
        return self

    def _fit(self, X, p):  # pragma: no cover - abstract
        raise NotImplementedError


class DPEstimator(Estimator):
    """Base of every differentially private estimator: :class:`Estimator` plus the ledger (see module doc).

    Subclasses implement ``_fit(X, p, ledger, rng)``; ``X`` is checked, ``p.bounds`` (when the estimator has
    bounds) is already the pair of arrays ``(low, high)`` of length d, also stored as ``bounds_``. Override
    :meth:`_privacy_cost` when the cost is not ``(p.epsilon, p.delta or 0)``.
    """

    #: The parameters that split the budget between the releases of a fit. A release whose share is too small
    #: for its noise (:class:`~dpclust_core._validation.EpsilonTooSmallError`) is reported naming them.
    _budget_params: tuple = ("epsilon", "delta", "n_share")

    def _privacy_cost(self, p):
        return p.epsilon, getattr(p, "delta", 0.0) or 0.0

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> DPEstimator:
        """Fit on ``X`` (n_samples, n_features) with the whole budget; ``y`` is ignored. Returns self.

        Raises ``BudgetExceededError`` before reading ``X`` when a shared ``ledger`` cannot afford the fit, and
        ``DetachedLedgerError`` when the shared ledger was unpickled (a charge could never reach its budget).
        """
        p = self._validate_params()
        eps, delta = self._privacy_cost(p)
        shared = getattr(p, "ledger", None)
        if shared is None:
            budget = contextlib.nullcontext(PrivacyLedger(budget_epsilon=eps, budget_delta=delta))
        else:  # the whole cost is reserved now, atomically, before X is read; the fit's releases replace it
            budget = shared.reserve(eps, delta, name=f"{type(self).__name__}.fit")
        with budget as ledger:
            X = self._validate_data(X)
            if getattr(p, "n_public", None) is not None and p.n_public == X.shape[0]:
                warnings.warn(f"{type(self).__name__}: n_public equals the number of rows of X: passing the exact "
                              f"count publishes N (the guarantee then holds only among data sets of that size); "
                              f"pass a count released by private_count unless N is public anyway", PublishedNWarning,
                              stacklevel=2)
            if hasattr(p, "bounds"):
                p.bounds = check_bounds(p.bounds, X.shape[1])
                self.bounds_ = p.bounds
            rng = check_rng(p.random_state) if hasattr(p, "random_state") else check_rng(None)
            with _kernels.single_blas_thread(), self._budget_context(p):
                self._fit(X, p, ledger, rng)
            self._snap_releases()
        ledger.check()
        self.ledger_ = ledger
        return self

    def _fit(self, X, p, ledger, rng):  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ released floats on public grids
    #: The fitted attributes an algorithm computes from its releases (post-processing), each with the public scale
    #: of the power-of-two grid it is rounded onto at the end of ``fit`` (2^-40 of the scale, see
    #: :func:`~dpclust_core.mechanisms.grid_step`): a number, a callable of the fitted estimator, "box" (the
    #: width of the public ``bounds``, per column), "domain" (the scaled domain ``2 r_``), their squares "box2" and
    #: "domain2", or "count" (the grid of a noisy count); None marks a fitted estimator, which rounds its own.
    #: Rounding a post-processed value costs no privacy; it leaves no low-order bits of the arithmetic behind.
    _release_grids: dict = {"cluster_centers_": "box", "scaled_centers_": "domain", "init_scores_": "domain2",
                            "grid_size_": 1.0}

    def _snap_releases(self):
        """Round every attribute named in ``_release_grids`` (when set) onto its public grid."""
        for name, scale in self._release_grids.items():
            value = getattr(self, name, None)
            if isinstance(value, DPEstimator):
                value._snap_releases()
            elif value is not None and scale is not None:
                setattr(self, name, _snap_release(value, self._release_step(scale)))

    def _release_step(self, scale):
        if callable(scale):
            scale = scale(self)
        if scale == "count":
            return laplace_grid(1.0)[0]
        if isinstance(scale, str):
            if scale.startswith("box"):
                low, high = self.bounds_
                w = np.asarray(high, dtype=float) - np.asarray(low, dtype=float)
            else:
                w = np.float64(2.0 * self.r_)
            scale = np.multiply.outer(w, w) if scale.endswith("2") else w
        return _grid_steps(scale)

    def _budget_context(self, p):
        """A context that reports a release whose share of the budget is too small naming ``_budget_params``."""
        shares = {n: getattr(p, n) for n in self._budget_params if getattr(p, n, None) is not None}
        return budget_shares(type(self).__name__, **shares)

    # ------------------------------------------------------------------ N
    @staticmethod
    def _estimate_n(X, p, epsilon_n, rng, ledger, name="N (noisy count)"):
        """N for the algorithm: ``p.n_public`` if the caller published it, else a noisy count.

        The count has sensitivity 1 under add/remove and costs ``epsilon_n`` (one ledger entry). The estimate
        is floored at 1 (post-processing). Returns ``(n_estimate, epsilon_spent)``.
        """
        if getattr(p, "n_public", None) is not None:
            return float(p.n_public), 0.0
        return noisy_count(X.shape[0], epsilon_n, rng, ledger, name), epsilon_n


class CentroidMixin(ClusterMixin):
    """``predict``, ``transform`` and ``score`` for estimators with ``cluster_centers_``.

    Points are compared with the centres where the algorithm compared them: estimators that work in a scaled
    domain (the public box mapped onto ``[-r, r]^d``) override :meth:`_predict_space`, which maps ``X`` and
    the centres into it (points outside the public bounds are clipped there).

    **What is not private.** Only what ``fit`` releases (``cluster_centers_`` and the other fitted attributes,
    totalled in ``ledger_``) carries the guarantee. ``predict``, ``fit_predict``, ``transform`` and ``score``
    are exact functions of the ``X`` they are given: on the private training data, the labels (one per
    record), the distances and the score are **not** private — publishing them publishes the data. Use them on
    data you may publish, or keep them inside the trusted boundary.
    """

    def __sklearn_tags__(self):
        """A clusterer whose ``transform`` (distances to the centres) returns float64 whatever the input."""
        from sklearn.utils import TransformerTags

        tags = super().__sklearn_tags__()
        tags.transformer_tags = TransformerTags(preserves_dtype=["float64"])
        return tags

    def _predict_space(self, X):
        """``X`` (already validated) and the centres, in the space where ``fit`` compared them."""
        return X, self.cluster_centers_

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Index of the nearest centre for every row of ``X`` (ties go to the lowest index).

        Exact: on the private training data, the labels (one per record) are **not** private."""
        X = self._check_X(X, "cluster_centers_")
        Z, C = self._predict_space(X)
        return _kernels.assign(Z, C)

    def fit_predict(self, X: ArrayLike, y: ArrayLike | None = None) -> np.ndarray:
        """``fit(X)`` then ``predict(X)``. The labels of private training data are **not** private: only
        ``fit``'s releases are, which is why no ``labels_`` attribute is kept."""
        return self.fit(X).predict(X)

    def transform(self, X: ArrayLike) -> np.ndarray:
        """Euclidean distance of every row of ``X`` to every centre, in the original units: shape (n, k).

        Exact: on the private training data, the distances are **not** private."""
        X = self._check_X(X, "cluster_centers_")
        return np.sqrt(_kernels.sq_distances(X, self.cluster_centers_))

    def fit_transform(self, X: ArrayLike, y: ArrayLike | None = None) -> np.ndarray:
        """``fit(X)`` then ``transform(X)``. The distances of private training data are **not** private."""
        return self.fit(X).transform(X)

    def score(self, X: ArrayLike, y: ArrayLike | None = None) -> float:
        """Minus the within-cluster sum of squares of ``X`` around the centres, in original units (as KMeans).

        Exact: on the private training data, the score is **not** private (a private estimate of the quality
        of the centres is :func:`~dpclust_core.report.synopsis_nicv`)."""
        X = self._check_X(X, "cluster_centers_")
        return -float(_kernels.wcss(X, self.cluster_centers_))


class ScaledCentroidMixin(CentroidMixin):
    """:class:`CentroidMixin` for estimators that work in the scaled domain ``[-r, r]^d``.

    Needs the fitted attributes ``bounds_`` (public box), ``r_`` and ``scaled_centers_``: ``X`` is mapped into
    the scaled domain (points outside the public bounds are clipped onto them) and compared with the scaled
    centres, exactly as in ``fit``.
    """

    def _predict_space(self, X):
        low, high = self.bounds_  # checked in fit: X is not validated a second time
        return _kernels.scale_into(X, low, high, self.r_), self.scaled_centers_


def is_dask(X) -> bool:
    """True for a dask array (re-exported for estimators that accept one)."""
    return is_dask_array(X)
