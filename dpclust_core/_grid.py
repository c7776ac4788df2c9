"""The public power-of-two grids every release sits on: the trusting kernels behind
:func:`~dpclust_core.mechanisms.grid_step`, :func:`~dpclust_core.mechanisms.snap_to_grid`,
:func:`~dpclust_core.mechanisms.snap_release` and :func:`~dpclust_core.mechanisms.interval_grid`.

An internal layer shared by the mechanisms and the algorithms that post-process their releases. Nothing here
draws noise or reads private data: each function rounds or indexes values onto a grid chosen from public inputs
(Mironov 2012: a released float on a public grid carries no low-order bits of the arithmetic behind it).

* ``_grid_step(scale, bits)`` / ``_grid_steps(scales, bits)`` — the step ``2^(floor(log2 scale) - bits)``;
* ``_snap(arr, step)`` / ``_snap_release(value, step)`` — round arrays (or dicts, lists, tuples of them);
* ``_interval_grid(low, high, bits)`` — ``(step, j_low, j_high)``, the grid points inside ``[low, high]``;
* ``_grid_index(values, step, j_low, j_high)`` — each value's nearest grid index, clipped to the interval.

Callers validate their arguments; these functions trust them.
"""
from __future__ import annotations

import math

import numpy as np

#: Bits of resolution below a release's public scale: a value whose public scale is ``s`` is released on the grid
#: ``2^(floor(log2 s) - RELEASE_BITS) Z`` (see :func:`~dpclust_core.mechanisms.grid_step`).
RELEASE_BITS = 40


def _grid_step(scale, bits=RELEASE_BITS):
    e = math.frexp(scale)[1] - 1  # floor(log2 scale), exact
    return math.ldexp(1.0, max(e - bits, -1022))


def _snap(arr, step):
    """Trusting :func:`~dpclust_core.mechanisms.snap_to_grid` (``step`` a power of two or an array of them, broadcast over columns)."""
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.rint(arr / step) * step
    return np.where(np.isfinite(arr), out, arr)


def _grid_steps(scale, bits=RELEASE_BITS):
    """:func:`~dpclust_core.mechanisms.grid_step` of every entry of a positive array of public scales (vectorised, exact)."""
    e = np.frexp(np.asarray(scale, dtype=float))[1] - 1
    return np.ldexp(1.0, np.maximum(e - bits, -1022))


def _snap_release(value, step):
    if isinstance(value, dict):
        return {k: _snap_release(v, step) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_snap_release(v, step) for v in value)
    if isinstance(value, (float, np.floating)):
        return float(_snap(np.float64(value), step))
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return _snap(value, step)
    return value


def _interval_grid(low, high, bits=RELEASE_BITS):
    step = _grid_step(high - low, bits)
    far = math.frexp(max(abs(low), abs(high)))[1] - 51  # |j| = |x| / step < 2^51 whenever step >= 2^far
    step = max(step, math.ldexp(1.0, far))
    j_low, j_high = math.ceil(low / step), math.floor(high / step)
    if j_low > j_high:
        raise ValueError(f"[low, high] = [{low!r}, {high!r}] is too narrow for its distance from 0: it holds no point "
                         f"of a power-of-two grid with fewer than 2^52 steps (shift the data towards 0)")
    return step, j_low, j_high


def _grid_index(values, step, j_low, j_high):
    """The grid indices of ``values`` (rounded to the nearest grid point, clipped to ``[j_low, j_high]``): a
    per-record deterministic map, so neighbouring datasets stay neighbours."""
    with np.errstate(over="ignore", invalid="ignore"):
        j = np.rint(np.asarray(values, dtype=float) / step)
    return np.clip(j, j_low, j_high).astype(np.int64)
