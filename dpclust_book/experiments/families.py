"""One benchmark across every family of private k-means (the appendix "Which private k-means?").

Every k-means estimator of the book — DPLloyd (the PINQ baseline and the improved DPLloyd-Impr), the grid
synopsis EUGkM and the hybrid, sample-and-aggregate GkM and the genetic PGkM, PrivateKMeansEasy (k-tuple
clustering) and the LSH private coreset (:class:`~dpclust_core.kmeans.LSHCoresetKMeans`) — and IBM diffprivlib's
``KMeans`` run on the same datasets, budgets and seeds, with their defaults, a public box (``bounds``) and a
private N. The loss of a fit is its k-means cost (WCSS, within-cluster sum of squares, on the data) divided by
the cost of the best of ten non-private k-means++ runs (scikit-learn ``KMeans(n_init=10, random_state=0)``):
1 is as good as non-private k-means, and "one centre" (the cost of the single mean) is what a method reaches
when its centres carry no information.

The budget each fit really spends is read from its ledger. For the book's estimators that is ``ledger_``; for
diffprivlib it is measured by :func:`~dpclust_book.experiments.practice.diffprivlib_ledger`, which records what
diffprivlib hands to its own mechanisms and counts every coordinate sum at its true add/remove sensitivity (the
appendix "Privacy bugs in the wild" explains both corrections). Two of its leaks cannot be put in a ledger at
all (its number of rounds reads the exact N, and an empty cluster keeps its centre exactly); the number
reported is a lower bound on its privacy loss.

Repeated fits on the same data are *evaluation*: a data owner who released them all would pay for every one.
No noise is drawn here: every private release is made by the estimators.

Examples
--------
>>> from dpclust_book.datasets import make_s1_like
>>> from dpclust_book.experiments import families as fx
>>> ds = [fx.Dataset("S1, 1,500 points", make_s1_like(1500, random_state=0)[0], 15, (-1.0, 1.0), "")]
>>> df = fx.run_grid(ds, [1.0], [0], methods=["DPLloyd-Impr", "EUGkM"])
>>> df[df["status"] == "ok"]["method"].tolist()
['DPLloyd-Impr', 'EUGkM']
>>> bool(df.loc[df["method"] == "EUGkM", "loss"].iloc[0] < 1.5)
True
"""
from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpclust_core import _kernels
from dpclust_core._validation import check_real
from ..datasets import make_gowalla_like, make_image_like, make_lsh_mixture, make_s1_like

__all__ = ["EPSILONS", "SEEDS", "DATASET_NAMES", "METHOD_NAMES", "PACKAGE_METHODS", "ESTIMATORS", "REFERENCES",
           "COLUMNS", "Dataset", "datasets", "methods", "baseline", "run_grid", "summarize", "loss_table",
           "headline", "advisor_check", "high_dimension_table", "high_dimension_display", "SOURCES",
           "dataset_table", "compare_runs", "ledger_stages", "lsh_fitted", "results_table", "loss_display",
           "diffprivlib_spend", "lsh_tree_demo", "headline_display"]

#: The budgets of the benchmark.
EPSILONS = (0.1, 0.5, 1.0, 2.0)
#: The seeds of the benchmark (one fit per seed, budget and method).
SEEDS = tuple(range(10))
#: The datasets, lowest dimension first.
DATASET_NAMES = ("S1 (2-D)", "Gowalla (2-D)", "Image (3-D)", "digits (64-D)", "mixture (100-D)")
#: The methods, in the order of the tables; the names are those of :data:`dpclust_book.style.METHODS`.
METHOD_NAMES = ("DPLloyd", "DPLloyd-Impr", "EUGkM", "Hybrid", "GkM", "PGkM", "PrivateKMeansEasy", "LSH coreset",
                "diffprivlib")
#: The methods of this book's package (every one but diffprivlib).
PACKAGE_METHODS = METHOD_NAMES[:-1]
#: How each method is constructed (k, ε, δ and the public box aside).
ESTIMATORS = {
    "DPLloyd": "kmeans.DPLloyd(variant='original')",
    "DPLloyd-Impr": "kmeans.DPLloyd(variant='improved')",
    "EUGkM": "kmeans.EUGkM()",
    "Hybrid": "kmeans.HybridKMeans()",
    "GkM": "kmeans.GkM()",
    "PGkM": "kmeans.PGkM()",
    "PrivateKMeansEasy": "ktuple.PrivateKMeansEasy(delta=1e-6)",
    "LSH coreset": "kmeans.LSHCoresetKMeans(delta=1e-6)",
    "diffprivlib": "diffprivlib.models.KMeans (0.6.6)",
}
#: The generator or loader of every dataset and its public box.
SOURCES = {
    "S1 (2-D)": ("make_s1_like", "[-1, 1]^2"),
    "Gowalla (2-D)": ("make_gowalla_like", "[-1, 1]^2"),
    "Image (3-D)": ("make_image_like", "[-1, 1]^3"),
    "digits (64-D)": ("sklearn load_digits", "[0, 16]^64"),
    "mixture (100-D)": ("make_lsh_mixture", "[-1, 1]^100"),
}
#: The two non-private reference rows of every dataset.
REFERENCES = ("non-private", "one centre")
#: The columns of :func:`run_grid`'s table.
COLUMNS = ["dataset", "n", "d", "k", "method", "epsilon", "seed", "status", "loss", "fit_seconds", "cpu_seconds",
           "epsilon_spent", "delta_spent", "note"]

_DELTA = 1e-6


# ============================================================================================ datasets
@dataclass
class Dataset:
    """A benchmark dataset: its name, the data, the number of clusters and the public box.

    Attributes
    ----------
    name : str
    X : ndarray (n, d)
    k : int
    bounds : tuple
        The public box ``(low, high)`` (scalars or per-dimension arrays) handed to every estimator.
    source : str
        Where the data come from, in words.
    """

    name: str
    X: np.ndarray
    k: int
    bounds: tuple
    source: str

    @property
    def shape(self):
        """``(n, d)``."""
        return self.X.shape


