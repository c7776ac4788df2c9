"""Private numeric kernels: one of each, shared by every algorithm. They trust their input.

Public functions and estimators validate their arguments (:mod:`dpclust_core._validation`) and then call
these. Nothing here draws noise or spends privacy: these are the non-private building blocks (nearest
centroid, per-cluster statistics, Lloyd's iterations, k-means++, per-chunk k-means, best-of-n).

Memory is bounded: every pass over the points works on blocks of rows, so the temporaries never exceed a few
megabytes whatever the number of points (an n x k x d array is never built). BLAS runs on one thread inside
:func:`single_blas_thread` — the estimators' ``fit`` enters it — because multithreaded BLAS is several times
slower than one thread for the thin matrix products of clustering on a few cores.
"""
from __future__ import annotations

import contextlib

import numpy as np

_BLOCK_ELEMS = 1 << 20  # elements of the largest temporary (n_block x k) in a pass over the points
_controller = None


@contextlib.contextmanager
def single_blas_thread():
    """Limit BLAS/OpenMP to one thread for the duration (threadpoolctl; a no-op if it is unavailable)."""
    global _controller
    try:
        if _controller is None:
            from threadpoolctl import ThreadpoolController

            _controller = ThreadpoolController()
        ctx = _controller.limit(limits=1, user_api="blas")
    except Exception:  # pragma: no cover - threadpoolctl missing or broken
        ctx = contextlib.nullcontext()
    with ctx:
        yield


