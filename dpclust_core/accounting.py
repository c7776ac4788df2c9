"""Privacy accounting: a ledger of every noisy release, and the composition rules the book uses.

Every mechanism in :mod:`dpclust_core.mechanisms` takes an optional ``ledger=`` and records one
:class:`LedgerEntry` per release (name, epsilon, delta, sensitivity). Every fitted estimator exposes its own
ledger as ``ledger_``, and the tests assert that its total equals the budget that was asked for. A ledger
given a budget **refuses before spending**: a mechanism asks it first (:meth:`PrivacyLedger.require`), so a
release that would overspend raises :class:`BudgetExceededError` before any noise is drawn, and an estimator
checks its whole cost against a shared ledger before it reads the data.

Composition rules (thesis §2.2):

* **sequential composition** (Prop. 2.2.2 / Corollary 1): entries recorded one after another add up,
  ``epsilon = sum(eps_i)`` and ``delta = sum(delta_i)``;
* **parallel composition** (Prop. 2.2.3, and Prop. 2.2.6 for a randomised partition function with a
  fixed number of parts): releases computed on *disjoint* parts of the data cost the maximum of the
  parts, not the sum. Only entries made inside an explicit ``partition()`` block count as a disjoint part::

      with ledger.parallel("per-cell counts") as par:
          for cell in cells:
              with par.partition():
                  laplace_mechanism(count[cell], 1, eps, ledger=ledger)

  An entry made inside ``parallel`` but outside every ``partition()`` is charged on top of the parts (it is
  treated as touching the whole data), so a ledger can never under-report through a forgotten ``partition``.

A ledger is **a handle to one budget, never a value**: copying it (``copy.copy``, ``copy.deepcopy``, and so
scikit-learn's ``clone``, ``GridSearchCV`` and ``cross_val_score``) returns the same ledger, and a fit that runs
in another thread reserves its whole cost atomically. A ledger that crossed a process boundary (``pickle``)
arrives as a read-only record that refuses every charge with :class:`DetachedLedgerError`, since a charge made
there could never reach the budget it was copied from. See :class:`PrivacyLedger`.

The parallel rule holds under *unbounded* DP (add/remove one record), the notion used throughout the book;
Prop. 2.2.4 shows it fails under bounded DP. The other rules — advanced composition, group privacy,
amplification by subsampling and zero-concentrated DP — are plain functions at the end of this module.

**Zero-concentrated DP** (Bun & Steinke 2016). A :meth:`PrivacyLedger.zcdp` group is one ``(epsilon, delta)``
budget spent in ρ-zCDP: each release records its ρ (ε-DP is ``ε²/2``-zCDP, Prop. 1.4; the discrete Gaussian with
L2 sensitivity Δ and sd σ is ``Δ²/(2σ²)``-zCDP, Canonne, Kamath & Steinke 2020, Thm. 14), the ρ add up under
adaptive composition (Lemma 2.3), parallel parts take their maximum, and ρ-zCDP implies ``(ε, δ)``-DP with
``δ = inf_{α>1} exp((α−1)(αρ−ε)) (1−1/α)^α / (α−1)`` (CKS20, Cor. 13): see :func:`zcdp_budget`.
"""
from __future__ import annotations

import contextlib
import functools
import html
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from ._validation import BadTypeError, LedgerBase, _is_real_scalar, check_delta, check_epsilon, check_int, check_real

__all__ = [
    "LedgerEntry",
    "PrivacyLedger",
    "BudgetExceededError",
    "DetachedLedgerError",
    "advanced_composition",
    "advanced_composition_inverse",
    "group_privacy",
    "subsample_wor",
    "subsample_wor_inverse",
    "subsample_kln11",
    "subsample_wr_bnsv15",
    "zcdp_to_dp",
    "dp_to_zcdp",
    "gaussian_zcdp",
    "zcdp_budget",
    "zcdp_epsilon",
]


class BudgetExceededError(ValueError):
    """A release or a fit would spend more than the ledger's budget (raised before anything is spent)."""


class DetachedLedgerError(RuntimeError):
    """A charge to a ledger that was unpickled: a read-only record of a budget kept elsewhere.

    A pickled :class:`PrivacyLedger` (for instance inside an estimator that joblib sends to a worker process)
    arrives as a copy of the record, not as the budget: a charge made there could never reach the ledger it
    was copied from, so it is refused — before any noise is drawn or any data are read — instead of being lost.
    """


_DETACHED_ADVICE = (
    "this PrivacyLedger was unpickled, so it is a read-only record of a budget that lives in another process; "
    "a charge made here could never reach that budget and would be lost. This happens when joblib sends an "
    "estimator to worker processes, e.g. GridSearchCV, cross_val_score or cross_validate with n_jobs > 1. "
    "Fit in the process that holds the ledger: use n_jobs=1, or a threading backend "
    "(with joblib.parallel_config(backend='threading'): ...), which shares the ledger safely.")

_READ_ONLY_BUDGET = (
    "PrivacyLedger.{name} is read-only: a budget is fixed when the ledger is made (a budget that could be "
    "raised, or switched off with NaN, would protect nothing). Make a new PrivacyLedger({name}=...) instead.")


@dataclass(frozen=True)
class LedgerEntry:
    """One noisy release: what was released, at which cost, with which sensitivity."""

    name: str
    epsilon: float
    delta: float = 0.0
    sensitivity: float | None = None
    group: str | None = None  #: label of the innermost group this entry belongs to, if any
    partition: int | None = None  #: index of the disjoint part inside a parallel group, if any
    rho: float | None = None  #: the zCDP cost of a release inside a :meth:`PrivacyLedger.zcdp` group


