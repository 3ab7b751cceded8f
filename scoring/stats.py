"""Statistics of repeated runs: Kendall τ, consistency, t-intervals, the stopping rule."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats as scipy_stats

from scoring.rankings import N_OPTIONS, OPTIONS, ranking_indices, validate_ranking

Quantile = Literal["exact", "legacy"]

N_OPTION_PAIRS = N_OPTIONS * (N_OPTIONS - 1) // 2  # 10 pairs of options, τ's denominator
# Degrees of freedom up to which the original suite used its 3-decimal t table.
LEGACY_T_TABLE_MAX_DF = 30

_PAIR_FIRST, _PAIR_SECOND = np.triu_indices(N_OPTIONS, k=1)


# --- Kendall τ -----------------------------------------------------------------------


def kendall_tau(a: Sequence[str], b: Sequence[str]) -> float:
    """Return Kendall's τ between two rankings of the five options, in [-1, 1].

    FORMULA: over the 10 pairs of options, a pair is concordant when both rankings put
    it in the same order and discordant otherwise (rankings have no ties), and
    τ = (concordant - discordant) / 10. Both rankings are validated.
    """
    position_a = {option: i for i, option in enumerate(validate_ranking(a))}
    position_b = {option: i for i, option in enumerate(validate_ranking(b))}
    balance = 0
    for first, second in combinations(OPTIONS, 2):
        same_order = (position_a[first] < position_a[second]) == (position_b[first] < position_b[second])
        balance += 1 if same_order else -1
    return balance / N_OPTION_PAIRS


def pairwise_kendall_taus(
    rankings: Sequence[Sequence[str]] | NDArray[np.integer],
) -> NDArray[np.float64]:
    """Return τ for every pair i < j of ``rankings``, shape ``(m·(m-1)/2,)``.

    ``rankings`` is a sequence of letter rankings or an ``(m, 5)`` index-form array.
    Pairs come in the order of ``numpy.triu_indices(m, k=1)``: (0,1), (0,2), …, (1,2), …

    FORMULA: each ranking becomes a ±1 vector over the 10 option pairs (+1 when the
    earlier letter is ranked first); concordant pairs multiply to +1 and discordant to
    -1, so τ_ij = (s_i · s_j) / 10, all pairs in one matrix product.
    """
    indices = ranking_indices(rankings)
    if indices.ndim != 2:
        raise ValueError(f"rankings must have shape (m, 5), got {indices.shape}")
    positions = np.argsort(indices, axis=1)  # the inverse permutation: option → position
    signs = np.where(positions[:, _PAIR_FIRST] < positions[:, _PAIR_SECOND], 1.0, -1.0)
    taus = signs @ signs.T / N_OPTION_PAIRS
    upper_i, upper_j = np.triu_indices(len(indices), k=1)
    return taus[upper_i, upper_j]


# --- t-intervals ---------------------------------------------------------------------


@dataclass(frozen=True)
class IntervalStats:
    """Mean and two-sided t-interval of a sample.

    n: sample size. mean: arithmetic mean. std: sample standard deviation (ddof = 1).
    ci_low, ci_high: mean ∓ ci_half_width. ci_half_width: t · std / √n.
    For n = 1 the spread is undefined, so std and the three interval fields are None.
    """

    n: int
    mean: float
    std: float | None
    ci_low: float | None
    ci_high: float | None
    ci_half_width: float | None


def t_quantile(df: float, confidence: float = 0.95, quantile: Quantile = "exact") -> float:
    """Return the two-sided t quantile t_{1-alpha/2, df}, alpha = 1 - confidence.

    "exact" is scipy's ``t.ppf``. "legacy" reproduces the original VirtueMap run-suite:
    its table gave t to 3 decimals, i.e. ``round(t.ppf(…), 3)``, for df ≤ 30, and beyond
    30 df it used the normal quantile to 2 decimals (1.96 at 95 %).
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    tail = 1.0 - (1.0 - confidence) / 2.0
    if quantile == "exact":
        return float(scipy_stats.t.ppf(tail, df))
    if quantile == "legacy":
        if df <= LEGACY_T_TABLE_MAX_DF:
            return round(float(scipy_stats.t.ppf(tail, df)), 3)
        return round(float(scipy_stats.norm.ppf(tail)), 2)
    raise ValueError(f"quantile must be 'exact' or 'legacy', got {quantile!r}")