def _digits():
    from sklearn.datasets import load_digits

    return load_digits().data.astype(float)


def datasets(names=None, *, mixture_n: int = 100_000, random_state: int = 0) -> list:
    """The benchmark's datasets (all of :data:`DATASET_NAMES` by default), every one shipped with the book.

    * ``"S1 (2-D)"``: :func:`~dpclust_book.datasets.make_s1_like`, 5,000 points, k = 15 (chapters 2 and 3);
    * ``"Gowalla (2-D)"``: :func:`~dpclust_book.datasets.make_gowalla_like`, 10,000 points, k = 5 (chapter 4);
    * ``"Image (3-D)"``: :func:`~dpclust_book.datasets.make_image_like`, 10,000 points, k = 3 (chapter 4);
    * ``"digits (64-D)"``: scikit-learn's bundled ``load_digits`` (1,797 images of 8 x 8 pixels), k = 10, the
      public box 0..16 of a pixel count;
    * ``"mixture (100-D)"``: :func:`~dpclust_book.datasets.make_lsh_mixture`, ``mixture_n`` points in d = 100,
      k = 64 (the benchmark of the LSH coreset's authors).

    The stand-ins and the mixture lie in ``[-1, 1]^d``, their public box. ``random_state`` seeds the generators.

    Parameters
    ----------
    names : sequence of str, optional
        A subset of :data:`DATASET_NAMES`.
    mixture_n : int, default 100,000
        Number of points of the d = 100 mixture.
    random_state : int, default 0

    Returns
    -------
    list of Dataset

    Examples
    --------
    >>> [(ds.name, ds.shape, ds.k) for ds in datasets(["S1 (2-D)", "digits (64-D)"])]
    [('S1 (2-D)', (5000, 2), 15), ('digits (64-D)', (1797, 64), 10)]
    """
    chosen = list(DATASET_NAMES) if names is None else list(names)
    unknown = [n for n in chosen if n not in DATASET_NAMES]
    if unknown or not chosen:
        raise ValueError(f"names must be a non-empty subset of {DATASET_NAMES}, got {chosen!r}")
    s = random_state
    box = (-1.0, 1.0)
    make = {
        "S1 (2-D)": lambda: Dataset("S1 (2-D)", make_s1_like(5000, random_state=s)[0], 15, box,
                                    "make_s1_like(5000): 15 Gaussian clusters in 2-D"),
        "Gowalla (2-D)": lambda: Dataset("Gowalla (2-D)", make_gowalla_like(10_000, random_state=s)[0], 5, box,
                                         "make_gowalla_like(10000): check-in locations, 5 regions"),
        "Image (3-D)": lambda: Dataset("Image (3-D)", make_image_like(10_000, random_state=s)[0], 3, box,
                                       "make_image_like(10000): RGB pixels, 3 overlapping populations"),
        "digits (64-D)": lambda: Dataset("digits (64-D)", _digits(), 10, (0.0, 16.0),
                                         "sklearn load_digits: 8 x 8 images, pixel counts 0..16"),
        "mixture (100-D)": lambda: Dataset(
            "mixture (100-D)", make_lsh_mixture(mixture_n, 100, 64, random_state=s)[0], 64, box,
            f"make_lsh_mixture({mixture_n}): 64 tight clusters in the unit ball of d = 100"),
    }
    return [make[n]() for n in chosen]


