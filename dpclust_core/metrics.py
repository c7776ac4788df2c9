"""Clustering quality metrics.

* :func:`nicv` — Normalised Intra-Cluster Variance, the thesis's objective and metric, Eq. (2.8):
  ``NICV = (1/N) Σ_l min_j ||x_l − o_j||²`` (normalised by N only), spec §2.1 and §4.1.
* :func:`wcss` — within-cluster sum of squares, ``N · NICV`` (the metric of Lee & Kifer).
"""
from __future__ import annotations

import numpy as np

from ._validation import check_data

__all__ = ["nicv", "wcss", "squared_distances", "assign"]


def squared_distances(X, centers) -> np.ndarray:
    """Squared Euclidean distances, shape (N, k), computed without an (N, k, d) intermediate."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(centers, dtype=float)
    d2 = (X * X).sum(axis=1)[:, None] - 2.0 * X @ C.T + (C * C).sum(axis=1)[None, :]
    return np.maximum(d2, 0.0)


def assign(X, centers) -> np.ndarray:
    """Index of the nearest centre for every point (ties go to the lowest index)."""
    return np.argmin(squared_distances(X, centers), axis=1)


def _check(X, centers):
    X = check_data(X)
    C = check_data(centers, "centers")
    if C.shape[1] != X.shape[1]:
        raise ValueError(f"centers has {C.shape[1]} features but X has {X.shape[1]}")
    return X, C


def wcss(X, centers) -> float:
    """Within-cluster sum of squares: ``Σ_l min_j ||x_l − o_j||²``."""
    X, C = _check(X, centers)
    return float(squared_distances(X, C).min(axis=1).sum())


def nicv(X, centers) -> float:
    """Normalised intra-cluster variance, Eq. (2.8): ``(1/N) Σ_l min_j ||x_l − o_j||²``."""
    X, C = _check(X, centers)
    return float(squared_distances(X, C).min(axis=1).mean())


# ----------------------------------------------------------------------------- WaveCluster metrics
# Spec wavecluster.md §3.1–§3.4 (Chen, Yu & Chirkova, CIKM 2015, §6): DSG_C, the clustering-first-then-
# classification protocol, OCM, 2CE, and the relative error of k'.
__all__ += ["dsg_c", "ocm", "two_ce", "rand_index", "k_relative_error", "grid_classifier",
            "cluster_then_classify", "fixed_split"]


def _grid_clusters(labels):
    """Cluster id per significant cell (labels >= 0) as a dense 0..c-1 code; returns (flat_codes, sizes)."""
    lab = np.asarray(labels).ravel()
    if lab.size and not np.issubdtype(lab.dtype, np.integer):
        if np.any(lab != np.round(lab)):
            raise ValueError("grid labels must be integers (-1 or any negative value for non-significant)")
        lab = lab.astype(np.int64)
    codes = np.full(lab.shape, -1, dtype=np.int64)
    sig = lab >= 0
    if sig.any():
        _, codes[sig] = np.unique(lab[sig], return_inverse=True)
    sizes = np.bincount(codes[sig], minlength=0) if sig.any() else np.zeros(0, dtype=np.int64)
    return codes, sizes


def dsg_c(true_grid_labels, private_grid_labels) -> float:
    """DSG_C, the dissimilarity of significant grids and clusters (spec §3.1, paper §6.1).

    Clusters are sets of significant cells of the same public grid (label >= 0; negative = not significant).
    ``d(T_i, P_j) = max(|T_i \\ P_j|, |P_j \\ T_i|)``; clusters are matched one-to-one by the Hungarian method
    (``scipy.optimize.linear_sum_assignment``) on a square cost matrix padded with dummy clusters, so an
    unmatched true cluster costs ``|T_i|`` and an unmatched private one ``|P_j|`` inside the optimisation.
    ``DSG_C = min cost / |T|``, ``|T|`` = number of true significant cells. No private cluster gives 1; no true
    cluster gives nan (0 when there is no private cluster either). DSG_C can exceed 1.
    """
    from scipy.optimize import linear_sum_assignment

    a, b = np.asarray(true_grid_labels), np.asarray(private_grid_labels)
    if a.shape != b.shape:
        raise ValueError(f"true_grid_labels and private_grid_labels must have the same shape, got {a.shape} "
                         f"and {b.shape}")
    ta, sa = _grid_clusters(a)
    tb, sb = _grid_clusters(b)
    t, s = sa.size, sb.size
    total = int(sa.sum())
    if t == 0:
        return 0.0 if s == 0 else float("nan")
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
    a, b = np.asarray(pred_t).ravel(), np.asarray(pred_p).ravel()
    if a.shape != b.shape:
        raise ValueError(f"pred_t and pred_p must have the same length, got {a.size} and {b.size}")
    if a.size == 0:
        raise ValueError("pred_t is empty")
    _, ia = np.unique(a, return_inverse=True)
    _, ib = np.unique(b, return_inverse=True)
    C = np.zeros((ia.max() + 1, ib.max() + 1))
    np.add.at(C, (ia, ib), 1)
    return C


def ocm(pred_t, pred_p) -> float:
    """Optimal class matching (spec §3.3): ``1 - CT/TT`` with CT the best one-to-one class matching.

    ``C[a, b]`` = #test points with ``pred_t = a`` and ``pred_p = b``; CT = max over one-to-one matchings of
    the matched counts (``linear_sum_assignment(C, maximize=True)``, rectangular tables allowed).
    """
    from scipy.optimize import linear_sum_assignment

    C = _contingency(pred_t, pred_p)
    r, c = linear_sum_assignment(C, maximize=True)
    return float(1.0 - C[r, c].sum() / C.sum())


def rand_index(pred_t, pred_p) -> float:
    """Unadjusted Rand index, from the contingency table in O(N) (no loop over pairs)."""
    C = _contingency(pred_t, pred_p)
    n = C.sum()
    comb = lambda x: x * (x - 1) / 2.0  # noqa: E731
    pairs = comb(n)
    if pairs == 0:
        return 1.0
    disagree = comb(C.sum(1)).sum() + comb(C.sum(0)).sum() - 2 * comb(C).sum()
    return float(1.0 - disagree / pairs)


def two_ce(pred_t, pred_p) -> float:
    """2CE, the 2-combination enumeration error (spec §3.4): inconsistent test pairs / C(TT, 2) = 1 - Rand."""
    return 1.0 - rand_index(pred_t, pred_p)


def k_relative_error(k_prime, k) -> float:
    """Relative error of the private number of significant cells, ``|k' - k| / k`` (paper §7.2)."""
    k = float(k)
    if not np.isfinite(k) or k <= 0:
        raise ValueError(f"k must be > 0, got {k!r}")
    # for an array of k' (several runs), the relative error of their mean, as the paper reports it
    return abs(float(np.mean(k_prime)) - k) / k


