"""What the self-play learners share: their MLPs and their budgeted training loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from nashzoo.errors import InvalidParameterError

__all__ = ["mlp", "train_loop"]


def mlp(torch: Any, sizes: list[int]) -> Any:
    """``Linear`` layers of ``sizes`` with ReLUs between them (none after the last)."""
    layers: list[Any] = []
    for k in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def train_loop(
    learner: Any,
    step: Callable[[], int],
    *,
    count: int | None,
    seconds: float | None,
    callback: Callable[[Any], Any] | None,
    callback_every: float,
    progress: bool,
    budget: str,
    unit: str,
    desc: str,
    postfix: Callable[[], dict[str, Any]] | None = None,
) -> None:
    """Call ``step()`` (which returns how many units of ``budget``, e.g. episodes, it did)
    until ``count`` units or ``seconds`` of training, adding its time to
    ``learner.seconds``; the progress bar counts ``unit``.

    ``callback(learner)`` runs every ``callback_every`` seconds of training and at the end
    (its time is not counted); returning ``False`` stops.

    Raises:
        InvalidParameterError: neither ``count`` nor ``seconds`` is given.
    """
    if count is None and seconds is None:
        raise InvalidParameterError(f"train() needs `{budget}` or `seconds`.")
    done = 0
    start = learner.seconds
    next_callback = learner.seconds + callback_every
    bar = None
    if progress:
        from nashzoo.extras import progress_bar

        bar = progress_bar(total=count, unit=unit, desc=desc)
    while True:
        t0 = time.perf_counter()
        n = step()
        learner.seconds += time.perf_counter() - t0
        done += n
        if bar is not None:
            bar.update(n)
        stop = (count is not None and done >= count) or (
            seconds is not None and learner.seconds - start >= seconds
        )
        if callback is not None and (learner.seconds >= next_callback or stop):
            next_callback = learner.seconds + callback_every
            if callback(learner) is False:
                stop = True
            if bar is not None and postfix is not None:
                bar.set_postfix(**postfix())
        if stop:
            break
    if bar is not None:
        bar.close()
