"""Draw the README's picture of the leaderboard: a Leduc board with the gauntlet and a
few uploads by three users, screenshotted by Debian's Chromium through Playwright.

    python docs/pictures/leaderboard.py            # writes docs/leaderboard-board.png

Needs the ``server`` and ``dev`` extras (FastAPI, uvicorn, Playwright) and
``apt-get install chromium``. Everything runs on 127.0.0.1 in a temporary folder; only
policy files are uploaded, so no sandbox is needed.
"""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "leaderboard-board.png"
UPLOADS = (  # (user, name, algorithm, iterations)
    ("alice", "cfr+ 500", "cfr+", 500),
    ("bob", "dcfr 100", "dcfr", 100),
    ("carol", "mmd 50", "mmd", 50),
    ("bob", "cfr 10", "cfr", 10),
)


def main() -> int:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from nashzoo.agents.cfr import make_solver
    from nashzoo.envs.registration import make_game
    from nashzoo.leaderboard.accounts import add_user
    from nashzoo.leaderboard.app import create_app
    from nashzoo.leaderboard.service import Leaderboard, Settings

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no Chromium: apt-get install chromium", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        board = Leaderboard(
            Settings(
                database=str(folder / "lb.db"), data_dir=folder / "data",
                games=("leduc_holdem",), deals_per_block=500, blocks_per_pairing=2,
            )
        )  # fmt: skip
        users = {}
        with board.session() as session:
            for user, _, _, _ in UPLOADS:
                if user not in users:
                    users[user] = add_user(session, user)[0]
        game = make_game("leduc_holdem")
        for user, name, algo, iterations in UPLOADS:
            path = folder / f"{algo}{iterations}.npz"
            make_solver(algo, game).iterate(iterations).average_policy().save(path)
            board.submit(users[user], "leduc_holdem", name, path.name, path.read_bytes())
        board.work("picture")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(create_app(board), host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.goto(f"http://127.0.0.1:{port}/games/leduc_holdem")
                page.screenshot(path=str(OUT), full_page=True)
                browser.close()
        finally:
            server.should_exit = True
            thread.join(timeout=10)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
