"""Every float a private algorithm releases lies on a power-of-two grid chosen from public inputs only.

A float computed from the data carries the data in its low-order bits (Mironov 2012): ``x + u·(x' - x)`` between
data values, or a noisy value pushed through arithmetic with a data value, can produce floats on one dataset that
it never produces on a neighbour. A release that is an integer multiple ``K·2^g`` of a power of two, with the
exponent ``g`` fixed by public inputs and ``|K|`` well below ``2^53``, has no such bits.

The test runs every private estimator (every fitted attribute ending in ``_``, recursively, and every
sensitivity its ledger records) and every public private function (every number it returns) on a dataset D and
on D plus one record, with several seeds, and checks each released quantity:

* either it is **public**: bit for bit the same on D and on D' for every seed (a function of public inputs and
  of the random seed only, such as the data-independent initial centroids or an epsilon split);
* or every value, on D and on D', is a multiple of one common power of two ``2^g`` with ``|value| < 2^(g+50)``
  (at least three bits to spare below the 53 of a float), and, where there are enough values to pin it down, the
  finest grid the values occupy is the same on D and on D' (a grid that moved with the data would show).

A broken control — the quantile computed as a uniform real number between two data values, as it was before
the fix — is caught, and so is the textbook ``value + Laplace`` (:func:`~dpclust_core.mechanisms.naive_laplace`).
"""
from __future__ import annotations

import numpy as np
import pytest

from dpclust_core.accounting import PrivacyLedger

from contract_cases import collect

ESTIMATORS, FUNCTIONS = collect()
PRIVATE = [c for c in ESTIMATORS if c.fit_arg == "X" and c.epsilon is not None and not c.id.startswith("dask-")]
SEEDS = range(3)
N_ROWS = 300
SPARE_BITS = 50  # |value| < 2^(g + 50): a grid at least 2^3 times coarser than the float's last bit
MIN_VALUES_FOR_GRID = 24  # values on each side needed to compare the finest grids of D and D'

#: The public private functions and the argument that holds the private data (D' adds one record to it).
PRIVATE_FUNCTIONS = {
    "laplace_mechanism": "value", "gaussian_mechanism": "value", "gaussian_mechanism_zcdp": "value",
    "geometric_mechanism": "value",
    "exponential_mechanism": "scores", "exponential_mechanism_intervals": "scores",
    "exponential_mechanism_top_k": "scores", "noisy_grid_synopsis": "Z", "dp_quantile": "values",
    "choose_k": "X", "em_threshold": "W", "adaptive_grid_synthetic": "X", "ktuple.private_interior_point": "x",
    "ktuple.private_bounding_segment": "x", "ktuple.private_average_1d": "x", "ktuple.private_average": "X",
    "ktuple.good_centers": "T", "ktuple.good_centers_status_samples": "T", "gmm.naive_noisy_points": "X",
    "svt.run": "queries", "private_bounds": "X", "private_count": "X",
    **{f"svt.{v}": "queries" for v in ("lyu_su_li", "dwork_roth_2014", "roth_2011", "lee_clifton_2014",
                                       "stoddard_2014", "chen_2015", "gptt", "standard")},
    **{f"svt_ex.select_top_c[{m}]": "scores" for m in ("svt", "dpbook", "retraversal", "em")},
}
#: Functions that take a budget and randomness but release nothing private, and why.
NOT_RELEASES = {
    "naive_laplace": "the textbook sampler kept for study, not private (used below as a control)",
    "simulate_one_round_mse": "a simulation that reports its error against the true data",
    "gx.compare_methods": "an experiment loop reporting errors against the truth",
    "gx.separation_success_rate": "an experiment loop reporting success rates against the truth",
    "gx.separation_sample_complexity": "an experiment loop reporting sample complexities",
    "svt_exact.monte_carlo_probability": "a Monte Carlo estimate of an output probability on given queries",
    "svt_exact.audit_variant": "an audit of a variant on given queries", "svt_ex.three_views": "an analysis figure",
    "audit.audit": "the auditor", "audit.fisher_thinned_pvalue": "a statistical test",
}


