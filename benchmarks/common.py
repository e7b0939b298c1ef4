"""Shared by the benchmarks: interleaved repeats with medians, and the machine line.

Every benchmark runs nashzoo and its peers in one process, round-robin (ours, peer, ours,
peer, ...) so that a slow patch of the machine hits both, and reports the median of the
repeats with the peer's absolute figure beside the ratio.
"""

from __future__ import annotations

import os
import platform
import statistics
from collections.abc import Callable
from datetime import date

import numpy as np


def machine_line() -> str:
    """Date, CPU, cores and Python of this run (for RESULTS.md)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    return (
        f"date {date.today()}  machine {cpu} ({os.cpu_count()} cores)  "
        f"python {platform.python_version()}  load average "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def interleaved(
    contenders: dict[str, Callable[[], float]], repeats: int = 3, verbose: bool = True
) -> dict[str, list[float]]:
    """Run every contender ``repeats`` times, round-robin; returns all results by name."""
    results: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(repeats):
        for name, run in contenders.items():
            value = run()
            results[name].append(value)
            if verbose:
                print(f"  repeat {r + 1}/{repeats}  {name:55s} {value:,.4g}", flush=True)
    return results


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def runs_text(values: list[float], fmt: str = ",.0f") -> str:
    return ", ".join(format(v, fmt) for v in values)


def one_thread() -> None:
    """One thread for torch and BLAS (the 2-core machines the figures are measured on)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def peak_rss_mib() -> float:
    """This process's peak resident memory in MiB: ``VmHWM`` from ``/proc/self/status``
    where Linux has it. ``getrusage``'s ``ru_maxrss`` is not used there: a process
    started by ``subprocess`` from a larger one reports the parent's resident size at the
    fork (the figure survives the exec), so a "process of its own" would measure its
    parent. Elsewhere (macOS), ``ru_maxrss`` (bytes there)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * legal.size)])