# ============================================================================================ methods
class _Diffprivlib:
    """diffprivlib's ``KMeans`` behind the interface of the book's estimators: ``fit`` returns self and leaves
    ``cluster_centers_`` and ``ledger_``, the ledger *measured* by
    :func:`~dpclust_book.experiments.practice.diffprivlib_ledger` (every release at its true add/remove
    sensitivity), and ``accountant_epsilon_``, what diffprivlib's own accountant records."""

    def __init__(self, n_clusters, epsilon, *, bounds, random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.random_state = random_state

    def fit(self, X, y=None):
        from .practice import diffprivlib_ledger

        X = np.asarray(X, dtype=float)
        d = X.shape[1]
        low = np.broadcast_to(np.asarray(self.bounds[0], dtype=float), (d,)).copy()
        high = np.broadcast_to(np.asarray(self.bounds[1], dtype=float), (d,)).copy()
        led, model = diffprivlib_ledger(X, self.n_clusters, self.epsilon, (low, high),
                                        random_state=self.random_state, true_sensitivity=True)
        self.ledger_ = led
        self.cluster_centers_ = np.asarray(model.cluster_centers_, dtype=float)
        self.accountant_epsilon_ = float(model.accountant.total()[0])
        self.n_iter_ = int(model.n_iter_)
        return self


def methods(k: int, bounds, names=None, *, delta: float = _DELTA) -> dict:
    """Factories of the benchmark's methods for one dataset: ``{name: make(epsilon, seed)}``.

    Every factory returns an unfitted estimator with the method's defaults, the public ``bounds``, a private N
    (no ``n_public``) and ``random_state=seed``; :data:`ESTIMATORS` lists the classes. PrivateKMeansEasy and the
    LSH coreset are (ε, δ)-DP with ``delta``; the others are pure ε-DP. ``"diffprivlib"`` gives a thin wrapper
    whose ``fit`` measures the budget diffprivlib really spends (see the module's introduction).

    Parameters
    ----------
    k : int
        Number of clusters.
    bounds : pair
        The public box.
    names : sequence of str, optional
        A subset of :data:`METHOD_NAMES` (default: all).
    delta : float, default 1e-6

    Returns
    -------
    dict

    Examples
    --------
    >>> make = methods(3, (-1.0, 1.0), ["DPLloyd", "LSH coreset"])
    >>> est = make["LSH coreset"](0.5, 7)
    >>> type(est).__name__, est.epsilon, est.delta, est.random_state
    ('LSHCoresetKMeans', 0.5, 1e-06, 7)
    >>> make["DPLloyd"](1.0, 0).variant
    'original'
    """
    from dpclust_core.kmeans import DPLloyd, EUGkM, GkM, HybridKMeans, LSHCoresetKMeans, PGkM
    from dpclust_core.ktuple import PrivateKMeansEasy

    chosen = list(METHOD_NAMES) if names is None else list(names)
    unknown = [n for n in chosen if n not in METHOD_NAMES]
    if unknown or not chosen:
        raise ValueError(f"names must be a non-empty subset of {METHOD_NAMES}, got {chosen!r}")
    B = bounds
    every = {
        "DPLloyd": lambda e, s: DPLloyd(k, e, bounds=B, variant="original", random_state=s),
        "DPLloyd-Impr": lambda e, s: DPLloyd(k, e, bounds=B, variant="improved", random_state=s),
        "EUGkM": lambda e, s: EUGkM(k, e, bounds=B, random_state=s),
        "Hybrid": lambda e, s: HybridKMeans(k, e, bounds=B, random_state=s),
        "GkM": lambda e, s: GkM(k, e, bounds=B, random_state=s),
        "PGkM": lambda e, s: PGkM(k, e, bounds=B, random_state=s),
        "PrivateKMeansEasy": lambda e, s: PrivateKMeansEasy(k, e, delta, bounds=B, random_state=s),
        "LSH coreset": lambda e, s: LSHCoresetKMeans(k, e, delta, bounds=B, random_state=s),
        "diffprivlib": lambda e, s: _Diffprivlib(k, e, bounds=B, random_state=s),
    }
    return {n: every[n] for n in chosen}


_methods_for = methods  # run_grid's argument ``methods`` is a list of names


# ============================================================================================ the loop
def baseline(X, k: int) -> dict:
    """The non-private references of a dataset (NOT private: for measuring private results only).

    Returns a dict: ``wcss`` (the best of ten k-means++ runs, scikit-learn ``KMeans(n_init=10,
    random_state=0)``), ``seconds`` (its wall time), ``one_centre`` (the WCSS of the single mean) and
    ``one_centre_loss`` (their ratio: the loss of a method whose k centres carry no information). The runs use
    one thread (OpenMP and BLAS), like every private fit of the benchmark.

    Examples
    --------
    >>> X = np.r_[np.zeros((50, 2)), np.ones((50, 2))]
    >>> b = baseline(X, 2)
    >>> b["wcss"], b["one_centre"]
    (0.0, 50.0)
    """
    from sklearn.cluster import KMeans

    X = np.asarray(X, dtype=float)
    t = time.perf_counter()
    with _one_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = float(KMeans(k, n_init=10, random_state=0).fit(X).inertia_)
    seconds = time.perf_counter() - t
    one = float(((X - X.mean(axis=0)) ** 2).sum())
    return {"wcss": best, "seconds": seconds, "one_centre": one,
            "one_centre_loss": one / best if best > 0 else math.inf}


def _one_thread():
    """One OpenMP and BLAS thread for the duration (scikit-learn's KMeans otherwise starts a thread per core)."""
    try:
        from threadpoolctl import threadpool_limits

        return threadpool_limits(limits=1)
    except Exception:  # pragma: no cover - threadpoolctl missing or broken
        return contextlib.nullcontext()


class _FitTimeout(BaseException):
    """Raised inside a fit when the time cap runs out (a BaseException, so no ``except Exception`` in an
    estimator can swallow it)."""


@contextlib.contextmanager
def _time_cap(seconds):
    """Interrupt the body after ``seconds`` of wall time (SIGALRM; only in the main thread of a POSIX process —
    elsewhere the body runs to its end and the caller compares the time afterwards)."""
    usable = (math.isfinite(seconds) and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def _alarm(signum, frame):
        raise _FitTimeout

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-6))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


def _fit_one(make, X, eps, seed, cap):
    """One capped fit: ``(estimator or None, wall, cpu, error message or None, timed out?)``."""
    t, c = time.perf_counter(), time.process_time()
    try:
        with _time_cap(cap), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = make(eps, seed).fit(X)
    except _FitTimeout:
        return None, time.perf_counter() - t, time.process_time() - c, None, True
    except Exception as exc:  # a refusal or a bug of one method must not stop the benchmark: record it
        return None, time.perf_counter() - t, time.process_time() - c, f"{type(exc).__name__}: {exc}", False
    wall = time.perf_counter() - t
    return est, wall, time.process_time() - c, None, wall > cap


def _note(est):
    if getattr(est, "status_", True) is False:
        return "k-tuple step failed: Lloyd step from random centres"
    return ""


