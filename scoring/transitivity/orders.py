"""The alternatives, their pairs and linear orders: checking choice vectors, the vertices of the linear ordering
polytope, and the exact linear-ordering oracle (dynamic programming over subsets, O(2^n · n²)).
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

MIN_ALTERNATIVES = 3
MAX_ALTERNATIVES = 8


# --- pairs, validation and orders ---------------------------------------------------------


def pair_count(n: int) -> int:
    """Return n(n − 1)/2, the length of a choice vector over n alternatives."""
    return n * (n - 1) // 2


@cache
def pairs(n: int) -> tuple[tuple[int, int], ...]:
    """Return the pairs (x, y), x < y, in the order of a choice vector: (0,1), (0,2), …, (n-2, n-1)."""
    return tuple(itertools.combinations(range(n), 2))


@cache
def pair_arrays(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    first, second = np.triu_indices(n, k=1)  # row-major: the same lexicographic order as `pairs`
    return first, second


def validated_choice_vectors(vectors: ArrayLike, n: int) -> NDArray[np.float64]:
    """Return ``vectors`` as a float array of shape (k, n(n−1)/2), or raise ValueError.

    A single vector (1-D) becomes one row. Rejected: n not an integer from 3 to 8, a vector of the
    wrong length, NaN, and values outside [0, 1]; the message names the vector, pair and value.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise ValueError(f"n must be an integer number of alternatives, got {n!r}")
    if not MIN_ALTERNATIVES <= n <= MAX_ALTERNATIVES:
        raise ValueError(f"n must be from {MIN_ALTERNATIVES} to {MAX_ALTERNATIVES} alternatives, got {n}")
    m = pair_count(n)
    rows = list(vectors) if not isinstance(vectors, np.ndarray) or vectors.ndim != 2 else vectors
    if not len(rows):
        raise ValueError("no choice vectors given")
    if np.ndim(rows[0]) == 0:
        rows = [rows]
    # A 2-D array has one length for all rows; anything else is checked row by row.
    for index, row in enumerate(rows[:1] if isinstance(rows, np.ndarray) else rows):
        if np.ndim(row) != 1 or len(row) != m:
            length = len(row) if np.ndim(row) == 1 else f"shape {np.shape(row)}"
            raise ValueError(f"vector {index} has {length} entries; {n} alternatives need n(n−1)/2 = {m}, one per pair")
    try:
        array = np.array(rows, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"choice vectors must hold numbers: {error}") from None
    bad = np.isnan(array) | (array < 0.0) | (array > 1.0)
    if bad.any():
        index, entry = (int(i) for i in np.argwhere(bad)[0])
        x, y = pairs(n)[entry]
        value = array[index, entry]
        problem = "is NaN" if np.isnan(value) else f"is {float(value)!r}, outside [0, 1]"
        raise ValueError(f"vector {index}, entry {entry} (pair {x},{y}) {problem}")
    return array


@cache
def linear_orders(n: int) -> NDArray[np.int8]:
    """Return all n! linear orders of range(n), one per row, each from top to bottom."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.int8)


def order_vertices(orders: ArrayLike, n: int) -> NDArray[np.float64]:
    """Return the 0/1 choice vector of each order (rows of alternative indices, top first).

    FORMULA: v_xy = 1 if x is above y in the order, else 0, for the pairs x < y.
    """
    order_array = np.atleast_2d(np.asarray(orders))
    position = np.argsort(order_array, axis=1)
    first, second = pair_arrays(n)
    return (position[:, first] < position[:, second]).astype(np.float64)


@cache
def linear_order_vertices(n: int) -> NDArray[np.float64]:
    """Return the n! × n(n−1)/2 matrix whose rows are the vertices v(R) of the polytope."""
    vertices = order_vertices(linear_orders(n), n)
    vertices.flags.writeable = False
    return vertices


# --- the linear-ordering oracle ---------------------------------------------------------


@cache
def _subset_layers(n: int) -> tuple[NDArray[np.float64], list[tuple[NDArray, NDArray, NDArray]]]:
    subsets = np.arange(1 << n)
    membership = ((subsets[:, None] >> np.arange(n)) & 1).astype(np.float64)
    layers = []
    for size in range(1, n + 1):
        layer = np.array([s for s in range(1 << n) if s.bit_count() == size])
        members = np.array([[x for x in range(n) if s >> x & 1] for s in layer])
        layers.append((layer, members, layer[:, None] ^ (1 << members)))
    return membership, layers


def linear_ordering_optimum(coefficients: ArrayLike, n: int) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Return (max value, best order) of Σ_{x<y} c_xy · v_xy(R) over all linear orders R, per row.

    ``coefficients`` has shape (k, n(n−1)/2) (or one row). Exact, by dynamic programming over the
    set S of alternatives placed at the top: f(∅) = 0 and
    f(S) = max_{x ∈ S} f(S∖x) + Σ_{z ∈ S∖x} W_zx, with W_xy = c_xy for x < y and W_yx = 0,
    so x is the lowest of S. The maximum is f(all); O(2^n · n²) per row. Ties go to the first
    maximiser found. Orders are alternative indices from top to bottom.
    """
    c = np.atleast_2d(np.asarray(coefficients, dtype=np.float64))
    rows = len(c)
    first, second = pair_arrays(n)
    weights = np.zeros((rows, n, n))
    weights[:, first, second] = c
    membership, layers = _subset_layers(n)
    gain = membership @ weights  # gain[r, S, x] = Σ_{z ∈ S} W_zx
    value = np.zeros((rows, 1 << n))
    lowest = np.zeros((rows, 1 << n), dtype=np.intp)
    for layer, members, without in layers:
        candidates = value[:, without] + gain[:, without, members]
        value[:, layer] = candidates.max(axis=2)
        lowest[:, layer] = members[np.arange(len(layer)), candidates.argmax(axis=2)]
    orders = np.empty((rows, n), dtype=np.intp)
    remaining = np.full(rows, (1 << n) - 1)
    every_row = np.arange(rows)
    for place in range(n - 1, -1, -1):
        x = lowest[every_row, remaining]
        orders[:, place] = x
        remaining = remaining ^ (1 << x)
    return value[:, -1].copy(), orders
