"""Privacy accounting: a ledger of every noisy release.

Every mechanism in :mod:`dpclust_core.mechanisms` takes an optional ``ledger=`` and records one
:class:`LedgerEntry` per call (name, epsilon, delta, sensitivity). Every fitted estimator exposes its
ledger as ``ledger_``, and the tests assert that its total equals the budget that was asked for.

Composition rules (spec ``dp-basics-and-kmeans.md`` §1.4–§1.5):

* **sequential composition** (Prop. 2.2.2 / Corollary 1): entries recorded one after another add up,
  ``epsilon = sum(eps_i)`` and ``delta = sum(delta_i)``;
* **parallel composition** (Prop. 2.2.3, and Prop. 2.2.6 for a randomised partition function with a
  fixed number of parts): releases computed on *disjoint* parts of the data cost the maximum of the
  parts, not the sum. Use :meth:`PrivacyLedger.parallel`::

      with ledger.parallel("per-cell counts") as par:
          for cell in cells:
              with par.partition():
                  laplace_mechanism(count[cell], 1, eps, ledger=ledger)

  Each ``partition()`` block is one disjoint part; entries recorded inside the ``parallel`` block but
  outside any ``partition()`` each count as a part of their own.

The parallel rule holds under *unbounded* DP (add/remove one record), the notion used throughout the book;
Prop. 2.2.4 shows it fails under bounded DP.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

from ._validation import check_sensitivity

__all__ = ["LedgerEntry", "PrivacyLedger", "BudgetExceededError"]


class BudgetExceededError(ValueError):
    """Raised by :meth:`PrivacyLedger.check` when the ledger spends more than the budget."""


@dataclass(frozen=True)
class LedgerEntry:
    """One noisy release: what was released, at which cost, with which sensitivity."""

    name: str
    epsilon: float
    delta: float = 0.0
    sensitivity: float | None = None
    group: str | None = None  #: label of the parallel group this entry belongs to, if any
    partition: int | None = None  #: index of the disjoint part inside that group


@dataclass
class _Group:
    name: str
    items: list = field(default_factory=list)  # list of (partition_index, LedgerEntry | _Group)
    n_partitions: int = 0
    current: int | None = None


class PrivacyLedger:
    """A record of every noisy release, with totals under sequential and parallel composition.

    Parameters
    ----------
    budget_epsilon, budget_delta : float, optional
        The budget the ledger is meant to respect. :meth:`check` compares the totals to it.

    Examples
    --------
    >>> led = PrivacyLedger()
    >>> led.record("count", 0.5, sensitivity=1)
    >>> led.record("sum", 0.25, sensitivity=1)
    >>> led.epsilon
    0.75
    """

    def __init__(self, budget_epsilon: float | None = None, budget_delta: float = 0.0):
        self.budget_epsilon = budget_epsilon
        self.budget_delta = budget_delta
        self._root = _Group("root")
        self._stack: list[_Group] = [self._root]

    # ---------------------------------------------------------------- recording
    def record(self, name: str, epsilon: float, delta: float = 0.0, sensitivity: float | None = None) -> None:
        """Record one release costing ``(epsilon, delta)``.

        ``epsilon`` must be finite and >= 0 (0 is allowed for a release that is pure post-processing
        of earlier ones), ``delta`` in [0, 1).
        """
        eps = float(epsilon)
        if not math.isfinite(eps) or eps < 0:
            raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
        dl = float(delta)
        if not (0.0 <= dl < 1.0):
            raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
        sens = None if sensitivity is None else check_sensitivity(sensitivity)
        grp = self._stack[-1]
        part = self._part_index(grp)
        entry = LedgerEntry(str(name), eps, dl, sens, None if grp is self._root else grp.name, part)
        grp.items.append((part, entry))

    def _part_index(self, grp: _Group):
        if grp is self._root:
            return None
        if grp.current is not None:
            return grp.current
        idx = grp.n_partitions  # a stand-alone entry inside a parallel block is a part of its own
        grp.n_partitions += 1
        return idx

    @contextlib.contextmanager
    def parallel(self, name: str = "parallel"):
        """Context for parallel composition over disjoint parts of the data (Props. 2.2.3 and 2.2.6).

        Yields a handle whose ``partition()`` context marks one disjoint part. The group's cost is the
        maximum over its parts of each part's sequential total.
        """
        parent = self._stack[-1]
        grp = _Group(str(name))
        part = self._part_index(parent)
        parent.items.append((part, grp))
        self._stack.append(grp)
        try:
            yield _ParallelHandle(grp)
        finally:
            self._stack.pop()

    # ---------------------------------------------------------------- totals
    @staticmethod
    def _cost(grp: _Group, parallel: bool):
        def item_cost(it):
            if isinstance(it, LedgerEntry):
                return it.epsilon, it.delta
            return PrivacyLedger._cost(it, parallel=True)

        if not parallel:
            eps = sum(item_cost(it)[0] for _, it in grp.items)
            dl = sum(item_cost(it)[1] for _, it in grp.items)
            return eps, dl
        parts: dict = {}
        for p, it in grp.items:
            e, d = item_cost(it)
            pe, pd = parts.get(p, (0.0, 0.0))
            parts[p] = (pe + e, pd + d)
        if not parts:
            return 0.0, 0.0
        return max(v[0] for v in parts.values()), max(v[1] for v in parts.values())

    def total(self) -> tuple[float, float]:
        """``(epsilon, delta)`` spent: sequential sums, with each parallel group counted as its max part."""
        return self._cost(self._root, parallel=False)

    @property
    def epsilon(self) -> float:
        """Total epsilon spent (see :meth:`total`)."""
        return self.total()[0]

    @property
    def delta(self) -> float:
        """Total delta spent (see :meth:`total`)."""
        return self.total()[1]

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

        walk(self._root)
        return out

    def __len__(self) -> int:
        return len(self.entries)

    def check(self, epsilon: float | None = None, delta: float | None = None, rtol: float = 1e-9) -> None:
        """Raise :class:`BudgetExceededError` if the totals exceed the budget (default: the ledger's own)."""
        eps_budget = self.budget_epsilon if epsilon is None else epsilon
        dl_budget = self.budget_delta if delta is None else delta
        eps, dl = self.total()
        if eps_budget is not None and eps > eps_budget * (1 + rtol) + 1e-15:
            raise BudgetExceededError(f"spent epsilon={eps:.6g} > budget {eps_budget:.6g}")
        if dl_budget is not None and dl > dl_budget * (1 + rtol) + 1e-15:
            raise BudgetExceededError(f"spent delta={dl:.6g} > budget {dl_budget:.6g}")

    def extend(self, other: "PrivacyLedger", prefix: str = "") -> None:
        """Append every entry of ``other`` sequentially (used when one algorithm calls another)."""
        for e in other.entries:
            self.record(prefix + e.name, e.epsilon, e.delta, e.sensitivity)

    def summary(self) -> str:
        """A plain-text table of the entries and the totals."""
        rows = [f"{'release':<40} {'epsilon':>10} {'delta':>10} {'sens.':>8}  group"]
        for e in self.entries:
            sens = "" if e.sensitivity is None else f"{e.sensitivity:.4g}"
            grp = "" if e.group is None else f"{e.group}[{e.partition}]"
            rows.append(f"{e.name:<40} {e.epsilon:>10.6g} {e.delta:>10.3g} {sens:>8}  {grp}")
        eps, dl = self.total()
        rows.append(f"{'TOTAL (composed)':<40} {eps:>10.6g} {dl:>10.3g}")
        return "\n".join(rows)

    def __repr__(self) -> str:
        eps, dl = self.total()
        return f"PrivacyLedger(n_entries={len(self)}, epsilon={eps:.6g}, delta={dl:.3g})"


class _ParallelHandle:
    def __init__(self, grp: _Group):
        self._grp = grp

    @contextlib.contextmanager
    def partition(self):
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