# ------------------------------------------------------------------------------------------ collecting floats
def _floats(value, path, out, depth=0):
    """Every float array or float reachable from ``value``, keyed by its path (ledgers: their sensitivities)."""
    if depth > 6 or value is None or isinstance(value, (bool, str, bytes, np.bool_)):
        return
    if isinstance(value, PrivacyLedger):
        for i, entry in enumerate(value.entries):
            _floats(entry.sensitivity, f"{path}.entries[{i}].sensitivity", out, depth + 1)
        return
    if isinstance(value, (float, np.floating)):
        out[path] = np.array([float(value)])
    elif isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            out[path] = value.astype(float).ravel()
        elif value.dtype == object:
            for i, v in enumerate(value.ravel()[:64]):
                _floats(v, f"{path}[{i}]", out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value[:64]):
            _floats(v, f"{path}[{i}]", out, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _floats(v, f"{path}[{k!r}]", out, depth + 1)
    elif type(value).__module__.startswith("dpclust_core") and hasattr(value, "__dict__") and not callable(value):
        for k, v in vars(value).items():
            if not k.startswith("_") and k not in ("ledger", "random_state"):
                _floats(v, f"{path}.{k}", out, depth + 1)


def _estimator_releases(est):
    out = {}
    for name, value in vars(est).items():
        if name.endswith("_") and not name.startswith("_"):
            _floats(value, name, out)
    return out


def _low_bit(v):
    """The exponent g of the lowest set bit of every finite non-zero v (v = odd * 2^g)."""
    m, e = np.frexp(v)
    mant = np.abs(np.ldexp(m, 53)).astype(np.uint64)  # the 53-bit integer mantissa
    tz = np.zeros(mant.size, dtype=np.int64)
    rest = mant.copy()
    for shift in (32, 16, 8, 4, 2, 1):  # count trailing zeros by halving
        low = rest & np.uint64((1 << shift) - 1)
        z = low == 0
        tz += np.where(z, shift, 0)
        rest = np.where(z, rest >> np.uint64(shift), rest)
    return e - 53 + tz


def grid_violations(runs_d, runs_n):
    """The released quantities that are neither public nor on one public grid (see the module docstring).

    ``runs_d`` and ``runs_n``: one dict {path: values} per seed, on D and on D'."""
    bad = []
    for path in sorted(set().union(*runs_d, *runs_n)):
        a = [r.get(path) for r in runs_d]
        b = [r.get(path) for r in runs_n]
        if all(x is not None and y is not None and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
               for x, y in zip(a, b)):
            continue  # public: the same on D and D' for every seed
        va = np.concatenate([x for x in a if x is not None] or [np.zeros(0)])
        vb = np.concatenate([x for x in b if x is not None] or [np.zeros(0)])
        va, vb = va[np.isfinite(va) & (va != 0)], vb[np.isfinite(vb) & (vb != 0)]
        if not va.size + vb.size:
            continue
        ga, gb = _low_bit(va), _low_bit(vb)
        g = int(min(ga.min(initial=10**6), gb.min(initial=10**6)))
        top = np.abs(np.concatenate([va, vb])).max()
        if not top < 2.0 ** (g + SPARE_BITS):
            bad.append(f"{path}: values up to {top:.3g} on the grid 2^{g} ({np.log2(top) - g:.1f} bits)")
        elif va.size >= MIN_VALUES_FOR_GRID and vb.size >= MIN_VALUES_FOR_GRID and ga.min() != gb.min():
            bad.append(f"{path}: the finest grid moves with the data (2^{ga.min()} on D, 2^{gb.min()} on D')")
    return bad


# ------------------------------------------------------------------------------------------ neighbours
def _add_record(data):
    """D plus one record: for a 2-D array a row, for a 1-D array a value, for tuples (n, k, d) a tuple, near the
    first record and off any simple grid."""
    arr = np.asarray(data)
    extra = arr[:1] * 0.75 + 0.0123456789 * np.sign(arr[:1] + 0.5)
    return np.concatenate([arr, extra.astype(arr.dtype)], axis=0)


def _fit_runs(case, data):
    return [_estimator_releases(case.make(random_state=s).fit(data)) for s in SEEDS]


@pytest.mark.parametrize("case", PRIVATE, ids=[c.id for c in PRIVATE])
def test_every_fitted_float_is_on_a_public_grid(case):
    X = case.data(N_ROWS, 11)
    assert not grid_violations(_fit_runs(case, X), _fit_runs(case, _add_record(X)))


def _function_cases():
    return [f for f in FUNCTIONS if f.id in PRIVATE_FUNCTIONS]


def _neighbour_of(case, arg):
    """The private argument on D': one record more, or, for the scores of an exponential mechanism (one per
    option), one score moved by a data-like amount."""
    data = case.kwargs[arg]
    if arg == "scores" and not case.id.startswith("svt."):
        moved = np.array(data, dtype=float, copy=True)
        moved[0] += 0.0123456789
        return moved
    return _add_record(data)


#: Parts of a function's return value that its docstring says are NOT private (internal use only).
NOT_RELEASED_PARTS = {"ktuple.good_centers": ("return[1]",)}  # the selected tuple: a record of T


def _call_runs(case, data_arg, data):
    runs = []
    for s in SEEDS:
        kw = dict(case.kwargs)
        kw[data_arg] = data
        seed_arg = "rng" if "rng" in case.kinds else "random_state"
        kw[seed_arg] = s
        if "ledger" in case.kinds:
            kw["ledger"] = PrivacyLedger()
        out = {}
        _floats(case.fn(**kw), "return", out)
        if "ledger" in case.kinds:
            _floats(kw["ledger"], "ledger", out)
        for part in NOT_RELEASED_PARTS.get(case.id, ()):
            out.pop(part, None)
        runs.append(out)
    return runs


@pytest.mark.parametrize("case", _function_cases(), ids=[f.id for f in _function_cases()])
def test_every_returned_float_is_on_a_public_grid(case):
    arg = PRIVATE_FUNCTIONS[case.id]
    data = case.kwargs[arg]
    assert not grid_violations(_call_runs(case, arg, data), _call_runs(case, arg, _neighbour_of(case, arg)))


def test_every_private_function_is_classified():
    """A new public function that takes a budget and randomness must be listed above (a release or not)."""
    randomised = {f.id for f in FUNCTIONS if "epsilon" in f.kinds and ({"rng", "random_state"} & set(f.kinds))}
    assert randomised <= set(PRIVATE_FUNCTIONS) | set(NOT_RELEASES), randomised - set(PRIVATE_FUNCTIONS)


# ------------------------------------------------------------------------------------------ the controls
def test_the_check_catches_a_uniform_real_number_between_data_values(monkeypatch):
    """The quantile as it was before the fix (``edge + u·length`` between data values) fails the check: through
    dp_quantile itself and through GkM's released range, while the fixed versions pass."""
    from dpclust_core.kmeans import sample_aggregate as sa
    from test_floating_point import _continuous_quantile

    values = np.linspace(-0.5, 0.5, 41)

    def runs(data):
        return [{"q": np.array([sa.dp_quantile(data, 0.3, -1.0, 1.0, 1.0, rng=s)])} for s in range(40)]

    assert not grid_violations(runs(values), runs(_add_record(values)))
    gkm = next(c for c in PRIVATE if c.id == "GkM")
    X = gkm.data(N_ROWS, 11)
    monkeypatch.setattr(sa, "_dp_quantile", _continuous_quantile)
    assert grid_violations(runs(values), runs(_add_record(values)))
    assert any(v.startswith("range_") for v in grid_violations(_fit_runs(gkm, X), _fit_runs(gkm, _add_record(X))))


def test_the_check_catches_the_textbook_laplace_mechanism():
    from dpclust_core.mechanisms import laplace_mechanism, naive_laplace

    x = np.linspace(0.1, 0.9, 30)

    def runs(mech, data):
        return [{"sum": np.atleast_1d(mech(np.sum(data), 1.0, 1.0, s))} for s in range(30)]

    assert grid_violations(runs(naive_laplace, x), runs(naive_laplace, _add_record(x)))
    assert not grid_violations(runs(laplace_mechanism, x), runs(laplace_mechanism, _add_record(x)))


def test_low_bit_and_the_criterion_on_known_values():
    assert _low_bit(np.array([1.0, 0.75, 3 * 2.0**-40, -6.0])).tolist() == [0, -2, -40, 1]
    on = [{"a": np.array([0.5, 0.25, 3 * 2.0**-40])}]
    assert not grid_violations(on, [{"a": np.array([0.5, 2.0**-40])}])
    assert grid_violations(on, [{"a": np.array([0.1])}])  # 0.1 has 53 significant bits


# ------------------------------------------------------------------------------------------ the private scalers
def _scalers():
    from dpclust_core.preprocessing import PrivateMinMaxScaler, PrivateStandardScaler

    return {
        "PrivateMinMaxScaler": lambda s: PrivateMinMaxScaler(1.0, random_state=s),
        "PrivateMinMaxScaler-public": lambda s: PrivateMinMaxScaler(1.0, bounds=(-1.5, 1.5), random_state=s),
        "PrivateStandardScaler": lambda s: PrivateStandardScaler(2.0, random_state=s),
        "PrivateStandardScaler-public": lambda s: PrivateStandardScaler(1.0, bounds=(-1.5, 1.5), random_state=s),
    }


@pytest.mark.parametrize("name", list(_scalers()))
def test_every_float_a_private_scaler_releases_is_on_a_public_grid(name):
    from contract_cases import blobs

    make = _scalers()[name]
    X = blobs(2000, seed=11)  # enough rows for a private box in two columns

    def runs(data):
        return [_estimator_releases(make(s).fit(data)) for s in SEEDS]

    assert not grid_violations(runs(X), runs(_add_record(X)))