@dataclass
class _Group:
    name: str
    parallel: bool = False
    items: list = field(default_factory=list)  # list of (partition_index | None, LedgerEntry | _Group)
    n_partitions: int = 0
    current: int | None = None
    #: a composition rule applied to the group's cost: ("subsample_wor", m, n), ("advanced", delta_prime) or
    #: ("group_privacy", g), ("zcdp", epsilon, delta, rho_budget) (see
    #: :meth:`~dpclust_core.accounting.PrivacyLedger.zcdp`, :meth:`~dpclust_core.accounting.PrivacyLedger.subsampled`,
    #: :meth:`~dpclust_core.accounting.PrivacyLedger.advanced`,
    #: :meth:`~dpclust_core.accounting.PrivacyLedger.group_privacy`)
    rule: tuple | None = None


def _check_cost(epsilon, delta, name):
    if not _is_real_scalar(epsilon):
        raise BadTypeError(f"epsilon of {name!r} must be a real number, got {type(epsilon).__name__} {epsilon!r}")
    if not _is_real_scalar(delta):
        raise BadTypeError(f"delta of {name!r} must be a real number, got {type(delta).__name__} {delta!r}")
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
    dl = float(delta)
    if not (0.0 <= dl < 1.0):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    return eps, dl


class PrivacyLedger(LedgerBase):
    """A record of every noisy release, with totals under sequential and parallel composition.

    Parameters
    ----------
    budget_epsilon : float, optional
        The most epsilon this ledger may spend (finite, > 0). ``None``: no cap. Read-only after construction.
    budget_delta : float, default 0.0
        The most delta it may spend, in [0, 1). Read-only after construction.

    Notes
    -----
    **A ledger is a handle to one budget, never copied.** ``copy.copy(ledger)`` and ``copy.deepcopy(ledger)``
    return ``ledger`` itself, so every copy of an estimator given ``ledger=`` — by scikit-learn's ``clone``,
    ``copy.deepcopy``, ``get_params``/``set_params``, and so inside ``cross_val_score``, ``cross_validate``,
    ``GridSearchCV`` and ``RandomizedSearchCV`` — charges the one ledger, and each fit is refused before it reads
    the data once the budget cannot afford it. (Those tools catch a refused fit by default,
    ``error_score=np.nan``: it shows as a ``FitFailedWarning`` and a NaN score; nothing was released and the
    ledger stays exact.)

    **Threads.** Checking and charging are atomic: a fit reserves its whole cost under the ledger's lock
    (:meth:`reserve`; an entry named ``"(reserved) <name>"`` while it runs), so of several fits running at once
    in threads — e.g. under joblib's threading backend — only those the budget can afford run, whatever the
    timing. Groups opened with :meth:`group`, :meth:`parallel` and the rule contexts belong to the thread that
    opened them: a release recorded from another thread lands at the top level, where it adds up.

    **Processes and pickling.** A pickled ledger unpickles as a *detached*, read-only record: its entries,
    totals and budget can be read (so a pickled fitted estimator's ``ledger_`` still reads), but every attempt
    to spend from it — :meth:`record`, :meth:`require`, :meth:`extend`, :meth:`reserve`, opening a group, a
    mechanism or an estimator given it as ``ledger=`` — raises :class:`DetachedLedgerError` before anything is
    drawn or read. A charge made in another process could never reach the original budget, so it is refused
    instead of being lost silently: model selection with ``n_jobs > 1`` (joblib's worker processes) refuses
    every fit. The same holds for a ledger without a budget, whose only purpose is a complete record.

    **Budgets are fixed.** ``budget_epsilon`` and ``budget_delta`` cannot be set or deleted after construction
    (nor can any other attribute), so no budget can be raised, switched off with NaN, or bypassed.

    Examples
    --------
    >>> led = PrivacyLedger(budget_epsilon=1.0)
    >>> led.record("count", 0.5, sensitivity=1)
    >>> led.record("sum", 0.25, sensitivity=1)
    >>> led.epsilon, led.remaining()
    (0.75, (0.25, 0.0))
    >>> led.record("too much", 0.5)
    Traceback (most recent call last):
    ...
    dpclust_core.accounting.BudgetExceededError: 'too much' would spend epsilon=1.25 > budget 1

    A copy is the same ledger; a pickled one is a read-only record:

    >>> import copy, pickle
    >>> copy.deepcopy(led) is led
    True
    >>> record = pickle.loads(pickle.dumps(led))
    >>> record.epsilon, record.detached
    (0.75, True)
    >>> record.record("elsewhere", 0.1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpclust_core.accounting.DetachedLedgerError: recording 'elsewhere' refused: this PrivacyLedger was unpickled, ...
    """

    __slots__ = ("_budget_epsilon", "_budget_delta", "_root", "_lock", "_local", "_detached", "__weakref__")

    def __init__(self, budget_epsilon: float | None = None, budget_delta: float = 0.0) -> None:
        eps = None if budget_epsilon is None else check_epsilon(budget_epsilon, "budget_epsilon")
        if not _is_real_scalar(budget_delta):
            raise BadTypeError(f"budget_delta must be a real number in [0, 1), got {budget_delta!r}")
        dl = float(budget_delta)
        if not (0.0 <= dl < 1.0):
            raise ValueError(f"budget_delta must lie in [0, 1), got {budget_delta!r}")
        self._setup(eps, dl, _Group("root"), detached=False)

    def _setup(self, budget_epsilon, budget_delta, root, detached):
        self._budget_epsilon = budget_epsilon
        self._budget_delta = budget_delta
        self._root = root
        self._lock = threading.RLock()
        self._local = threading.local()  # each thread's stack of open groups
        self._detached = detached

    # ---------------------------------------------------------------- a fixed budget, one shared object
    @property
    def budget_epsilon(self) -> float | None:
        """The most epsilon this ledger may spend (``None``: no cap); fixed at construction."""
        return self._budget_epsilon

    @property
    def budget_delta(self) -> float:
        """The most delta this ledger may spend; fixed at construction."""
        return self._budget_delta

    @property
    def detached(self) -> bool:
        """True for a ledger that was unpickled: a read-only record that refuses every charge."""
        return self._detached

    def __setattr__(self, name, value):
        if name in ("budget_epsilon", "budget_delta"):
            raise AttributeError(_READ_ONLY_BUDGET.format(name=name))
        if not name.startswith("_"):
            raise AttributeError(f"PrivacyLedger.{name} cannot be set: a ledger changes only by recording "
                                 f"releases (record, extend, reserve)")
        try:
            getattr(self, name)
        except AttributeError:
            object.__setattr__(self, name, value)  # set once, at construction
            return
        raise AttributeError(f"PrivacyLedger.{name} is set once, at construction")

    def __delattr__(self, name):
        if name in ("budget_epsilon", "budget_delta"):
            raise AttributeError(_READ_ONLY_BUDGET.format(name=name))
        raise AttributeError(f"PrivacyLedger.{name} cannot be deleted")

    def __copy__(self) -> PrivacyLedger:
        return self  # a handle to one budget: a copy would be a second budget

    def __deepcopy__(self, memo) -> PrivacyLedger:
        return self

    def __reduce__(self):
        return (_detached_ledger, (type(self), self._budget_epsilon, self._budget_delta, self._snapshot()))

    def _check_live(self, what):
        if self._detached:
            raise DetachedLedgerError(f"{what} refused: {_DETACHED_ADVICE}")

    @property
    def _stack(self) -> list:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = [self._root]
        return stack

    # ---------------------------------------------------------------- recording
    def record(self, name: str, epsilon: float, delta: float = 0.0, sensitivity: float | None = None,
               rho: float | None = None) -> None:
        """Record one release costing ``(epsilon, delta)``; refuse it if it would exceed the budget.

        ``epsilon`` must be a finite real number >= 0 (0 for pure post-processing of earlier releases),
        ``delta`` in [0, 1). Strings and bools are refused. ``rho``: the zCDP cost of a release made inside a
        :meth:`zcdp` group (only there); a pure release there (``delta = 0``) without one gets ``epsilon²/2``.
        """
        self._check_live(f"recording {name!r}")
        eps, dl = _check_cost(epsilon, delta, name)
        sens = None if sensitivity is None else check_real(sensitivity, "sensitivity", low=0.0)
        rho = self._entry_rho(eps, dl, rho, name)
        with self._lock:
            grp = self._stack[-1]
            part = grp.current if grp.parallel else None
            entry = LedgerEntry(str(name), eps, dl, sens, None if grp is self._root else grp.name, part, rho)
            grp.items.append((part, entry))
            try:
                self._check_budget(f"{name!r} would spend")
            except BudgetExceededError:
                grp.items.pop()
                raise

    def require(self, epsilon: float, delta: float = 0.0, name: str = "this release",
                rho: float | None = None) -> None:
        """Raise :class:`BudgetExceededError` if recording ``(epsilon, delta)`` (and ``rho``, see :meth:`record`)
        here would exceed the budget.

        Nothing is recorded. Mechanisms call this before drawing noise. (Another thread may spend between
        this check and a later :meth:`record`, which then refuses; :meth:`reserve` checks and charges at once.)
        """
        self._check_live(str(name))
        eps, dl = _check_cost(epsilon, delta, name)
        rho = self._entry_rho(eps, dl, rho, name)
        with self._lock:
            grp = self._stack[-1]
            part = grp.current if grp.parallel else None
            grp.items.append((part, LedgerEntry("(probe)", eps, dl, rho=rho)))
            try:
                self._check_budget(f"{name} would spend")
            finally:
                grp.items.pop()

    @contextlib.contextmanager
    def reserve(self, epsilon: float, delta: float = 0.0, name: str = "reserved") -> Iterator[PrivacyLedger]:
        """Reserve ``(epsilon, delta)`` at once for a computation that records its releases in a ledger of its own.

        The whole cost is checked and charged in one step, under the ledger's lock, as an entry named
        ``"(reserved) <name>"``: a computation starting at the same time in another thread sees it, and is
        refused if the rest of the budget cannot afford it. Raises :class:`BudgetExceededError` (nothing is
        reserved) when the budget cannot afford the cost.

        Yields a fresh ledger capped at ``(epsilon, delta)`` for the computation's releases. On leaving the
        block — also through an exception, since noise already drawn counts as spent — the reservation is
        replaced by those releases, nested in one group called ``name`` (and dropped if nothing was recorded).
        Every estimator's ``fit`` runs inside one.

        Examples
        --------
        >>> shared = PrivacyLedger(budget_epsilon=1.0)
        >>> with shared.reserve(0.6, name="fit") as own:
        ...     own.record("count", 0.1)
        ...     own.record("sum", 0.5)
        >>> [(e.name, e.group) for e in shared.entries], shared.epsilon
        ([('count', 'fit'), ('sum', 'fit')], 0.6)
        """
        self._check_live(str(name))
        eps = check_epsilon(epsilon, "epsilon")
        dl = check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
        own = PrivacyLedger(budget_epsilon=eps, budget_delta=dl)
        with self._lock:
            grp = self._stack[-1]
            part = grp.current if grp.parallel else None
            hold = (part, LedgerEntry(f"(reserved) {name}", eps, dl, None,
                                      None if grp is self._root else grp.name, part))
            grp.items.append(hold)
            try:
                self._check_budget(f"{name} would spend")
            except BudgetExceededError:
                grp.items.pop()
                raise
        try:
            yield own
        finally:
            spent = _copy_group(own._snapshot(), "", str(name))
            spent.name = str(name)
            with self._lock:
                at = next(i for i in range(len(grp.items) - 1, -1, -1) if grp.items[i] is hold)
                if spent.items:
                    grp.items[at] = (part, spent)
                else:
                    del grp.items[at]

    def _check_budget(self, what):
        eps, dl = self._cost(self._root)
        be, bd = self._budget_epsilon, self._budget_delta
        if be is not None and eps > be * (1 + 1e-12) + 1e-15:
            raise BudgetExceededError(f"{what} epsilon={eps:.6g} > budget {be:.6g}")
        if dl > bd * (1 + 1e-12) + 1e-300 and (be is not None or bd):
            raise BudgetExceededError(f"{what} delta={dl:.6g} > budget {bd:.6g}")

    @contextlib.contextmanager
    def parallel(self, name: str = "parallel") -> Iterator[_ParallelHandle]:
        """Context for parallel composition over disjoint parts of the data (Props. 2.2.3 and 2.2.6).

        Yields a handle whose ``partition()`` context marks one disjoint part. The group's cost is the
        maximum over its parts of each part's sequential total, plus everything recorded in the group
        outside any part.
        """
        yield from self._open(_Group(str(name), parallel=True))

    @contextlib.contextmanager
    def group(self, name: str) -> Iterator[str]:
        """Context whose entries form one named sequential group (e.g. one fit of an estimator)."""
        yield from self._open(_Group(str(name)))

    # -------- groups charged by a composition rule (the releases inside are recorded by the mechanisms)
    @contextlib.contextmanager
    def subsampled(self, name: str, m: int, n: int) -> Iterator[str]:
        """Context for releases computed on a uniform sample of ``m`` of ``n`` records drawn without
        replacement: the group's sequential cost ``(eps*, delta*)`` is charged as :func:`subsample_wor`
        ``(eps*, delta*, m, n)`` (Balle, Barthe & Gaboardi 2018; substitution neighbours, n public)."""
        m, n = _check_m_n(m, n)
        yield from self._open(_Group(str(name), rule=("subsample_wor", m, n)))

    @contextlib.contextmanager
    def advanced(self, name: str, delta_prime: float) -> Iterator[str]:
        """Context whose direct items (entries or sub-groups, one per adaptive release) compose by
        :func:`advanced_composition` with slack ``delta_prime``: ``k`` items costing at most ``(eps0, delta0)``
        each are charged ``advanced_composition(eps0, delta0, k, delta_prime)``."""
        dp = check_delta(delta_prime, "delta_prime")
        yield from self._open(_Group(str(name), rule=("advanced", dp)))

    @contextlib.contextmanager
    def group_privacy(self, name: str, g: int) -> Iterator[str]:
        """Context for releases that are (eps, delta)-DP per record but whose inputs can differ in up to ``g``
        records between neighbouring datasets: the group's sequential cost is charged as :func:`group_privacy`
        ``(eps, delta, g)``."""
        g = check_int(g, "g", 1)
        yield from self._open(_Group(str(name), rule=("group_privacy", g)))

    @contextlib.contextmanager
    def zcdp(self, name: str, epsilon: float, delta: float) -> Iterator[str]:
        """Context for releases composed in zCDP within one ``(epsilon, delta)`` budget: it costs ``(epsilon,
        delta)`` once it holds a release, while the sum of their ρ is at most ``zcdp_budget(epsilon, delta)``, and
        ``(zcdp_epsilon(rho, delta), delta)`` beyond (so a capped ledger refuses an overspending release).

        Examples
        --------
        >>> led = PrivacyLedger(budget_epsilon=1.0, budget_delta=1e-6)
        >>> with led.zcdp("fit", 1.0, 1e-6):
        ...     led.record("count", 0.05)
        ...     led.record("sums", 0.0, rho=zcdp_budget(1.0, 1e-6) - 0.05**2 / 2)
        >>> led.total(), [round(e.rho, 6) for e in led.entries]
        ((1.0, 1e-06), [0.00125, 0.023106])
        """
        eps = check_epsilon(epsilon, "epsilon")
        dl = check_delta(delta, "delta")
        yield from self._open(_Group(str(name), rule=("zcdp", eps, dl, zcdp_budget(eps, dl))))

    def _entry_rho(self, eps, dl, rho, name):
        """The ρ of a release recorded here (None outside a zCDP group); refuses what zCDP cannot account."""
        inside = any(g.rule is not None and g.rule[0] == "zcdp" for g in self._stack)
        if (rho is not None and not inside) or (rho is None and inside and dl > 0):
            raise ValueError(f"{name!r}: a release inside a zcdp() group needs a rho (or delta = 0); one outside "
                             "has none")
        return check_real(rho, "rho", low=0.0) if rho is not None else (eps * eps / 2 if inside else None)

    def _open(self, grp):
        self._check_live(f"opening group {grp.name!r}")
        stack = self._stack
        with self._lock:
            parent = stack[-1]
            part = parent.current if parent.parallel else None
            parent.items.append((part, grp))
        stack.append(grp)
        try:
            yield _ParallelHandle(grp) if grp.parallel else grp.name
        finally:
            stack.pop()

    def extend(self, other: PrivacyLedger, prefix: str = "", group: str | None = None) -> None:
        """Append the releases of ``other`` here, keeping its parallel groups (used when one algorithm calls
        another). With ``group``, they are nested in one sequential group of that name. Refused as a whole if
        the budget cannot afford it."""
        if not isinstance(other, PrivacyLedger):
            raise BadTypeError(f"other must be a PrivacyLedger, got {type(other).__name__}")
        self._check_live("extending")
        copied = _copy_group(other._snapshot(), prefix, None if group is None else str(group))
        if group is not None:
            copied.name = str(group)
            items = [(None, copied)]
        else:
            items = [(None, it) for _, it in copied.items]
        with self._lock:
            grp = self._stack[-1]
            part = grp.current if grp.parallel else None
            items = [(part, it) for _, it in items]
            grp.items.extend(items)
            try:
                self._check_budget("extending would spend")
            except BudgetExceededError:
                del grp.items[len(grp.items) - len(items):]
                raise

    def _snapshot(self) -> _Group:
        """The root group as it stands (a copy taken under the lock, safe to read while others record)."""
        with self._lock:
            return _copy_group(self._root, "", None)

    # ---------------------------------------------------------------- totals
    @staticmethod
    def _cost(grp: _Group):
        def item_cost(it):
            if isinstance(it, LedgerEntry):
                return it.epsilon, it.delta
            return PrivacyLedger._cost(it)

        if grp.rule is not None and grp.rule[0] == "zcdp":
            return _zcdp_cost(grp)
        if grp.rule is not None:
            return _apply_rule(grp.rule, [item_cost(it) for _, it in grp.items])
        if not grp.parallel:
            costs = [item_cost(it) for _, it in grp.items]
            return math.fsum(c[0] for c in costs), math.fsum(c[1] for c in costs)
        parts: dict = {}
        outside = [0.0, 0.0]
        for p, it in grp.items:
            e, d = item_cost(it)
            if p is None:  # recorded in the parallel block but outside any partition: touches everything
                outside[0] += e
                outside[1] += d
            else:
                pe, pd = parts.get(p, (0.0, 0.0))
                parts[p] = (pe + e, pd + d)
        eps = max((v[0] for v in parts.values()), default=0.0) + outside[0]
        dl = max((v[1] for v in parts.values()), default=0.0) + outside[1]
        return eps, dl

    def total(self) -> tuple[float, float]:
        """``(epsilon, delta)`` spent: sequential sums, with each parallel group counted as its max part."""
        with self._lock:
            return self._cost(self._root)

    @property
    def epsilon(self) -> float:
        """Total epsilon spent (see :meth:`total`)."""
        return self.total()[0]

    @property
    def delta(self) -> float:
        """Total delta spent (see :meth:`total`)."""
        return self.total()[1]

    def remaining(self) -> tuple[float, float]:
        """``(epsilon, delta)`` left in the budget (``inf`` epsilon when there is no cap)."""
        eps, dl = self.total()
        be = self._budget_epsilon
        e_left = math.inf if be is None else max(be - eps, 0.0)
        return e_left, max(self._budget_delta - dl, 0.0)

    @property
    def entries(self) -> list[LedgerEntry]:
        """Every recorded release, flattened, in the order they were made."""
        out: list[LedgerEntry] = []

        def walk(g):
            for _, it in g.items:
                if isinstance(it, LedgerEntry):
                    out.append(it)
                else:
                    walk(it)

        with self._lock:
            walk(self._root)
        return out

    def __len__(self) -> int:
        return len(self.entries)

    def check(self, epsilon: float | None = None, delta: float | None = None, rtol: float = 1e-9) -> None:
        """Raise :class:`BudgetExceededError` if the totals exceed the budget (default: the ledger's own).

        ``epsilon``/``delta`` must be finite real numbers (``epsilon`` > 0, ``delta`` in [0, 1)) and ``rtol``
        a real number in [0, 1e-3]: a NaN can never make a check pass.
        """
        eps_budget = self._budget_epsilon if epsilon is None else check_epsilon(epsilon)
        if delta is None:
            dl_budget = self._budget_delta
        else:
            dl_budget = check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
        rtol = check_real(rtol, "rtol", low=0.0, high=1e-3)
        eps, dl = self.total()
        if eps_budget is not None and eps > eps_budget * (1 + rtol) + 1e-15:
            raise BudgetExceededError(f"spent epsilon={eps:.6g} > budget {eps_budget:.6g}")
        if dl > dl_budget * (1 + rtol) + 1e-300:
            raise BudgetExceededError(f"spent delta={dl:.6g} > budget {dl_budget:.6g}")

    # ---------------------------------------------------------------- display
    def rows(self) -> list[dict]:
        """One dict per release: ``release``, ``epsilon``, ``delta``, ``sensitivity``, ``group``, ``part`` (and
        ``rho`` for a release in a zCDP group)."""
        return [{"release": e.name, "epsilon": e.epsilon, "delta": e.delta, "sensitivity": e.sensitivity,
                 "group": e.group, "part": e.partition, **({} if e.rho is None else {"rho": e.rho})}
                for e in self.entries]

    def summary(self) -> str:
        """A plain-text table of the entries and the totals."""
        w = max([16] + [len(e.name) for e in self.entries])  # names are never cut
        rows = [f"{'release':<{w}} {'epsilon':>10} {'delta':>10} {'sens.':>8}  group"]
        for e in self.entries:
            sens = "" if e.sensitivity is None else f"{e.sensitivity:.4g}"
            grp = "" if e.group is None else (e.group if e.partition is None else f"{e.group}[{e.partition}]")
            grp += "" if e.rho is None else f" (rho {e.rho:.4g})"
            rows.append(f"{e.name:<{w}} {e.epsilon:>10.4g} {e.delta:>10.3g} {sens:>8}  {grp}")
        eps, dl = self.total()
        rows.append(f"{'TOTAL (composed)':<{w}} {eps:>10.4g} {dl:>10.3g}")
        return "\n".join(rows)

    def _repr_html_(self, max_rows: int = 12) -> str:
        """An HTML table for notebooks: one row per release (long ledgers are folded), then the total."""
        ent = self.entries
        shown = ent if len(ent) <= max_rows else ent[: max_rows - 2] + [None] + ent[-1:]

        def fmt(x, spec):
            return "" if x is None else format(x, spec)

        body = []
        for e in shown:
            if e is None:
                body.append(f"<tr><td colspan='5' style='text-align:center'>… {len(ent) - max_rows + 1} more "
                            f"releases …</td></tr>")
                continue
            grp = "" if e.group is None else (e.group if e.partition is None else f"{e.group}, part {e.partition}")
            body.append(f"<tr><td style='text-align:left'>{html.escape(e.name)}</td>"
                        f"<td>{fmt(e.epsilon, '.4g')}</td><td>{fmt(e.delta, '.3g')}</td>"
                        f"<td>{fmt(e.sensitivity, '.4g')}</td><td style='text-align:left'>{html.escape(grp)}</td></tr>")
        eps, dl = self.total()
        budget = ("" if self.budget_epsilon is None else
                  f" of a budget of ε = {self.budget_epsilon:.4g}" + (f", δ = {self.budget_delta:.3g}"
                                                                      if self.budget_delta else ""))
        return ("<table class='dpclust-ledger'><thead><tr><th style='text-align:left'>release</th><th>ε</th>"
                "<th>δ</th><th>sensitivity</th><th style='text-align:left'>composed as</th></tr></thead><tbody>"
                + "".join(body) +
                f"<tr style='font-weight:bold'><td style='text-align:left'>total (composed){budget}</td>"
                f"<td>{eps:.4g}</td><td>{dl:.3g}</td><td></td><td></td></tr></tbody></table>")

    def __repr__(self) -> str:
        eps, dl = self.total()
        tail = ", detached=True" if self._detached else ""
        return f"PrivacyLedger(n_entries={len(self)}, epsilon={eps:.6g}, delta={dl:.3g}{tail})"


