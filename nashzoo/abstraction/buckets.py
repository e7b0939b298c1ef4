"""Buckets of equal probability: the lossy step every strength abstraction shares."""

from __future__ import annotations

import numpy as np

__all__ = ["equal_weight_buckets"]


def equal_weight_buckets(values: np.ndarray, weights: np.ndarray, count: int) -> np.ndarray:
    """Each class's bucket: classes sorted by ``values`` and split into ``count`` groups
    of about equal total ``weights`` (a class goes to the group holding the middle of its
    weight). Classes of equal value always share a bucket; with at least as many buckets
    as distinct values, every distinct value is a bucket of its own, in order of value.

    Args:
        values: one number per class (E[HS] or E[HS^2]).
        weights: how many hands each class stands for (positive).
        count: buckets wanted (at least 1).
    """
    values = np.asarray(values, np.float64)
    distinct, inverse = np.unique(values, return_inverse=True)
    if count >= distinct.size:
        return inverse.astype(np.int32)
    mass = np.bincount(inverse, weights=np.asarray(weights, np.float64), minlength=distinct.size)
    cum = np.cumsum(mass)
    mid = (cum - mass / 2) / cum[-1]
    per_value = np.minimum((mid * count).astype(np.int32), count - 1)
    return per_value[inverse]