def run_grid(data, epsilons=EPSILONS, seeds=SEEDS, methods=None, *, max_fit: float = 60.0,
             delta: float = _DELTA, progress=None) -> pd.DataFrame:
    """Fit every method on every dataset at every ε with every seed: one row per fit, in a tidy table.

    A fit's ``loss`` is its WCSS divided by the WCSS of :func:`baseline` (best of ten non-private k-means++
    runs). Each dataset also gets two reference rows (``status == "reference"``, no ε): ``"non-private"``
    (loss 1, the time of the ten runs) and ``"one centre"`` (the loss of the single mean).

    The time cap: every fit is stopped after ``max_fit`` seconds of wall time. The first fit of a method that
    runs out of time on a dataset and every fit of that method still to come on it are recorded with
    ``status == "skipped"`` and the reason in ``note``; a fit that raises is recorded as ``"failed"`` with the
    error. (The cap interrupts a fit only in the main thread of a POSIX process; elsewhere a fit runs to its end
    and counts as skipped when it took longer.)

    Parameters
    ----------
    data : sequence of Dataset
        From :func:`datasets`.
    epsilons : sequence of float
    seeds : sequence of int
        The ``random_state`` of the fits.
    methods : sequence of str, optional
        A subset of :data:`METHOD_NAMES` (default: all).
    max_fit : float, default 60
        Seconds; ``math.inf`` for no cap.
    delta : float, default 1e-6
        δ of the (ε, δ)-DP methods.
    progress : callable, optional
        Called with a line of text after every method (e.g. ``print``).

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`: ``dataset``, ``n``, ``d``, ``k``, ``method``, ``epsilon`` (asked), ``seed``, ``status``
        ("ok", "skipped", "failed" or "reference"), ``loss``, ``fit_seconds`` (wall), ``cpu_seconds``,
        ``epsilon_spent`` and ``delta_spent`` (from the fit's ledger; for diffprivlib the measured spend),
        ``note``.

    Examples
    --------
    >>> small = [Dataset("Image (3-D)", make_image_like(500, random_state=0)[0], 3, (-1.0, 1.0), "")]
    >>> df = run_grid(small, [0.5], [0, 1], methods=["DPLloyd-Impr"])
    >>> df.round(9)[["method", "status", "epsilon_spent"]].values.tolist()[1:]
    [['one centre', 'reference', nan], ['DPLloyd-Impr', 'ok', 0.5], ['DPLloyd-Impr', 'ok', 0.5]]
    >>> df.loc[0, "method"], float(df.loc[0, "loss"])
    ('non-private', 1.0)
    >>> skip = run_grid(small, [0.5], [0], methods=["PGkM"], max_fit=1e-6)
    >>> skip.loc[2, "status"], skip.loc[2, "note"][:23]
    ('skipped', 'fit stopped after 1e-06')
    """
    cap = check_real(max_fit, "max_fit", low=0.0, low_open=True) if max_fit != math.inf else math.inf
    epsilons = [float(e) for e in epsilons]
    seeds = [int(s) for s in seeds]
    rows = []
    for ds in data:  # a loop over datasets, methods, budgets and seeds: the grid itself
        X = np.asarray(ds.X, dtype=float)
        n, d = X.shape
        common = {"dataset": ds.name, "n": n, "d": d, "k": ds.k}
        ref = baseline(X, ds.k)
        rows.append({**common, "method": "non-private", "status": "reference", "loss": 1.0,
                     "fit_seconds": ref["seconds"], "note": "best of 10 k-means++ runs (scikit-learn)"})
        rows.append({**common, "method": "one centre", "status": "reference", "loss": ref["one_centre_loss"],
                     "note": "the mean of the data as the only centre"})
        for name, make in _methods_for(ds.k, ds.bounds, methods, delta=delta).items():
            stopped = None
            for eps in epsilons:
                for s in seeds:
                    row = {**common, "method": name, "epsilon": eps, "seed": s}
                    if stopped is not None:
                        rows.append({**row, "status": "skipped", "note": stopped})
                        continue
                    est, wall, cpu, err, late = _fit_one(make, X, eps, s, cap)
                    if late:
                        stopped = f"fit stopped after {cap:g} s (at ε = {eps:g}, seed {s}); later fits skipped"
                        rows.append({**row, "status": "skipped", "fit_seconds": wall, "cpu_seconds": cpu,
                                     "note": stopped})
                    elif err is not None:
                        rows.append({**row, "status": "failed", "fit_seconds": wall, "cpu_seconds": cpu,
                                     "note": err})
                    else:
                        e_spent, d_spent = est.ledger_.total()
                        loss = _kernels.wcss(X, np.asarray(est.cluster_centers_, dtype=float)) / ref["wcss"]
                        rows.append({**row, "status": "ok", "loss": float(loss), "fit_seconds": wall,
                                     "cpu_seconds": cpu, "epsilon_spent": float(e_spent),
                                     "delta_spent": float(d_spent), "note": _note(est)})
            if progress is not None:
                mine = [r for r in rows if r["dataset"] == ds.name and r["method"] == name]
                ok = [r["loss"] for r in mine if r["status"] == "ok"]
                med = f"median loss {np.median(ok):.3g}" if ok else "no fit"
                progress(f"{ds.name}: {name}: {len(ok)}/{len(mine)} fits, {med}, "
                         f"{sum(r.get('fit_seconds', 0.0) or 0.0 for r in mine):.1f} s")
    df = pd.DataFrame(rows).reindex(columns=COLUMNS)
    df["note"] = df["note"].fillna("")
    return df