def _detached_ledger(cls, budget_epsilon, budget_delta, root):
    """Unpickle a ledger as a detached, read-only record (see :class:`PrivacyLedger`, Notes)."""
    led = cls.__new__(cls)
    led._setup(budget_epsilon, budget_delta, root, detached=True)
    return led


def _copy_group(g: _Group, prefix: str, label: str | None) -> _Group:
    """A deep copy of a group; entries directly in it get ``label`` as their group (None for the root)."""
    new = _Group(g.name, g.parallel, [], g.n_partitions, None, g.rule)
    for p, it in g.items:
        if isinstance(it, LedgerEntry):
            new.items.append((p, LedgerEntry(prefix + it.name, it.epsilon, it.delta, it.sensitivity,
                                             label if it.group is None else it.group, it.partition, it.rho)))
        else:
            new.items.append((p, _copy_group(it, prefix, it.name)))
    return new


def _group_rho(grp):
    """The ρ of a group inside a zCDP group: sums, maxima over parallel parts; inf for what has no ρ."""
    def item_rho(it):
        if isinstance(it, LedgerEntry):
            return math.inf if it.rho is None else it.rho
        if it.rule is not None and it.rule[0] != "zcdp":
            e, d = PrivacyLedger._cost(it)
            return e * e / 2 if d == 0 else math.inf
        return _group_rho(it)

    parts: dict = {}
    outside = []
    for p, it in grp.items:
        (outside if p is None or not grp.parallel else parts.setdefault(p, [])).append(item_rho(it))
    return math.fsum(outside) + max((math.fsum(v) for v in parts.values()), default=0.0)


