"""Floating-point safety of the noise (Mironov, CCS 2012) and where noise may be drawn.

The attack: with ``y`` the released value, the event ``fl(|y - 6| - |y - 5|) > 1`` is impossible in exact
arithmetic, but the textbook sampler ``5 + rng.laplace(0, b)`` produces it thousands of times in 2·10^6 draws,
while ``6 + rng.laplace(0, b)`` never does: the low-order bits of one output tell the neighbours apart. The
package's mechanisms release numbers on a power-of-two grid with exact discrete noise, so the event never
happens, and the auditor (on the attack's statistic, a post-processing) passes them and catches the naive one.
"""
import ast
import pathlib

import numpy as np
import pytest

from dpclust_core import audit
from dpclust_core.mechanisms import gaussian_mechanism, laplace_mechanism, naive_laplace

N_ATTACK = 2_000_000
PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "dpclust_core"


def attack_event(y):
    y = np.asarray(y, dtype=float)
    return (np.abs(y - 6.0) - np.abs(y - 5.0)) > 1.0


def test_attack_on_the_naive_sampler_succeeds():
    rng = np.random.default_rng(2012)
    hits5 = attack_event(naive_laplace(np.full(N_ATTACK, 5.0), 1.0, 0.5, rng)).sum()
    hits6 = attack_event(naive_laplace(np.full(N_ATTACK, 6.0), 1.0, 0.5, rng)).sum()
    assert hits5 > 20_000 and hits6 == 0  # measured: about 24,900 against 0


@pytest.mark.parametrize("value", [5.0, 6.0])
def test_attack_event_never_happens_with_the_safe_laplace(value):
    y = laplace_mechanism(np.full(N_ATTACK, value), 1.0, 0.5, rng=7, l0_sensitivity=1)
    assert attack_event(y).sum() == 0


@pytest.mark.parametrize("value", [5.0, 6.0])
def test_attack_event_never_happens_with_the_safe_gaussian(value):
    y = gaussian_mechanism(np.full(N_ATTACK, value), 1.0, 0.5, 1e-6, rng=8, l0_sensitivity=1)
    assert attack_event(y).sum() == 0


def _vectorised(mech):
    def run(value, n, rng):
        return mech(np.full(n, value), rng)
    return run


def test_auditor_catches_naive_and_passes_safe_laplace():
    stat = lambda out: attack_event(out).astype(float)  # noqa: E731  (post-processing of the release)
    naive = _vectorised(lambda v, rng: naive_laplace(v, 1.0, 0.5, rng))
    safe = _vectorised(lambda v, rng: laplace_mechanism(v, 1.0, 0.5, rng, l0_sensitivity=1))
    bad = audit(naive, 5.0, 6.0, 0.5, n_samples=200_000, statistic=stat, rng=1)
    good = audit(safe, 5.0, 6.0, 0.5, n_samples=200_000, statistic=stat, rng=1)
    assert bad.rejects(1e-6) and bad.epsilon_lower_bound > 5.0
    assert not good.rejects(0.01)


def test_auditor_passes_safe_laplace_on_its_own_events():
    safe = _vectorised(lambda v, rng: laplace_mechanism(v, 1.0, 1.0, rng, l0_sensitivity=1))
    res = audit(safe, 0.0, 1.0, 1.0, n_samples=100_000, rng=3)
    assert not res.rejects(0.01)
    half = _vectorised(lambda v, rng: laplace_mechanism(v, 0.5, 1.0, rng, l0_sensitivity=1))
    assert audit(half, 0.0, 1.0, 1.0, n_samples=100_000, rng=3).rejects(0.01)  # half the noise: caught


def test_outputs_lie_on_a_power_of_two_grid():
    y = laplace_mechanism(np.full(1000, 0.1), 1.0, 1.0, rng=0)
    gamma = 2.0 ** np.floor(np.log2(1.0 / (1024 * 1001)))
    assert np.all(y / gamma == np.round(y / gamma))


# ------------------------------------------------------------------------------- noise only in mechanisms.py
NOISE_CALLS = {"laplace", "normal", "gumbel", "standard_normal", "exponential", "geometric", "standard_exponential"}
ALLOWED_FILES = {"mechanisms.py", "data.py"}  # data.py generates synthetic data sets, not noise
MARKER = "not privacy noise"


def _is_scipy_stats(node):
    """``stats.laplace(...)`` builds a scipy distribution (densities for figures), it draws nothing."""
    return (isinstance(node, ast.Name) and node.id == "stats") or (
        isinstance(node, ast.Attribute) and node.attr == "stats")


