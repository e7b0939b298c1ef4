"""A leaderboard service: people submit agents, the server plays them safely and ranks them.

Needs the ``server`` extra (``pip install 'nashzoo[server]'``). One command runs it::

    nashzoo leaderboard add-user alice          # prints alice's API token, once
    nashzoo serve --db leaderboard.db --workers 2
    nashzoo submit --server http://127.0.0.1:8000 --token nz_1_... \\
        --game leduc_holdem --name my-cfr policy.npz

Modules, bottom up: :mod:`~nashzoo.leaderboard.models` (tables) and
:mod:`~nashzoo.leaderboard.db` (Alembic migrations), :mod:`~nashzoo.leaderboard.accounts`
(hashed tokens), :mod:`~nashzoo.leaderboard.bundles` (upload checks),
:mod:`~nashzoo.leaderboard.sandbox` and :mod:`~nashzoo.leaderboard.runner` (code agents in
their own processes), the work split by job (:mod:`~nashzoo.leaderboard.board`: settings,
database, entrants; :mod:`~nashzoo.leaderboard.submissions`,
:mod:`~nashzoo.leaderboard.matches`, :mod:`~nashzoo.leaderboard.scoring`, and
:mod:`~nashzoo.leaderboard.service`: the job queue and :class:`Leaderboard`),
:mod:`~nashzoo.leaderboard.worker`, the web app (:mod:`~nashzoo.leaderboard.app` with the
routers :mod:`~nashzoo.leaderboard.api`, :mod:`~nashzoo.leaderboard.pages` and
:mod:`~nashzoo.leaderboard.play_pages`, the read queries in
:mod:`~nashzoo.leaderboard.queries`) and :mod:`~nashzoo.leaderboard.client`
(``nashzoo submit``).
"""