def _zcdp_cost(grp):
    if not grp.items:
        return 0.0, 0.0
    _, eps, dl, budget = grp.rule
    rho = _group_rho(grp)
    if rho <= budget * (1 + 1e-12):
        return eps, dl
    return (math.inf if math.isinf(rho) else zcdp_epsilon(rho, dl)), dl


def _apply_rule(rule, costs):
    """The cost of a rule group from the costs of its direct items (see the contexts of PrivacyLedger)."""
    if not costs:
        return 0.0, 0.0
    kind = rule[0]
    if kind == "advanced":
        eps0 = max(c[0] for c in costs)
        delta0 = max(c[1] for c in costs)
        return advanced_composition(eps0, delta0, len(costs), rule[1])
    eps = math.fsum(c[0] for c in costs)
    dl = math.fsum(c[1] for c in costs)
    if kind == "subsample_wor":
        return subsample_wor(eps, dl, rule[1], rule[2])
    if kind == "group_privacy":
        return group_privacy(eps, dl, rule[1])
    raise ValueError(f"unknown composition rule {rule!r}")  # pragma: no cover


class _ParallelHandle:
    def __init__(self, grp: _Group):
        self._grp = grp

    @contextlib.contextmanager
    def partition(self) -> Iterator[int]:
        """Mark one disjoint part of the data; its entries compose sequentially among themselves."""
        grp = self._grp
        if grp.current is not None:
            raise ValueError("partitions cannot be nested inside one another")
        grp.current = grp.n_partitions
        grp.n_partitions += 1
        try:
            yield grp.current
        finally:
            grp.current = None


