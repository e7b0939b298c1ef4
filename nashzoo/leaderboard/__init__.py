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
their own processes), :mod:`~nashzoo.leaderboard.service` (jobs, matches, ratings),
:mod:`~nashzoo.leaderboard.worker`, :mod:`~nashzoo.leaderboard.app` (FastAPI) and
:mod:`~nashzoo.leaderboard.client` (``nashzoo submit``).
"""
