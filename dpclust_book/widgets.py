"""Interactive figures that work everywhere: a kernel-free slider on the static page, a live widget in Jupyter.

:func:`explore` draws a figure for every value of one to three parameters *once*, when the cell runs, and shows
the frames behind HTML range sliders. The page needs no kernel and no script from the network (the frames are
PNG images inside the page and a few lines of JavaScript swap them), so the slider works in the built book,
offline, in JupyterLab and on Binder. In a running kernel, :meth:`Explorer.live` gives the same figure
driven by ipywidgets, where the values need not be precomputed.

Examples
--------
>>> import matplotlib.pyplot as plt
>>> from dpclust_book.widgets import explore
>>> def draw(scale):
...     fig, ax = plt.subplots(figsize=(4, 3))
...     ax.plot([0, 1], [0, scale])
...     return fig
>>> view = explore(draw, scale=[1, 2, 3])
>>> len(view.frames), "<input type=\\"range\\"" in view._repr_html_()
(3, True)
"""
from __future__ import annotations

import base64
import html
import io
import itertools
import json
import uuid

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from dpclust_core._validation import BadTypeError, check_int

__all__ = ["explore", "Explorer"]

_MAX_FRAMES = 64
_MAX_SLIDERS = 3


def _png(fig, dpi):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _label(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


class Explorer:
    """Frames of a figure over a grid of parameter values (see :func:`explore`)."""

    def __init__(self, draw, params: dict, initial: dict, dpi: int, title: str | None):
        self.draw = draw
        self.params = params
        self.names = list(params)
        self.initial = initial
        self.title = title
        self.frames = {}
        for combo in itertools.product(*params.values()):
            fig = draw(**dict(zip(self.names, combo)))
            if not isinstance(fig, Figure):
                raise BadTypeError(f"draw must return a matplotlib Figure, got {type(fig).__name__} for "
                                   f"{dict(zip(self.names, combo))}")
            self.frames[combo] = _png(fig, dpi)

    def _index(self, name):
        vals = self.params[name]
        return vals.index(self.initial[name]) if self.initial.get(name) in vals else 0

    def _repr_html_(self):
        uid = "dpx" + uuid.uuid4().hex[:10]
        keys = list(self.frames)
        frames = {"|".join(str(self.params[n].index(v)) for n, v in zip(self.names, combo)): self.frames[combo]
                  for combo in keys}
        start = [self._index(n) for n in self.names]
        first = frames["|".join(map(str, start))]
        rows = []
        for j, name in enumerate(self.names):
            vals = self.params[name]
            rows.append(
                f'<label style="display:flex;align-items:center;gap:0.6em;margin:0.2em 0;font-size:0.95em">'
                f'<span style="min-width:7em">{html.escape(name)}</span>'
                f'<input type="range" min="0" max="{len(vals) - 1}" step="1" value="{start[j]}" '
                f'data-dpx="{uid}" data-axis="{j}" style="flex:1;max-width:22em" aria-label="{html.escape(name)}">'
                f'<output id="{uid}-v{j}" style="min-width:4em">{html.escape(_label(vals[start[j]]))}</output>'
                f'</label>')
        labels = [[_label(v) for v in self.params[n]] for n in self.names]
        title = f'<div style="font-weight:600;margin-bottom:0.3em">{html.escape(self.title)}</div>' if self.title \
            else ""
        script = (
            "<script>(function(){"
            f"var F={json.dumps(frames)},L={json.dumps(labels)},id={json.dumps(uid)};"
            "var s=document.querySelectorAll('input[data-dpx=\"'+id+'\"]');"
            "function upd(){var k=[];for(var i=0;i<s.length;i++){k.push(s[i].value);"
            "document.getElementById(id+'-v'+i).textContent=L[i][+s[i].value];}"
            "document.getElementById(id+'-img').src=F[k.join('|')];}"
            "for(var i=0;i<s.length;i++){s[i].addEventListener('input',upd);}})();</script>")
        return (f'<div class="dpclust-explore" id="{uid}" style="max-width:100%">{title}{"".join(rows)}'
                f'<img id="{uid}-img" src="{first}" alt="{html.escape(self.title or "interactive figure")}" '
                f'style="max-width:100%;height:auto;display:block"></div>{script}')

    def live(self, **ranges):
        """The same figure driven by ipywidgets in a running kernel.

        By default each slider takes the precomputed values; pass ``name=(low, high, step)`` for a continuous
        slider over a range instead. Returns the ``ipywidgets.interactive`` object (display it, e.g. as the
        last expression of a cell): its first render and every slider move show the figure once.
        """
        import ipywidgets as w
        from IPython.display import display

        controls = {}
        for name in self.names:
            if name in ranges:
                lo, hi, step = ranges[name]
                controls[name] = w.FloatSlider(value=self.initial.get(name, lo), min=lo, max=hi, step=step,
                                               description=name, continuous_update=False)
            else:
                vals = self.params[name]
                controls[name] = w.SelectionSlider(options=vals, value=vals[self._index(name)], description=name,
                                                   continuous_update=False)

        def show(**kw):
            fig = self.draw(**kw)
            # pyplot forgets the figure before it is shown: the inline backend would otherwise show it a second
            # time when ipywidgets flushes the open figures after the call (one image per slider move)
            plt.close(fig)
            display(fig)

        return w.interactive(show, **controls)


def explore(draw, *, title: str | None = None, dpi: int = 100, initial: dict | None = None, **params) -> Explorer:
    """Precompute ``draw(**values)`` for every combination of the given parameter values (one to three sliders).

    Parameters
    ----------
    draw : callable
        ``draw(**values)`` returns a matplotlib Figure (it is closed after it is saved as a frame).
    title : str, optional
        A line shown above the sliders (and the image's alternative text).
    dpi : int
        Resolution of the frames (100 keeps a 7-inch figure at the width of the book's column).
    initial : dict, optional
        The value each slider starts at (default: the first value).
    **params : sequence
        One to three parameters, each with the list of values its slider steps through (at most 64 frames in
        all: every combination is one PNG inside the page).

    Returns
    -------
    Explorer
        Displays as the kernel-free slider; ``.live()`` gives the ipywidgets version.
    """
    if not callable(draw):
        raise BadTypeError(f"draw must be a callable returning a matplotlib Figure, got {type(draw).__name__}")
    if not 1 <= len(params) <= _MAX_SLIDERS:
        raise ValueError(f"explore takes one to {_MAX_SLIDERS} parameters to slide over, got {len(params)}")
    if title is not None and not isinstance(title, str):
        raise BadTypeError(f"title must be a string or None, got {type(title).__name__}")
    dpi = check_int(dpi, "dpi", 10, 600)
    values = {}
    n = 1
    for name, vals in params.items():
        if isinstance(vals, (str, bytes)) or not hasattr(vals, "__iter__"):
            raise BadTypeError(f"{name} must be a list of the values its slider steps through, got "
                               f"{type(vals).__name__}")
        vals = list(vals)
        if not vals:
            raise ValueError(f"{name} must list at least one value")
        values[name] = vals
        n *= len(vals)
    if n > _MAX_FRAMES:
        raise ValueError(f"{n} frames is too many for one page (at most {_MAX_FRAMES}); use fewer values")
    if initial is None:
        initial = {}
    if not isinstance(initial, dict):
        raise BadTypeError(f"initial must be a dict of starting values, got {type(initial).__name__}")
    for name, v in initial.items():
        if name not in values:
            raise ValueError(f"initial names {name!r}, which is not a slider (sliders: {', '.join(values)})")
        if v not in values[name]:
            raise ValueError(f"initial value {v!r} of {name} is not one of its values {values[name]}")
    return Explorer(draw, values, dict(initial), dpi, title)