# ===================================================================================== composition rules
def advanced_composition(eps0: float, delta0: float, k: int, delta_prime: float) -> tuple[float, float]:
    """k-fold adaptive composition of (eps0, delta0)-DP mechanisms (Dwork, Rothblum & Vadhan 2010; Dwork &
    Roth 2014, Thm 3.20): ``(sqrt(2k ln(1/delta')) eps0 + k eps0 (e^{eps0} - 1),  k delta0 + delta')``.

    The common simplification ``2 k eps0^2`` of the second term is an upper bound only for ``eps0 <= 1.256``
    and *under*-states the cost above that, so the exact term is used.

    Examples
    --------
    >>> eps, delta = advanced_composition(0.1, 0.0, 100, 1e-6)
    >>> round(eps, 2), delta
    (6.31, 1e-06)
    """
    eps0 = check_real(eps0, "eps0", low=0.0)
    delta0 = check_real(delta0, "delta0", low=0.0, high=1.0, high_open=True)
    k = check_int(k, "k", 1)
    dp = check_delta(delta_prime, "delta_prime")
    if eps0 > 700.0:  # e^eps0 overflows: the bound is astronomically large
        return math.inf, k * delta0 + dp
    return (math.sqrt(2 * k * math.log(1 / dp)) * eps0 + k * eps0 * math.expm1(eps0), k * delta0 + dp)