def t_interval(values: ArrayLike, confidence: float = 0.95, quantile: Quantile = "exact") -> IntervalStats:
    """Return the mean, sample std and two-sided t-interval of ``values``.

    FORMULA: std = √(Σ (x - x̄)² / (n - 1)); half-width = t_{1-alpha/2, n-1} · std / √n;
    interval = x̄ ∓ half-width.

    ``quantile="exact"`` (the default) takes t from ``scipy.stats.t.ppf``.
    ``quantile="legacy"`` reproduces the original VirtueMap run-suite, which used a
    3-decimal t table and 1.96 beyond 30 df (see `t_quantile`). For small n (the
    per-virtue profile intervals over 3-10 runs) the two agree within 1e-3 on the
    reference data, since only the rounding of t differs; for the consistency interval
    (df ~ 70-100 pooled pairs) the normal approximation makes the original half-width
    about 1.2-1.8 % narrower than the exact one (1.96 / t.ppf(0.975, df)).

    n = 1: std and the interval are None (a single value has no spread).
    n = 0 or any non-finite value: raises ValueError, since there is no mean to report.
    """
    sample = np.asarray(values, dtype=np.float64).ravel()
    if sample.size == 0:
        raise ValueError("t_interval needs at least one value")
    if not np.isfinite(sample).all():
        raise ValueError("t_interval values must be finite numbers")
    mean = float(sample.mean())
    n = int(sample.size)
    if n == 1:
        return IntervalStats(n=1, mean=mean, std=None, ci_low=None, ci_high=None, ci_half_width=None)
    std = float(sample.std(ddof=1))
    half_width = t_quantile(n - 1, confidence, quantile) * std / math.sqrt(n)
    return IntervalStats(
        n=n,
        mean=mean,
        std=std,
        ci_low=mean - half_width,
        ci_high=mean + half_width,
        ci_half_width=half_width,
    )


# --- consistency ---------------------------------------------------------------------


@dataclass(frozen=True)
class ConsistencyResult:
    """Agreement of repeated rankings of the same dilemmas.

    mean_kendall_tau: τ̄, the mean τ over all pooled pairs.
    consistency_0_100: 100 · (τ̄ + 1) / 2.
    stats: t-interval over the per-pair values C_pair = 100 · (τ + 1) / 2
        (``stats.n`` is the number of pairs; ``stats.mean`` equals consistency_0_100).
    """

    mean_kendall_tau: float
    consistency_0_100: float
    stats: IntervalStats


def consistency(
    rankings_by_dilemma: Mapping[str, Sequence[Sequence[str]]],
    confidence: float = 0.95,
    quantile: Quantile = "exact",
) -> ConsistencyResult | None:
    """Return the consistency of repeated rankings, or None when there is no pair.

    ``rankings_by_dilemma`` maps dilemma id → every valid ranking of that dilemma (from
    all runs, complete or not). Every pair of rankings of the same dilemma is pooled
    over all dilemmas; rankings of different dilemmas are never compared. A dilemma
    with fewer than 2 rankings contributes no pair; with no pair at all there is
    nothing to measure and the result is None.

    FORMULA: C_pair = 100 · (τ + 1) / 2 per pair; consistency = mean C_pair
    = 100 · (τ̄ + 1) / 2; the interval is `t_interval` over the pooled C_pair values
    (``quantile`` as there; the original suite corresponds to "legacy").
    """
    taus = [pairwise_kendall_taus(rankings) for rankings in rankings_by_dilemma.values() if len(rankings) >= 2]
    if not taus:
        return None
    pooled = np.concatenate(taus)
    mean_tau = float(pooled.mean())
    return ConsistencyResult(
        mean_kendall_tau=mean_tau,
        consistency_0_100=100.0 * (mean_tau + 1.0) / 2.0,
        stats=t_interval(100.0 * (pooled + 1.0) / 2.0, confidence, quantile),
    )


