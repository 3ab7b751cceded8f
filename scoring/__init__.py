"""The mathematics of VirtueMap profiling, as pure functions. No Django imports.

Inputs are plain sequences and numpy arrays (a ranking is a tuple of option letters),
outputs small frozen dataclasses or arrays.
"""

from __future__ import annotations

from scoring.borda import BORDA_MAX, BORDA_MIN, borda_alignment, borda_alignment_batch
from scoring.profiles import (
    AlignmentTable,
    VirtueProfile,
    alignment_table,
    key_weight_arrays,
    questionnaire_arrays,
    virtue_profile,
    virtue_profile_from_key_weights,
    virtue_profile_from_table,
    virtue_profiles_batch,
)
from scoring.promotion import (
    PromotionDecision,
    PromotionOutcome,
    kemeny_consensus,
    mean_kendall_tau,
    promotion_decision,
    wilson_interval,
)
from scoring.rankings import (
    OPTIONS,
    RankingError,
    borda_weights,
    borda_weights_from_indices,
    ranking_from_positions,
    ranking_indices,
    validate_ranking,
)
from scoring.similarity import (
    PreparedProfiles,
    centered_cosine_similarity,
    nearest_profiles,
    nearest_profiles_few,
    nearest_profiles_prepared,
    prepared_profiles,
)
from scoring.stats import (
    ConsistencyResult,
    IntervalStats,
    StoppingDecision,
    StopReason,
    consistency,
    kendall_tau,
    pairwise_kendall_taus,
    percentile_rank,
    stopping_decision,
    t_interval,
    t_quantile,
)

__all__ = [
    "BORDA_MAX",
    "BORDA_MIN",
    "OPTIONS",
    "AlignmentTable",
    "ConsistencyResult",
    "IntervalStats",
    "PreparedProfiles",
    "PromotionDecision",
    "PromotionOutcome",
    "RankingError",
    "StopReason",
    "StoppingDecision",
    "VirtueProfile",
    "alignment_table",
    "borda_alignment",
    "borda_alignment_batch",
    "borda_weights",
    "borda_weights_from_indices",
    "centered_cosine_similarity",
    "consistency",
    "kemeny_consensus",
    "kendall_tau",
    "key_weight_arrays",
    "mean_kendall_tau",
    "nearest_profiles",
    "nearest_profiles_few",
    "nearest_profiles_prepared",
    "pairwise_kendall_taus",
    "percentile_rank",
    "prepared_profiles",
    "promotion_decision",
    "questionnaire_arrays",
    "ranking_from_positions",
    "ranking_indices",
    "stopping_decision",
    "t_interval",
    "t_quantile",
    "validate_ranking",
    "virtue_profile",
    "virtue_profile_from_key_weights",
    "virtue_profile_from_table",
    "virtue_profiles_batch",
    "wilson_interval",
]
