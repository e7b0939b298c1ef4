"""Numba compiles at full speed in the test processes, traced by coverage or not.

Numba's compiler is Python code, and a cold cache in CI made it 3-4x slower there than in
a script (the first MT-ISMCTS test: 125 s in the suite, 35 s alone, on 2026-11-29). Two
causes, both removed by :func:`install` for every compile in the process:

- coverage's tracer: it is paused during a compile. Nothing of nashzoo's runs as Python
  then, and a kernel's lines are never traced once compiled, so no measured line is lost.
- CPython 3.11 and 3.12 free a chunk of the frame stack as soon as the frames in it return
  (python/cpython#142183; 3.13 and 3.14 got a one-chunk cache in 2026); deep in pytest,
  the compiler's calls kept crossing a chunk boundary, and strace counted 10 million
  16 KiB mmap/munmap pairs in one compile. The compile runs from a frame that reserves
  1 MiB, so that the frame and the compiler's calls beneath it share one fresh 2 MiB chunk.

With ``NASHZOO_TEST_COMPILE_LOG`` set (``make test`` and ``make coverage`` set it), each
outermost compile appends a line to that file: process, function, seconds compiling or
loading, and whether it compiled or loaded from numba's cache; :func:`summarize` sums
them. A function compiled twice is worth a look: it met a second type of argument (a
read-only array where it had a writeable one compiles everything again), or two processes
compiled it at once. A cold run on 2026-11-30 (2 cores): 70 compiles, 247 s, and 226
loads, 40 s, over every process.

``tests/conftest.py`` installs it in the pytest processes. The processes the tests start
(Ray actors, tournament workers, the CLI, the demo) get it from ``sitecustomize.py`` in
this folder, which ``make test`` and ``make coverage`` put on their PYTHONPATH: there it
waits for numba's dispatcher to be imported, so a process that never compiles never loads
numba.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

DISPATCHER = "numba.core.dispatcher"


def pause_coverage() -> list:
    """Stop every coverage measurement running in this process; returns them for
    :func:`resume_coverage`. Outside `coverage run` it does nothing."""
    coverage = sys.modules.get("coverage")
    if coverage is None:  # never started here, so nothing to pause
        return []
    paused = []  # `coverage run` with COVERAGE_PROCESS_START starts two in the main process
    while (current := coverage.Coverage.current()) is not None:
        current.stop()
        paused.append(current)
    return paused


def resume_coverage(paused: list) -> None:
    for instance in reversed(paused):
        # its import check, already done at the first start, trips on torch.ops
        instance._warn_preimported_source = False
        instance.start()


def _roomy(f, *args):
    return f(*args)


_roomy.__code__ = _roomy.__code__.replace(co_stacksize=1 << 17)


def install(dispatcher: ModuleType) -> None:
    """Wrap ``Dispatcher.compile`` of numba's loaded dispatcher module (the outermost
    compile of a thread only) as described in the module's docstring. Installing twice
    does nothing more."""
    cls = dispatcher.Dispatcher
    if getattr(cls.compile, "_untraced", False):
        return
    compile_ = cls.compile
    inside = threading.local()

    def compile(self, sig):
        if getattr(inside, "compiling", False):
            return compile_(self, sig)
        inside.compiling = True
        paused = pause_coverage()
        try:
            name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
            started = time.perf_counter()
            misses = sum(self._cache_misses.values())
            try:
                return _roomy(compile_, self, sig)
            finally:
                compiled = sum(self._cache_misses.values()) > misses
                _log(name, time.perf_counter() - started, compiled)
        finally:
            resume_coverage(paused)
            inside.compiling = False

    compile._untraced = True
    cls.compile = compile


def _log(name: str, seconds: float, compiled: bool) -> None:
    path = os.environ.get("NASHZOO_TEST_COMPILE_LOG")
    if not path:
        return
    line = f"{os.getpid()}\t{name}\t{seconds:.2f}\t"
    line += "compiled\n" if compiled else "loaded\n"
    with open(path, "a") as handle:  # one short append per line: lines do not interleave
        handle.write(line)


class _InstallOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when numba's dispatcher module is about to be loaded, it has
    the other finders find it and runs :func:`install` right after the module executes."""

    def find_spec(self, name, path, target=None):
        if name != DISPATCHER:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_install(module: ModuleType) -> None:
            exec_module(module)
            install(module)

        spec.loader.exec_module = exec_then_install  # type: ignore[method-assign]
        return spec


def install_on_import() -> None:
    """:func:`install` now if numba's dispatcher is loaded, else as soon as it is."""
    if DISPATCHER in sys.modules:
        install(sys.modules[DISPATCHER])
    elif not any(type(f).__name__ == "_InstallOnImport" for f in sys.meta_path):
        # by name: sitecustomize imports this file as `numba_compile`, conftest as
        # `tests.startup.numba_compile`
        sys.meta_path.insert(0, _InstallOnImport())


def summarize(path: str) -> str:
    """One line about a ``NASHZOO_TEST_COMPILE_LOG`` file: compiles and loads from the
    cache with their seconds, and the functions compiled more than once."""
    if not Path(path).is_file():
        return "numba: no compile or load logged"
    rows = [line.split("\t") for line in Path(path).read_text().splitlines() if line]
    compiled = [r for r in rows if r[3] == "compiled"]
    seen: dict[str, int] = {}
    for r in compiled:
        seen[r[1]] = seen.get(r[1], 0) + 1
    again = sorted(name for name, n in seen.items() if n > 1)
    return (
        f"numba: {len(compiled)} compiles ({sum(float(r[2]) for r in compiled):.0f} s), "
        f"{len(rows) - len(compiled)} loads from the cache "
        f"({sum(float(r[2]) for r in rows if r[3] == 'loaded'):.0f} s); "
        f"compiled more than once: {', '.join(again) or 'none'}"
    )


if __name__ == "__main__":
    print(summarize(sys.argv[1]))
