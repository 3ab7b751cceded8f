"""Normalized Borda alignment between a ranking and a virtue key (VirtueMap).

Each option gets Borda weight 5, 4, 3, 2, 1 by its position in the ranking R and in the
key O. The raw alignment is A = Σ_o b_R(o)·b_O(o), which runs from 35 (O is R reversed)
to 55 (O equals R), by the rearrangement inequality. The score rescales it linearly:

    S = 100 · (A - 35) / 20

so identical orderings score 100 and exactly reversed ones 0. A moves in steps of 1,
so every S is a multiple of 5 in [0, 100].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from scoring.rankings import borda_weights, borda_weights_from_indices

BORDA_MIN = 35  # Σ_i (5-i)(i+1): the two weight vectors paired in opposite order
BORDA_MAX = 55  # Σ_i (5-i)²: the weight vector paired with itself
BORDA_SPAN = BORDA_MAX - BORDA_MIN


def borda_score(raw: float | NDArray[np.float64]) -> float | NDArray[np.float64]:
    """Return S = 100 · (A - 35) / 20 for a raw Borda product A (scalar or array)."""
    return 100.0 * (raw - BORDA_MIN) / BORDA_SPAN


def borda_alignment(ranking: Sequence[str], key: Sequence[str]) -> float:
    """Return the normalized Borda alignment S of ``ranking`` with ``key``, in [0, 100].

    FORMULA: A = Σ_o b_R(o)·b_O(o) with Borda weights 5..1 by position;
    S = 100 · (A - 35) / 20. Both orderings are validated; an invalid one raises
    `RankingError`. S is symmetric: swapping ranking and key gives the same score.
    """
    raw = int(borda_weights(ranking) @ borda_weights(key))
    return float(borda_score(raw))


def borda_alignment_batch(rankings: NDArray[np.integer], keys: NDArray[np.integer]) -> NDArray[np.float64]:
    """Return S for every ranking against every key, shape ``(..., k)``.

    ``rankings`` has shape ``(..., 5)`` and ``keys`` shape ``(k, 5)``, both in index
    form: option indices (A=0 … E=4) in rank order, as made by `ranking_indices`.
    Entry ``[..., j]`` is the score of that ranking against ``keys[j]``, equal to
    `borda_alignment` of the same pair. Rows that are not permutations raise
    `RankingError`.

    FORMULA: with W_R, W_O the Borda weight vectors (option order A..E),
    A = W_R · W_Oᵀ (one matrix product for all pairs), S = 100 · (A - 35) / 20.
    """
    key_array = np.asarray(keys)
    if key_array.ndim != 2:
        raise ValueError(f"keys must have shape (k, 5), got {key_array.shape}")
    raw = borda_weights_from_indices(rankings) @ borda_weights_from_indices(key_array).T
    return borda_score(raw)
