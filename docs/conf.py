"""Sphinx configuration of the nashzoo documentation (``make docs``).

Sphinx with MyST-Parser: the pages are Markdown, the API reference comes from the
docstrings (autodoc, with napoleon for the Google-style sections), and each env's page is
its module docstring, as PettingZoo's documentation does it. ``make docs`` builds with
``-W --keep-going``: a warning (a broken cross-reference, a link to a missing page, a bad
docstring) fails the build. ``tests/test_docs_snippets.py`` runs every Python block.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import nashzoo  # noqa: E402

project = "nashzoo"
author = "the nashzoo developers"
copyright = "2026, the nashzoo developers"
version = release = nashzoo.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "cli_help",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]

# Markdown: $math$, ::: fences, definition lists, and heading anchors to link sections.
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist", "attrs_inline"]
myst_heading_anchors = 3

# Docstrings: ``literal`` for single backticks as well (the docstrings use both).
default_role = "code"
# Each object is documented where it is defined (a package's __all__ re-exports are not
# documented twice).
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autoclass_content = "both"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# `Attributes:` sections as fields, so NamedTuple fields are not described twice.
napoleon_use_ivar = True
# Type hints name numpy, torch, gymnasium, ... classes, which this offline build cannot
# link (no intersphinx inventories): without nitpicky mode they are shown as text.

html_theme = "furo"
html_title = f"nashzoo {release}"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": True}


# Furo draws the whole site's navigation on every page, and viewcode adds a page per
# module (about 140 of the site's 190). The source pages are in no table of contents, so
# nothing in their navigation is marked current: it differs between them only in its links,
# which are relative to the page's folder. Drawing it once per folder instead of once per
# page cut the build from 86 s to 51 s (2026-12-07, 2 cores; the HTML is byte-identical).
# The drawings are kept for one build.
_NAVIGATION: dict[tuple[str, str], object] = {}


def _share_source_pages_navigation(
    app: object, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    if not pagename.startswith("_modules/") or "toctree" not in context:
        return
    draw = context["toctree"]
    folder = pagename.rsplit("/", 1)[0]

    def shared(**options: object) -> object:
        key = (folder, repr(sorted(options.items())))
        if key not in _NAVIGATION:
            _NAVIGATION[key] = draw(**options)
        return _NAVIGATION[key]

    context["toctree"] = shared


def setup(app: Sphinx) -> dict[str, bool]:
    app.connect("builder-inited", lambda app: _NAVIGATION.clear())
    app.connect("html-page-context", _share_source_pages_navigation, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