def advanced_composition_inverse(eps_total: float, k: int, delta_prime: float) -> float:
    """Largest per-call eps0 with ``advanced_composition(eps0, ., k, delta_prime)[0] <= eps_total``.

    The composed epsilon increases with eps0: bisection, returning the lower end, so never over budget.
    """
    eps_total = check_epsilon(eps_total, "eps_total")
    k = check_int(k, "k", 1)
    dp = check_delta(delta_prime, "delta_prime")
    b = math.sqrt(2 * k * math.log(1 / dp))

    def cost(x):
        return b * x + k * x * math.expm1(x)

    lo, hi = 0.0, eps_total / b  # cost(x) >= b x, so cost(eps_total / b) >= eps_total
    if hi > 700.0:  # e^hi would overflow: cost(700) >= 700 e^700 > 1e306 > eps_total already
        hi = 700.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if cost(mid) <= eps_total:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-16 * hi:
            break
    return lo


def group_privacy(eps: float, delta: float, g: int) -> tuple[float, float]:
    """Group privacy: an (eps, delta)-DP mechanism is ``(g eps, g e^{(g-1) eps} delta)``-DP for datasets
    at distance g (the delta is capped at 1, which holds for every mechanism)."""
    eps = check_real(eps, "eps", low=0.0)
    delta = check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
    g = check_int(g, "g", 1)
    if delta == 0.0:
        return g * eps, 0.0
    try:
        dl = g * math.exp((g - 1) * eps) * delta
    except OverflowError:  # far above 1
        dl = 1.0
    return g * eps, min(dl, 1.0)  # a delta of 1 (or more) is no guarantee: every mechanism is (eps, 1)-DP


