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


def hostile_raises():
    return hostile("raises")


def hostile_garbage():
    return hostile("garbage")


def hostile_sys_exit():
    return hostile("sys_exit")


def hostile_interrupter():
    return hostile("interrupter")


def hostile_reset_raiser():
    return hostile("reset_raiser")


def hostile_memory_hog():
    return hostile("memory_hog")


def hostile_sleeper():
    return hostile("sleeper", seconds=5.0)


def hostile_hard_exit():
    return hostile("hard_exit")
