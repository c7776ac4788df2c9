"""Benchmark-only re-implementations of published private k-means methods and prototype improvements.

Nothing here is part of ``dpclust_core``: these modules exist to compare the package with the published state of
the art in one run (``benchmarks/bench_sota.py``). Every method draws its noise through
``dpclust_core.mechanisms`` and records its releases in a ``dpclust_core.PrivacyLedger`` whose total equals
the requested budget.
"""
