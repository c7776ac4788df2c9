"""Experiment loops shared by the chapters and the benchmarks (the top layer of the package).

One submodule per topic. Each function runs a paper's experiment (several methods, budgets and seeds) and
returns a tidy ``pandas.DataFrame`` that a chapter shows as a table or hands to :mod:`dpclust_book.plots`.
Nothing here is needed to *use* the algorithms; it is what reproduces the papers' figures.
"""
