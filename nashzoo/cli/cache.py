"""``nashzoo cache``: what nashzoo keeps in the user's cache folder (the Hold'em
abstraction's strength sweep and bucket tables, numba's compiled functions), and clearing
it."""

from __future__ import annotations

import argparse
from typing import Any

PARTS = ("abstraction", "numba")
"""The cache's parts (its subfolders)."""


def run(args: argparse.Namespace) -> int:
    from nashzoo.extras import cache_entries, cache_root, clear_cache

    part = None if args.part == "all" else args.part
    if args.action == "clear":
        files, freed = clear_cache(part)
        where = cache_root() if part is None else cache_root() / part
        print(f"removed {files} files, {freed / 1e6:.1f} MB, from {where}")
        return 0
    entries = cache_entries(part)
    root = cache_root()
    for path, size in entries:
        print(f"{size / 1e6:10.1f} MB  {path.relative_to(root)}")
    total = sum(size for _, size in entries)
    print(f"{total / 1e6:10.1f} MB  in {len(entries)} files under {root}")
    return 0


def add_parser(sub: Any) -> None:
    """``nashzoo cache [list|clear] [--part abstraction|numba|all]``."""
    p = sub.add_parser(
        "cache",
        help="list or clear nashzoo's cache (Hold'em abstraction tables, compiled code)",
        description="The cache folder holds the Hold'em strength sweep and bucket tables "
        "(tens of MB each; a solve on ehs2:169,50,50,50 leaves about 0.6 GB) and numba's "
        "compiled functions; everything in it is made again when next needed.",
    )
    p.add_argument(
        "action", nargs="?", choices=("list", "clear"), default="list",
        help="list the files and their sizes (default), or delete them",
    )  # fmt: skip
    p.add_argument(
        "--part", choices=(*PARTS, "all"), default="all",
        help="only the abstraction tables, or only numba's compiled code (default: all)",
    )  # fmt: skip
    p.set_defaults(func=run)