# --- stopping rule -------------------------------------------------------------------


class StopReason(StrEnum):
    CONTINUE = "continue"
    BELOW_MIN_RUNS = "below_min_runs"
    CI_THRESHOLD = "ci_threshold"
    CONSISTENCY_THRESHOLD = "consistency_threshold"
    MAX_RUNS = "max_runs"


@dataclass(frozen=True)
class StoppingDecision:
    """Whether a suite should stop after the current batch, and why."""

    stop: bool
    reason: StopReason


def stopping_decision(
    *,
    valid_runs: int,
    attempted_runs: int,
    max_ci_half_width: float | None,
    consistency_ci_low: float | None,
    min_runs: int = 3,
    max_runs: int = 10,
    ci_threshold: float = 5.0,
    consistency_threshold: float = 95.0,
) -> StoppingDecision:
    """Return whether an LLM suite stops after its latest batch of runs.

    valid_runs counts valid *full* runs (every dilemma answered validly); attempted_runs
    counts every run started, failed ones included. The minimum is on valid runs,
    because the statistics need them; the cap is on attempted runs, so a model that
    keeps failing cannot run forever. A None statistic (not yet computable) never stops.

    Rules, first match wins:
    1. valid_runs < min_runs and attempted_runs < max_runs → continue (BELOW_MIN_RUNS).
    2. max_ci_half_width ≤ ci_threshold → stop (CI_THRESHOLD).
    3. consistency_ci_low ≥ consistency_threshold → stop (CONSISTENCY_THRESHOLD).
    4. attempted_runs ≥ max_runs → stop (MAX_RUNS).
    5. otherwise → continue (CONTINUE).
    Rules 2 and 3 apply only with at least min_runs valid runs: a suite that reaches the
    cap short of the minimum stops with MAX_RUNS, not with a statistic from too few runs.
    """
    if min(valid_runs, attempted_runs, min_runs, max_runs) < 0:
        raise ValueError("run counts and limits must not be negative")
    if valid_runs > attempted_runs:
        raise ValueError(f"valid_runs ({valid_runs}) exceeds attempted_runs ({attempted_runs})")
    if min_runs > max_runs:
        raise ValueError(f"min_runs ({min_runs}) exceeds max_runs ({max_runs})")

    enough_runs = valid_runs >= min_runs
    at_cap = attempted_runs >= max_runs
    if not enough_runs and not at_cap:
        return StoppingDecision(stop=False, reason=StopReason.BELOW_MIN_RUNS)
    if enough_runs and max_ci_half_width is not None and max_ci_half_width <= ci_threshold:
        return StoppingDecision(stop=True, reason=StopReason.CI_THRESHOLD)
    if enough_runs and consistency_ci_low is not None and consistency_ci_low >= consistency_threshold:
        return StoppingDecision(stop=True, reason=StopReason.CONSISTENCY_THRESHOLD)
    if at_cap:
        return StoppingDecision(stop=True, reason=StopReason.MAX_RUNS)
    return StoppingDecision(stop=False, reason=StopReason.CONTINUE)


# --- A score among other people's ------------------------------------------------------------------------


def percentile_rank(value: float, reference: Sequence[float]) -> float:
    """Return the mid-rank percentile of ``value`` among ``reference``, in [0, 100].

    FORMULA: PR = 100 · (#{r < value} + ½ · #{r = value}) / n, the share of the reference below the value,
    counting ties as half below (so a value equal to every reference value sits at 50). Raises ValueError
    for an empty reference or a non-finite value.
    """
    if not reference:
        raise ValueError("the reference is empty")
    if not math.isfinite(value):
        raise ValueError("the value must be finite")
    below = sum(1 for other in reference if other < value)
    equal = sum(1 for other in reference if other == value)
    return 100.0 * (below + 0.5 * equal) / len(reference)
