"""Key promotion: when a proposed ordering becomes a key, and what replaces it when it does not.

The rule (VirtueMap): a candidate with N evaluations, Y of them confirmations, is retained when
N > N_min and q = Y/N ≥ q_min (defaults 100 and 0.95). Ratios are compared as exact fractions, so
q_min = 0.95 means 19/20 and N=101, Y=96 (q = 0.9505) is retained while N=101, Y=95 (0.9406) is not;
floats would put 0.95 a hair off and make the edge depend on rounding.

Early rejection: a round's target is T = N_min + 1, the first size at which it can be retained. It
needs ⌈q_min·T⌉ confirmations there, so at most D_max = T − ⌈q_min·T⌉ disconfirmations; the round is
rejected as soon as N − Y > D_max (with the defaults D_max = 5: rejected at the 6th disconfirmation),
and every round is decided by N = T at the latest.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction

from scoring.rankings import BORDA_POINTS, OPTIONS, validate_ranking
from scoring.stats import kendall_tau

# z for a two-sided 95 % interval: the normal quantile at 0.975.
Z_95 = 1.959963984540054

Threshold = Fraction | Decimal | str | int | float


class PromotionOutcome(StrEnum):
    UNDECIDED = "undecided"
    RETAINED = "retained"
    REJECTED = "rejected"


@dataclass(frozen=True)
class PromotionDecision:
    """The rule's verdict on N and Y.

    target: T = N_min + 1. max_disconfirmations: D_max = T − ⌈q_min·T⌉ (negative when even T confirmations
    out of T would not do, i.e. never retainable). remaining: evaluations still needed to reach T.
    """

    outcome: PromotionOutcome
    n: int
    y: int
    target: int
    max_disconfirmations: int

    @property
    def decided(self) -> bool:
        return self.outcome is not PromotionOutcome.UNDECIDED

    @property
    def remaining(self) -> int:
        return max(self.target - self.n, 0)


def as_fraction(value: Threshold) -> Fraction:
    """Return a threshold as an exact fraction; a float is read as its shortest decimal (0.95 → 19/20)."""
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


def promotion_decision(
    n: int, y: int, min_evaluations: int = 100, min_confirmation: Threshold = Fraction(19, 20)
) -> PromotionDecision:
    """Return whether a candidate with N = `n` evaluations and Y = `y` confirmations is retained or rejected.

    RETAINED when n > min_evaluations and y/n ≥ min_confirmation (exact rational comparison).
    REJECTED when n − y > D_max (q_min is out of reach at the target T = min_evaluations + 1), or when
    n ≥ T and it is not retained (only possible if the thresholds changed mid-round). Otherwise UNDECIDED.
    Raises ValueError unless 0 ≤ y ≤ n, min_evaluations ≥ 0 and 0 < q_min ≤ 1.
    """
    q_min = as_fraction(min_confirmation)
    if not 0 <= y <= n:
        raise ValueError(f"need 0 ≤ Y ≤ N, got N={n}, Y={y}")
    if min_evaluations < 0 or not 0 < q_min <= 1:
        raise ValueError(f"need min_evaluations ≥ 0 and 0 < min_confirmation ≤ 1, got {min_evaluations}, {q_min}")
    target = min_evaluations + 1
    max_disconfirmations = target - math.ceil(q_min * target)
    if n > min_evaluations and Fraction(y, n) >= q_min:
        outcome = PromotionOutcome.RETAINED
    elif n - y > max_disconfirmations or n >= target:
        outcome = PromotionOutcome.REJECTED
    else:
        outcome = PromotionOutcome.UNDECIDED
    return PromotionDecision(outcome=outcome, n=n, y=y, target=target, max_disconfirmations=max_disconfirmations)


def evaluations_to_decision(decision: PromotionDecision) -> int:
    """Return the fewest further evaluations after which the rule could decide an undecided candidate (0 when
    decided): min(T − N, D_max + 1 − (N − Y)), i.e. all confirmations up to the target T, or only disconfirmations
    until one more than D_max. With the defaults, N = 95 and Y = 94 gives min(6, 5) = 5.
    """
    if decision.decided:
        return 0
    to_rejection = decision.max_disconfirmations + 1 - (decision.n - decision.y)
    return max(min(decision.remaining, to_rejection), 1)


def wilson_interval(y: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """Return the Wilson score interval for the proportion y/n, or None when n = 0.

    FORMULA: p = y/n; centre = (p + z²/2n) / (1 + z²/n);
    half-width = z/(1 + z²/n) · √(p(1−p)/n + z²/4n²). Unlike p ± z·√(p(1−p)/n) it stays inside [0, 1]
    and is not degenerate at p = 0 or 1.
    """
    if not 0 <= y <= n:
        raise ValueError(f"need 0 ≤ y ≤ n, got y={y}, n={n}")
    if n == 0:
        return None
    p = y / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half_width = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half_width), min(1.0, centre + half_width)


def mean_kendall_tau(rankings: Sequence[Sequence[str]], reference: Sequence[str]) -> float | None:
    """Return the mean Kendall τ between each ranking and `reference`, or None for no rankings.

    Used as the agreement of the corrections with the candidate they correct: near 1 means small
    adjustments, near 0 or below means the corrections disagree with the candidate's shape.
    """
    if not rankings:
        return None
    return sum(kendall_tau(ranking, reference) for ranking in rankings) / len(rankings)


def kemeny_consensus(rankings: Sequence[Sequence[str]]) -> tuple[str, ...] | None:
    """Return the Kemeny consensus of `rankings` (None for no rankings).

    The consensus is the permutation of A–E with the smallest total Kendall distance to the rankings
    (the number of option pairs ordered differently, summed over the rankings), found by trying all 120.
    Ties go to the permutation with the highest Borda agreement Σ_o w_P(o)·B(o), where w_P is its own Borda
    weight (5 for first … 1 for last) and B(o) the total Borda points of o over the rankings; remaining
    ties go to the alphabetically first permutation ("ABCDE" before "ABCED").
    """
    if not rankings:
        return None
    validated = [validate_ranking(list(ranking)) for ranking in rankings]
    # before[a][b]: how many rankings put a before b.
    before = {a: dict.fromkeys(OPTIONS, 0) for a in OPTIONS}
    borda_total = dict.fromkeys(OPTIONS, 0)
    for ranking in validated:
        for i, option in enumerate(ranking):
            borda_total[option] += BORDA_POINTS[i]
            for later in ranking[i + 1 :]:
                before[option][later] += 1

    def sort_key(permutation: tuple[str, ...]) -> tuple[int, int, tuple[str, ...]]:
        # Each pair the permutation orders a→b costs the rankings that order it b→a.
        distance = sum(before[b][a] for a, b in itertools.combinations(permutation, 2))
        borda = sum(BORDA_POINTS[i] * borda_total[option] for i, option in enumerate(permutation))
        return distance, -borda, permutation

    return min(itertools.permutations(OPTIONS), key=sort_key)
