"""A real browser (Playwright driving Debian's Chromium, never a downloaded one): sign in
with a token, upload a policy file and a code bundle through the form, watch them
validate and appear on the board, open a submission page and step through a replay, and
check that a name full of markup runs nothing. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app

from .conftest import LAST_LEGAL, bundle, make_board, needs_sandbox

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = [
    needs_sandbox,
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (apt-get install chromium)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _follow(page, selector: str) -> None:
    """Click a link or a form's button and wait until the page it leads to has loaded.
    Reading the page straight after the click can catch the old document or an empty one
    between the two: CI saw ``page.content() == ''`` right after sign-in, and a play loop
    that read ``#result`` on the old page and then waited 30 s for an action button the
    new page (the hand over) no longer had."""
    with page.expect_navigation(wait_until="load"):
        page.click(selector)


def test_browser_flow(tmp_path, cfr_policy_file):
    board = make_board(tmp_path)
    with board.session() as session:
        _, token = add_user(session, "alice")
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(board), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    ARTIFACTS.mkdir(exist_ok=True)
    agent_zip = tmp_path / "agent.zip"
    agent_zip.write_bytes(bundle(LAST_LEGAL))
    xss = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    try:
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            dialogs = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(f"{base}/signin")
            page.fill("input[name=token]", token)
            _follow(page, "main button[type=submit]")
            assert page.url.endswith("/upload")
            assert "signed in as alice" in page.content()
            uploaded = []
            for name, path in (("cfr200", cfr_policy_file), (xss, agent_zip)):
                page.goto(f"{base}/upload")
                page.select_option("select[name=game]", "leduc_holdem")
                page.fill("input[name=name]", name)
                page.set_input_files("input[name=file]", str(path))
                _follow(page, "main button[type=submit]")
                assert "/submissions/" in page.url
                assert page.inner_text("#status").startswith("queued")
                uploaded.append(page.url)
            board.work("w")  # the match worker
            page.goto(f"{base}/games/leduc_holdem")
            rows = page.inner_text("#board")
            assert "cfr200" in rows and "<script>window.__pwned=1</script>" in rows
            assert "random (gauntlet)" in rows and "cfr+ (gauntlet)" in rows
            page.screenshot(path=str(ARTIFACTS / "leaderboard-board.png"), full_page=True)
            assert page.evaluate("window.__pwned") is None and not dialogs
            _follow(page, "text=cfr200")
            assert page.inner_text("#status").startswith("ranked")
            assert "random (gauntlet)" in page.inner_text("#crosstable")
            assert page.locator("svg#history circle").count() >= 1  # its rating history
            page.screenshot(path=str(ARTIFACTS / "leaderboard-submission.png"), full_page=True)
            _follow(page, "#hands a >> nth=0")
            assert page.inner_text("#position").startswith("step 0 of ")
            total = int(page.inner_text("#position").split()[-1])
            assert total >= 3
            for k in range(1, total + 1):  # step through the match hand, one move a page
                _follow(page, "#step-next")
                assert page.inner_text("#position") == f"step {k} of {total}"
            assert page.locator("#step-next").count() == 0
            page.screenshot(path=str(ARTIFACTS / "leaderboard-replay.png"), full_page=True)

            # Play one hand against the ranked code agent (it runs in its sandbox).
            page.goto(uploaded[1])
            _follow(page, "#play-link")
            _follow(page, "#start")
            assert "you are seat 0" in page.content()
            assert page.inner_text("#view").startswith("player=0 card=")
            moves = 0
            while page.locator("#result").count() == 0:
                _follow(page, "#actions button >> nth=0")
                moves += 1
                assert moves < 10
            assert "Hand over:" in page.inner_text("#result")
            summary = page.locator("#summary tbody tr")  # both hands, who won, chips
            assert summary.count() == 2
            assert summary.nth(0).inner_text().split("\t")[:2] == ["0", "you"]
            assert "over 1 hand" in page.inner_text("#score")
            page.screenshot(path=str(ARTIFACTS / "leaderboard-play.png"), full_page=True)
            _follow(page, "#replay-link")
            total = int(page.inner_text("#position").split()[-1])
            for k in range(1, total + 1):
                _follow(page, "#step-next")
                assert page.inner_text("#position") == f"step {k} of {total}"
            assert page.evaluate("window.__pwned") is None and not dialogs

            # Issue 37: owners on the board and what a rating means; a missing page is a
            # page; the API's docs render with no internet; withdrawal; sign-out.
            page.goto(f"{base}/games/leduc_holdem")
            assert "alice" in page.inner_text("#board")
            assert "10 points is 51.4%" in page.inner_text("#scale")
            page.goto(f"{base}/submissions/99999")
            assert "There is no submission 99999." in page.inner_text("main")
            page.route(
                "**/*",
                lambda route: (
                    route.continue_() if route.request.url.startswith(base) else route.abort()
                ),
            )  # nothing but this server: no CDN
            page.goto(f"{base}/docs")
            page.wait_for_selector(".swagger-ui .info .title", timeout=15_000)
            assert "nashzoo leaderboard" in page.inner_text(".swagger-ui .info .title")
            assert page.locator("button.authorize").count() == 1
            assert page.locator(".opblock").count() >= 5  # the operations are listed
            page.screenshot(path=str(ARTIFACTS / "leaderboard-docs.png"), full_page=True)
            page.unroute("**/*")
            page.goto(uploaded[0])
            _follow(page, "#withdraw")
            assert page.inner_text("#status").startswith("withdrawn")
            page.goto(f"{base}/games/leduc_holdem")
            assert "cfr200" not in page.inner_text("#board")
            _follow(page, "#signout")
            assert "sign in" in page.inner_text("header")
            assert "signed in as" not in page.content()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