# ============================================================================================ summaries
def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Median and spread over the seeds: one row per dataset, method and ε (and one per reference row).

    Columns: ``dataset``, ``n``, ``d``, ``k``, ``method``, ``epsilon``, ``fits`` (completed fits), ``status``
    ("ok", "partly skipped", "skipped", "failed", "reference"), ``loss`` (median), ``loss_q25``, ``loss_q75``,
    ``loss_min``, ``loss_max``, ``fit_seconds`` (median wall time), ``cpu_seconds`` (median),
    ``epsilon_spent`` and ``delta_spent`` (the largest over the seeds), ``failed_share`` (share of completed
    fits with a note, e.g. PrivateKMeansEasy's failed k-tuple step) and ``note`` (the first reason given).

    Examples
    --------
    >>> small = [Dataset("Image (3-D)", make_image_like(500, random_state=0)[0], 3, (-1.0, 1.0), "")]
    >>> df = run_grid(small, [1.0], [0, 1, 2], methods=["DPLloyd-Impr"])
    >>> s = summarize(df)
    >>> s[["method", "fits", "status"]].values.tolist()
    [['non-private', 1, 'reference'], ['one centre', 1, 'reference'], ['DPLloyd-Impr', 3, 'ok']]
    >>> bool(s["loss_min"].iloc[2] <= s["loss"].iloc[2] <= s["loss_max"].iloc[2])
    True
    """
    keys = ["dataset", "n", "d", "k", "method", "epsilon"]
    df = df.assign(note=df["note"].fillna("").astype(str))  # a table read back from CSV has NaN for ""
    out = []
    for key, g in df.groupby(keys, sort=False, dropna=False):  # one summary row per cell of the grid
        ok = g[g["status"].isin(["ok", "reference"])]
        loss = ok["loss"].to_numpy(dtype=float)
        statuses = set(g["status"])
        if statuses <= {"ok"}:
            status = "ok"
        elif statuses == {"reference"}:
            status = "reference"
        elif len(ok):
            status = "partly skipped" if "skipped" in statuses else "partly failed"
        else:
            status = "skipped" if "skipped" in statuses else "failed"
        notes = [x for x in g["note"] if x]
        has_loss = bool(np.isfinite(loss).any())
        out.append({**dict(zip(keys, key)), "fits": int(len(ok)), "status": status,
                    "loss": float(np.nanmedian(loss)) if has_loss else math.nan,
                    "loss_q25": float(np.nanquantile(loss, 0.25)) if has_loss else math.nan,
                    "loss_q75": float(np.nanquantile(loss, 0.75)) if has_loss else math.nan,
                    "loss_min": float(np.nanmin(loss)) if has_loss else math.nan,
                    "loss_max": float(np.nanmax(loss)) if has_loss else math.nan,
                    "fit_seconds": float(ok["fit_seconds"].median()) if len(ok) else math.nan,
                    "cpu_seconds": float(ok["cpu_seconds"].median()) if len(ok) else math.nan,
                    "epsilon_spent": float(ok["epsilon_spent"].max()) if len(ok) else math.nan,
                    "delta_spent": float(ok["delta_spent"].max()) if len(ok) else math.nan,
                    "failed_share": float(np.mean([bool(x) for x in ok["note"]])) if status != "reference"
                    and len(ok) else 0.0,
                    "note": notes[0] if notes else ""})
    return pd.DataFrame(out)


def _order(names, order):
    return [n for n in order if n in set(names)] + sorted(n for n in set(names) if n not in order)


def loss_table(summary: pd.DataFrame, epsilon: float = 1.0, value: str = "loss") -> pd.DataFrame:
    """One column of ``summary`` at one ε as a table: a row per method (the two references first), a column per
    dataset. Skipped or failed cells are NaN.

    Examples
    --------
    >>> small = [Dataset("Image (3-D)", make_image_like(500, random_state=0)[0], 3, (-1.0, 1.0), "")]
    >>> s = summarize(run_grid(small, [1.0], [0], methods=["EUGkM"]))
    >>> t = loss_table(s, 1.0)
    >>> t.index.tolist(), t.columns.tolist()
    (['non-private', 'one centre', 'EUGkM'], ['Image (3-D)'])
    """
    s = summary[(summary["epsilon"] == epsilon) | (summary["status"] == "reference")]
    t = s.pivot_table(index="method", columns="dataset", values=value, aggfunc="first", dropna=False)
    rows = _order(t.index, REFERENCES + METHOD_NAMES)
    cols = _order(t.columns, DATASET_NAMES)
    t = t.reindex(index=rows, columns=cols)
    t.columns.name = None
    return t


def headline(summary: pd.DataFrame, epsilon: float = 1.0) -> pd.DataFrame:
    """At one ε, per dataset: the best method of the package (lowest median loss), its loss and fit time,
    diffprivlib's loss, fit time and measured ε, the loss of one centre, and the best loss over the loss of
    one centre (near 1: even the best method releases centres that carry almost no information).

    Examples
    --------
    >>> small = [Dataset("Image (3-D)", make_image_like(500, random_state=0)[0], 3, (-1.0, 1.0), "")]
    >>> s = summarize(run_grid(small, [1.0], [0], methods=["EUGkM", "diffprivlib"]))
    >>> h = headline(s)
    >>> h.index.tolist(), h["best of the package"].tolist()
    (['Image (3-D)'], ['EUGkM'])
    """
    rows = []
    for name in _order(summary["dataset"].unique(), DATASET_NAMES):
        s = summary[summary["dataset"] == name]
        at = s[(s["epsilon"] == epsilon) & s["method"].isin(PACKAGE_METHODS) & s["loss"].notna()]
        best = at.loc[at["loss"].idxmin()] if len(at) else None
        dpl = s[(s["epsilon"] == epsilon) & (s["method"] == "diffprivlib")]
        one = s[s["method"] == "one centre"]["loss"]
        rows.append({"dataset": name, "best of the package": None if best is None else best["method"],
                     "its loss": math.nan if best is None else best["loss"],
                     "its fit (s)": math.nan if best is None else best["fit_seconds"],
                     "diffprivlib loss": dpl["loss"].iloc[0] if len(dpl) else math.nan,
                     "diffprivlib fit (s)": dpl["fit_seconds"].iloc[0] if len(dpl) else math.nan,
                     "diffprivlib ε spent": dpl["epsilon_spent"].iloc[0] if len(dpl) else math.nan,
                     "one centre": one.iloc[0] if len(one) else math.nan})
        r = rows[-1]
        r["its loss / one centre"] = r["its loss"] / r["one centre"] if r["one centre"] > 0 else math.nan
    return pd.DataFrame(rows).set_index("dataset")


def headline_display(h: pd.DataFrame):
    """:func:`headline` for reading (an HTML table with two header rows): the best method of the package, its
    loss and fit time; diffprivlib's loss, fit time and measured ε; the loss of one centre and the best loss
    over it. Losses to three significant digits, times to two."""
    cols = {"best of the package": ("best of the package", "method"), "its loss": ("best of the package", "loss"),
            "its fit (s)": ("best of the package", "fit (s)"), "diffprivlib loss": ("diffprivlib", "loss"),
            "diffprivlib fit (s)": ("diffprivlib", "fit (s)"), "diffprivlib ε spent": ("diffprivlib", "ε spent"),
            "one centre": ("one centre", "loss"), "its loss / one centre": ("best / one centre", "")}
    t = h[list(cols)].copy()
    t.columns = pd.MultiIndex.from_tuples(list(cols.values()))
    fmt = {c: ("{:.2f}" if c[1] == "fit (s)" or c[0] == "best / one centre" else "{:.3g}")
           for c in t.columns if c[1] != "method"}
    return _table(t, fmt)


_ADVISOR_NAMES = {"LSHCoresetKMeans": "LSH coreset"}


def advisor_check(summary: pd.DataFrame, epsilons=None) -> pd.DataFrame:
    """What :func:`~dpclust_core.advisor.recommend` picks for each dataset's N, d, k and ε, next to what was
    measured: the best method of the package, the recommended method's median loss and its ratio to the best.

    (The datasets are public, so the exact N is used; with private data ``recommend`` gets a noisy N. It is
    asked with the δ the (ε, δ)-DP methods of the grid spent, 1e-6.)

    Examples
    --------
    >>> small = [Dataset("Image (3-D)", make_image_like(500, random_state=0)[0], 3, (-1.0, 1.0), "")]
    >>> s = summarize(run_grid(small, [1.0], [0], methods=["EUGkM", "Hybrid"]))
    >>> advisor_check(s)[["recommended", "best measured"]].values.tolist()
    [['LSH coreset', 'EUGkM']]
    """
    from dpclust_core.advisor import recommend

    eps_all = sorted(summary["epsilon"].dropna().unique()) if epsilons is None else list(epsilons)
    rows = []
    for name in _order(summary["dataset"].unique(), DATASET_NAMES):
        s = summary[summary["dataset"] == name]
        n, d, k = (int(s[c].iloc[0]) for c in ("n", "d", "k"))
        for eps in eps_all:
            at = s[(s["epsilon"] == eps) & s["method"].isin(PACKAGE_METHODS) & s["loss"].notna()]
            if not len(at):
                continue
            rec = recommend(n, d, k, float(eps), delta=_DELTA).method
            rec = _ADVISOR_NAMES.get(rec, rec)
            best = at.loc[at["loss"].idxmin()]
            r_loss = at.loc[at["method"] == rec, "loss"]
            r_loss = float(r_loss.iloc[0]) if len(r_loss) else math.nan
            rows.append({"dataset": name, "ε": float(eps), "recommended": rec, "its loss": r_loss,
                         "best measured": best["method"], "best loss": float(best["loss"]),
                         "recommended / best": r_loss / float(best["loss"])})
    return pd.DataFrame(rows).set_index(["dataset", "ε"])


def high_dimension_table(n: int, k: int, epsilon: float, dims=(2, 10, 64, 100)) -> pd.DataFrame:
    """Why the thesis's methods fail in high dimension, from their error models: for every d, the cells per
    dimension of EUGkM's grid (thesis Eq. 4.13, :func:`~dpclust_core.kmeans.grid.eugkm_grid_size`) and the
    number of cells a grid with just 2 per dimension would need, and the modelled squared error of one
    DPLloyd-Impr centre (thesis Eqs. 4.6–4.9, :func:`~dpclust_core.advisor.expected_nicv`, data in ``[-1, 1]^d``)
    next to the spread of a mixture like the benchmark's (:func:`~dpclust_book.datasets.make_lsh_mixture` with k
    clusters in d dimensions: the mean squared distance of a point to the data's mean, i.e. the cost of one
    centre per point). Where the error exceeds the spread, a noisy centre lies farther from the data than their mean.

    Examples
    --------
    >>> t = high_dimension_table(100_000, 64, 1.0, dims=(2, 100))
    >>> t["EUGkM cells per dimension"].tolist(), (t["DPLloyd-Impr error / spread"] > 1).tolist()
    ([100, 1], [False, True])
    """
    from dpclust_core.advisor import expected_nicv
    from dpclust_core.kmeans import cells_per_dimension, eugkm_grid_size

    rows = []
    for d in dims:
        d = int(d)
        mse = expected_nicv(n, d, k, epsilon, methods=["DPLloyd-Impr"])["DPLloyd-Impr"]
        X, _ = make_lsh_mixture(2000, d, k, random_state=0)
        spread = float(((X - X.mean(axis=0)) ** 2).sum(axis=1).mean())
        rows.append({"d": d, "EUGkM cells per dimension": int(cells_per_dimension(eugkm_grid_size(n, epsilon, d), d)),
                     "cells at 2 per dimension": float(2.0 ** d), "DPLloyd-Impr error of a centre": mse,
                     "spread of the data": spread, "DPLloyd-Impr error / spread": mse / spread})
    return pd.DataFrame(rows).set_index("d")

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _sci(v: float, digits: int = 2) -> str:
    """A number for reading: plain with ``digits`` significant digits between 0.001 and 100,000 (thousands
    separated), otherwise "6.7 × 10⁻⁵"."""
    if not math.isfinite(v) or v == 0:
        return f"{v:g}"
    if 1e-3 <= abs(v) < 1e5:
        return f"{float(f'{v:.{digits}g}'):,g}"
    e = int(math.floor(math.log10(abs(v))))
    m = v / 10**e
    return f"{m:.{digits - 1}f} × 10{str(e).translate(_SUPERSCRIPT)}"


def _table(df, fmt=None, **kwargs):
    """:func:`dpclust_book.style.table` (the style loads without matplotlib)."""
    from ..style import table

    return table(df, fmt, **kwargs)


def high_dimension_display(t: pd.DataFrame):
    """:func:`high_dimension_table` for reading (an HTML table): whole cells, powers of ten written out,
    errors and spreads to two significant digits."""
    fmt = {c: _sci for c in t.columns}
    fmt["EUGkM cells per dimension"] = "{:d}"
    return _table(t, fmt)


def dataset_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The datasets of a summary: N (as text, thousands separated), d, k, the public box, the generator or
    loader, and the loss of one centre.

    Examples
    --------
    >>> small = [Dataset("Image (3-D)", make_image_like(500, random_state=0)[0], 3, (-1.0, 1.0), "")]
    >>> s = summarize(run_grid(small, [1.0], [0], methods=["EUGkM"]))
    >>> t = dataset_table(s)
    >>> t.loc["Image (3-D)", "N"], t.loc["Image (3-D)", "public box"]
    ('500', '[-1, 1]^3')
    """
    rows = []
    for name in _order(summary["dataset"].unique(), DATASET_NAMES):
        s = summary[summary["dataset"] == name]
        one = s.loc[s["method"] == "one centre", "loss"]
        src, box = SOURCES.get(name, ("", ""))
        rows.append({"dataset": name, "N": f"{int(s['n'].iloc[0]):,}", "d": int(s["d"].iloc[0]),
                     "k": int(s["k"].iloc[0]), "public box": box, "data": src,
                     "loss of one centre": float(one.iloc[0]) if len(one) else math.nan})
    return pd.DataFrame(rows).set_index("dataset")


