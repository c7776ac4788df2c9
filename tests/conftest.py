"""Shared by tests/core (the library) and tests/book (the book's package, its notebooks and its rendered pages).

* ``tests/core`` is put on ``sys.path`` by pytest for its own files, so ``contract_cases`` imports from there;
* the fixtures below give the repository's root and the folder of the papers' datasets (tests that read it skip
  when it is absent);
* the ``slow`` marker (registered in pyproject.toml) is set here on the tests listed in :data:`SLOW`, so that
  ``pytest tests/core -m "not slow"`` is the developer's fast loop; ``make test`` runs everything;
* ``python_steps`` and ``peak_allocation`` measure work without a clock (a shared 2-core machine makes wall-clock
  bounds flaky): the number of Python steps (lines, calls and returns, as ``sys.settrace`` sees them) a call
  executes, which a Python loop over points or a search proportional to 1/epsilon drives up by orders of
  magnitude, and the peak of the memory it allocates (``tracemalloc``, which numpy reports to).
"""
from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

#: Tests (file, name prefix) that take several seconds each: Dask clusters, large audits and bad-input fuzzing,
#: big utility runs. Measured with ``--durations``; a name marks every parametrisation of a test.
SLOW = {
    # whole files: a Dask cluster per test, and the Hypothesis fuzzing of every argument and estimator
    "test_dask.py": ("",),
    "test_bad_input.py": ("",),
    "test_estimator_contract.py": ("",),
    # audits (tens of thousands of runs), utility runs over seeds, and the slowest property checks
    "test_audit.py": (
        "test_audit_with_nan_outputs_treats_nan_as_one_category",
        "test_correct_laplace_passes",
        "test_delta_claim_is_more_lenient",
        "test_false_alarm_rate_of_correct_mechanism",
        "test_half_noise_laplace_is_rejected",
        "test_randomized_response_pass_and_fail",
        "test_vector_outputs_are_categories",
    ),
    "test_bounds.py": (
        "test_audit_catches_reading_the_max",
        "test_audit_of_the_verdict_and_the_box_of_one_column",
        "test_audit_one_column_passes",
        "test_dask_array_gives_the_same_release",
        "test_dask_on_a_local_cluster_and_nan_refused_before_spending",
        "test_audit_edge_step_passes_and_half_noise_is_caught",
        "test_audit_full_mechanism_passes",
        "test_bundled_sets_at_a_large_epsilon",
        "test_one_record_at_1e6_does_not_drag_the_box",
    ),
    "test_floating_point.py": (
        "test_attack_event_never_happens_with_the_safe_gaussian",
        "test_attack_event_never_happens_with_the_safe_laplace",
        "test_attack_on_the_naive_sampler_succeeds",
        "test_audit_of_dp_quantile_on_the_attack_neighbours",
        "test_auditor_catches_naive_and_passes_safe_laplace",
        "test_auditor_passes_safe_laplace_on_its_own_events",
        "test_dp_quantile_low_bits_attack",
        "test_gkm_range_low_bits_attack",
        "test_privthr_em_threshold_low_bits_attack",
        "test_safe_laplace_costs_at_most_three_times_numpys_sampler",
    ),
    "test_gmm.py": (
        "test_every_noisy_release_is_recorded_by_a_mechanism",
        "test_naive_baseline_fails_where_private_succeeds",
        "test_naive_noise_scale_and_clipping_empirical",
        "test_fitted_estimator_keeps_only_private_outputs",
        "test_ledger_total_real_fit_and_parallel_structure",
        "test_recovers_worked_example_within_stated_error",
        "test_same_seed_same_result",
    ),
    "test_lsh_coreset.py": (
        "test_audit_one_lloyd_step",
        "test_audit_whole_estimator_finds_no_violation_and_catches_broken_noise",
        "test_utility_letter_like_reduced",
        "test_utility_mixture_low_and_high_dimension",
    ),
    # worker processes (a process pool per test)
    "test_ledger_copies.py": (
        "test_cross_val_score_in_worker_processes_refuses_with_the_reason",
        "test_grid_search_in_worker_processes_refuses_with_the_reason",
    ),
    "test_count.py": (
        "test_private_count_passes_the_audit",
    ),
    "test_preprocessing_private.py": (
        "test_the_auditor_passes_the_scalers_quick",
    ),
    "test_advisor.py": (
        "test_delta_free_ledger_is_never_told_to_use_lsh",
        "test_the_recommended_fit_spends_what_the_ledger_allows",
    ),
    "test_release_grid.py": (
        "test_every_fitted_float_is_on_a_public_grid",
    ),
    "test_choose_k.py": (
        "test_a_small_n_never_gets_a_large_k",
        "test_the_flag_fires_on_data_without_clusters_at_small_epsilon",
        "test_the_flag_stays_down_on_separated_blobs_at_large_epsilon",
        "test_the_stability_spends_nothing_and_changes_nothing_released",
    ),
    "test_mechanisms.py": (
        "test_exact_path_agrees_with_the_float_path",
    ),
    "test_accounting.py": (
        "test_every_fit_checks_its_ledger",
    ),
    "test_report.py": (
        "test_the_interval_holds_the_truth_in_two_dimensions",
    ),
    "test_kmeans_synopsis.py": (
        "test_audit_reading_n_leaks_and_the_private_default_passes",
        "test_gkm_and_pgkm_stay_near_the_data_in_high_dimension",
    ),
    "test_ktuple.py": (
        "test_every_noisy_release_is_recorded_by_a_mechanism",
        "test_kmeans_easy_recovers_well_separated_centres",
        "test_kmeans_tuples_match_sklearn_on_easy_chunks",
        "test_status_bit_audit_near_threshold",
    ),
    "test_lloyd.py": (
        "test_audit_catches_the_float_sampler_on_dplloyd_counts",
        "test_dplloyd_passes_the_floating_point_audit",
        "test_empty_clusters_still_noised",
        "test_lloyd_and_best_of_lloyd",
    ),
    "test_postprocess.py": (
        "test_incremental_log_target_equals_full_recomputation",
        "test_s1_standin_eps005_postprocessing_beats_dp_kmeans_in_median",
        "test_sampler_matches_quadrature_target_on_1d_toy",
        "test_sampler_state_lives_in_arrays_not_python_lists",
    ),
    "test_svt.py": (
        "test_auditor_passes_private",
        "test_c4_gptt_pairs_grow_linearly",
        "test_zipf_ser_reproduces_thesis_cell",
        "test_auditor_rejects_non_private",
        "test_monte_carlo_agrees_with_integral",
        "test_noise_scales_match_spec_table",
        "test_output_probabilities_sum_to_one",
    ),
    "test_wavecluster.py": (
        "test_adaptive_grid_is_capped_for_huge_n_and_epsilon",
        "test_classifier_helpers_live_in_wavecluster_and_metrics_is_ground_floor",
        "test_privqt_bias_formula_against_simulation",
    ),
}


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root (where pyproject.toml, book/ and the packages are)."""
    return ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of the papers' datasets; the test is skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("the papers' datasets are not available here")
    return SHARED_DATA


class WorkLimitExceeded(AssertionError):
    """A call executed more Python steps than its test allows (raised as soon as it does: a hang fails fast)."""


def count_python_steps(fn, *args, limit=None, **kwargs):
    """``(fn(*args, **kwargs), steps)``: the number of Python trace events (calls, lines, returns) the call made.

    Deterministic and independent of the machine's speed. With ``limit``, the call is stopped with
    :class:`WorkLimitExceeded` after ``limit`` steps; it is raised again afterwards if the code under test caught it.
    """
    steps, over = [0], [False]

    def tracer(frame, event, arg):
        steps[0] += 1
        if limit is not None and steps[0] > limit:
            over[0] = True
            sys.settrace(None)
            raise WorkLimitExceeded(f"more than {limit} Python steps")
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.settrace(old)
    if over[0]:
        raise WorkLimitExceeded(f"more than {limit} Python steps")
    return result, steps[0]


def peak_allocation(fn, *args, **kwargs):
    """``(fn(*args, **kwargs), peak)``: the peak number of bytes allocated during the call (``tracemalloc``)."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        result = fn(*args, **kwargs)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return result, peak


@pytest.fixture
def python_steps():
    """:func:`count_python_steps`: run a call and count the Python steps it executes."""
    return count_python_steps


@pytest.fixture
def allocation_peak():
    """:func:`peak_allocation`: run a call and measure the peak memory it allocates."""
    return peak_allocation


def pytest_collection_modifyitems(config, items):
    for item in items:
        prefixes = SLOW.get(item.path.name)
        if prefixes is not None and any(item.name == p or item.name.startswith(p + "[") or p == ""
                                        for p in prefixes):
            item.add_marker(pytest.mark.slow)
