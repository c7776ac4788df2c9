"""Layout of the book's four-panel figures: one panel a row, narrow enough to stay readable on a phone.

A 2 x 2 grid drawn 7 inches wide is shown 368 pixels wide on a 400-pixel phone screen, about half its size, and
its labels shrink to 4-6 pixels. The same four panels stacked in one column of :data:`NARROW` inches are shown
at 92 % of their size or more: 10-point labels stay above 12 pixels (9 points) on the phone, and the figure is
no wider than 400 pixels on a desktop.
"""
from __future__ import annotations

from ..style import figure

#: inches; a one-column figure this wide is shown at (nearly) its own size on a phone and on a desktop
NARROW = 4.0
#: points; the smallest text a stacked figure uses (12 px on a 368-px phone column)
MIN_FONT = 9.5


def stacked_2x2(panel_height: float = 2.9, **kwargs):
    """Four panels in one column, returned as a 2 x 2 array of axes (``axes[row, col]`` reads in order
    ``[0, 0], [0, 1], [1, 0], [1, 1]`` from top to bottom), so a 2 x 2 drawing code keeps its indices."""
    fig, axes = figure(nrows=4, height=4 * panel_height, **kwargs)
    fig.set_size_inches(NARROW, 4 * panel_height)
    return fig, axes.reshape(2, 2)


def smallest_text_px(fig, column_px: float = 368.0) -> float:
    """The size in pixels of the smallest visible text of ``fig`` once it is shown ``column_px`` pixels wide
    (or at its own width, if that is smaller), at the book's 100 dpi."""
    from matplotlib.text import Text

    width_px = fig.get_figwidth() * fig.dpi
    scale = min(1.0, column_px / width_px)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) * fig.dpi / 72.0 * scale