def compare_runs(new: pd.DataFrame, stored: pd.DataFrame, dataset: str, epsilon: float) -> pd.DataFrame:
    """A re-run next to the stored benchmark, for one dataset and ε: per method the new median loss, the stored
    median and quartiles, and the ratio new / stored (both are summaries from :func:`summarize`).

    Examples
    --------
    >>> small = [Dataset("Image (3-D)", make_image_like(500, random_state=0)[0], 3, (-1.0, 1.0), "")]
    >>> s = summarize(run_grid(small, [1.0], [0], methods=["EUGkM"]))
    >>> compare_runs(s, s, "Image (3-D)", 1.0)["new / stored"].tolist()
    [1.0]
    """
    def cut(s):
        return s[(s["dataset"] == dataset) & (s["epsilon"] == epsilon) & s["method"].isin(METHOD_NAMES)] \
            .set_index("method")

    a, b = cut(new), cut(stored)
    ms = [m for m in METHOD_NAMES if m in a.index and m in b.index]
    return pd.DataFrame({"re-run: median": a.loc[ms, "loss"], "re-run: fits": a.loc[ms, "fits"],
                         "stored: median": b.loc[ms, "loss"], "stored: 25 %": b.loc[ms, "loss_q25"],
                         "stored: 75 %": b.loc[ms, "loss_q75"],
                         "new / stored": a.loc[ms, "loss"] / b.loc[ms, "loss"]})