def fixed_split(n_samples, test_fraction=0.1, random_state=0):
    """A fixed (seeded) 90/10 split of ``range(n_samples)`` for the protocol of spec §3.2: (train_idx, test_idx)."""
    from ._validation import check_positive_int, check_rng

    n = check_positive_int(n_samples, "n_samples", minimum=2)
    if not (0.0 < test_fraction < 1.0):
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction!r}")
    perm = check_rng(random_state).permutation(n)
    n_test = max(1, int(round(test_fraction * n)))
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def grid_classifier(grid_labels, bounds, random_state=0):
    """Train the protocol's classifier on a labelled W grid (spec §3.2): one sample per significant cell.

    Features = the cell's centre in data coordinates, label = its cluster. scikit-learn's
    ``DecisionTreeClassifier(criterion="entropy")`` (CART with entropy) stands in for C4.5; its seed is fixed.
    Returns the fitted tree, or None if the grid has no significant cell (then every prediction is one class).
    """
    from sklearn.tree import DecisionTreeClassifier

    from .wavecluster import grid_cell_centers

    lab = np.asarray(grid_labels)
    sig = lab.ravel() >= 0
    if not sig.any():
        return None
    centers = grid_cell_centers(bounds, lab.shape)[sig]
    clf = DecisionTreeClassifier(criterion="entropy", random_state=random_state)
    return clf.fit(centers, lab.ravel()[sig])


def cluster_then_classify(true_grid_labels, private_grid_labels, bounds, X_test, random_state=0):
    """The clustering-first-then-classification protocol (spec §3.2): predictions of clf_t and clf_p on X_test.

    Both grids come from WaveCluster runs on the training part; a grid with no significant cell predicts the
    single class -1 for every test point.
    """
    from ._validation import check_data

    X_test = check_data(X_test, "X_test")
    out = []
    for grid in (true_grid_labels, private_grid_labels):
        clf = grid_classifier(grid, bounds, random_state)
        out.append(np.full(X_test.shape[0], -1) if clf is None else clf.predict(X_test))
    return out[0], out[1]
