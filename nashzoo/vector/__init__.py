"""Batched environments: many games stepped at once on arrays (numba)."""
