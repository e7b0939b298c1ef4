"""A leaderboard code bundle: this file and agent.toml, zipped (see the README).

It always plays the last legal action (raise when it may). It also states its action
probabilities, so the server can compute its exact exploitability (an agent without
``action_probabilities`` is ranked all the same, without that figure).
"""

import numpy as np


class LastLegal:
    name = "last-legal"

    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[-1])

    def action_probabilities(self, observation, info):
        probs = np.zeros(len(observation["action_mask"]))
        probs[self.act(observation, info)] = 1.0
        return probs

    def reset(self, *, seed=None):
        pass


def make(game):
    return LastLegal()