def _raw_noise_calls(path):
    src = path.read_text()
    lines = src.splitlines()
    out = []
    for node in ast.walk(ast.parse(src)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in NOISE_CALLS
                and not _is_scipy_stats(node.func.value)):
            line = lines[node.lineno - 1]
            if MARKER not in line and not line.lstrip().startswith("#"):
                out.append(f"{path.name}:{node.lineno}: {line.strip()}")
    return out


def test_noise_is_drawn_only_in_mechanisms():
    """Every draw of Laplace/Gaussian/Gumbel/exponential noise outside mechanisms.py is a bug, unless the line
    says why it is not privacy noise (data generators and simulations mark themselves)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name not in ALLOWED_FILES:
            found += _raw_noise_calls(path)
    assert not found, "raw noise draws outside mechanisms.py:\n" + "\n".join(found)


def test_svt_numeric_release_is_on_a_grid_that_does_not_depend_on_the_query():
    """Alg. 23 with eps3 > 0 releases noisy values of the positive queries. Before the fix it released
    ``q + noise`` with the noise on a grid and q anywhere, so the residue of an output modulo the grid step
    told q = 0 from q = 0.7 in a single run. Now every output lies on one power-of-two grid, whatever q."""
    from dpclust_core import svt

    outs = {}
    for q in (0.0, 0.7):
        r = svt.run("standard", [q] * 5, -50.0, 1.0, c=5, eps3=0.5, n_runs=2000, rng=3)
        outs[q] = r[np.isfinite(r) & (r != 0)]
        assert outs[q].size > 5000  # the threshold is far below: (almost) every query is released
    step = 2.0 ** np.floor(np.log2(5 / 0.5 / (1024 * 2)))  # the grid of laplace_grid(b_out, 1), b_out = c/eps3
    for v in outs.values():
        assert np.all(v / step == np.round(v / step))
    # the residues modulo a finer grid no longer separate the two queries
    fine = step / 1024
    res0, res7 = (set(np.round(np.mod(v, step) / fine).astype(int).tolist()) for v in (outs[0.0], outs[0.7]))
    assert res0 == res7 == {0}


# ------------------------------------------------------------------------------- data value plus uniform
# The second trap: a release computed as ``edge + u·(next_edge - edge)`` between DATA values. In exact arithmetic
# it is uniform on the interval; in floating point the rounding of ``u·length`` and of the sum depends on the
# edges, so the set of floats it can produce tells the data apart. The audit's neighbours: ten zeros, and ten
# zeros plus a record at 0.25. Each release below is attacked through the event "the output is not a multiple of
# 2^-53" (impossible for -1 + u and 0 + u·1, common for 0.25 + u·0.75), with the continuous version (the code
# before the fix) as the control that the test catches.
from dpclust_core.kmeans import sample_aggregate as sa  # noqa: E402
from dpclust_core import wavecluster as wc  # noqa: E402
from dpclust_core.mechanisms import exponential_mechanism  # noqa: E402

ZEROS = np.zeros(10)
ZEROS_PLUS = np.append(ZEROS, 0.25)


def off_lattice(x, e=-53):
    """True where x is not a multiple of 2^e (any entry, for an array per release)."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    return bool(np.any(np.ldexp(x, -e) != np.round(np.ldexp(x, -e))))


def _continuous_quantile(values, q, lo, hi, epsilon, sensitivity, rng, ledger, name):
    """Smith's quantile as it was computed before the fix: a uniform REAL number between two data values."""
    v = np.sort(np.clip(values, lo, hi))
    edges = np.concatenate([[lo], v, [hi]])
    lengths = np.diff(edges)
    with np.errstate(divide="ignore"):
        scores = -np.abs(np.arange(v.size + 1) - q * v.size) + (2 * sensitivity / epsilon) * np.log(lengths)
    i = exponential_mechanism(scores, sensitivity, epsilon, rng)
    u = rng.random()  # not privacy noise: the broken control
    return float(min(edges[i] + u * lengths[i], edges[i + 1]))


def _continuous_threshold(W, p, epsilon, upper, rng, size, ledger, name):
    """PrivTHR_EM's threshold as it was computed before the fix: uniform on (x_{i+1}, x_i] in floating point."""
    lo, hi, ranks, k = wc._intervals(W, p, upper)
    with np.errstate(divide="ignore"):
        scores = -np.abs(ranks - k) + (2.0 / epsilon) * np.log(hi - lo)
    i = exponential_mechanism(scores, 1.0, epsilon, rng, size=size)
    u = rng.random(size=np.shape(i))  # not privacy noise: the broken control
    return hi[i] - u * (hi[i] - lo[i]), i


