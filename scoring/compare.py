"""Comparing two subjects' figures: the difference of two replicate means with its interval, and what a table of
many subjects' figures says about them (the mean and range rows of a leaderboard). Pure functions, no Django.

Two models' replicate runs are independent samples (replicate 3 of one model has nothing to do with replicate 3 of
the other), so their difference is judged by Welch's two-sample t-interval, which does not assume equal spreads. The
same holds for one model's runs in two languages (its Chinese runs against its English ones): separate runs, separate
prompts, so the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.stats import t_quantile

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Sample:
    """A figure over one subject's replicates: the mean, the sample standard deviation (ddof = 1) and their number."""

    mean: float
    std: float | None
    n: int


@dataclass(frozen=True)
class Difference:
    """first − second with its two-sided interval; low, high and df are None when an interval cannot be had (a side
    with fewer than two replicates, whose spread is unknown). ``distinguishable`` is False when the interval covers
    0, None when there is no interval."""

    estimate: float
    low: float | None
    high: float | None
    df: float | None
    distinguishable: bool | None

    def record(self) -> dict[str, float | bool | None]:
        return {
            "difference": self.estimate,
            "low": self.low,
            "high": self.high,
            "df": self.df,
            "distinguishable": self.distinguishable,
        }


def std_from_interval(mean: float, high: float, n: int, confidence: float = CONFIDENCE) -> float:
    """Recover the sample standard deviation from a t-interval's upper end.

    FORMULA: high = mean + t_{1-α/2, n-1} · s / √n, so s = (high − mean) · √n / t_{1-α/2, n-1}.
    """
    if n < 2:
        raise ValueError(f"an interval needs at least two replicates, got {n}")
    return (high - mean) * math.sqrt(n) / t_quantile(n - 1, confidence)


def mean_interval(mean: float, std: float | None, n: int, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The t-interval of a replicate mean from its standard deviation, None below two replicates.

    FORMULA: mean ∓ t_{1-α/2, n-1} · s / √n (as `scoring.stats.t_interval`).
    """
    if n < 2 or std is None:
        return None
    half_width = t_quantile(n - 1, confidence) * std / math.sqrt(n)
    return (mean - half_width, mean + half_width)


def welch_difference(first: Sample, second: Sample, confidence: float = CONFIDENCE) -> Difference:
    """The difference of two independent replicate means with Welch's t-interval.

    FORMULA: d = x̄₁ − x̄₂; v_i = s_i² / n_i; se = √(v₁ + v₂); Welch–Satterthwaite
    df = (v₁ + v₂)² / (v₁² / (n₁ − 1) + v₂² / (n₂ − 1)); interval d ∓ t_{1-α/2, df} · se. When both spreads are 0
    the interval is the point d (distinguishable unless d = 0). df is not rounded (as scipy's
    ``ttest_ind(equal_var=False)``).
    """
    estimate = first.mean - second.mean
    if first.n < 2 or second.n < 2 or first.std is None or second.std is None:
        return Difference(estimate, None, None, None, None)
    v1, v2 = first.std**2 / first.n, second.std**2 / second.n
    if v1 + v2 == 0:
        return Difference(estimate, estimate, estimate, None, estimate != 0)
    df = (v1 + v2) ** 2 / (v1**2 / (first.n - 1) + v2**2 / (second.n - 1))
    half_width = t_quantile(df, confidence) * math.sqrt(v1 + v2)
    low, high = estimate - half_width, estimate + half_width
    return Difference(estimate, low, high, df, not (low <= 0 <= high))


def sample_differences(
    first: Mapping[str, Sample], second: Mapping[str, Sample], confidence: float = CONFIDENCE
) -> dict[str, Difference]:
    """Per key both sides have, in ``first``'s order: first − second with Welch's interval (`welch_difference`).

    Two subjects' figures by key (e.g. virtue), or one model's figures in two languages (zh-hans − en). A key on one
    side only has no difference.
    """
    return {key: welch_difference(sample, second[key], confidence) for key, sample in first.items() if key in second}


@dataclass(frozen=True)
class ColumnSummary:
    """A leaderboard column over its subjects: the mean of their values and the range (lowest, highest), over the
    subjects that have a value; None for a column nobody has."""

    mean: float | None
    low: float | None
    high: float | None
    n: int


def column_summary(values: Sequence[float | None]) -> ColumnSummary:
    """FORMULA: over the values that are not None, mean = Σx / n, range = (min x, max x)."""
    kept = [value for value in values if value is not None]
    if not kept:
        return ColumnSummary(None, None, None, 0)
    return ColumnSummary(sum(kept) / len(kept), min(kept), max(kept), len(kept))


def printed_agrees(computed: float, printed: float, decimals: int) -> bool:
    """Whether ``printed`` is ``computed`` rounded to ``decimals`` places, as a paper prints it.

    FORMULA: |computed − printed| ≤ ½·10^(−decimals) (plus 1e-9 for binary floating point), so a value exactly
    half-way agrees with either neighbour: papers differ in how they round halves.
    """
    return abs(computed - printed) <= 0.5 * 10.0**-decimals + 1e-9
