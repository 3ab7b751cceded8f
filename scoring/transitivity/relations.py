"""WUM, HCM, Copeland scores and violating triads: the verdicts that need no linear program."""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike, NDArray

from scoring.transitivity.orders import pair_arrays, validated_choice_vectors

WUM_THRESHOLD = 0.5
HCM_THRESHOLD = 0.9
# Written out because 1 − 0.9 is 0.09999999999999998 in floating point, which would leave 0.1 undecided.
HCM_LOWER = 0.1


# --- WUM, HCM, Copeland and triads -------------------------------------------------------


def _relation(vectors: NDArray[np.float64], n: int, above: NDArray[np.bool_], below: NDArray[np.bool_]) -> NDArray:
    first, second = pair_arrays(n)
    relation = np.zeros((len(vectors), n, n), dtype=bool)
    relation[:, first, second] = above
    relation[:, second, first] = below
    return relation


def _acyclic(relation: NDArray[np.bool_]) -> NDArray[np.bool_]:
    # Transitive closure by repeated squaring: after k rounds it holds every path of length ≤ 2^k.
    reach = relation.astype(np.int64)
    for _ in range(int(np.ceil(np.log2(relation.shape[-1]))) + 1):
        reach = ((reach + reach @ reach) > 0).astype(np.int64)
    return ~np.diagonal(reach, axis1=1, axis2=2).any(axis=1)


def wum_holds(vectors: ArrayLike, n: int) -> NDArray[np.bool_]:
    """Return, per vector, whether the strict relation P_xy > ½ is acyclic (the WUM)."""
    p = validated_choice_vectors(vectors, n)
    return _acyclic(_relation(p, n, p > WUM_THRESHOLD, p < WUM_THRESHOLD))


def hcm_holds(vectors: ArrayLike, n: int) -> NDArray[np.bool_]:
    """Return, per vector, whether every P_xy ≥ 0.9 or ≤ 0.1 and the relation P_xy ≥ 0.9 is acyclic."""
    p = validated_choice_vectors(vectors, n)
    decided = ((p >= HCM_THRESHOLD) | (p <= HCM_LOWER)).all(axis=1)
    return decided & _acyclic(_relation(p, n, p >= HCM_THRESHOLD, p <= HCM_LOWER))


def copeland_scores(vectors: ArrayLike, n: int) -> NDArray[np.int64]:
    """Return, per vector and alternative, #{y : P_xy > ½} + #{y : P_xy = ½} (a tie counts for both)."""
    p = validated_choice_vectors(vectors, n)
    wins = _relation(p, n, p >= WUM_THRESHOLD, p <= WUM_THRESHOLD)
    return wins.sum(axis=2)


def violating_triads(vectors: ArrayLike, n: int) -> list[tuple[tuple[int, int, int], ...]]:
    """Return, per vector, every triad (x, y, z) with P_xy, P_yz, P_zx all > ½, x the smallest index."""
    p = validated_choice_vectors(vectors, n)
    strict = _relation(p, n, p > WUM_THRESHOLD, p < WUM_THRESHOLD)
    triples = np.array(list(itertools.combinations(range(n), 3)))
    a, b, c = triples.T
    forward = strict[:, a, b] & strict[:, b, c] & strict[:, c, a]
    backward = strict[:, a, c] & strict[:, c, b] & strict[:, b, a]
    triads: list[list[tuple[int, int, int]]] = [[] for _ in range(len(p))]
    rows, hits = np.nonzero(forward)
    for row, (x, y, z) in zip(rows.tolist(), triples[hits].tolist(), strict=True):
        triads[row].append((x, y, z))
    rows, hits = np.nonzero(backward)
    for row, (x, y, z) in zip(rows.tolist(), triples[hits].tolist(), strict=True):
        triads[row].append((x, z, y))
    return [tuple(sorted(row_triads)) for row_triads in triads]