def _blocks(n, k):
    step = max(1, _BLOCK_ELEMS // max(k, 1))
    for a in range(0, n, step):
        yield a, min(n, a + step)


# ----------------------------------------------------------------------------------------- distances
def sq_distances(X, C):
    """Squared Euclidean distances, shape (n, k), never negative."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(C, dtype=float)
    out = np.empty((X.shape[0], C.shape[0]))
    cn = np.einsum("ij,ij->i", C, C)
    for a, b in _blocks(X.shape[0], C.shape[0]):
        xa = X[a:b]
        blk = xa @ C.T
        blk *= -2.0
        blk += cn
        blk += np.einsum("ij,ij->i", xa, xa)[:, None]
        np.maximum(blk, 0.0, out=blk)
        out[a:b] = blk
    return out


def assign(X, C):
    """Index of the nearest centre of every row of X (ties to the lowest index), in blocks of rows."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(C, dtype=float)
    n, k = X.shape[0], C.shape[0]
    labels = np.empty(n, dtype=np.int64)
    if k == 1:
        labels[:] = 0
        return labels
    cn = np.einsum("ij,ij->i", C, C)
    for a, b in _blocks(n, k):
        blk = X[a:b] @ C.T
        blk *= -2.0
        blk += cn
        labels[a:b] = np.argmin(blk, axis=1)
    return labels


def min_sq_distances(X, C):
    """Squared distance of every row of X to its nearest centre, in blocks of rows."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(C, dtype=float)
    out = np.empty(X.shape[0])
    cn = np.einsum("ij,ij->i", C, C)
    for a, b in _blocks(X.shape[0], C.shape[0]):
        xa = X[a:b]
        blk = xa @ C.T
        blk *= -2.0
        blk += cn
        out[a:b] = np.maximum(blk.min(axis=1) + np.einsum("ij,ij->i", xa, xa), 0.0)
    return out


def min_pair_sq_distance(C):
    """``min_{i<j} ||o_i - o_j||^2`` over the rows of ``C`` (inf for one row): the Ray–Turi denominator."""
    if C.shape[0] < 2:
        return np.inf
    return float(sq_distances(C, C)[np.triu_indices(C.shape[0], 1)].min())


def wcss(X, C, weights=None):
    """Within-cluster sum of squares of X around its nearest centres (weighted when ``weights`` is given)."""
    d2 = min_sq_distances(X, C)
    return float(d2.sum() if weights is None else np.dot(d2, weights))


# ----------------------------------------------------------------------------------------- statistics
def cluster_stats(X, labels, k, weights=None):
    """Per-cluster counts (k,) and coordinate sums (k, d); with ``weights``, weighted counts and sums."""
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    counts = np.bincount(labels, weights=weights, minlength=k).astype(float)
    sums = np.empty((k, d))
    for j in range(d):  # a loop over dimensions, each a vectorised pass over the points
        col = X[:, j] if weights is None else X[:, j] * weights
        sums[:, j] = np.bincount(labels, weights=col, minlength=k)
    return counts, sums


def assign_stats(X, C, weights=None):
    """One pass: nearest centre of every row, then per-cluster counts and sums. Returns (labels, counts, sums)."""
    labels = assign(X, C)
    counts, sums = cluster_stats(X, labels, C.shape[0], weights)
    return labels, counts, sums


# ----------------------------------------------------------------------------------------- Lloyd
def lloyd(X, init, *, weights=None, max_iter=300, tol=1e-4, min_weight=0.0, clip=None):
    """Lloyd's algorithm from ``init`` (k, d). Returns ``(centers, n_iter)``.

    Every point is assigned before any centre moves. A cluster whose (weighted) count is ``<= min_weight``
    keeps its previous centre — with noisy, possibly negative weights (a grid synopsis) this is what keeps
    Lloyd well defined. ``clip=(low, high)`` clips every centre into a box after each update. Stops when no
    centre moves by more than ``tol`` (Euclidean) or after ``max_iter`` iterations.
    """
    C = np.array(init, dtype=float, copy=True)
    k = C.shape[0]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        _, counts, sums = assign_stats(X, C, weights)
        ok = counts > min_weight
        newC = C.copy()
        newC[ok] = sums[ok] / counts[ok, None]
        if clip is not None:
            np.clip(newC, clip[0], clip[1], out=newC)
        shift = np.sqrt(((newC - C) ** 2).sum(axis=1)).max() if k else 0.0
        C = newC
        if shift <= tol:
            break
    return C, n_iter


def lloyd_batch(X, inits, *, weights=None, max_iter=300, tol=1e-4, min_weight=0.0, clip=None):
    """:func:`lloyd` from every set of ``inits`` (B, k, d) at once. Returns ``(centers (B, k, d), n_iter (B,))``.

    The same algorithm as :func:`lloyd` run B times (each run has its own stopping test and its own
    ``n_iter``), but every pass over the points serves all the runs still going: one matrix product of a block
    of rows with the ``B k`` centres, then one sparse product (a row's membership in every run's clusters
    times its weighted coordinates) for all the runs' counts and sums. A run stops as soon as it converges and
    leaves the batch. Memory is bounded by blocks of rows as everywhere here (plus one weighted copy of X).
    """
    from scipy import sparse

    X = np.asarray(X, dtype=float)
    C = np.array(inits, dtype=float, copy=True)
    B, k, d = C.shape
    n = X.shape[0]
    iters = np.zeros(B, dtype=np.int64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    WX = np.empty((n, d + 1))  # [w, w x]: one product gives the counts and the sums
    WX[:, 0] = w
    np.multiply(X, w[:, None], out=WX[:, 1:])
    active = np.arange(B)
    for it in range(1, max_iter + 1):
        if active.size == 0:
            break
        A = active.size
        Ca = C[active]  # (A, k, d)
        flat = Ca.reshape(A * k, d)
        cn = np.einsum("ij,ij->i", flat, flat)
        stats = np.zeros((A * k, d + 1))
        offs = (np.arange(A) * k)[None, :]
        for a, b in _blocks(n, A * k):
            blk = X[a:b] @ flat.T
            blk *= -2.0
            blk += cn
            key = (blk.reshape(b - a, A, k).argmin(axis=2) + offs).ravel()  # bin (run, cluster) of every (row, run)
            member = sparse.csr_matrix((np.ones(key.size), key, np.arange(0, key.size + 1, A)), shape=(b - a, A * k))
            stats += member.T @ WX[a:b]
        counts, sums = stats[:, 0], stats[:, 1:]
        ok = counts > min_weight
        newC = flat.copy()
        newC[ok] = sums[ok] / counts[ok, None]
        if clip is not None:
            np.clip(newC, clip[0], clip[1], out=newC)
        newC = newC.reshape(A, k, d)
        shift = np.sqrt(((newC - Ca) ** 2).sum(axis=2)).max(axis=1) if k else np.zeros(A)
        C[active] = newC
        iters[active] = it
        active = active[shift > tol]
    return C, iters


def wcss_batch(X, C, weights=None):
    """:func:`wcss` of X around every set of centres of C (B, k, d), one pass over the rows. Returns (B,)."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(C, dtype=float)
    B, k, d = C.shape
    flat = C.reshape(B * k, d)
    cn = np.einsum("ij,ij->i", flat, flat)
    out = np.zeros(B)
    w = None if weights is None else np.asarray(weights, dtype=float)
    for a, b in _blocks(X.shape[0], B * k):
        xa = X[a:b]
        blk = xa @ flat.T
        blk *= -2.0
        blk += cn
        d2 = blk.reshape(b - a, B, k).min(axis=2) + np.einsum("ij,ij->i", xa, xa)[:, None]
        np.maximum(d2, 0.0, out=d2)
        out += d2.sum(axis=0) if w is None else w[a:b] @ d2
    return out


def kmeans_plusplus(X, k, rng, weights=None):
    """k-means++ seeding (Arthur & Vassilvitskii 2007): k rows of X chosen by D² sampling (weights >= 0).

    When every remaining point coincides with a chosen centre the next one is drawn uniformly (by weight).
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    w = np.ones(n) if weights is None else np.maximum(np.asarray(weights, dtype=float), 0.0)
    if w.sum() <= 0:
        w = np.ones(n)
    C = np.empty((k, X.shape[1]))
    C[0] = X[rng.choice(n, p=w / w.sum())]
    d2 = ((X - C[0]) ** 2).sum(axis=1)
    for j in range(1, k):  # a loop over the k centres; each step is vectorised over the points
        p = d2 * w
        tot = p.sum()
        idx = rng.choice(n, p=p / tot) if tot > 0 else rng.choice(n, p=w / w.sum())
        C[j] = X[idx]
        np.minimum(d2, ((X - C[j]) ** 2).sum(axis=1), out=d2)
    return C


def best_of_lloyd(X, k, n_init, rng, *, weights=None, max_iter=300, tol=1e-4, inits=None):
    """The lowest-WCSS result of ``n_init`` Lloyd runs from k-means++ seeds (or from the given ``inits``).

    Returns ``(centers, wcss)``.
    """
    best, best_cost = None, np.inf
    seeds = inits if inits is not None else (kmeans_plusplus(X, k, rng, weights) for _ in range(n_init))
    for C0 in seeds:
        C, _ = lloyd(X, C0, weights=weights, max_iter=max_iter, tol=tol)
        cost = wcss(X, C, weights)
        if cost < best_cost:
            best, best_cost = C, cost
    return best, best_cost


# ----------------------------------------------------------------------------------------- per-chunk k-means
def chunk_kmeans(X, chunk, n_chunks, k, rng, *, n_iter=20, n_init=1):
    """k-means++ then ``n_iter`` Lloyd iterations on every chunk of X at once (vectorised across chunks).

    ``chunk[i]`` is the chunk of row i (0..n_chunks-1). Every chunk runs exactly ``n_iter`` iterations, so its
    result depends on its own rows only (what makes sample-and-aggregate private). Its random numbers are drawn
    up front, ``n_init * (2k - 1)`` per chunk in chunk order, so they do not depend on how chunks are batched
    (the batch size depends on the largest chunk): with a fixed seed, changing one chunk's rows leaves every
    other chunk's result bit for bit unchanged. With ``n_init > 1`` each chunk keeps its lowest-inertia run.
    A chunk with fewer than k rows repeats rows in its seeding; an empty chunk gets NaN centres (the caller
    decides what to do). Returns ``(centers (n_chunks, k, d), sizes (n_chunks,))``; the centres are the
    averages of the points assigned to them in the last iteration (a cluster left empty keeps its seed).
    """
    X = np.asarray(X, dtype=float)
    chunk = np.asarray(chunk, dtype=np.int64)
    n, d = X.shape
    order = np.argsort(chunk, kind="stable")
    sizes = np.bincount(chunk, minlength=n_chunks)
    m = int(sizes.max()) if n else 0
    centers = np.full((n_chunks, k, d), np.nan)
    if m == 0:
        return centers, sizes
    U = rng.random((n_chunks, n_init, 2 * k - 1))  # per-chunk uniforms, independent of the batching below
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    # only the non-empty chunks are computed (an empty one keeps NaN centres): with many more chunks than rows
    # (a huge public N) the work stays proportional to the rows; every chunk still uses its own uniforms
    busy = np.flatnonzero(sizes)
    # padded layout (n_busy, m, d) with a validity mask; built in batches of chunks to bound memory
    per_batch = max(1, _BLOCK_ELEMS // max(m * max(k, d), 1))
    for b0 in range(0, busy.size, per_batch):
        ids = busy[b0:b0 + per_batch]
        pos = np.arange(m)[None, :]
        valid = pos < sizes[ids, None]
        rows = order[np.minimum(starts[ids, None] + pos, n - 1)]
        P = X[rows]  # (nb, m, d)
        P[~valid] = 0.0
        best, best_cost = None, None
        nb = ids.size
        vmask = valid.ravel()
        base = np.repeat(np.arange(nb) * k, m)[vmask]  # the first bin of each valid point's chunk
        Pv = P.reshape(-1, d)[vmask]
        for r in range(n_init):
            C = _batched_kmeanspp(P, valid, sizes[ids], k, U[ids, r])
            for _ in range(n_iter):
                lab = np.argmin(_batched_sq_dist(P, C), axis=2)
                key = base + lab.ravel()[vmask]  # bins (chunk, cluster); sums run in point order per bin
                cnt = np.bincount(key, minlength=nb * k).reshape(nb, k)
                S = np.empty((nb, k, d))
                for j in range(d):  # a loop over dimensions, each a vectorised pass over the points
                    S[:, :, j] = np.bincount(key, weights=Pv[:, j], minlength=nb * k).reshape(nb, k)
                ok = cnt > 0
                C = np.where(ok[:, :, None], S / np.maximum(cnt, 1)[:, :, None], C)
            if n_init == 1:
                best = C
                break
            cost = np.where(valid, _batched_sq_dist(P, C).min(axis=2), 0.0).sum(axis=1)
            if best is None:
                best, best_cost = C, cost
            else:
                better = cost < best_cost
                best = np.where(better[:, None, None], C, best)
                best_cost = np.minimum(best_cost, cost)
        centers[ids] = best
    return centers, sizes


def _batched_sq_dist(P, C):
    """Squared distances (nb, m, k) of the padded points P (nb, m, d) to the centres C (nb, k, d)."""
    if P.shape[2] <= 8:  # coordinate by coordinate: exact differences, no (nb, m, k, d) temporary
        D = np.zeros((P.shape[0], P.shape[1], C.shape[1]))
        for j in range(P.shape[2]):
            diff = P[:, :, None, j] - C[:, None, :, j]
            diff *= diff
            D += diff
        return D
    return np.maximum(np.einsum("bmd,bmd->bm", P, P)[:, :, None] - 2.0 * np.einsum("bmd,bkd->bmk", P, C)
                      + np.einsum("bkd,bkd->bk", C, C)[:, None, :], 0.0)


def _batched_kmeanspp(P, valid, sizes, k, U):
    """k-means++ seeding of every padded chunk; ``U`` (nb, 2k - 1) holds each chunk's own uniforms."""
    nb, m, d = P.shape
    C = np.zeros((nb, k, d))
    ar = np.arange(nb)
    first = np.minimum(np.floor(U[:, 0] * np.maximum(sizes, 1)).astype(np.int64), np.maximum(sizes - 1, 0))
    C[:, 0] = P[ar, first]
    d2 = ((P - C[:, None, 0]) ** 2).sum(axis=2)
    d2[~valid] = 0.0
    for j in range(1, k):  # a loop over the k centres, vectorised over chunks and points
        tot = d2.sum(axis=1)
        u = U[:, 2 * j - 1]
        cs = np.cumsum(d2, axis=1)
        idx = (cs < (u * tot)[:, None]).sum(axis=1)
        # a chunk whose points all coincide with chosen centres draws uniformly among its rows
        uni = np.floor(U[:, 2 * j] * np.maximum(sizes, 1)).astype(np.int64)
        idx = np.where(tot > 0, np.minimum(idx, np.maximum(sizes - 1, 0)), np.minimum(uni, np.maximum(sizes - 1, 0)))
        C[:, j] = P[ar, idx]
        nd = ((P - C[:, None, j]) ** 2).sum(axis=2)
        nd[~valid] = 0.0
        np.minimum(d2, nd, out=d2)
    return C


# ----------------------------------------------------------------------------------------- L1 ball
def project_l1(V, radius=1.0):
    """Euclidean projection of every row of V ((d,) or (n, d)) onto the L1 ball of ``radius`` (Duchi et al. 2008),
    the trusting kernel of :func:`dpclust_core.kmeans.lloyd.project_l1_ball`; every output is inside the ball."""
    one = V.ndim == 1
    W = np.atleast_2d(V).astype(float, copy=True)
    A = np.abs(W)
    outside = np.flatnonzero(A.sum(axis=1) > radius)
    if outside.size:
        allrows = outside.size == W.shape[0]
        Ao = A if allrows else A[outside]
        U = np.sort(Ao, axis=1)[:, ::-1]  # descending
        # Duchi et al.'s threshold theta, computed relative to each row's largest magnitude U_1 (U <- U - U_1, so
        # theta <- theta - U_1): differences of nearby magnitudes are exact, and the test U_j - (css_j - radius)/j
        # > 0, written as css_j - j U_j < radius, is exactly true for j = 1, however far |v| dwarfs the radius
        top = U[:, :1].copy()
        U -= top
        css = np.cumsum(U, axis=1)
        j = np.arange(1, U.shape[1] + 1)
        cond = css - j * U < radius
        rho_idx = U.shape[1] - 1 - np.argmax(cond[:, ::-1], axis=1)  # last index where cond holds
        theta = (css[np.arange(U.shape[0]), rho_idx] - radius) / (rho_idx + 1)
        Ao -= top
        Ao -= theta[:, None]
        np.maximum(Ao, 0.0, out=Ao)  # the projected magnitudes; signs restored below
        # rounding in theta (relative to |v|, not to the radius) can leave a row a little outside the ball, or
        # put all of it at 0: shrink such a row onto the ball, so every output is inside it (the sensitivity of
        # Lee & Kifer's sums rests on that)
        norm = Ao.sum(axis=1)
        over = norm > radius
        if over.any():
            Ao[over] *= (radius / norm[over])[:, None]
            Ao[over] = np.minimum(Ao[over], radius)
        if allrows:
            W = np.copysign(Ao, W)
        else:
            W[outside] = np.copysign(Ao, W[outside])
    return W[0] if one else W


# ----------------------------------------------------------------------------------------- public-box scaling
def scale_into(X, low, high, r=1.0):
    """Map X from the public box ``[low, high]`` onto ``[-r, r]^d``, clipping points outside the box first.

    The trusting kernel behind :func:`dpclust_core.preprocessing.scale_to_domain` (no checks, nothing counted).
    Works on numpy and dask arrays alike (elementwise only).
    """
    a = (2.0 * r) / (np.asarray(high, dtype=float) - np.asarray(low, dtype=float))
    b = -np.asarray(low, dtype=float) * a - r
    Z = X * a + b
    if isinstance(Z, np.ndarray):
        np.clip(Z, -r, r, out=Z)
        return Z
    return Z.clip(-r, r)


def unscale_from(Z, low, high, r=1.0):
    """Inverse of :func:`scale_into` (without the clipping)."""
    return (np.asarray(Z, dtype=float) + r) / (2.0 * r) * (np.asarray(high) - np.asarray(low)) + np.asarray(low)
