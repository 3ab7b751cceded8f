"""The profile of an LLM run-suite from its item rankings: one function for the CLI, services and tests.

A suite is a set of runs (questionnaires) of one model; each run maps dilemma id → the canonical ranking
of a valid item, or None for an item that ended invalid. A dilemma absent from a run was not (yet) asked.

Rules (the original VirtueMap run-suite's):
- a *valid full run* has a valid ranking for every dilemma of the instrument;
- the profile and its per-virtue 95 % t-intervals are over valid full runs only;
- consistency pools Kendall τ over every valid ranking of the same dilemma, including the valid items of runs
  that were not complete;
- invalid_count counts the items that ended invalid (None).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.profiles import virtue_profile
from scoring.stats import (
    ConsistencyResult,
    IntervalStats,
    Quantile,
    StoppingDecision,
    consistency,
    stopping_decision,
    t_interval,
)

Ranking = Sequence[str]
RunItems = Mapping[str, Ranking | None]


@dataclass(frozen=True)
class SuiteProfile:
    """Statistics of a suite after any number of runs.

    attempted_runs: runs given (complete or not). valid_run_ids: ids of the valid full runs, sorted.
    run_scores: valid full run id → virtue id → P(v) of that run.
    profile_stats: virtue id → t-interval over the valid full runs' scores (empty with no valid full run;
        virtues that no run could score are left out).
    max_ci_half_width: the largest per-virtue half-width, None while any is undefined (fewer than 2 runs).
    consistency: `scoring.stats.consistency` over all valid rankings, None with no pair to compare.
    invalid_count: items that ended invalid.
    """

    attempted_runs: int
    valid_run_ids: tuple[Hashable, ...]
    run_scores: dict[Hashable, dict[str, float | None]]
    profile_stats: dict[str, IntervalStats]
    max_ci_half_width: float | None
    consistency: ConsistencyResult | None
    invalid_count: int

    @property
    def runs(self) -> int:
        """Number of valid full runs."""
        return len(self.valid_run_ids)

    @property
    def means(self) -> dict[str, float]:
        return {virtue: stats.mean for virtue, stats in self.profile_stats.items()}

    def record(self) -> dict[str, Any]:
        """Return the statistics in the field names of the original suite's ``reference_profiles_sample.json``."""
        consistency_result = self.consistency
        return {
            "runs": self.runs,
            "profile": self.means,
            "profile_stats": {virtue: interval_record(stats) for virtue, stats in self.profile_stats.items()},
            "max_ci_half_width": self.max_ci_half_width,
            "mean_pairwise_kendall_tau": consistency_result.mean_kendall_tau if consistency_result else None,
            "consistency_0_100": consistency_result.consistency_0_100 if consistency_result else None,
            "consistency_stats": interval_record(consistency_result.stats) if consistency_result else None,
            "invalid_count": self.invalid_count,
            "valid_questionnaire_runs": self.runs,
        }


def interval_record(stats: IntervalStats) -> dict[str, float | None]:
    """Return {mean, std, ci_low, ci_high, ci_half_width} of an interval, the original suite's field names."""
    return {
        "mean": stats.mean,
        "std": stats.std,
        "ci_low": stats.ci_low,
        "ci_high": stats.ci_high,
        "ci_half_width": stats.ci_half_width,
    }


def suite_profile(
    runs: Mapping[Hashable, RunItems],
    keys: Mapping[str, Mapping[str, Ranking]],
    virtues: Sequence[str],
    dilemmas: Sequence[str],
    *,
    confidence: float = 0.95,
    quantile: Quantile = "exact",
) -> SuiteProfile:
    """Return the `SuiteProfile` of ``runs`` (run id → dilemma id → canonical ranking or None).

    FORMULA: per valid full run r, P_r(v) from `virtue_profile` with the retained ``keys``; per virtue the
    mean, std and t-interval of P_r(v) over valid full runs (`t_interval`, ``quantile`` as there);
    consistency C = 100·(τ̄+1)/2 over all pairs of valid rankings of the same dilemma (`consistency`).
    Rankings are validated by `virtue_profile` and `consistency` (RankingError on a non-permutation).
    """
    valid_run_ids = tuple(
        sorted(
            (run_id for run_id, items in runs.items() if all(items.get(dilemma) is not None for dilemma in dilemmas)),
            key=_sort_key,
        )
    )
    run_scores = {run_id: virtue_profile(runs[run_id], keys, virtues).scores for run_id in valid_run_ids}
    profile_stats: dict[str, IntervalStats] = {}
    for virtue in virtues:
        values = [scores[virtue] for scores in run_scores.values() if scores[virtue] is not None]
        if values:
            profile_stats[virtue] = t_interval(values, confidence, quantile)
    half_widths = [stats.ci_half_width for stats in profile_stats.values()]
    max_half_width = max(half_widths) if half_widths and None not in half_widths else None

    rankings_by_dilemma: dict[str, list[Ranking]] = {}
    invalid_count = 0
    for items in runs.values():
        for dilemma, ranking in items.items():
            if ranking is None:
                invalid_count += 1
            else:
                rankings_by_dilemma.setdefault(dilemma, []).append(ranking)
    return SuiteProfile(
        attempted_runs=len(runs),
        valid_run_ids=valid_run_ids,
        run_scores=run_scores,
        profile_stats=profile_stats,
        max_ci_half_width=max_half_width,
        consistency=consistency(rankings_by_dilemma, confidence, quantile),
        invalid_count=invalid_count,
    )


def suite_stopping_decision(
    profile: SuiteProfile,
    *,
    attempted_runs: int,
    min_runs: int,
    max_runs: int,
    ci_threshold: float,
    consistency_threshold: float,
) -> StoppingDecision:
    """Return `scoring.stats.stopping_decision` for a suite's current profile.

    ``attempted_runs`` counts every finished run (valid or not); the profile supplies the valid full runs,
    the largest per-virtue half-width and the lower bound of the consistency interval.
    """
    consistency_result = profile.consistency
    return stopping_decision(
        valid_runs=profile.runs,
        attempted_runs=attempted_runs,
        max_ci_half_width=profile.max_ci_half_width,
        consistency_ci_low=consistency_result.stats.ci_low if consistency_result else None,
        min_runs=min_runs,
        max_runs=max_runs,
        ci_threshold=ci_threshold,
        consistency_threshold=consistency_threshold,
    )


def _sort_key(run_id: Hashable) -> tuple[str, Any]:
    # Run ids are ints in practice; sorting by (type name, value) keeps mixed ids from raising.
    return (type(run_id).__name__, run_id)
