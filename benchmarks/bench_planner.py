"""The budget planner's measurements (chapter 5): the mean NICV of two fits of DPLloyd, DPLloyd-Impr, EUGkM and
the hybrid on synthetic blobs, at every N in (1000, 3376, 10000), k in (3, 5, 8), ε in (0.1, 0.5, 2) and d in
(2, 4, 8), minus the best of ten non-private runs: 648 fits. Writes the file the chapter reads,
``dpclust_book/data/planner_measurements.csv``.

    python benchmarks/bench_planner.py
"""
from pathlib import Path

import pandas as pd

from dpclust_book.experiments import practice as ex

OUT = Path(__file__).resolve().parents[1] / "dpclust_book" / "data" / ex.PLANNER_FILE

if __name__ == "__main__":
    measured = pd.concat([ex.planner_measurements(d=d) for d in (2, 4, 8)], ignore_index=True)
    measured.to_csv(OUT, index=False, float_format="%.17g")
    print(f"{len(measured)} rows written to {OUT}")
