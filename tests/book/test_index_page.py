"""The home page's code runs as printed, and its dependency diagram fits a phone's code box."""
import re
import textwrap
from pathlib import Path

import pytest

INDEX = Path(__file__).resolve().parents[2] / "book" / "index.md"
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>\{code-block\}\s*\w+|\w*)[^\n]*\n(?P<body>.*?)^(?P=indent)```",
                   re.S | re.M)


def _blocks(lang):
    text = INDEX.read_text(encoding="utf-8")
    return [textwrap.dedent(m.group("body")) for m in FENCE.finditer(text)
            if m.group("lang").replace("{code-block}", "").strip() == lang]


def test_the_home_page_has_python_examples():
    assert _blocks("python")


@pytest.mark.parametrize("i", range(len(_blocks("python"))))
def test_every_python_block_of_the_home_page_runs(i):
    """Each block on its own, in a fresh namespace: no name it uses may be left for the reader to guess."""
    code = _blocks("python")[i]
    namespace = {"__name__": "__index_example__"}
    exec(compile(code, f"book/index.md python block {i + 1}", "exec"), namespace)


def test_the_dependency_diagram_fits_a_phone():
    """40 characters of 13-px monospace (about 7.8 px each) fit the code box of a 400-px phone (336 px inside
    its padding)."""
    (diagram,) = _blocks("text")
    assert max(len(line) for line in diagram.splitlines()) <= 40
