"""NumPy's PCG64 in numba: one generator per game, drawing exactly the numbers that
``np.random.default_rng(seed).random()`` draws, so a batched env deals the same cards
as the single env seeded alike.

NumPy's ``PCG64`` (O'Neill 2014, the XSL-RR 128/64 variant): a 128-bit LCG state
``s <- s * M + inc`` (mod 2**128), output ``rotr64(hi(s) ^ lo(s), s >> 122)`` after each
step; ``Generator.random()`` is ``(output >> 11) * 2**-53``. The states are kept as pairs
of ``uint64`` (numba has no 128-bit integers); :func:`seeded_states` takes them from
``np.random.PCG64(seed).state``, so seeding is NumPy's own (SeedSequence).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nashzoo.extras import use_numba_user_cache

use_numba_user_cache()  # before the first function below is compiled or loaded

__all__ = ["seeded_states", "next_double", "generator_row", "write_back", "sample_rows"]

_MASK64 = (1 << 64) - 1
_MULT = 0x2360ED051FC65DA44385DF649FCCF645
MULT_HI = np.uint64(_MULT >> 64)
MULT_LO = np.uint64(_MULT & _MASK64)
_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S64_11 = np.uint64(11)


def seeded_states(seeds: Sequence[int | None]) -> np.ndarray:
    """``(len(seeds), 4)`` ``uint64`` rows ``(state_hi, state_lo, inc_hi, inc_lo)`` of
    ``np.random.PCG64(seed)`` for each seed (``None``: fresh OS entropy)."""
    rows = np.empty((len(seeds), 4), dtype=np.uint64)
    for i, seed in enumerate(seeds):
        state = np.random.PCG64(seed).state["state"]
        s, inc = int(state["state"]), int(state["inc"])
        rows[i] = (s >> 64, s & _MASK64, inc >> 64, inc & _MASK64)
    return rows


@njit(cache=True, inline="always")
def _mul64(a, b):
    """The 128-bit product of two uint64 as (hi, lo)."""
    a_lo = a & _M32
    a_hi = a >> _S32
    b_lo = b & _M32
    b_hi = b >> _S32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _S32) + (hi_lo & _M32) + lo_hi
    hi = hi_hi + (hi_lo >> _S32) + (cross >> _S32)
    lo = (cross << _S32) | (lo_lo & _M32)
    return hi, lo


@njit(cache=True)
def next_double(states, i):
    """Advance generator ``i`` of ``states`` (rows of :func:`seeded_states`) and return
    its next ``random()`` double."""
    s_hi = states[i, 0]
    s_lo = states[i, 1]
    # s * M mod 2**128
    hi, lo = _mul64(s_lo, MULT_LO)
    hi = hi + s_lo * MULT_HI + s_hi * MULT_LO
    # + inc
    new_lo = lo + states[i, 3]
    carry = np.uint64(1) if new_lo < lo else np.uint64(0)
    new_hi = hi + states[i, 2] + carry
    states[i, 0] = new_hi
    states[i, 1] = new_lo
    x = new_hi ^ new_lo
    rot = new_hi >> np.uint64(58)
    out = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    return float(out >> _S64_11) * (1.0 / 9007199254740992.0)


def generator_row(rng: np.random.Generator) -> np.ndarray:
    """A ``(1, 4)`` row of :func:`seeded_states` holding ``rng``'s PCG64 state now (draw
    from it in numba with ``next_double(row, 0)``, then :func:`write_back`).

    Raises:
        TypeError: ``rng`` is not a PCG64 ``np.random.Generator``.
    """
    if not isinstance(rng, np.random.Generator) or not isinstance(
        rng.bit_generator, np.random.PCG64
    ):
        raise TypeError(f"Expected a PCG64 np.random.Generator, received {rng!r}.")
    state = rng.bit_generator.state["state"]
    s, inc = int(state["state"]), int(state["inc"])
    return np.array([[s >> 64, s & _MASK64, inc >> 64, inc & _MASK64]], np.uint64)


def write_back(rng: np.random.Generator, row: np.ndarray) -> None:
    """Give ``rng`` the state of a row of :func:`generator_row` that numba advanced (its
    buffered 32 bits, if any, are kept: ``random()`` never uses them)."""
    old = rng.bit_generator.state
    state = {"state": (int(row[0, 0]) << 64) | int(row[0, 1]), "inc": old["state"]["inc"]}
    rng.bit_generator.state = {**old, "state": state}


@njit(cache=True)
def sample_rows(probs, rng, out):
    """One action per row of ``probs``, each from one ``random()`` of ``rng[0]`` in row
    order: the index a ``sample_index`` over the row's cumulative sum gives."""
    for row in range(probs.shape[0]):
        u = next_double(rng, 0)
        total = 0.0
        for a in range(probs.shape[1]):
            total += probs[row, a]
        target = u * total
        acc = 0.0
        chosen = probs.shape[1] - 1
        for a in range(probs.shape[1]):
            acc += probs[row, a]
            if acc > target:
                chosen = a
                break
        out[row] = chosen
