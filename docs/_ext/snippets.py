"""Run the Python snippets of the documentation, page by page.

Every ```` ```python ```` block runs on its own, as a reader who copies that one block
would run it: in a fresh namespace (nothing from the page's earlier blocks), in a scratch
folder. A block whose first line is ``# file: NAME.py`` is a module the page asks the
reader to save: it is written to the page's scratch folder (which is on ``sys.path``),
and the blocks after it import from it, as the reader's own script would. The tests
(``tests/test_docs_snippets.py``) run every page; from the shell::

    python docs/_ext/snippets.py docs/tutorial.md docs/howto/rllib.md
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import textwrap
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]


def fenced_blocks(page: Path, language: str = "python") -> list[tuple[int, str]]:
    """The page's fenced blocks of ``language`` (those indented inside a list too,
    dedented), each with the line its code starts on."""
    fence = re.compile(rf"^([ \t]*)```{language}[ \t]*\n(.*?)^\1```[ \t]*$", re.S | re.M)
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 2, textwrap.dedent(m[2])) for m in fence.finditer(text)
    ]


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """The page's Python blocks with the line each starts on."""
    return fenced_blocks(page, "python")


def markdown_pages() -> list[Path]:
    """Every Markdown page of the docs (the built site left out), in a stable order."""
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


def pages() -> list[Path]:
    """Every Markdown page of the docs that has a Python block, in a stable order."""
    return [p for p in markdown_pages() if python_blocks(p)]


FILE_BLOCK = re.compile(r"^# file: ([A-Za-z_][A-Za-z0-9_]*\.py)[ \t]*$")
"""The first line of a block that is a module to save, not a script to run."""


def run_page(page: Path, workdir: Path) -> float:
    """Run the page's blocks in ``workdir``, each in a fresh namespace (file blocks are
    written there instead, see the module); returns the seconds it took. An exception
    carries the page and the line of the failing block in its traceback."""
    old = Path.cwd()
    os.chdir(workdir)
    sys.path.insert(0, str(workdir))
    saved = set(sys.modules)
    start = time.perf_counter()
    try:
        for line, block in python_blocks(page):
            named = FILE_BLOCK.match(block.splitlines()[0]) if block.strip() else None
            if named:
                (workdir / named[1]).write_text(block, encoding="utf-8")
                continue
            # pad so tracebacks point at the page's own line numbers
            code = compile("\n" * (line - 1) + block, str(page), "exec")
            exec(code, {"__name__": "__main__"})
    finally:
        os.chdir(old)
        sys.path.remove(str(workdir))
        for name in set(sys.modules) - saved:  # the page's own modules go with its folder
            module = sys.modules.get(name)
            if module is not None and str(getattr(module, "__file__", "")).startswith(str(workdir)):
                del sys.modules[name]
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    targets = [Path(a) for a in argv] or pages()
    for page in targets:
        with tempfile.TemporaryDirectory() as tmp:
            seconds = run_page(page.resolve(), Path(tmp))
        print(f"ok  {page} ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
