"""The privacy model of every private estimator of the package, as one table (the book's privacy-model page).

The table is built from the code, not typed by hand where the code can say it: each estimator is fitted once
on a small public sample and its fitted attributes are listed (everything it releases), next to what its
docstring states about neighbours, public inputs and the guarantee.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ESTIMATORS", "privacy_model_table", "fitted_releases"]

#: name -> (neighbouring datasets, public inputs, guarantee, what ``n_public=`` changes)
ESTIMATORS = {
    "DPLloyd": ("add/remove one record", "bounds, k, ε, number of rounds rule", "ε-DP",
                "DPLloyd-Impr: rounds from the published N instead of a noisy count"),
    "UGkM / EUGkM / MkM": ("add/remove one record", "bounds, k, ε", "ε-DP",
                            "grid size from the published N"),
    "HybridKMeans": ("add/remove one record", "bounds, k, ε", "ε-DP",
                     "grid size and switch from the published N"),
    "GkM": ("add/remove one record", "bounds, k, ε", "ε-DP", "number of blocks from the published N"),
    "PGkM": ("add/remove one record", "bounds, k, ε", "ε-DP", "number of rounds from the published N"),
    "choose_k": ("add/remove one record", "bounds, candidate k, ε", "ε-DP", "grid size from the published N"),
    "LSHCoresetKMeans": ("add/remove one record", "bounds (radius private by default), k, ε, δ",
                         "(ε, δ)-DP", "tree depth and leaf sizes from the published N"),
    "private_bounds": ("add/remove one record", "nothing but ε (no range at all)", "ε-DP",
                       "nothing: not used (it counts each column's non-zero values itself)"),
    "PrivateWaveCluster": ("add/remove one record", "bounds, grid size, p, ε", "ε-DP",
                           "AG baseline and PrivTHR_EM: N published instead of a noisy count"),
    "PrivatekAverages / PrivatekNoisyCenters": ("replace one tuple (of n tuples, n public)",
                                                "n, k, radius or separation γ, ε, δ", "(ε, δ)-DP", "—"),
    "PrivateKMeansEasy": ("add/remove one record", "bounds, k, number of tuples, ε, δ", "(ε, δ)-DP",
                          "not used: nothing depends on N"),
    "PrivateGaussianMixture": ("add/remove one record", "radius, σ range, k, ε, δ", "(ε, δ)-DP",
                               "not used: nothing depends on N"),
    "NaiveNoisyGaussianMixture": ("replace one record (N public)", "radius, k, ε, δ", "(ε, δ)-DP",
                                  "— (N is public by design)"),
}

_SKIP = {"n_features_in_", "bounds_"}


def _fits():
    """One small fit of each private estimator (a public synthetic sample)."""
    from dpclust_core import gmm, kmeans, ktuple, wavecluster
    from dpclust_core.bounds import private_bounds
    from ..datasets import make_s1_like

    X, _ = make_s1_like(3000, random_state=0)
    B = (-1.0, 1.0)
    out = {
        "DPLloyd": kmeans.DPLloyd(15, 1.0, bounds=B, random_state=0).fit(X),
        "UGkM / EUGkM / MkM": kmeans.EUGkM(15, 1.0, bounds=B, random_state=0, n_init=3).fit(X),
        "HybridKMeans": kmeans.HybridKMeans(15, 1.0, bounds=B, random_state=0, n_init=3).fit(X),
        "GkM": kmeans.GkM(15, 1.0, bounds=B, random_state=0).fit(X),
        "PGkM": kmeans.PGkM(15, 1.0, bounds=B, random_state=0).fit(X),
        "LSHCoresetKMeans": kmeans.LSHCoresetKMeans(15, 1.0, bounds=B, random_state=0).fit(X),
        "PrivateWaveCluster": wavecluster.PrivateWaveCluster(1.0, method="thr", grid_size=64, p=60.0, bounds=B,
                                                             random_state=0).fit(X),
        "PrivateKMeansEasy": ktuple.PrivateKMeansEasy(3, 1.0, 1e-6, bounds=B, random_state=0).fit(X),
        "PrivateGaussianMixture": gmm.PrivateGaussianMixture(3, 1.0, 1e-6, radius=2.0, random_state=0).fit(X),
        "NaiveNoisyGaussianMixture": gmm.NaiveNoisyGaussianMixture(3, 1.0, 1e-6, radius=2.0,
                                                                   random_state=0).fit(X),
    }
    low, high = private_bounds(X, 1.0, random_state=0)
    return out, (low, high)


def fitted_releases(est) -> list[str]:
    """The fitted attributes of an estimator (what a fit releases), without the bookkeeping ones."""
    return sorted(k for k in vars(est) if k.endswith("_") and not k.startswith("_") and k not in _SKIP)


def privacy_model_table():
    """A DataFrame: one row per private estimator, with its neighbours, public inputs, guarantee, releases
    (the fitted attributes of a real fit) and what publishing N changes. Also returns the fitted estimators."""
    import pandas as pd

    fits, _ = _fits()
    rows = []
    for name, (nb, public, guarantee, npub) in ESTIMATORS.items():
        est = fits.get(name)
        if est is not None:
            releases = ", ".join(f"{a}" for a in fitted_releases(est))
        elif name == "private_bounds":
            releases = ("(low, high): one interval per dimension; also each column's noisy count of its "
                        "non-zero values and the verdict (reliable or not, with the per-column diagnostics and "
                        "advice, computed from these releases); after a refusal from the counts, only the "
                        "counts and the verdict")
        elif name == "choose_k":
            releases = "the chosen k and its validity scores"
        else:
            releases = "the k centres (or ⊥)"
        rows.append({"estimator": name, "neighbours": nb, "public inputs": public,
                     "guarantee": guarantee, "releases": releases, "what n_public= changes": npub})
    return pd.DataFrame(rows), fits
