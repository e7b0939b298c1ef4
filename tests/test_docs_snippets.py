"""Every Python snippet of the documentation runs (issue 17), each block on its own (issue
86: a fresh namespace, so a block copied alone runs; `# file: NAME.py` blocks are modules
the page's later blocks import), in a scratch folder. The pages assert their own figures
(game sizes, values, exploitability), so a page that went wrong fails here. The RLlib page
needs RLlib, which pins its own Gymnasium: CI runs it in the wheel check's own venv
(`.ci/wheel_check.py`), and here only where RLlib is installed."""

import contextlib
import sys
import warnings
from pathlib import Path

import pytest

from tests.conftest import coverage_paused, untraced_children

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import snippets

PAGES = snippets.pages()
NEEDS = {"howto/rllib.md": "ray.rllib"}
# Pages whose time goes to other libraries' code run untraced, in this process and the
# processes they start: the RL-libraries page (Tianshou, TorchRL and SB3 learning to beat
# random: 162 s traced, 113 s plain; the nashzoo lines it reaches, the env adapters,
# tests/envs covers) and the Ray page (Ray's processes; tests/eval/test_tournament.py
# covers the Ray backend).
UNTRACED = {"howto/rl-libraries.md", "howto/ray.md"}


def test_the_docs_have_snippets_on_every_kind_of_page():
    names = {p.relative_to(snippets.DOCS).as_posix() for p in PAGES}
    assert "tutorial.md" in names
    assert sum(n.startswith("howto/") for n in names) >= 6
    assert sum(n.startswith("explanation/") for n in names) >= 3
    assert sum(n.startswith("reference/games/") for n in names) == 8
    assert sum(n.startswith("reference/envs/") for n in names) == 8


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(snippets.DOCS).as_posix())
def test_docs_page_snippets_run(page, tmp_path):
    name = page.relative_to(snippets.DOCS).as_posix()
    module = NEEDS.get(name)
    if module and not _importable(module):
        pytest.skip(f"{name} needs {module}; CI runs it in .ci/wheel_check.py's RLlib venv")
    import torch

    torch.set_num_threads(1)
    with contextlib.ExitStack() as stack:
        if name in UNTRACED:
            stack.enter_context(coverage_paused())
            stack.enter_context(untraced_children())
        _run_page(page, tmp_path)


def _run_page(page: Path, tmp_path: Path) -> None:
    with warnings.catch_warnings(), _registries_restored():
        warnings.simplefilter("ignore")  # third-party deprecations are not the docs' concern
        snippets.run_page(page, tmp_path)


@contextlib.contextmanager
def _registries_restored():
    """Pages register envs, game types and agent families (as a user's session would);
    put every registry back afterwards so later tests in this process see nashzoo's own."""
    import pettingzoo

    from nashzoo.agents import learner as learners
    from nashzoo.agents import registry as families
    from nashzoo.envs import registration
    from nashzoo.games import _GAME_TYPES

    families.families()  # the built-in families and plugins load once: load them first
    learners.learners()
    tables = [registration.registry, _GAME_TYPES, families._FAMILIES, families._SUFFIXES]
    tables.append(learners._LEARNERS)
    tables += [pettingzoo.aec_registry, pettingzoo.parallel_registry]
    saved = [dict(table) for table in tables]
    try:
        yield
    finally:
        for table, before in zip(tables, saved):
            table.clear()
            table.update(before)


def test_a_page_registering_an_env_leaves_the_registries_as_they_were(tmp_path):
    import nashzoo

    before = set(nashzoo.registry)
    page = snippets.DOCS / "howto" / "custom-game.md"
    with _registries_restored():
        snippets.run_page(page, tmp_path)
        assert "mygames/liars_coin-v0" in nashzoo.registry
        assert "liars_coin" in nashzoo.games.GAME_TYPES  # registered through its env
    assert set(nashzoo.registry) == before
    assert "liars_coin" not in nashzoo.games.GAME_TYPES


def _importable(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def test_a_failing_snippet_fails_with_its_page_and_line(tmp_path):
    page = tmp_path / "broken.md"
    page.write_text(
        "# A page\n\n```python\nx = 1\n```\n\ntext\n\n"
        "```python\nx = 1\nassert x == 2, 'wrong'\n```\n"
    )
    assert snippets.python_blocks(page) == [
        (4, "x = 1\n"),
        (10, "x = 1\nassert x == 2, 'wrong'\n"),
    ]
    with pytest.raises(AssertionError, match="wrong") as failure:
        snippets.run_page(page, tmp_path)
    frame = failure.traceback[-1]
    assert frame.path == page and frame.lineno + 1 == 11  # pytest's line numbers count from 0


def test_each_block_runs_on_its_own_and_file_blocks_are_modules(tmp_path):
    """Issue 86, item 2: a block copied alone must run, so no block sees the names of the
    blocks before it; a block that starts `# file: NAME.py` is a module the reader saves,
    which later blocks import."""
    page = tmp_path / "alone.md"
    page.write_text("```python\nx = 1\n```\n\n```python\nprint(x)\n```\n")
    with pytest.raises(NameError, match="'x' is not defined"):
        snippets.run_page(page, tmp_path)
    page.write_text(
        "```python\n# file: helper_mod.py\nVALUE = 41\n```\n\n"
        "```python\nfrom helper_mod import VALUE\n\nassert VALUE + 1 == 42\n```\n"
    )
    snippets.run_page(page, tmp_path)
    assert (tmp_path / "helper_mod.py").read_text().startswith("# file: helper_mod.py")
    assert "helper_mod" not in sys.modules  # the page's module leaves with its folder


def _blocks(language: str) -> list[tuple[str, str]]:
    """``(page, block)`` for every fenced block of ``language`` in the docs."""
    return [
        (page.relative_to(snippets.DOCS).as_posix(), block)
        for page in snippets.markdown_pages()
        for _, block in snippets.fenced_blocks(page, language)
    ]


def test_every_nashzoo_command_line_in_the_docs_parses():
    """The shell blocks' `nashzoo ...` lines use subcommands and options that exist (their
    budgets are minutes to hours, so they are parsed here, not run; the README's are run
    by test_docs_and_examples.py)."""
    import io
    import re
    import shlex

    from nashzoo.cli import build_parser

    commands = []
    for page, block in _blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith("nashzoo "):
                commands.append((page, shlex.split(line)[1:]))
    for page in snippets.markdown_pages():  # and those quoted in the text
        for line in re.findall(r"`(nashzoo [a-z][^`]*)`", page.read_text(encoding="utf-8")):
            argv = shlex.split(line)[1:]
            if len(argv) >= 2 and "..." not in line:  # a command line, not a name
                commands.append((page.name, argv))
    assert len(commands) >= 20
    parser = build_parser()
    bad = []
    for page, argv in commands:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                parser.parse_args(argv)
        except SystemExit:
            bad.append(f"{page}: nashzoo {' '.join(argv)}: {err.getvalue().strip()[-200:]}")
    assert bad == []
    # ... and the check rejects what is broken
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        parser.parse_args(["tournament", "--no-such-option"])


def test_every_toml_block_in_the_docs_parses():
    tomllib = pytest.importorskip("tomllib")
    blocks = _blocks("toml")
    assert len(blocks) >= 2
    for page, block in blocks:
        data = tomllib.loads(block)
        assert data, page
    entry = next(tomllib.loads(b) for p, b in blocks if p == "howto/plugin-agent.md")
    assert entry["project"]["entry-points"]["nashzoo.agents"] == {"tight": "nashzoo_tight:FAMILY"}
