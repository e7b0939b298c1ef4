"""Shared by the benchmarks: interleaved repeats with medians, the machine line, and the
fixed poker policies with their published exact best-response values.

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


PUBLISHED_BR = {"always-call": 1163.0, "always-raise": 3697.0}
"""Exact best-response values of Limit Hold'em's always-call and always-raise (mbb/g,
Johanson, Waugh, Bowling & Zinkevich, IJCAI 2011)."""


class Always:
    """A fixed poker policy as a PolicyAgent: the highest legal action up to ``cap``
    (1: always check or call; 2: raise whenever a raise is legal, else call), stated one
    decision or a batch at a time."""

    def __init__(self, cap: int, name: str) -> None:
        self.cap = cap
        self.name = name

    def reset(self, *, seed: int | None = None) -> None:
        pass

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        allowed = np.asarray(action_mask)[:, : self.cap + 1] > 0
        highest = self.cap - np.argmax(allowed[:, ::-1], axis=1)
        out = np.zeros(np.shape(action_mask))
        out[np.arange(len(out)), highest] = 1.0
        return out

    def action_probabilities(self, observation: dict, info: object) -> np.ndarray:
        return self.batch_probabilities(None, np.asarray(observation["action_mask"])[None], None)[0]

    def act(self, observation: dict, info: object) -> int:
        return int(np.argmax(self.action_probabilities(observation, info)))
