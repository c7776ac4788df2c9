"""Chapter 1's sensitivity table, checked against a brute-force maximum over neighbouring datasets."""
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

CHAPTER = Path(__file__).resolve().parents[2] / "book" / "01_dp_basics.ipynb"


def _cluster_stats(X, region):
    """One cluster's count and its d coordinate sums; the cluster is every record (one centre) or, with
    ``region="half"``, the records with x_1 > 0 (a centre far on that side)."""
    inside = np.ones(len(X), bool) if region == "all" else X[:, 0] > 0
    return np.concatenate([[inside.sum()], X[inside].sum(axis=0)])


@pytest.mark.parametrize("d,r", [(1, 1.0), (2, 1.0), (2, 0.5), (3, 2.0)])
def test_one_cluster_count_and_sums(d, r):
    """Add/remove: d r + 1; replace-one: max(2 d r, d r + 1) — a record moves across a cluster that holds the
    whole domain (2 d r), or leaves a cluster from its far corner (d r + 1). Maximum over datasets, records and
    the two cluster shapes, on a grid of records that holds the corners of [-r, r]^d."""
    vals = [-r, -r / 2, 0.0, r / 2, r]
    pts = np.array(list(itertools.product(vals, repeat=d)))
    base = np.array([[r] * d, [-r] * d, [r / 2] * d])
    add = rep = 0.0
    for region in ("all", "half"):
        f0 = _cluster_stats(base, region)
        add = max(add, max(np.abs(_cluster_stats(np.vstack([base, p]), region) - f0).sum() for p in pts))
        for i in range(len(base)):
            for p in pts:
                Y = base.copy()
                Y[i] = p
                rep = max(rep, np.abs(_cluster_stats(Y, region) - f0).sum())
    assert add == pytest.approx(d * r + 1)
    assert rep == pytest.approx(max(2 * d * r, d * r + 1))
    assert rep < 2 * d * r + 2  # the value the table used to state (that is all clusters together)


def test_the_chapter_states_these_formulas():
    text = "".join("".join(c["source"]) for c in json.loads(CHAPTER.read_text())["cells"])
    assert "| one count and $d$ coordinate sums | $d\\,r + 1$ | $\\max(2dr,\\ dr + 1)$ |" in text
