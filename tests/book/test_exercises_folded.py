"""Exercise solutions stay folded: after a chapter's "Exercises" heading, every exercise is an ``{exercise}``
whose whole solution — explanation, code and output — sits in ONE closed dropdown.

A reader who wants to try an exercise must not see its answer under the question. The book's convention
(sphinx-exercise's gated solution, the only form whose solution can hold code cells)::

    markdown:  ```{exercise} Title
               :label: <notebook stem>-ex-<n>

               question
               ```

               ```{solution-start} <notebook stem>-ex-<n>
               :class: dropdown
               ```
               explanation
    code:      the cells that compute the answer, untagged (they fold with the solution);
               the hidden checks tagged remove-cell
    markdown:  ```{solution-end}
               ```

An exercise with no code puts all of it in one markdown cell. A code cell outside a solution prints its output
in the open; a ``{dropdown}`` or a plain ``{solution}`` cannot hold a code cell, so the code would sit in a
second toggle or in the open — the failures this test catches.
"""
import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[2] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
HEADING = re.compile(r"^#{1,3}\s+Exercises\b", flags=re.M)
# a fenced directive from its opening to its closing fence: ```{name} argument \n body ```
DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}(?P<arg>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                       flags=re.M | re.S)
QUESTION_LEAD = re.compile(r"^(?:\*\*\d+\.\s|\d+\.\s)", flags=re.M)  # "**1. Title.**" or "1. ..." by hand


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _option(body, name):
    m = re.search(rf"^:{name}:[ \t]*(.*?)[ \t]*$", body, flags=re.M)
    return m.group(1) if m else None


def _events(cells):
    """The exercise section as events: ("heading",), ("exercise", label), ("start", label, class),
    ("end",), ("other-directive", name), ("question-text", text), ("code", index, tags)."""
    start = next((i for i, c in enumerate(cells)
                  if c["cell_type"] == "markdown" and HEADING.search(_source(c))), None)
    if start is None:
        return []
    events = []
    for i, cell in list(enumerate(cells))[start:]:
        if cell["cell_type"] == "code":
            events.append(("code", i, set(cell.get("metadata", {}).get("tags", []))))
            continue
        text = _source(cell)
        if i == start:
            events.append(("heading",))
            text = text[HEADING.search(text).end():]
        pos = 0
        for m in list(DIRECTIVE.finditer(text)) + [None]:
            free = text[pos:m.start()] if m else text[pos:]
            events.append(("text", free))
            if m is None:
                break
            name, body = m.group("name"), m.group("body")
            if name == "exercise":
                events.append(("exercise", _option(body, "label")))
            elif name == "solution-start":
                events.append(("start", m.group("arg").strip(), _option(body, "class")))
            elif name == "solution-end":
                events.append(("end",))
            else:
                events.append(("other-directive", name))
            pos = m.end()
    return events