_STAGES = (("N (noisy count)", "noisy N"), ("ball radius", "radius of the ball"), ("tree level", "tree counts"),
           ("leaf", "leaf averages"), ("clip radius", "clipping radii"), ("seeding step", "Lloyd steps, projected"),
           ("lift", "lift to all d"), ("final step", "Lloyd steps, all d"))


def ledger_stages(ledger) -> pd.DataFrame:
    """The releases of an :class:`~dpclust_core.kmeans.LSHCoresetKMeans` fit grouped by stage: ε, δ and the
    number of releases of each, then the total (the ledger composes them sequentially).

    Examples
    --------
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> led.record("tree level 1 counts", 0.25)
    >>> led.record("tree level 2 counts", 0.25)
    >>> ledger_stages(led)["releases"].tolist()
    [2, 2]
    """
    rows = {}
    for r in ledger.rows():
        stage = next((label for prefix, label in _STAGES if r["release"].startswith(prefix)), r["release"])
        e, d, z, c = rows.get(stage, (0.0, 0.0, 0.0, 0))
        rows[stage] = (e + r["epsilon"], d + r["delta"], z + r.get("rho", 0.0), c + 1)
    df = pd.DataFrame([(k, *v) for k, v in rows.items()], columns=["stage", "ε", "δ", "ρ", "releases"])
    eps, dl = ledger.total()
    df.loc[len(df)] = ["total", eps, dl, df["ρ"].sum(), len(ledger)]
    if not any("rho" in r for r in ledger.rows()):  # releases composed in zCDP carry their rho
        df = df.drop(columns="ρ")
    return df.set_index("stage")


def lsh_fitted(est) -> pd.DataFrame:
    """What an :class:`~dpclust_core.kmeans.LSHCoresetKMeans` fit chose from its noisy releases, as a table of
    text: the radius R of the ball, the projected dimension p, the tree's depth L and leaf threshold τ, the
    number of leaves and the two clipping radii r (projected space, then all d dimensions).

    Examples
    --------
    >>> from dpclust_core.kmeans import LSHCoresetKMeans
    >>> X = np.random.default_rng(0).normal(0, 0.1, (2000, 3))
    >>> lsh_fitted(LSHCoresetKMeans(2, 1.0, bounds=(-1, 1), random_state=0).fit(X)).index[0]
    'radius of the ball, R'
    """
    rows = {"radius of the ball, R": f"{est.radius_:.2f}",
            "projected dimension, p": f"{est.projection_dim_}",
            "depth of the tree, L": f"{est.tree_depth_}",
            "leaf threshold, τ (noisy count)": f"{est.leaf_threshold_:.0f}",
            "leaves": f"{est.n_leaves_}",
            "clipping radius r: projected, then all d": ", ".join(f"{r:.2f}" for r in est.clip_radii_)}
    return pd.DataFrame({"chosen by the fit": list(rows.values())}, index=pd.Index(list(rows), name="quantity"))


def results_table(df: pd.DataFrame):
    """Rows of :func:`run_grid` for reading (an HTML table): one row per method and seed with its loss, wall
    time of the fit and the ε and δ it spent ("—" for the reference rows)."""
    out = pd.DataFrame({"loss": df["loss"].to_numpy(), "fit (s)": df["fit_seconds"].to_numpy(),
                        "ε spent": df["epsilon_spent"].to_numpy(), "δ spent": df["delta_spent"].to_numpy()},
                       index=pd.Index(df["method"].to_numpy(), name="method"))
    return _table(out, {"loss": "{:.3g}", "fit (s)": "{:.2f}", "ε spent": "{:.3g}",
                        "δ spent": lambda v: "0" if v == 0 else f"{v:.0e}"})