def _check_m_n(m, n):
    m = check_int(m, "m", 1)
    n = check_int(n, "n", 1)
    if m > n:
        raise ValueError(f"m={m} must be <= n={n}")
    return m, n


def subsample_wor(eps_star: float, delta_star: float, m: int, n: int) -> tuple[float, float]:
    """Amplification by subsampling m of n without replacement, substitution neighbours (Balle, Barthe &
    Gaboardi 2018): ``(ln(1 + (m/n)(e^{eps*} - 1)), (m/n) delta*)``."""
    eps_star = check_real(eps_star, "eps_star", low=0.0)
    delta_star = check_real(delta_star, "delta_star", low=0.0, high=1.0, high_open=True)
    m, n = _check_m_n(m, n)
    q = m / n
    return _log1p_a_expm1(q, eps_star), q * delta_star


def _log1p_a_expm1(a, x):
    """``ln(1 + a (e^x - 1))`` for a > 0, x >= 0, also where e^x overflows: then ``x + ln(a + (1 - a) e^-x)``."""
    if x <= 700.0:
        return math.log1p(a * math.expm1(x))
    return x + math.log(a + (1.0 - a) * math.exp(-x))


def subsample_wor_inverse(eps_target: float, m: int, n: int) -> float:
    """The eps* an m-of-n sampled mechanism may use so that :func:`subsample_wor` gives ``eps_target``:
    ``ln(1 + (n/m)(e^{eps_target} - 1))``."""
    eps_target = check_epsilon(eps_target, "eps_target")
    m, n = _check_m_n(m, n)
    return _log1p_a_expm1(n / m, eps_target)


def subsample_kln11(eps_star: float, delta_star: float, m: int, n: int, eps: float) -> tuple[float, float]:
    """Kasiviswanathan et al. 2011 as restated by Bun et al. 2015: for eps <= 1 and
    ``n >= (m/eps)(3 + e^{2 eps*})``, sampling m of n without replacement is
    ``(eps, 4 eps delta*/(3 + e^{2 eps*}))``-DP. Raises if the condition fails."""
    eps = check_epsilon(eps, "eps")
    eps_star = check_real(eps_star, "eps_star", low=0.0)
    delta_star = check_real(delta_star, "delta_star", low=0.0, high=1.0, high_open=True)
    m, n = _check_m_n(m, n)
    if eps > 1:
        raise ValueError(f"eps must be <= 1 for this subsampling lemma, got {eps!r}")
    grow = math.exp(min(2 * eps_star, 700.0))  # capped: the condition below then fails for any sane n
    if n < (m / eps) * (3 + grow):
        raise ValueError(f"n too small for this subsampling lemma: need n >= (m/eps)(3 + e^(2 eps_star)), got n={n}, "
                         f"m={m}, eps={eps!r}, eps_star={eps_star!r}")
    return eps, 4 * eps * delta_star / (3 + grow)


