"""widgets.explore: the kernel-free slider (frames, HTML, the script's keys) and its refusals of bad input."""
import json
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from dpclust_book.widgets import Explorer, explore  # noqa: E402


def _draw(**kw):
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.set_title(" ".join(f"{k}={v}" for k, v in sorted(kw.items())))
    return fig


def _frames_in_script(view):
    html = view._repr_html_()
    return json.loads(re.search(r"var F=(\{.*?\}),L=", html).group(1)), html


@pytest.mark.parametrize("params, n_frames", [({"a": [1, 2, 3]}, 3), ({"a": [1, 2], "b": [0.1, 0.5, 1.0]}, 6),
                                              ({"n": [10, 100], "d": [2, 4], "k": [3, 5, 8]}, 12)])
def test_one_frame_per_combination_and_one_slider_per_parameter(params, n_frames):
    view = explore(_draw, **params)
    assert isinstance(view, Explorer) and len(view.frames) == n_frames
    frames, html = _frames_in_script(view)
    assert len(frames) == n_frames
    assert html.count('type="range"') == len(params)
    # the keys the script looks up are the slider positions joined by "|", for every combination
    sizes = [len(v) for v in params.values()]
    import itertools
    expected = {"|".join(map(str, idx)) for idx in itertools.product(*[range(s) for s in sizes])}
    assert set(frames) == expected
    assert all(v.startswith("data:image/png;base64,") for v in frames.values())


def test_frames_differ_and_initial_value_is_shown_first():
    view = explore(_draw, a=[1, 2, 3], initial={"a": 2})
    frames, html = _frames_in_script(view)
    assert len(set(frames.values())) == 3  # a different image for every value
    assert f'src="{frames["1"]}"' in html and 'value="1"' in html


def test_no_script_or_stylesheet_from_the_network():
    _, html = _frames_in_script(explore(_draw, a=[1, 2]))
    assert "http://" not in html and "https://" not in html


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(), ValueError, "parameters"),
    (dict(a=[1], b=[1], c=[1], e=[1]), ValueError, "parameters"),
    (dict(a=list(range(65))), ValueError, "frames"),
    (dict(a=list(range(5)), b=list(range(5)), c=list(range(3))), ValueError, "frames"),
    (dict(a=[]), ValueError, "a"),
    (dict(a="abc"), TypeError, "a"),
    (dict(a=3), TypeError, "a"),
    (dict(a=[1], dpi="x"), TypeError, "dpi"),
    (dict(a=[1], dpi=0), ValueError, "dpi"),
    (dict(a=[1], title=3), TypeError, "title"),
    (dict(a=[1], initial=[1]), TypeError, "initial"),
    (dict(a=[1], initial={"b": 1}), ValueError, "initial"),
    (dict(a=[1, 2], initial={"a": 5}), ValueError, "initial"),
])
def test_bad_input_names_the_argument(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        explore(_draw, **kwargs)


def test_draw_must_be_callable_and_return_a_figure():
    with pytest.raises(TypeError, match="draw"):
        explore(3, a=[1])
    with pytest.raises(TypeError, match="draw"):
        explore(lambda a: a, a=[1])


def test_live_builds_one_control_per_slider():
    view = explore(_draw, a=[1, 2], b=[3, 4])
    w = view.live(b=(3.0, 4.0, 0.5))
    assert len(w.children) >= 2
