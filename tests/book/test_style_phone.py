"""What keeps figures and tables readable on a 400-px phone: fonts of at least 9 pt in a 100-dpi figure shown
at its natural size (the book's CSS lets it scroll sideways instead of shrinking), and table row labels that do
not wrap (the table scrolls)."""
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from dpclust_book import style  # noqa: E402

CSS = (Path(__file__).resolve().parents[2] / "_static" / "dpclust.css").read_text(encoding="utf-8")


def test_every_font_of_the_style_is_at_least_9_pt_at_100_dpi():
    style.use_style()
    sizes = {k: plt.rcParams[k] for k in ("font.size", "axes.titlesize", "axes.labelsize", "xtick.labelsize",
                                          "ytick.labelsize", "legend.fontsize")}
    points = {k: v if isinstance(v, (int, float)) else
              matplotlib.font_manager.FontProperties(size=v).get_size_in_points() for k, v in sizes.items()}
    assert min(points.values()) >= 9, points
    assert plt.rcParams["figure.dpi"] == plt.rcParams["savefig.dpi"] == 100


def test_on_a_phone_figures_keep_their_natural_size_and_scroll():
    phone = re.search(r"@media \(max-width: (\d+)px\) \{(.*?)\n\}", CSS.split("On a phone a figure keeps")[1], re.S)
    assert phone and int(phone.group(1)) >= 700  # a 700-px figure shrinks in any narrower column
    rules = phone.group(2)
    assert re.search(r"div\.cell_output \{[^}]*overflow-x: auto", rules)
    assert re.search(r"div\.cell_output img, \.dpclust-explore img \{[^}]*max-width: none !important", rules)


def test_table_row_labels_do_not_wrap():
    html = style.table(pd.DataFrame({"ε": [0.1]}, index=["a long row label of many words"]), wrap=True)._repr_html_()
    assert re.search(r"tbody th \{[^}]*white-space: nowrap", html)
    assert re.search(r"table\.dataframe tbody th, div\.cell_output table tbody th \{ white-space: nowrap; \}", CSS)
