"""The book's look, shared by its figures and its tables: a colour-blind-safe palette with a fixed colour per
method, a figure style readable at page width, and the HTML table formatter.

Every figure of the book is at most two panels wide, its text at least 9 pt at the size it is shown (figures
are drawn 7 inches wide at 100 dpi and shown at about 700 pixels; on a phone they keep that size and scroll
sideways rather than shrink), with labelled axes. Each method keeps its colour,
marker and line style across all chapters (:data:`METHODS`), so a reader learns them once. Tables are HTML
(:func:`table`), never printed dicts.

:mod:`dpclust_book.plots` draws with this style; :mod:`dpclust_book.experiments` formats its tables with
:func:`table` (the experiments never import the plots).

Examples
--------
>>> from dpclust_book import style
>>> style.method_style("EUGkM")["color"]
'#0072B2'
>>> fig, ax = style.figure()
>>> len(fig.axes)
1
"""
from __future__ import annotations

import numpy as np

__all__ = ["PALETTE", "EXTRA", "METHODS", "FIG_WIDTH", "method_style", "use_style", "figure", "table"]

#: Okabe & Ito (2008) colour-blind-safe palette.
PALETTE = {
    "black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73", "yellow": "#F0E442",
    "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7", "grey": "#8C8C8C",
}
#: Three more colours for the methods the eight above cannot keep apart (Tol's muted scheme: indigo, wine,
#: ochre — the last a darker, readable stand-in for the yellow on white).
EXTRA = {"indigo": "#332288", "wine": "#882255", "ochre": "#B8860B"}

#: Fixed style of every method across the book: colour, marker, line style.
METHODS = {
    "non-private": dict(color=PALETTE["black"], marker="", linestyle="--"),
    "DPLloyd": dict(color=PALETTE["orange"], marker="o", linestyle="-"),
    "DPLloyd-Impr": dict(color=PALETTE["vermillion"], marker="s", linestyle="-"),
    "EUGkM": dict(color=PALETTE["blue"], marker="^", linestyle="-"),
    "UGkM": dict(color=PALETTE["sky"], marker="v", linestyle="-."),
    "MkM": dict(color=PALETTE["grey"], marker="D", linestyle=":"),
    "Hybrid": dict(color=PALETTE["green"], marker="P", linestyle="-"),
    "GkM": dict(color=PALETTE["purple"], marker="X", linestyle=":"),
    "PGkM": dict(color=EXTRA["ochre"], marker="h", linestyle="-."),
    "PrivateKMeansEasy": dict(color=EXTRA["wine"], marker="*", linestyle="--"),
    "LSH coreset": dict(color=EXTRA["indigo"], marker="p", linestyle="-"),
    "diffprivlib": dict(color=PALETTE["grey"], marker="x", linestyle="--"),
    "MCMC": dict(color=PALETTE["green"], marker="d", linestyle="-"),
    "laplace": dict(color=PALETTE["blue"], marker="", linestyle="-"),
    "gaussian": dict(color=PALETTE["vermillion"], marker="", linestyle="-"),
}

FIG_WIDTH = 7.0  #: inches; shown at about 700 px, the width of the book's text column
_FONT = 11  # points at FIG_WIDTH: about 10 pt once a 7-inch figure is scaled to the column


def method_style(name: str) -> dict:
    """``color``, ``marker`` and ``linestyle`` of a method (a neutral grey style for unknown names)."""
    return dict(METHODS.get(name, dict(color=PALETTE["grey"], marker=".", linestyle="-")))


def use_style() -> None:
    """Set matplotlib's defaults for the book: font sizes, light grid, no top/right spines, 100 dpi."""
    import matplotlib  # on use: the tables (and the experiments that make them) load without matplotlib
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "figure.figsize": (FIG_WIDTH, 4.2), "figure.dpi": 100, "savefig.dpi": 100,
        "font.size": _FONT, "axes.titlesize": _FONT + 1, "axes.labelsize": _FONT,
        "xtick.labelsize": _FONT - 1, "ytick.labelsize": _FONT - 1, "legend.fontsize": _FONT - 1,
        "legend.frameon": False, "axes.spines.top": False, "axes.spines.right": False,
        "axes.grid": True, "grid.alpha": 0.25, "lines.linewidth": 2.0, "lines.markersize": 6,
        "figure.constrained_layout.use": True,
        "axes.prop_cycle": matplotlib.cycler(color=[PALETTE[c] for c in
                                                    ("blue", "orange", "green", "vermillion", "purple", "sky",
                                                     "black", "grey")]),
    })


def figure(ncols: int = 1, nrows: int = 1, *, height: float | None = None, **kwargs):
    """A new figure of at most two panels a row, ``FIG_WIDTH`` wide. Returns ``(fig, axes)``."""
    if ncols not in (1, 2):
        raise ValueError(f"ncols must be 1 or 2 (figures stay readable at page width), got {ncols!r}")
    import matplotlib.pyplot as plt

    use_style()
    if height is None:
        height = (4.2 if ncols == 1 else 3.4) * nrows
    return plt.subplots(nrows, ncols, figsize=(FIG_WIDTH, height), squeeze=True, **kwargs)


def table(df, fmt=None, *, wrap=False, na_rep="—", index_fmt=None):
    """A DataFrame as a readable HTML table (a pandas ``Styler``): padded cells, light rules between rows.

    ``fmt`` is passed to ``Styler.format`` (a format string — applied to the numbers only, text cells are shown
    as they are —, a callable or a dict per column), ``index_fmt`` to
    ``Styler.format_index`` (numeric index values only). Numbers are right-aligned; with ``wrap=True`` (tables
    of text) the cells are left-aligned and may wrap, so a wide table still fits the page. Row labels never
    wrap: on a narrow screen the table scrolls sideways instead.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpclust_book.style import table
    >>> html = table(pd.DataFrame({"ε": [0.1, 1.0]}), "{:.2f}")._repr_html_()
    >>> "0.10" in html and "text-align: right" in html
    True
    >>> "—" in table(pd.DataFrame({"a": [0.5, "—"]}), "{:.2f}")._repr_html_()
    True
    """
    st = df.style
    if isinstance(fmt, str):  # a format string applies to the numbers; text cells (e.g. "—") stay as they are
        spec = fmt
        fmt = lambda v: (spec.format(v) if isinstance(v, (int, float, np.integer, np.floating))  # noqa: E731
                         and not isinstance(v, (bool, np.bool_)) else v)
    if fmt is not None:
        st = st.format(fmt, na_rep=na_rep)
    if index_fmt is not None:  # numbers in the index only (a label stays as it is)
        st = st.format_index(lambda x: index_fmt.format(x) if isinstance(x, (int, float)) else x)
    cell = "padding: 0.3em 0.7em; border-bottom: 1px solid #e4e4e4; vertical-align: top; "
    cell += "text-align: left;" if wrap else "text-align: right; white-space: nowrap;"
    return st.set_table_styles([
        {"selector": "", "props": "border-collapse: collapse; margin: 0.4em 0 1em 0; font-size: 0.92em;"},
        {"selector": "td, th", "props": cell},
        {"selector": "thead th", "props": "border-bottom: 1px solid #999; text-align: left; white-space: normal;"},
        {"selector": "tbody th", "props": "text-align: left; font-weight: 600; white-space: nowrap;"},
    ])