def check_exercises(path):
    """Every problem with the exercise section of the notebook at ``path`` (an empty list if none)."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    events = _events(cells)
    if not events:
        return []
    stem, problems = Path(path).stem, []
    in_solution, pending, labels = False, None, []   # pending: an exercise still waiting for its solution
    for ev in events:
        kind = ev[0]
        if kind == "exercise":
            label = ev[1]
            if in_solution:
                problems.append(f"exercise {label!r} opens inside the solution of {labels[-1]!r}")
            if pending is not None:
                problems.append(f"exercise {pending!r} has no solution-start before the next exercise")
            want = f"{stem}-ex-{len(labels) + 1}"
            if label != want:
                problems.append(f"exercise {len(labels) + 1} has :label: {label!r}, not {want!r}")
            labels.append(label)
            pending = label
        elif kind == "start":
            target, klass = ev[1], ev[2]
            if in_solution:
                problems.append(f"solution-start {target!r} inside another solution (a missing solution-end)")
            if pending is None or target != pending:
                problems.append(f"solution-start {target!r} does not follow its exercise (expected {pending!r})")
            if klass is None or "dropdown" not in klass.split():
                problems.append(f"the solution of {target!r} is not folded (no ':class: dropdown')")
            in_solution, pending = True, None
        elif kind == "end":
            if not in_solution:
                problems.append("a solution-end without its solution-start")
            in_solution = False
        elif kind == "other-directive":
            if ev[1] in ("dropdown", "solution", "toggle"):
                problems.append(f"an old-style {{{ev[1]}}} solution: a solution is a gated "
                                "{solution-start} ... {solution-end} under an {exercise}")
        elif kind == "text":
            if not in_solution and QUESTION_LEAD.search(ev[1]):
                line = QUESTION_LEAD.search(ev[1])
                snippet = ev[1][line.start():line.start() + 50]
                problems.append(f"a question written by hand, not as an {{exercise}}: {snippet!r}")
        elif kind == "code":
            i, tags = ev[1], ev[2]
            if not in_solution and "remove-cell" not in tags:
                problems.append(f"code cell {i} shows its output in the open: it is not between a "
                                "solution-start and a solution-end")
    if pending is not None:
        problems.append(f"exercise {pending!r} has no solution")
    if in_solution:
        problems.append("the last solution has no solution-end")
    if not labels:
        problems.append("an Exercises heading with no {exercise} after it")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_exercise_has_one_folded_solution(path):
    problems = check_exercises(path)
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


def test_the_chapters_have_exercises():
    with_exercises = [p.name for p in NOTEBOOKS if _events(json.loads(p.read_text(encoding="utf-8"))["cells"])]
    assert len(with_exercises) >= 13, with_exercises


# ---- the check fails on what it must catch ---------------------------------------------------------------------

def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(tags=()):
    meta = {"tags": list(tags)} if tags else {}
    return {"cell_type": "code", "metadata": meta, "source": "1 + 1", "outputs": [], "execution_count": None}


def _exercise(stem, n, *, klass=":class: dropdown\n", end=True):
    text = (f"```{{exercise}} Title {n}\n:label: {stem}-ex-{n}\n\nQuestion?\n```\n\n"
            f"```{{solution-start}} {stem}-ex-{n}\n{klass}```\nExplanation.")
    return text + ("\n\n```{solution-end}\n```" if end else "")


def _problems(tmp_path, cells, stem="nb"):
    nb = {"cells": [_md("## Exercises\n")] + cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / f"{stem}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return "\n".join(check_exercises(path))


def test_the_convention_passes(tmp_path):
    cells = [_md(_exercise("nb", 1, end=False)), _code(), _code(["remove-cell"]), _md("```{solution-end}\n```"),
             _md(_exercise("nb", 2))]
    assert _problems(tmp_path, cells) == ""


@pytest.mark.parametrize("cells, message", [
    # the old convention: a dropdown for the words, the answer's code in a separate hide-cell toggle
    ([_md("**1. Title.** Question?\n\n```{dropdown} Solution\nExplanation.\n```"), _code(["hide-cell"])],
     "in the open"),
    ([_md("**1. Title.** Question?\n\n```{dropdown} Solution\nExplanation.\n```")], "old-style {dropdown}"),
    ([_md("1. Question?"), _md("```{dropdown} Solution\nExplanation.\n```")], "written by hand"),
    # a code cell after the solution-end, or an answer printed with hide-input only
    ([_md(_exercise("nb", 1)), _code()], "code cell 2 shows its output in the open"),
    ([_md(_exercise("nb", 1)), _code(["hide-input"])], "in the open"),
    # a plain {solution} (it cannot hold code cells)
    ([_md("```{exercise} T\n:label: nb-ex-1\n\nQ?\n```\n\n```{solution} nb-ex-1\n:class: dropdown\n\nE.\n```")],
     "old-style {solution}"),
    # unbalanced or unfolded
    ([_md(_exercise("nb", 1, end=False)), _code()], "no solution-end"),
    ([_md(_exercise("nb", 1, end=False)), _md(_exercise("nb", 2))], "inside the solution"),
    ([_md(_exercise("nb", 1)), _md("```{solution-end}\n```")], "without its solution-start"),
    ([_md(_exercise("nb", 1, klass=""))], "not folded"),
    ([_md("```{exercise} T\n:label: nb-ex-1\n\nQ?\n```")], "has no solution"),
    ([_md(_exercise("nb", 2))], "not 'nb-ex-1'"),
], ids=["hide-cell", "dropdown", "list", "code-after-end", "hide-input", "plain-solution", "no-end",
        "nested", "stray-end", "not-dropdown", "no-solution", "label"])
def test_the_check_catches(tmp_path, cells, message):
    assert message in _problems(tmp_path, cells)
