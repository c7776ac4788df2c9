"""Fit time of every private k-means estimator next to IBM diffprivlib's ``KMeans`` (issue 15, "Fast fits").

Usage (from the repository root)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_fit_speed.py [--repeats 5] [--before] [--nicv]

**Speed** (default): Letter-like data (``make_letter_like``: 20,000 x 16 in [-1, 1]^16, the public box of UCI
Letter's attributes 0-15 mapped there), k = 16, epsilon = 1 (delta = 1e-6 for the (epsilon, delta) estimators),
every estimator with its defaults. The fits are interleaved (diffprivlib, then every estimator, ``--repeats``
times), so a machine shared with other jobs slows them all alike; the table reports the median wall time and the
median CPU time of ``fit`` and their ratios to diffprivlib's (target: at most 2). ``--before`` adds rows for the
code before issue 15 (emulated: the grid methods' thesis search — every one of the 30 runs on every cell, one run
after the other; PGkM evaluating every candidate from scratch), one repeat each (they take seconds).

**NICV** (``--nicv``): what the screened search of the grid methods (``screen_cells``, see
:class:`~dpclust_core.kmeans.EUGkM`) does to accuracy. For S1-like (k = 15), Gowalla-like (k = 5) and
Letter-like (k = 16) data at epsilon 0.1 and 1, every grid estimator and the hybrid are fitted with the thesis's
search and with the default search from the same ``random_state`` (the same noisy synopsis), ``--seeds`` seeds;
the table gives the median NICV on the data (and the inter-quartile range) of both, relative to the best of 10
non-private Lloyd runs. PGkM's new evaluation gives the same numbers as before (it is checked here too).

Writes ``benchmarks/results/fit_speed.md`` (and ``fit_nicv.md`` with ``--nicv``). ``--quick``: 2 repeats, 3 seeds.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import functools  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from dpclust_core import _kernels  # noqa: E402
from dpclust_book.datasets import make_gowalla_like, make_letter_like, make_s1_like  # noqa: E402
from dpclust_core.kmeans import (EUGkM, DPLloyd, GkM, HybridKMeans, LSHCoresetKMeans, MkM, PGkM,  # noqa: E402
                                 UGkM, best_of_lloyd)
from dpclust_core.kmeans import synopsis as syn_mod  # noqa: E402
from dpclust_core.kmeans import sample_aggregate as sa_mod  # noqa: E402
from dpclust_core.ktuple import PrivateKMeansEasy  # noqa: E402
from dpclust_core.metrics import nicv  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
B = (-1.0, 1.0)


def _diffprivlib(k, d, eps, seed):
    from diffprivlib.models import KMeans

    return KMeans(n_clusters=k, epsilon=eps, bounds=([-1.0] * d, [1.0] * d), random_state=seed)


def estimators(k, d, eps=1.0, delta=1e-6):
    """name -> factory(seed) of every k-means estimator with its defaults."""
    return {
        "diffprivlib KMeans": lambda s: _diffprivlib(k, d, eps, s),
        "DPLloyd (original)": lambda s: DPLloyd(k, eps, bounds=B, variant="original", random_state=s),
        "DPLloyd-Impr": lambda s: DPLloyd(k, eps, bounds=B, random_state=s),
        "UGkM": lambda s: UGkM(k, eps, bounds=B, random_state=s),
        "EUGkM": lambda s: EUGkM(k, eps, bounds=B, random_state=s),
        "MkM": lambda s: MkM(k, eps, bounds=B, random_state=s),
        "HybridKMeans": lambda s: HybridKMeans(k, eps, bounds=B, random_state=s),
        "GkM": lambda s: GkM(k, eps, bounds=B, random_state=s),
        "PGkM": lambda s: PGkM(k, eps, bounds=B, random_state=s),
        "LSHCoresetKMeans": lambda s: LSHCoresetKMeans(k, eps, delta, bounds=B, random_state=s),
        "PrivateKMeansEasy": lambda s: PrivateKMeansEasy(k, eps, delta, bounds=B, random_state=s),
    }


# ---------------------------------------------------------------------------------------- the code before
def _sequential_lloyd_runs(P, w, C0, r, max_iter, tol):
    """The grid methods' Lloyd before issue 15: one run after the other through the single-run kernel."""
    out = np.empty_like(C0)
    iters = np.empty(C0.shape[0], dtype=int)
    for b in range(C0.shape[0]):
        out[b], iters[b] = _kernels.lloyd(P, C0[b], weights=w, max_iter=max_iter, tol=tol * r, min_weight=0.0,
                                          clip=(-r, r))
    return out, iters


