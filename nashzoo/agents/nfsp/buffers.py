"""Array-backed experience buffers for NFSP (no per-transition Python objects)."""

from __future__ import annotations

import numpy as np

__all__ = ["ReplayBuffer", "ReservoirBuffer"]


class ReplayBuffer:
    """Circular buffer of DQN transitions ``(s, a, r, s', legal(s'), done)``."""

    def __init__(self, capacity: int, obs_size: int, num_actions: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_size), np.float32)
        self.actions = np.zeros(capacity, np.int64)
        self.rewards = np.zeros(capacity, np.float32)
        self.next_obs = np.zeros((capacity, obs_size), np.float32)
        self.next_mask = np.zeros((capacity, num_actions), bool)
        self.done = np.zeros(capacity, np.float32)
        self.size = 0
        self._next = 0

    def add(self, obs, action, reward, next_obs, next_mask, done) -> None:
        """Add a batch of transitions (arrays with a leading batch axis)."""
        n = len(action)
        idx = (self._next + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.actions[idx] = action
        self.rewards[idx] = reward
        self.next_obs[idx] = next_obs
        self.next_mask[idx] = next_mask
        self.done[idx] = done
        self._next = int((self._next + n) % self.capacity)
        self.size = min(self.size + n, self.capacity)

    def sample(self, rng: np.random.Generator, batch: int):
        idx = rng.integers(self.size, size=batch)
        return (
            self.obs[idx],
            self.actions[idx],
            self.rewards[idx],
            self.next_obs[idx],
            self.next_mask[idx],
            self.done[idx],
        )


class ReservoirBuffer:
    """Reservoir sample (Vitter's algorithm R) of ``(s, legal(s), a)`` triples: every
    item ever offered is kept with equal probability."""

    def __init__(self, capacity: int, obs_size: int, num_actions: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_size), np.float32)
        self.mask = np.zeros((capacity, num_actions), bool)
        self.actions = np.zeros(capacity, np.int64)
        self.size = 0
        self.seen = 0

    def add(self, rng: np.random.Generator, obs, mask, actions) -> None:
        for k in range(len(actions)):
            if self.size < self.capacity:
                slot = self.size
                self.size += 1
            else:
                slot = int(rng.integers(self.seen + 1))
                if slot >= self.capacity:
                    self.seen += 1
                    continue
            self.obs[slot] = obs[k]
            self.mask[slot] = mask[k]
            self.actions[slot] = actions[k]
            self.seen += 1

    def sample(self, rng: np.random.Generator, batch: int):
        idx = rng.integers(self.size, size=batch)
        return self.obs[idx], self.mask[idx], self.actions[idx]