def subsample_wr_bnsv15(eps_star: float, delta_star: float, m: int, n: int) -> tuple[float, float]:
    """Bun, Nissim, Stemmer & Vadhan 2015, with replacement: for eps* <= 1 and n >= 2m, sampling m of n rows
    with replacement gives ``(6 eps* m/n, exp(6 eps* m/n) (4m/n) delta*)``."""
    eps_star = check_real(eps_star, "eps_star", low=0.0)
    delta_star = check_real(delta_star, "delta_star", low=0.0, high=1.0, high_open=True)
    m = check_int(m, "m", 1)
    n = check_int(n, "n", 1)
    if eps_star > 1:
        raise ValueError(f"eps_star must be <= 1 for this lemma, got {eps_star!r}")
    if n < 2 * m:
        raise ValueError(f"this lemma needs n >= 2 m, got n={n} and m={m}")
    e = 6 * eps_star * m / n
    return e, math.exp(e) * (4 * m / n) * delta_star


def zcdp_to_dp(rho: float, delta: float) -> float:
    """rho-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP for every delta > 0 (Bun & Steinke 2016)."""
    rho = check_real(rho, "rho", low=0.0)
    delta = check_delta(delta)
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def dp_to_zcdp(eps: float) -> float:
    """eps-DP (pure) implies ``eps^2 / 2``-zCDP (Bun & Steinke 2016)."""
    e = check_epsilon(eps, "eps")
    return e * e / 2  # inf (not an OverflowError) for a huge eps


def gaussian_zcdp(l2_sensitivity: float, sigma: float) -> float:
    """The Gaussian mechanism with L2 sensitivity Δ and noise σ is ``Δ² / (2σ²)``-zCDP (Bun & Steinke 2016)."""
    sens = check_real(l2_sensitivity, "l2_sensitivity", low=0.0)
    sigma = check_real(sigma, "sigma", low=0.0, low_open=True)
    try:
        return sens**2 / (2 * sigma**2)
    except (OverflowError, ZeroDivisionError):  # a square over- or underflowed: divide first
        return 0.5 * (sens / sigma) ** 2 if sens / sigma < 1e150 else math.inf


def _zcdp_log_delta(rho, eps):
    """log δ of ρ-zCDP at ε, CKS20 Cor. 13, minimised over α by bisection on its derivative."""
    lo, hi = 1.0 + 1e-9, max((eps + 1.0) / (2.0 * rho) + 2.0, 2.0)
    for _ in range(200):
        a = 0.5 * (lo + hi)
        lo, hi = (a, hi) if (2 * a - 1) * rho - eps + math.log1p(-1.0 / a) < 0 else (lo, a)
    a = 0.5 * (lo + hi)
    return (a - 1) * (a * rho - eps) + a * math.log1p(-1.0 / a) - math.log(a - 1)


def _bisect(ok, lo, hi):
    """The largest x in [lo, hi] with ok(x) (ok monotone, true at lo), to 1e-14 relative, from the ok side."""
    while hi - lo > 1e-14 * hi:
        lo, hi = (0.5 * (lo + hi), hi) if ok(0.5 * (lo + hi)) else (lo, 0.5 * (lo + hi))
    return lo


def zcdp_budget(epsilon: float, delta: float) -> float:
    """The largest ρ whose ρ-zCDP guarantee implies ``(epsilon, delta)``-DP by the tight conversion of Canonne,
    Kamath & Steinke (2020, Cor. 13), ``δ(ρ, ε) = inf_{α>1} exp((α−1)(αρ−ε)) (1−1/α)^α / (α−1)`` (bisection,
    from below: never over budget).

    Examples
    --------
    >>> round(zcdp_budget(1.0, 1e-6), 5), round(zcdp_epsilon(zcdp_budget(1.0, 1e-6), 1e-6), 9)
    (0.02436, 1.0)
    """
    return _zcdp_budget(check_epsilon(epsilon, "epsilon"), check_delta(delta, "delta"))


@functools.lru_cache(maxsize=1024)
def _zcdp_budget(eps, dl):
    log_dl = math.log(dl)
    hi = 2.0 * eps + 1.0  # above the answer: rho-zCDP implies no epsilon below rho
    while _zcdp_log_delta(hi, eps) <= log_dl:
        hi *= 2.0
    return _bisect(lambda r: _zcdp_log_delta(r, eps) <= log_dl, 0.0, hi)


def zcdp_epsilon(rho: float, delta: float) -> float:
    """The ε of the ``(ε, delta)``-DP guarantee that ρ-zCDP implies (tight: Canonne, Kamath & Steinke 2020,
    Cor. 13), at most :func:`zcdp_to_dp` ``(rho, delta)`` (Bun & Steinke 2016, Prop. 1.3)."""
    rho = check_real(rho, "rho", low=0.0)
    log_dl = math.log(check_delta(delta, "delta"))
    if rho == 0:
        return 0.0
    hi = rho + 2 * math.sqrt(rho * -log_dl)
    return hi - _bisect(lambda t: _zcdp_log_delta(rho, hi - t) <= log_dl, 0.0, hi)
