"""Agents for tournament tests, importable as ``tests.fixture_agents:FACTORY``."""

import time

import numpy as np


class _Base:
    def __init__(self, name):
        self.name = name

    def reset(self, *, seed=None):
        pass


class Raiser(_Base):
    def act(self, observation, info):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[-1])


class Crasher(_Base):
    def act(self, observation, info):
        if "public=-" not in info["info_state"]:
            raise RuntimeError("boom in round 2")
        return int(np.flatnonzero(observation["action_mask"])[0])


class Cheater(_Base):
    def act(self, observation, info):
        return 0  # fold, illegal when not facing a bet


class Sleeper(_Base):
    def act(self, observation, info):
        time.sleep(0.05)
        return int(np.flatnonzero(observation["action_mask"])[0])


class ColdStarter(Raiser):
    """Slow to build and slow on its first decision (as a numba agent compiling), then
    fast: a cold start, which no move clock may charge."""

    def __init__(self, name, seconds):
        time.sleep(seconds)
        super().__init__(name)
        self.seconds, self.cold = seconds, True

    def act(self, observation, info):
        if self.cold:
            time.sleep(self.seconds)
            self.cold = False
        return super().act(observation, info)


def cold_starter(game=None):
    return ColdStarter("cold", 0.6)


def raiser():
    return Raiser("raiser")


def crasher():
    return Crasher("crasher")


def cheater(game=None):
    assert game is not None  # factories may ask for the game
    return Cheater("cheater")


def sleeper():
    return Sleeper("sleeper")


def broken_factory():
    return 1 / 0


def hostile(name, **kwargs):
    """A member of nashzoo.testing.hostile (``tests.fixture_agents:hostile_NAME``)."""
    from nashzoo.testing import hostile as zoo

    return zoo.make(name, **kwargs)


def _hostile_factory(name, **kwargs):
    """A module-level factory of one zoo member (what a `module:factory` spec names)."""

    def make():
        return hostile(name, **kwargs)

    make.__name__ = make.__qualname__ = f"hostile_{name}"
    return make


hostile_raises = _hostile_factory("raises")
hostile_garbage = _hostile_factory("garbage")
hostile_sys_exit = _hostile_factory("sys_exit")
hostile_interrupter = _hostile_factory("interrupter")
hostile_reset_raiser = _hostile_factory("reset_raiser")
hostile_memory_hog = _hostile_factory("memory_hog")
hostile_sleeper = _hostile_factory("sleeper", seconds=5.0)
hostile_hard_exit = _hostile_factory("hard_exit")
