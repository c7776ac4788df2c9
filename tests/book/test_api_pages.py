"""The API reference has one page per public module of both packages, and every page is in the table of contents.

A module's page is ``book/api/core/<module>.md`` (library) or ``book/api/helpers/<module>.md`` (the book's
helpers), the module's path below its package with dots as underscores (``dpclust_core.kmeans.grid`` ->
``book/api/core/kmeans_grid.md``; the package itself is ``index.md``). A new module gets its page by copying
:data:`TEMPLATE` there and listing the page in ``_toc.yml`` (under its package's index, or its subpackage's page).
"""
import importlib
import pkgutil
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "book" / "api"
FOLDER = {"dpclust_core": "core", "dpclust_book": "helpers"}
TEMPLATE = """# {title}

`{module}`

```{{eval-rst}}
.. automodule:: {module}
   :members:
   :no-value:
```
"""
AUTOMODULE = re.compile(r"^\.\. automodule:: ([\w.]+)\s*$", re.M)


def _public_modules():
    names = []
    for pkg in FOLDER:
        mod = importlib.import_module(pkg)
        names.append(pkg)
        names += [m.name for m in pkgutil.walk_packages(mod.__path__, pkg + ".")
                  if not any(part.startswith("_") for part in m.name.split("."))]
    return sorted(names)


MODULES = _public_modules()


def page_of(module: str) -> Path:
    """Where the API page of ``module`` lives."""
    pkg, _, rest = module.partition(".")
    return API / FOLDER[pkg] / ((rest.replace(".", "_") or "index") + ".md")


def _toc_files():
    files = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    return set(files)


def test_both_packages_have_modules():
    assert "dpclust_core.mechanisms" in MODULES and "dpclust_book.widgets" in MODULES
    assert not any("._" in m for m in MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_every_public_module_has_its_api_page(module):
    page = page_of(module)
    rel = page.relative_to(ROOT)
    title = module.rsplit(".", 1)[-1].replace("_", " ")
    assert page.is_file(), (f"{module} has no API page: create {rel} with\n\n"
                            f"{TEMPLATE.format(title=title, module=module)}\nand list "
                            f"'file: {rel.with_suffix('').as_posix()}' in _toc.yml")
    assert module in AUTOMODULE.findall(page.read_text(encoding="utf-8")), \
        f"{rel} does not document {module} (no '.. automodule:: {module}' line)"
    assert rel.with_suffix("").as_posix() in _toc_files(), f"{rel} is not in _toc.yml"


def test_every_api_page_documents_an_existing_module_and_is_in_the_toc():
    toc = _toc_files()
    for page in sorted(API.rglob("*.md")):
        rel = page.relative_to(ROOT)
        assert rel.with_suffix("").as_posix() in toc, f"{rel} is not in _toc.yml"
        for module in AUTOMODULE.findall(page.read_text(encoding="utf-8")):
            assert module in MODULES, f"{rel} documents {module}, which is not a public module"
            assert page_of(module) == page, f"{module} belongs on {page_of(module).relative_to(ROOT)}, not {rel}"


def test_the_old_one_page_reference_is_gone():
    assert not (ROOT / "book" / "api.md").exists() and not (ROOT / "book" / "api_helpers.md").exists()
    assert not any(f.startswith("book/api_") or f == "book/api" for f in _toc_files())
