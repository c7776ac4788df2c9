"""The book's own Sphinx hook: every inline script appears once on a page.

Extensions that add an inline script (a ``<script>`` with a body and no file) while the documents are read —
sphinx-thebe's ``const THEBE_JS_URL = ...`` and sphinx-togglebutton's ``var togglebuttonSelector = ...`` — have
it registered twice with Sphinx 7: once by the HTML builder with the file ``None`` and once from the
application's registry with the file ``''``, which Sphinx does not see as equal. The second ``const`` declaration
then fails in the browser ("Identifier 'THEBE_JS_URL' has already been declared"). This hook drops the repeated
entries from each page's script list before the page is written.
"""


def _key(js):
    """What makes two entries the same script: the file (an inline script has ``None`` from the builder and ``''``
    from the application's registry) and the attributes, the body among them."""
    if isinstance(js, str) and not hasattr(js, "filename"):
        return js, ()
    attrs = getattr(js, "attributes", {}) or {}
    return js.filename or "", tuple(sorted((k, str(v)) for k, v in attrs.items()))


def unique_scripts(app, pagename, templatename, context, doctree):
    """Keep the first of equal ``<script>`` entries (same file, same attributes and body) of one page."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        key = _key(js)
        if key not in seen:
            seen.add(key)
            kept.append(js)
    scripts[:] = kept


def setup(app):
    app.connect("html-page-context", unique_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