def test_dp_quantile_low_bits_attack(monkeypatch):
    """Before the fix: 0/1000 outputs off the 2^-53 lattice for ten zeros, 181/1000 with the record at 0.25. Now
    every output is a point of the public grid of [-1, 1] (step 2^-40): 0 against 0."""
    def count(data):
        return sum(off_lattice(sa.dp_quantile(data, 0.5, -1.0, 1.0, 1.0, rng=s)) for s in range(1000))

    assert (count(ZEROS), count(ZEROS_PLUS)) == (0, 0)
    out = [sa.dp_quantile(ZEROS_PLUS, 0.5, -1.0, 1.0, 1.0, rng=s) for s in range(200)]
    assert all(x * 2.0**40 == round(x * 2.0**40) for x in out)
    monkeypatch.setattr(sa, "_dp_quantile", _continuous_quantile)
    assert count(ZEROS) == 0 and count(ZEROS_PLUS) > 120  # the control: measured 173


def test_gkm_range_low_bits_attack(monkeypatch):
    """GkM with its default settings on 400 records at the origin, and the same plus one record at (0.25, 0.25):
    before the fix 0/200 against 84/200 fits released a range endpoint off the 2^-53 lattice; now 0 against 0
    (150 fits each here)."""
    X = np.zeros((400, 2))
    X2 = np.vstack([X, [[0.25, 0.25]]])

    def count(data):
        return sum(off_lattice(sa.GkM(2, 1.0, bounds=(-1, 1), random_state=s).fit(data).range_) for s in range(150))

    assert (count(X), count(X2)) == (0, 0)
    monkeypatch.setattr(sa, "_dp_quantile", _continuous_quantile)
    assert count(X) == 0 and count(X2) > 40  # the control: measured 79 of 150


def _thr_em(data, seed):
    return wc.PrivateWaveCluster(50.0, method="thr_em", grid_size=16, p=30.0, bounds=(0, 1), n_public=400,
                                 random_state=seed).fit(data).threshold_


def test_privthr_em_threshold_low_bits_attack(monkeypatch):
    """PrivTHR_EM's threshold and the public em_threshold. The smallest positive Haar value is 0.5 (one record
    alone in its block) or 1.0 (two records there); the EM picks the interval (0, x_m] and the threshold, computed
    as ``x_m - u·x_m``, lies on the 2^-54 or on the 2^-53 lattice. Before the fix 259/600 against 0/600 fits
    (280 against 0 of 600 draws of em_threshold); now 0 against 0."""
    base = np.vstack([np.full((300, 2), 0.05), [[0.55, 0.55]]])
    X, X2 = base, np.vstack([base, [[0.55, 0.55]]])
    W, W2 = np.array([[150.0, 0.5]]), np.array([[150.0, 1.0]])

    def counts():
        fits = [sum(off_lattice(_thr_em(data, s)) for s in range(300)) for data in (X, X2)]
        draws = [sum(off_lattice(d) for d in wc.em_threshold(w, 30.0, 20.0, 200.0, rng=0, size=600)[0])
                 for w in (W, W2)]
        return fits, draws

    assert counts() == ([0, 0], [0, 0])
    monkeypatch.setattr(wc, "_em_threshold", _continuous_threshold)
    (f1, f2), (d1, d2) = counts()
    assert f1 > 80 and f2 == 0 and d1 > 200 and d2 == 0  # the control: measured 133/300 and 295/600


def _quantile_release(release):
    def run(data, n, rng):
        return np.array([release(data, 0.5, -1.0, 1.0, 1.0, 1.0, rng, None, "q") for _ in range(n)])
    return run


def test_audit_of_dp_quantile_on_the_attack_neighbours():
    """The auditor on the attack's neighbours with the low-bits event (a post-processing of the output): it
    catches the continuous quantile (a claimed ε = 1 is refuted with an empirical lower bound above 4) and finds
    no violation in the grid quantile."""
    stat = lambda out: np.array([off_lattice(x) for x in out], dtype=float)  # noqa: E731
    bad = audit(_quantile_release(_continuous_quantile), ZEROS, ZEROS_PLUS, 1.0, n_samples=2000, statistic=stat,
                rng=2)
    good = audit(_quantile_release(sa._dp_quantile), ZEROS, ZEROS_PLUS, 1.0, n_samples=2000, statistic=stat,
                 rng=2)
    assert bad.rejects(1e-6) and bad.epsilon_lower_bound > 4.0
    assert not good.rejects(0.01) and good.epsilon_lower_bound < 1.0
