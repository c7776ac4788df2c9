"""Unit tests of dpclust_core.accounting.PrivacyLedger: sequential and parallel composition."""
import math

import numpy as np
import pytest

from dpclust_core import PrivacyLedger, laplace_mechanism
from dpclust_core.accounting import BudgetExceededError, LedgerEntry


def test_empty_ledger():
    led = PrivacyLedger()
    assert led.total() == (0.0, 0.0) and led.epsilon == 0.0 and led.delta == 0.0
    assert led.entries == [] and len(led) == 0
    led.check(1e-12, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        led.check(0.0, 0.0)  # a budget of zero is not a budget


def test_sequential_composition_sums_epsilon_and_delta():
    led = PrivacyLedger()
    led.record("a", 0.1)
    led.record("b", 0.1, 1e-6, sensitivity=2)
    led.record("c", 0.1, 2e-6)
    assert led.epsilon == pytest.approx(0.3, rel=1e-12)
    assert led.delta == pytest.approx(3e-6, rel=1e-12)
    assert [e.name for e in led.entries] == ["a", "b", "c"]
    assert led.entries[1] == LedgerEntry("b", 0.1, 1e-6, 2.0, None, None)
    assert len(led) == 3


def test_parallel_group_costs_max_over_partitions():
    led = PrivacyLedger()
    led.record("before", 0.5)
    with led.parallel("cells") as par:
        for eps in (0.2, 0.7, 0.4):
            with par.partition():
                led.record("count", eps, sensitivity=1)
    led.record("after", 0.25)
    assert led.epsilon == pytest.approx(0.5 + 0.7 + 0.25, rel=1e-12)
    groups = [(e.group, e.partition) for e in led.entries]
    assert groups == [(None, None), ("cells", 0), ("cells", 1), ("cells", 2), (None, None)]


def test_partition_entries_compose_sequentially_inside_the_part():
    led = PrivacyLedger()
    with led.parallel("clusters") as par:
        with par.partition():
            led.record("count", 0.3, 1e-7)
            led.record("sum", 0.3, 1e-7)
        with par.partition():
            led.record("count", 0.5)
    # part 0 costs 0.6, part 1 costs 0.5 -> max 0.6; delta max(2e-7, 0)
    assert led.total() == (pytest.approx(0.6, rel=1e-12), pytest.approx(2e-7, rel=1e-12))


def test_parallel_delta_is_max_separately_from_epsilon():
    led = PrivacyLedger()
    with led.parallel() as par:
        with par.partition():
            led.record("x", 1.0, 1e-6)
        with par.partition():
            led.record("y", 0.5, 1e-5)
    assert led.total() == (1.0, 1e-5)


def test_entries_outside_partitions_compose_sequentially():
    # five releases on the SAME data inside parallel() but outside partition(): they add up (the old ledger
    # counted each as a disjoint part and reported 1.0 instead of 5.0)
    led = PrivacyLedger()
    with led.parallel("hist"):
        for _ in range(5):
            led.record("same data", 1.0)
    assert led.epsilon == pytest.approx(5.0, rel=1e-12)
    assert [e.partition for e in led.entries] == [None] * 5
    # mixed: parts count as their max, the stray entry on top
    led2 = PrivacyLedger()
    with led2.parallel("hist") as par:
        for e in (0.4, 0.9):
            with par.partition():
                led2.record("bin", e)
        led2.record("stray", 0.25)
    assert led2.epsilon == pytest.approx(0.9 + 0.25, rel=1e-12)


def test_nested_parallel_inside_partition_and_sequential_groups():
    led = PrivacyLedger()
    with led.parallel("outer") as outer:
        with outer.partition():
            led.record("split", 0.1)
            with led.parallel("inner") as inner:
                for e in (0.2, 0.3):
                    with inner.partition():
                        led.record("leaf", e)
            # part 0: 0.1 + max(0.2, 0.3) = 0.4
        with outer.partition():
            led.record("other", 0.35)
    with led.parallel("second group") as par:
        with par.partition():
            led.record("z", 0.05)
    assert led.epsilon == pytest.approx(0.4 + 0.05, rel=1e-12)
    assert len(led) == 5


def test_empty_parallel_group_costs_nothing():
    led = PrivacyLedger()
    with led.parallel("nothing"):
        pass
    led.record("x", 0.2)
    assert led.epsilon == 0.2


def test_partitions_cannot_nest():
    led = PrivacyLedger()
    with led.parallel() as par:
        with par.partition():
            with pytest.raises(ValueError, match="nested"):
                with par.partition():
                    pass


def test_parallel_group_closed_after_exception():
    led = PrivacyLedger()
    with pytest.raises(RuntimeError):
        with led.parallel("g") as par:
            with par.partition():
                led.record("a", 0.3)
                raise RuntimeError("boom")
    led.record("after", 0.3)  # recorded at the top level again, so it adds
    assert led.epsilon == pytest.approx(0.6)
    assert led.entries[-1].group is None


def test_mechanisms_record_into_partitions():
    """A noisy histogram: one Laplace count per disjoint cell costs epsilon once (Prop. 2.2.3)."""
    counts = np.array([10, 3, 0, 7])
    led = PrivacyLedger(budget_epsilon=0.5)
    with led.parallel("histogram") as par:
        for c in counts:
            with par.partition():
                laplace_mechanism(c, 1.0, 0.5, rng=0, ledger=led, name="cell count")
    assert len(led) == 4 and led.epsilon == pytest.approx(0.5, rel=1e-12)
    led.check()
    # the same four releases recorded sequentially cost four times as much
    seq = PrivacyLedger()
    for c in counts:
        laplace_mechanism(c, 1.0, 0.5, rng=0, ledger=seq)
    assert seq.epsilon == pytest.approx(2.0, rel=1e-12)
    with pytest.raises(BudgetExceededError):
        seq.check(0.5)


def test_extend_appends_sequentially_with_prefix():
    inner = PrivacyLedger()
    inner.record("count", 0.2, sensitivity=1)
    with inner.parallel() as par:
        with par.partition():
            inner.record("p", 0.1)
        with par.partition():
            inner.record("q", 0.3)
    outer = PrivacyLedger()
    outer.record("first", 0.5)
    outer.extend(inner, prefix="sub/")
    assert [e.name for e in outer.entries] == ["first", "sub/count", "sub/p", "sub/q"]
    # extend keeps the parallel group: 0.5 + 0.2 + max(0.1, 0.3), exactly the inner total on top
    assert outer.epsilon == pytest.approx(0.5 + inner.epsilon, rel=1e-12)
    assert inner.epsilon == pytest.approx(0.5, rel=1e-12)
    grouped = PrivacyLedger()
    grouped.extend(inner, group="fit")
    assert grouped.epsilon == pytest.approx(inner.epsilon, rel=1e-12)
    assert {e.group for e in grouped.entries} == {"fit", "parallel"}
    assert outer.entries[1].sensitivity == 1.0


def test_check_raises_only_when_over_budget():
    led = PrivacyLedger(budget_epsilon=1.0, budget_delta=1e-5)
    for _ in range(10):
        led.record("tenth", 0.1, 1e-6)  # float sum 0.9999999999999999 or 1.0000000000000002
    led.check()  # exactly on budget passes (relative tolerance 1e-9)
    with pytest.raises(BudgetExceededError, match="epsilon"):
        led.record("one more", 1e-6)  # the ledger refuses before recording
    assert len(led) == 10
    unbudgeted = PrivacyLedger()
    for _ in range(10):
        unbudgeted.record("tenth", 0.1, 1e-6)
    unbudgeted.record("one more", 1e-6)
    with pytest.raises(BudgetExceededError, match="epsilon"):
        unbudgeted.check(1.0, 1e-5)
    with pytest.raises(ValueError):  # BudgetExceededError is a ValueError
        unbudgeted.check(1.0, 1e-5)
    led.check(2.0, 1e-5)
    with pytest.raises(BudgetExceededError, match="delta"):
        led.check(2.0, 5e-6)


@pytest.mark.parametrize("eps", [-0.1, math.nan, math.inf, -math.inf])
def test_record_rejects_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyLedger().record("x", eps)


@pytest.mark.parametrize("delta", [-1e-9, 1.0, 2.0, math.nan])
def test_record_rejects_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        PrivacyLedger().record("x", 0.1, delta)


@pytest.mark.parametrize("sens", [-1.0, math.nan, math.inf])
def test_record_rejects_bad_sensitivity(sens):
    with pytest.raises(ValueError, match="sensitivity"):
        PrivacyLedger().record("x", 0.1, sensitivity=sens)


def test_zero_epsilon_post_processing_entry_allowed():
    led = PrivacyLedger()
    led.record("post-processing", 0.0)
    assert led.epsilon == 0.0 and len(led) == 1


def test_summary_and_repr():
    led = PrivacyLedger()
    led.record("noisy count", 0.25, sensitivity=1)
    with led.parallel("cells") as par:
        with par.partition():
            led.record("cell", 0.5)
    text = led.summary()
    assert "noisy count" in text and "cells[0]" in text and "TOTAL" in text
    assert text.strip().splitlines()[-1].split()[2] == "0.75"
    assert repr(led) == "PrivacyLedger(n_entries=2, epsilon=0.75, delta=0)"
    long_name = "hybrid/EUGkM: histogram of 15^2 = 225 cells (a long release name)"
    led.record(long_name, 0.1)
    assert long_name in led.summary()          # names are never cut off


# ---------------------------------------------------------------- the ledger cannot under-report through its API
@pytest.mark.parametrize("kwargs, word", [
    (dict(epsilon=math.nan), "epsilon"), (dict(epsilon="1"), "epsilon"), (dict(epsilon=True), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"), (dict(delta=math.nan), "delta"), (dict(delta=2.0), "delta"),
    (dict(delta="0"), "delta"), (dict(rtol=math.nan), "rtol"), (dict(rtol=-1.0), "rtol"),
    (dict(rtol="1e-9"), "rtol"),
])
def test_check_refuses_bad_arguments(kwargs, word):
    """``check(epsilon=nan)`` used to pass whatever was spent (every comparison with NaN is False)."""
    led = PrivacyLedger()
    led.record("a lot", 100.0)
    with pytest.raises((ValueError, TypeError), match=word):
        led.check(**kwargs)


@pytest.mark.parametrize("kwargs, word", [
    (dict(budget_epsilon=math.nan), "budget_epsilon"), (dict(budget_epsilon=True), "budget_epsilon"),
    (dict(budget_epsilon="1"), "budget_epsilon"), (dict(budget_epsilon=-1.0), "budget_epsilon"),
    (dict(budget_epsilon=math.inf), "budget_epsilon"), (dict(budget_delta=2.0), "budget_delta"),
    (dict(budget_delta=math.nan), "budget_delta"), (dict(budget_delta=True), "budget_delta"),
])
def test_budget_refuses_bad_values(kwargs, word):
    """A NaN budget used to accept any spend (``100 > nan`` is False)."""
    with pytest.raises((ValueError, TypeError), match=word):
        PrivacyLedger(**kwargs)


@pytest.mark.parametrize("eps", ["0.5", True, False, 1 + 0j, None, [0.5]])
def test_record_refuses_strings_bools_and_other_types(eps):
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        PrivacyLedger().record("x", eps)
    with pytest.raises((ValueError, TypeError), match="delta"):
        PrivacyLedger().record("x", 0.1, eps if eps is not None else "x")


def test_a_nan_spend_cannot_hide_in_a_budgeted_ledger():
    led = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        led.record("x", math.nan)
    led.record("y", 0.6)
    with pytest.raises(BudgetExceededError):
        led.record("z", 0.6)
    assert led.epsilon == pytest.approx(0.6)


def test_every_fit_checks_its_ledger(monkeypatch):
    """``ledger.check()`` runs at the end of every fit (the base class closes the ledger)."""
    from dpclust_core.kmeans import DPLloyd, EUGkM

    calls = []
    original = PrivacyLedger.check

    def spy(self, *a, **k):
        calls.append(self.epsilon)
        return original(self, *a, **k)

    monkeypatch.setattr(PrivacyLedger, "check", spy)
    X = np.random.default_rng(0).uniform(-1, 1, size=(500, 2))
    for est in (DPLloyd(3, 1.0, bounds=(-1, 1), random_state=0), EUGkM(3, 0.5, bounds=(-1, 1), random_state=0)):
        before = len(calls)
        est.fit(X)
        assert len(calls) > before
        assert calls[-1] == pytest.approx(est.epsilon)


# ---------------------------------------------------------------- a budget is fixed at construction
@pytest.mark.parametrize("name", ["budget_epsilon", "budget_delta"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1.0, 0.0, 0.5, 2.0, 1e300, None, "1"])
def test_budget_cannot_be_changed_after_construction(name, value):
    """``L.budget_epsilon = float("nan")`` used to switch the budget off: a fit of epsilon 5 was then accepted."""
    led = PrivacyLedger(budget_epsilon=1.0, budget_delta=1e-6)
    with pytest.raises(AttributeError, match=f"{name} is read-only"):
        setattr(led, name, value)
    with pytest.raises(AttributeError, match=f"{name} is read-only"):
        delattr(led, name)
    assert (led.budget_epsilon, led.budget_delta) == (1.0, 1e-6)
    with pytest.raises(BudgetExceededError):
        led.record("five", 5.0)
    with pytest.raises(BudgetExceededError):
        led.record("delta", 0.1, 1e-5)
    assert len(led) == 0


def test_a_budget_cannot_be_bypassed_through_any_attribute():
    """Every attribute of a ledger, public or private, is set once: nothing a caller sets can make
    ``_check_budget`` pass an overspend (a method shadowed on the instance, a budget, the totals)."""
    from dpclust_core.kmeans import DPLloyd

    led = PrivacyLedger(budget_epsilon=1.0)
    names = [n for n in dir(led) if not n.startswith("__")]
    assert {"budget_epsilon", "total", "_check_budget", "_budget_epsilon", "_root"} <= set(names)
    for name in names:
        for value in (math.nan, None, 1e300, lambda *a, **k: (0.0, 0.0)):
            with pytest.raises(AttributeError):
                setattr(led, name, value)
        with pytest.raises(AttributeError):
            delattr(led, name)
    with pytest.raises(AttributeError):
        led.brand_new_attribute = 1
    with pytest.raises(TypeError):
        vars(led)  # no instance dictionary to write into
    X = np.random.default_rng(0).uniform(-1, 1, size=(50, 2))
    with pytest.raises(BudgetExceededError):
        DPLloyd(3, 5.0, bounds=(-1, 1), ledger=led).fit(X)
    assert led.epsilon == 0.0 and led.budget_epsilon == 1.0


# ---------------------------------------------------------------- reserve: check and charge at once
def test_reserve_charges_the_whole_cost_while_running_then_what_was_spent():
    led = PrivacyLedger(budget_epsilon=1.0)
    with led.reserve(0.6, name="fit A") as own:
        assert led.epsilon == pytest.approx(0.6) and [e.name for e in led.entries] == ["(reserved) fit A"]
        with pytest.raises(BudgetExceededError):  # a second reservation cannot afford it meanwhile
            with led.reserve(0.6, name="fit B"):
                pass
        assert own.budget_epsilon == 0.6
        own.record("count", 0.1)
        with own.parallel("cells") as par:
            for e in (0.5, 0.2):
                with par.partition():
                    own.record("cell", e)
    assert [(e.name, e.group) for e in led.entries] == [("count", "fit A"), ("cell", "cells"), ("cell", "cells")]
    assert led.epsilon == pytest.approx(0.6, rel=1e-12) and own.epsilon == pytest.approx(0.6, rel=1e-12)
    with led.reserve(0.4, name="fit C") as own:
        pass  # nothing spent: the reservation is dropped
    assert led.epsilon == pytest.approx(0.6, rel=1e-12) and len(led) == 3


def test_reserve_keeps_what_was_spent_when_the_computation_fails():
    led = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises(RuntimeError):
        with led.reserve(0.5, name="fit") as own:
            own.record("drawn before the failure", 0.2)
            raise RuntimeError("boom")
    assert led.epsilon == pytest.approx(0.2) and led.entries[0].group == "fit"


def test_reserve_inside_a_partition_lands_in_that_partition():
    led = PrivacyLedger(budget_epsilon=1.0)
    with led.parallel("halves") as par:
        for _ in range(2):
            with par.partition(), led.reserve(0.7, name="fit") as own:
                own.record("x", 0.7)
    assert led.epsilon == pytest.approx(0.7, rel=1e-12)  # each fit's group sits in its own part: max, not sum
    assert [e.group for e in led.entries] == ["fit", "fit"]
    with led.reserve(0.2, name="after") as own:  # outside the block: sequential again
        own.record("y", 0.2)
    assert led.epsilon == pytest.approx(0.9, rel=1e-12)


@pytest.mark.parametrize("kwargs", [dict(epsilon=0.0), dict(epsilon=math.nan), dict(epsilon=-1.0),
                                    dict(epsilon=0.1, delta=1.0), dict(epsilon="0.1")])
def test_reserve_refuses_bad_costs(kwargs):
    led = PrivacyLedger()
    with pytest.raises((ValueError, TypeError), match="epsilon|delta"):
        with led.reserve(**kwargs):
            pass
    assert len(led) == 0


def test_groups_belong_to_the_thread_that_opened_them():
    """A release recorded by another thread while a partition is open must not land in that partition (the
    partition is charged as a max, so it would hide the other thread's cost): it lands at the top level."""
    import threading

    led = PrivacyLedger()
    opened, recorded = threading.Event(), threading.Event()

    def other_thread():
        opened.wait(60)
        led.record("another thread", 1.0)
        recorded.set()

    worker = threading.Thread(target=other_thread)
    worker.start()
    with led.parallel("cells") as par:
        with par.partition():
            led.record("cell 0", 1.0)
        with par.partition():
            led.record("cell 1", 0.5)
            opened.set()
            recorded.wait(60)
    worker.join()
    assert led.epsilon == pytest.approx(1.0 + 1.0, rel=1e-12)
    assert ("another thread", None, None) in [(e.name, e.group, e.partition) for e in led.entries]
