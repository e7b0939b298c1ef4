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