def _old_wcss_pool(Z, cands, block_elems=1 << 17):
    """PGkM's candidate evaluation before issue 15 (every candidate from scratch), kept here for the comparison."""
    P, k, d = cands.shape
    n = Z.shape[0]
    C = cands.reshape(P * k, d)
    cn = np.einsum("ij,ij->i", C, C)
    out = np.zeros(P)
    n_blk = int(min(n, max(1024, block_elems // (P * k))))
    p_blk = int(max(1, min(P, block_elems // (n_blk * k))))
    for a in range(0, n, n_blk):
        Zt = np.ascontiguousarray(Z[a:a + n_blk].T)
        for s in range(0, P, p_blk):
            S = C[s * k:(s + p_blk) * k] @ Zt
            S *= -2.0
            S += cn[s * k:(s + p_blk) * k, None]
            out[s:s + p_blk] += S.reshape(-1, k, S.shape[1]).min(axis=1).sum(axis=1)
    out += float(np.einsum("ij,ij->", Z, Z))
    return np.maximum(out, 0.0)


@contextlib.contextmanager
def thesis_search():
    """Run the grid methods and the hybrid as before issue 15: every run on every cell (``screen_cells=None``),
    runs one after the other; PGkM evaluates every child from scratch. Same random draws as the new code."""
    saved = (syn_mod.lloyd_runs, syn_mod.fit, sa_mod._wcss_children, sa_mod._wcss_pool)
    sa_mod._wcss_pool = _old_wcss_pool
    syn_mod.lloyd_runs = _sequential_lloyd_runs
    syn_mod.fit = functools.partial(syn_mod.fit, screen_cells=None)
    sa_mod._wcss_children = lambda Z, parents, first, second, cut_c, mut_c, cands: _old_wcss_pool(Z, cands)
    try:
        yield
    finally:
        syn_mod.lloyd_runs, syn_mod.fit, sa_mod._wcss_children, sa_mod._wcss_pool = saved


def _before(name, factory):
    """A factory for the code before issue 15 (None if the estimator did not change)."""
    if name in ("UGkM", "EUGkM", "MkM"):
        return lambda s: factory(s).set_params(screen_cells=None)
    if name in ("HybridKMeans", "PGkM"):
        return factory
    return None


def _timed_fit(est, X):
    t, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    return time.perf_counter() - t, time.process_time() - c


def speed(repeats, before):
    X, _ = make_letter_like(20_000, random_state=0)
    n, d = X.shape
    k = 16
    ests = estimators(k, d)
    for f in ests.values():  # warm-up: imports, caches
        _timed_fit(f(99), X[:2000])
    wall = {name: [] for name in ests}
    cpu = {name: [] for name in ests}
    for s in range(repeats):
        for name, f in ests.items():
            w, c = _timed_fit(f(s), X)
            wall[name].append(w)
            cpu[name].append(c)
        print(f"repeat {s + 1}/{repeats} done", flush=True)
    old = {}
    if before:
        for name, f in ests.items():
            g = _before(name, f)
            if g is None:
                continue
            with thesis_search():
                w, c = _timed_fit(g(0), X)
            old[name] = (w, c)
            print(f"before: {name} {w:.2f} s wall, {c:.2f} s CPU", flush=True)
    ref_w, ref_c = np.median(wall["diffprivlib KMeans"]), np.median(cpu["diffprivlib KMeans"])
    lines = [f"# Fit time of every k-means estimator next to diffprivlib (issue 15)", "",
             f"`benchmarks/bench_fit_speed.py`: Letter-like data ({n:,} x {d}, `make_letter_like(random_state=0)`, "
             f"in [-1, 1]^16, box public), k = {k}, epsilon = 1 (delta = 1e-6 for LSHCoresetKMeans and "
             f"PrivateKMeansEasy), defaults otherwise. {repeats} interleaved repeats; median wall and CPU time of "
             f"`fit`; ratio = time / diffprivlib's (target <= 2). Machine: {platform.machine()}, Python "
             f"{platform.python_version()}, `OPENBLAS_NUM_THREADS=1`, 2 cores shared with other jobs (wall times "
             f"are inflated by the other jobs; CPU times less so).", "",
             "| estimator | wall (s) | wall ratio | CPU (s) | CPU ratio |" + (" before: wall (s) | before: CPU (s) | "
                                                                         "before: CPU ratio |" if before else ""),
             "|---|---|---|---|---|" + ("---|---|---|" if before else "")]
    for name in ests:
        w, c = np.median(wall[name]), np.median(cpu[name])
        row = f"| {name} | {w:.3f} | {w / ref_w:.2f} | {c:.3f} | {c / ref_c:.2f} |"
        if before:
            if name in old:
                ow, oc = old[name]
                row += f" {ow:.2f} | {oc:.2f} | {oc / ref_c:.1f} |"
            else:
                row += " (unchanged) | | |"
        lines.append(row)
    if before:
        lines += ["", "Before: the code before issue 15, emulated (`thesis_search()` in the script: the grid methods "
                  "run all 30 Lloyd runs on every one of the 2^16 cells, one after the other; PGkM evaluates every "
                  "child from scratch), one fit each after the repeats; its CPU time over diffprivlib's median CPU time."]
    text = "\n".join(lines)
    print(text)
    (RESULTS / "fit_speed.md").write_text(text + "\n")


# ---------------------------------------------------------------------------------------- NICV before/after
def nicv_table(seeds):
    sets = [("S1-like (5,000 x 2, k = 15)", make_s1_like(random_state=0)[0], 15),
            ("Gowalla-like (107,091 x 2, k = 5)", make_gowalla_like(random_state=0)[0], 5),
            ("Letter-like (20,000 x 16, k = 16)", make_letter_like(20_000, random_state=0)[0], 16)]
    lines = ["# NICV of the grid methods: thesis search against the screened search (issue 15)", "",
             f"`benchmarks/bench_fit_speed.py --nicv`: {seeds} seeds; both searches from the same `random_state` "
             "(the same noisy synopsis and initialisations); NICV on the data relative to the best of 10 "
             "non-private Lloyd runs: median [inter-quartile range]. 'thesis' = every one of the 30 runs on every "
             "cell (`screen_cells=None`); 'screened' = the default (`screen_cells=2048`, `refine_iter=5`); cells = "
             "m^d of the synopsis. PGkM: largest relative difference of its centres before/after the faster "
             "evaluation.", "",
             "| data | epsilon | method | cells | thesis | screened | fit time thesis / screened (s) |",
             "|---|---|---|---|---|---|---|"]
    for label, X, k in sets:
        _, base = best_of_lloyd(X, k, 10, rng=0)
        for eps in (0.1, 1.0):
            for name, cls in (("UGkM", UGkM), ("EUGkM", EUGkM), ("MkM", MkM), ("HybridKMeans", HybridKMeans)):
                old, new, t_old, t_new, cells = [], [], [], [], None
                for s in range(seeds):
                    with thesis_search():
                        est = cls(k, eps, bounds=B, random_state=s)
                        if name != "HybridKMeans":
                            est.set_params(screen_cells=None)
                        w, _ = _timed_fit(est, X)
                    old.append(nicv(X, est.scaled_centers_) / base)
                    t_old.append(w)
                    est = cls(k, eps, bounds=B, random_state=s)
                    w, _ = _timed_fit(est, X)
                    new.append(nicv(X, est.scaled_centers_) / base)
                    t_new.append(w)
                    cells = est.n_cells_
                q = lambda v: f"{np.median(v):.3f} [{np.percentile(v, 25):.3f}, {np.percentile(v, 75):.3f}]"
                lines.append(f"| {label} | {eps} | {name} | {cells:,} | {q(old)} | {q(new)} | "
                             f"{np.median(t_old):.2f} / {np.median(t_new):.2f} |")
                print(lines[-1], flush=True)
    X, _ = make_letter_like(20_000, random_state=0)
    diffs = []
    for s in range(seeds):
        with thesis_search():
            a = PGkM(16, 1.0, bounds=B, random_state=s).fit(X).cluster_centers_
        b = PGkM(16, 1.0, bounds=B, random_state=s).fit(X).cluster_centers_
        diffs.append(np.abs(a - b).max() / np.abs(a).max())
    lines += ["", f"PGkM on Letter-like data, epsilon = 1, {seeds} seeds: largest relative difference of the centres "
              f"between the old and the new evaluation: {max(diffs):.1e} (the same selections)."]
    text = "\n".join(lines)
    print(text)
    (RESULTS / "fit_nicv.md").write_text(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--before", action="store_true", help="add rows for the code before issue 15")
    ap.add_argument("--nicv", action="store_true", help="NICV of the thesis search against the screened one")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="2 repeats, 3 seeds")
    args = ap.parse_args()
    if args.quick:
        args.repeats, args.seeds = 2, 3
    RESULTS.mkdir(parents=True, exist_ok=True)
    with _kernels.single_blas_thread():
        if args.nicv:
            nicv_table(args.seeds)
        else:
            speed(args.repeats, args.before)


if __name__ == "__main__":
    main()
