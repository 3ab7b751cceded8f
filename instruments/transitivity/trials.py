"""The people's pairwise questionnaire as plain data: the shuffled trial sequence and the choice proportions.

No database: services store a session's seed and answers, and these functions turn them into what to show next and
into the choice vectors that `scoring.transitivity` tests.

A trial is (pair, order): ``pair`` indexes `scoring.transitivity.pairs(n)`, so pair (x, y) has x < y; in order 1
situation 1 is x's vignette, in order 2 it is y's. An answer is the situation judged worse, 1 or 2.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from scoring.transitivity import pair_count, pairs

ORDERS = (1, 2)


@dataclass(frozen=True)
class Trial:
    position: int  # 1-based place in the sequence
    pair: int
    order: int
    repetition: int  # 1-based: the how-many-th showing of this pair in this order


def trial_sequence(*, n: int, repetitions: int, seed: int) -> tuple[Trial, ...]:
    """Return every pair of n alternatives in both orders, ``repetitions`` times each, in a seeded random order.

    The same seed gives the same sequence (a session stores only its seed). No trial follows another of the same
    pair when that can be avoided, so an answer is not simply repeated from the page before.
    """
    if repetitions < 1:
        raise ValueError(f"repetitions must be at least 1, got {repetitions}")
    trials = [(pair, order) for pair in range(pair_count(n)) for order in ORDERS for _ in range(repetitions)]
    rng = np.random.default_rng(seed)
    shuffled = [trials[i] for i in rng.permutation(len(trials))]
    shuffled = _spread_repeats(shuffled)
    seen: dict[tuple[int, int], int] = {}
    sequence = []
    for position, (pair, order) in enumerate(shuffled, start=1):
        seen[pair, order] = seen.get((pair, order), 0) + 1
        sequence.append(Trial(position=position, pair=pair, order=order, repetition=seen[pair, order]))
    return tuple(sequence)


def _spread_repeats(trials: list[tuple[int, int]]) -> list[tuple[int, int]]:
    # Swap a trial that repeats its predecessor's pair with the first later trial that leaves no repeat around
    # either place; deterministic, so the sequence still follows from the seed alone.
    result = list(trials)

    def repeats_at(k: int) -> bool:
        return any(0 <= j < len(result) and j != k and result[j][0] == result[k][0] for j in (k - 1, k + 1))

    for i in range(1, len(result)):
        if result[i][0] != result[i - 1][0]:
            continue
        for j in range(i + 1, len(result)):
            result[i], result[j] = result[j], result[i]
            if not repeats_at(i) and not repeats_at(j):
                break
            result[i], result[j] = result[j], result[i]
    return result


def worse_alternative(*, n: int, pair: int, order: int, answer: int) -> int:
    """Return the alternative judged worse when situation ``answer`` (1 or 2) is chosen in trial (pair, order)."""
    if answer not in (1, 2) or order not in ORDERS:
        raise ValueError(f"answer and order must be 1 or 2, got {answer} and {order}")
    x, y = pairs(n)[pair]
    first = x if order == 1 else y
    second = y if order == 1 else x
    return first if answer == 1 else second


def choice_vectors(*, n: int, answers: Iterable[tuple[int, int, int]]) -> dict[int, list[float | None]]:
    """Return, per presentation order, the vector of P_xy = share of answers judging x worse than y (x < y).

    ``answers``: (pair, order, answer) triples. A pair never answered in an order is None in that order's vector.
    """
    worse_counts = {order: np.zeros(pair_count(n)) for order in ORDERS}
    totals = {order: np.zeros(pair_count(n)) for order in ORDERS}
    for pair, order, answer in answers:
        x, _ = pairs(n)[pair]
        totals[order][pair] += 1
        worse_counts[order][pair] += worse_alternative(n=n, pair=pair, order=order, answer=answer) == x
    return {
        order: [
            float(worse_counts[order][i] / totals[order][i]) if totals[order][i] else None for i in range(pair_count(n))
        ]
        for order in ORDERS
    }
