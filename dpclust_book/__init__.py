"""dpclust_book: the book's own machinery, on top of the library ``dpclust_core``.

:mod:`~dpclust_book.style` (the palette, a fixed style per method, the figure and the HTML table of the book),
:mod:`~dpclust_book.datasets` (seeded stand-ins for the papers' data sets), :mod:`~dpclust_book.widgets`
(sliders that work with and without a kernel), :mod:`~dpclust_book.experiments` (the papers' experiment loops,
shared by the chapters and the benchmarks; they never import the plots) and :mod:`~dpclust_book.plots` (the
chapters' figures, drawn from the experiments' frames).

The arrows go one way: this package imports ``dpclust_core``, never the reverse. Install it with the
``book`` extra (``pip install .[book]``), which adds matplotlib, pandas and ipywidgets.
"""
