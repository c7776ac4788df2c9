"""Evaluation measures of the chapters: the WaveCluster paper's protocol, and the Ray–Turi validity on data.

:func:`rt_validity` is the non-private reference of the thesis's tables of k (§4.6.7): the Ray–Turi index on the
data themselves, where the library's :func:`~dpclust_core.kmeans.choose_k` computes it on a released synopsis.

The WaveCluster paper's evaluation protocol (Chen, Yu & Chirkova, CIKM 2015, §6–§7) is how the paper measures a
private WaveCluster against the non-private one on the same public grid; the book's chapter 7 reproduces its tables
with these. None of these functions releases anything: they compare two outputs, or read the data.

* :func:`dsg_c` — the dissimilarity of significant grids and clusters (clusters as sets of grid cells, §6.1);
* the clustering-first-then-classification protocol (§6.2): :func:`grid_classifier` trains a tree on a labelled
  grid, :func:`cluster_then_classify` predicts test points with the trees of both grids, and :func:`ocm`,
  :func:`two_ce` (= 1 − :func:`rand_index`) score the agreement of the two predictions;
* :func:`~dpclust_core.metrics.f_measure` (its Fig. 7, in the library's metrics) and :func:`k_relative_error` (the error of the number of significant cells, §7.2).

Every function validates its input and raises a ``ValueError``/``TypeError`` naming the argument (NaN, inf,
strings, wrong shapes); none returns NaN for NaN input.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.base import ClassifierMixin

from dpclust_core import _kernels
from dpclust_core._validation import (MAX_ALLOCATION, ArrayLike, Real, RNGLike, check_bounds, check_data,
                                      check_labels, check_rng, validate_params)
from dpclust_core.wavecluster import MAX_CELLS

__all__ = ["dsg_c", "ocm", "two_ce", "rand_index", "k_relative_error", "grid_classifier",
           "cluster_then_classify", "rt_validity"]


_labels = check_labels  # the label checks of dpclust_core.metrics.f_measure


def _grid_clusters(lab):
    """Cluster id per significant cell (labels >= 0) as a dense 0..c-1 code; returns (flat_codes, sizes)."""
    lab = lab.ravel()
    codes = np.full(lab.shape, -1, dtype=np.int64)
    sig = lab >= 0
    if sig.any():
        _, codes[sig] = np.unique(lab[sig], return_inverse=True)
    sizes = np.bincount(codes[sig], minlength=0) if sig.any() else np.zeros(0, dtype=np.int64)
    return codes, sizes


def dsg_c(true_grid_labels: ArrayLike, private_grid_labels: ArrayLike) -> float:
    """DSG_C, the dissimilarity of significant grids and clusters (paper §6.1).

    Clusters are sets of significant cells of the same public grid (label >= 0; negative = not significant).
    ``d(T_i, P_j) = max(|T_i \\ P_j|, |P_j \\ T_i|)``; clusters are matched one-to-one by the Hungarian method
    (``scipy.optimize.linear_sum_assignment``) on a square cost matrix padded with dummy clusters, so an
    unmatched true cluster costs ``|T_i|`` and an unmatched private one ``|P_j|`` inside the optimisation.
    ``DSG_C = min cost / |T|``, ``|T|`` = number of true significant cells. No private cluster gives 1; DSG_C can
    exceed 1. With no true cluster DSG_C is undefined: 0 if there is no private cluster either, else a
    ``ValueError``.

    Examples
    --------
    >>> t = [-1, 0, -1, 0, -1, 0, -1, -1, -1, -1]   # the paper's {g1, g3, g5}
    >>> q = [-1, 4, -1, -1, -1, 4, -1, 4, -1, 4]    # against {g1, g5, g7, g9}: d = 2
    >>> round(dsg_c(t, q), 4)
    0.6667
    """
    a = _labels(true_grid_labels, "true_grid_labels", integer=True)
    b = _labels(private_grid_labels, "private_grid_labels", integer=True)
    if a.shape != b.shape:
        raise ValueError(f"true_grid_labels and private_grid_labels must have the same shape, got {a.shape} "
                         f"and {b.shape}")
    ta, sa = _grid_clusters(a)
    tb, sb = _grid_clusters(b)
    t, s = sa.size, sb.size
    total = int(sa.sum())
    if t == 0:
        if s == 0:
            return 0.0
        raise ValueError("true_grid_labels has no significant cell: DSG_C is undefined (it divides by |T| = 0)")
    if max(t, s) > 20_000:
        raise ValueError(f"true_grid_labels/private_grid_labels: {max(t, s)} clusters is too many for the "
                         f"Hungarian matching (at most 20000)")
    both = (ta >= 0) & (tb >= 0)
    inter = np.zeros((t, s))
    if s:
        np.add.at(inter, (ta[both], tb[both]), 1)
    n = max(t, s)
    cost = np.zeros((n, n))
    cost[:t, :s] = np.maximum(sa[:, None] - inter, sb[None, :] - inter)
    cost[:t, s:] = sa[:, None]  # true cluster left unmatched
    cost[t:, :s] = sb[None, :]  # private cluster left unmatched
    r, c = linear_sum_assignment(cost)
    return float(cost[r, c].sum() / total)


def _contingency(pred_t, pred_p):
    a = _labels(pred_t, "pred_t", integer=True).ravel()
    b = _labels(pred_p, "pred_p", integer=True).ravel()
    if a.shape != b.shape:
        raise ValueError(f"pred_t and pred_p must have the same length, got {a.size} and {b.size}")
    ua, ia = np.unique(a, return_inverse=True)
    ub, ib = np.unique(b, return_inverse=True)
    if ua.size * ub.size > MAX_ALLOCATION // 8:
        raise ValueError(f"pred_t/pred_p: {ua.size} x {ub.size} classes is too large a contingency table")
    C = np.zeros((ua.size, ub.size))
    np.add.at(C, (ia, ib), 1)
    return C


def ocm(pred_t: ArrayLike, pred_p: ArrayLike) -> float:
    """Optimal class matching (paper §6.2): ``1 - CT/TT`` with CT the best one-to-one class matching.

    ``C[a, b]`` = #test points with ``pred_t = a`` and ``pred_p = b``; CT = max over one-to-one matchings of
    the matched counts (``linear_sum_assignment(C, maximize=True)``, rectangular tables allowed).

    Examples
    --------
    >>> ocm([0, 0, 0, 1, 1, 2], [5, 5, 5, 3, 3, 9]), round(ocm([0, 0, 0, 1, 1, 2], [0, 0, 1, 1, 1, 1]), 4)
    (0.0, 0.3333)
    """
    C = _contingency(pred_t, pred_p)
    r, c = linear_sum_assignment(C, maximize=True)
    return float(1.0 - C[r, c].sum() / C.sum())


def rand_index(pred_t: ArrayLike, pred_p: ArrayLike) -> float:
    """Unadjusted Rand index, from the contingency table in O(N) (no loop over pairs).

    Examples
    --------
    >>> rand_index([0, 0, 1, 1], [1, 1, 0, 0]), round(rand_index([0, 0, 1, 1], [0, 1, 0, 1]), 4)
    (1.0, 0.3333)
    """
    C = _contingency(pred_t, pred_p)
    n = C.sum()

    def comb(x):
        return x * (x - 1) / 2.0

    pairs = comb(n)
    if pairs == 0:
        return 1.0
    disagree = comb(C.sum(1)).sum() + comb(C.sum(0)).sum() - 2 * comb(C).sum()
    return float(1.0 - disagree / pairs)


def two_ce(pred_t: ArrayLike, pred_p: ArrayLike) -> float:
    """2CE, the 2-combination enumeration error (paper §6.2): inconsistent test pairs / C(TT, 2) = 1 - Rand.

    Examples
    --------
    >>> round(two_ce([0, 0, 1, 1], [0, 1, 0, 1]), 4)
    0.6667
    """
    return 1.0 - rand_index(pred_t, pred_p)




@validate_params(k=Real(0.0, low_open=True))
def k_relative_error(k_prime: float | ArrayLike, k: float) -> float:
    """Relative error of the private number of significant cells, ``|k' - k| / k`` (paper §7.2).

    For an array of k' (several runs), the relative error of their mean, as the paper reports it.

    Examples
    --------
    >>> round(k_relative_error([141.0, 143.0], 144), 4)
    0.0139
    """
    kp = _labels(k_prime if isinstance(k_prime, (str, bytes)) else np.atleast_1d(k_prime), "k_prime")
    return abs(float(np.mean(kp)) - k) / k


# ----------------------------------------------------------------------------- the classification protocol
def _tree_seed(random_state):
    rng = random_state
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        check_rng(rng, "random_state")
        return int(rng)
    return int(check_rng(rng, "random_state").integers(2**31 - 1))


def _grid_tree(lab, low, high, seed):
    from sklearn.tree import DecisionTreeClassifier

    sig = lab.ravel() >= 0
    if not sig.any():
        return None
    axes = [low[i] + (np.arange(s) + 0.5) * (high[i] - low[i]) / s for i, s in enumerate(lab.shape)]
    centers = np.column_stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")])[sig]
    return DecisionTreeClassifier(criterion="entropy", random_state=seed).fit(centers, lab.ravel()[sig])


def grid_classifier(grid_labels: ArrayLike, bounds: ArrayLike,
                    random_state: RNGLike = 0) -> ClassifierMixin | None:
    """Train the protocol's classifier on a labelled W grid (paper §6): one sample per significant cell.

    Features = the cell's centre in data coordinates, label = its cluster. scikit-learn's
    ``DecisionTreeClassifier(criterion="entropy")`` (CART with entropy) stands in for C4.5; its seed is
    ``random_state`` (an int, or drawn from a Generator).

    Returns
    -------
    DecisionTreeClassifier or None
        The fitted tree, or None if the grid has no significant cell (then every prediction is one class).

    Examples
    --------
    >>> tree = grid_classifier([[0, -1], [-1, 1]], (0, 1))
    >>> tree.predict([[0.1, 0.1], [0.9, 0.9]]).tolist()
    [0, 1]
    """
    lab = _labels(grid_labels, "grid_labels", integer=True)
    if lab.size > MAX_CELLS:
        raise ValueError(f"grid_labels has more than MAX_CELLS = {MAX_CELLS} cells")
    low, high = check_bounds(bounds, lab.ndim)
    return _grid_tree(lab, low, high, _tree_seed(random_state))


def cluster_then_classify(true_grid_labels: ArrayLike, private_grid_labels: ArrayLike, bounds: ArrayLike,
                          X_test: ArrayLike, random_state: RNGLike = 0) -> tuple[np.ndarray, np.ndarray]:
    """The clustering-first-then-classification protocol (paper §6): predictions of clf_t and clf_p on X_test.

    Both grids come from WaveCluster runs on the training part, over the same public grid; a grid with no
    significant cell predicts the single class -1 for every test point. Training on the released labelled grid
    is post-processing (no budget).

    Returns
    -------
    (pred_t, pred_p) : two int arrays of shape (n_test,)

    Examples
    --------
    >>> grid = [[0, -1], [-1, 1]]
    >>> pt, pp = cluster_then_classify(grid, grid, (0, 1), [[0.1, 0.2], [0.8, 0.9]])
    >>> pt.tolist(), pp.tolist()
    ([0, 1], [0, 1])
    """
    a = _labels(true_grid_labels, "true_grid_labels", integer=True)
    b = _labels(private_grid_labels, "private_grid_labels", integer=True)
    if a.shape != b.shape:
        raise ValueError(f"true_grid_labels and private_grid_labels must have the same shape, got {a.shape} "
                         f"and {b.shape}")
    if a.size > MAX_CELLS:
        raise ValueError(f"true_grid_labels has more than MAX_CELLS = {MAX_CELLS} cells")
    low, high = check_bounds(bounds, a.ndim)
    X_test = check_data(X_test, "X_test", n_features=a.ndim)
    seed = _tree_seed(random_state)
    out = []
    for grid in (a, b):
        clf = _grid_tree(grid, low, high, seed)
        out.append(np.full(X_test.shape[0], -1, dtype=np.int64) if clf is None
                   else clf.predict(X_test).astype(np.int64))
    return out[0], out[1]


# ----------------------------------------------------------------------------- the Ray–Turi validity on data
def rt_validity(X: ArrayLike, centers: ArrayLike) -> float:
    """Ray–Turi validity ``intra / inter`` on data ``X``: NICV over the smallest squared centroid distance.

    Not private (it reads X): the non-private reference of the k tables; :func:`dpclust_core.kmeans.choose_k`
    ranks its candidates by the same index on the released synopsis
    (:func:`~dpclust_core.kmeans.choose_k.synopsis_rt_validity`).

    Parameters
    ----------
    X : array (N, d)
    centers : array (k, d)

    Returns
    -------
    float
        ``inf`` for k = 1 or two coinciding centroids.

    Examples
    --------
    >>> round(rt_validity([[0.0], [0.1], [1.0], [1.1]], [[0.05], [1.05]]), 6)
    0.0025
    """
    X = check_data(X, "X")
    C = check_data(centers, "centers", n_features=X.shape[1], features_of="X")
    inter = _kernels.min_pair_sq_distance(C)
    if not inter > 0:
        return float("inf")
    return float(_kernels.min_sq_distances(X, C).mean() / inter)
