"""``{cli-help}`` directive: the ``--help`` text of the ``nashzoo`` command and of each of
its subcommands, taken from the argparse parser itself so the page cannot drift from it."""

from __future__ import annotations

import os
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


class CliHelp(SphinxDirective):
    """Render ``nashzoo --help`` and ``nashzoo SUBCOMMAND --help`` as sections."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from nashzoo.cli import build_parser, subcommand_parsers

        os.environ["COLUMNS"] = "92"  # argparse wraps at the terminal width
        out: list[nodes.Node] = [nodes.literal_block(text=build_parser().format_help())]
        for name, sub in subcommand_parsers().items():
            section = nodes.section(ids=[f"nashzoo-{name}"])
            section += nodes.title(text=f"nashzoo {name}")
            section += nodes.literal_block(text=sub.format_help())
            out.append(section)
        return out


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("cli-help", CliHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