def loss_display(summary: pd.DataFrame, epsilon: float = 1.0):
    """:func:`loss_table` at ``epsilon`` for reading (an HTML table): three significant digits, and the best
    method of the package on every dataset in bold (with every method that ties with it at that precision)."""
    t = loss_table(summary, epsilon)
    t.columns = [c.replace("-", "\u2011") for c in t.columns]  # a non-breaking hyphen: "(2-D)" stays whole
    st = _table(t, "{:.3g}")
    pkg = [m for m in PACKAGE_METHODS if m in t.index]

    def bold(col):  # every method that shows the best value (ties at the precision shown included)
        best = f"{col.loc[pkg].min():.3g}"
        return ["font-weight: bold" if (m in pkg and f"{v:.3g}" == best) else "" for m, v in col.items()]

    return st.apply(bold, axis=0)


def diffprivlib_spend(summary: pd.DataFrame) -> pd.DataFrame:
    """The ε diffprivlib's fits really spent (the largest over the seeds), per dataset and ε asked."""
    dpl = summary[summary["method"] == "diffprivlib"]
    t = dpl.pivot(index="dataset", columns="epsilon", values="epsilon_spent")
    t.columns = [f"asked ε = {e:g}" for e in t.columns]
    return t.reindex(_order(t.index, DATASET_NAMES))


def lsh_tree_demo(X, *, depth: int = 4, epsilon: float = 1.0, threshold: float | None = None, random_state=0):
    """The SimHash prefix tree of the LSH coreset (step 4 of :mod:`dpclust_core.kmeans.lsh_coreset`), built
    level by level on 2-D data for a figure: every level draws a public random direction ``v``, each point
    gets the bit ``<y, v> >= 0``, and the children of every branching node get noisy counts
    (:func:`~dpclust_core.mechanisms.laplace_mechanism`, sensitivity 1 per level, ``epsilon / depth`` each). A
    child is kept when its noisy count reaches ``threshold`` (τ) and split further when it reaches 3τ.

    ``X`` is centred at its box centre already (the tree cuts through the origin). ``threshold`` defaults to
    the estimator's rule, ``max(N / (16 k), 4 L / ε)`` with k = 8. Returns a dict: ``directions`` (L × 2),
    ``nodes`` (a DataFrame: level, code, exact count, noisy count, status "split", "leaf" or "dropped"),
    ``leaf_of`` (the leaf of every point, -1 for none), ``threshold``, and the private coreset: ``leaf_means``
    (noisy sums, Gaussian with L2 sensitivity √d, the radius of ``[-1, 1]^d``, over noisy counts) and
    ``leaf_counts``, each at ``epsilon`` again (a figure, not an accounted release).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(0, 0.3, (2000, 2))
    >>> demo = lsh_tree_demo(X, depth=3, epsilon=1.0)
    >>> sorted(set(demo["nodes"]["status"])) <= ["dropped", "leaf", "split"]
    True
    """
    from dpclust_core.mechanisms import gaussian_mechanism, laplace_mechanism

    rng = np.random.default_rng(random_state)
    Y = np.asarray(X, dtype=float)
    n = len(Y)
    eps_lvl = epsilon / depth
    t = threshold if threshold is not None else max(n / (16 * 8), 4 * depth / epsilon)
    dirs = rng.normal(size=(depth, Y.shape[1]))  # public random directions (not privacy noise)
    code = np.zeros(n, dtype=np.int64)
    branching = {0}
    leaf_of = np.full(n, -1)
    rows = []
    for level in range(1, depth + 1):  # a loop over the levels of the tree
        code = 2 * code + (Y @ dirs[level - 1] >= 0)
        parents = code // 2
        cand = sorted({2 * b + bit for b in branching for bit in (0, 1)})
        exact = np.array([np.sum((code == c) & np.isin(parents, list(branching))) for c in cand], dtype=float)
        noisy = np.atleast_1d(laplace_mechanism(exact, 1.0, eps_lvl, rng, l0_sensitivity=1))
        new_branching = set()
        for c, e, z in zip(cand, exact, noisy):
            if z >= 3 * t and level < depth:
                status = "split"
                new_branching.add(c)
            elif z >= t:
                status = "leaf"
                leaf_of[(code == c) & (leaf_of < 0) & np.isin(parents, list(branching))] = len(
                    [r for r in rows if r["status"] == "leaf"])
            else:
                status = "dropped"
            rows.append({"level": level, "code": int(c), "count": int(e), "noisy count": float(z),
                         "status": status})
        branching = new_branching
    # the leaf averages: noisy sums (Gaussian, L2 sensitivity = the radius of the data's ball) over noisy counts
    n_leaves = int(leaf_of.max()) + 1
    R = float(np.sqrt(Y.shape[1]))  # the half-diagonal of [-1, 1]^d
    counts = np.array([np.sum(leaf_of == j) for j in range(n_leaves)], dtype=float)
    sums = np.array([Y[leaf_of == j].sum(axis=0) for j in range(n_leaves)]).reshape(n_leaves, Y.shape[1])
    noisy_sums = gaussian_mechanism(sums, R, epsilon, 1e-6, rng, l0_sensitivity=Y.shape[1])
    noisy_counts = np.atleast_1d(laplace_mechanism(counts, 1.0, epsilon, rng, l0_sensitivity=1))
    means = np.atleast_2d(noisy_sums) / np.maximum(noisy_counts, 1.0)[:, None]
    return {"directions": dirs, "nodes": pd.DataFrame(rows), "leaf_of": leaf_of, "threshold": float(t),
            "leaf_means": means, "leaf_counts": noisy_counts}
