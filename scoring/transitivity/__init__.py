"""Transitivity of pairwise choice probabilities: WUM, HCM and G-RUM (the transitivity test).

A choice vector p over n alternatives (3 ≤ n ≤ 8) holds one probability P_xy = P(x ≻ y)
for each pair x < y in lexicographic order (0,1), (0,2), …, (n-2, n-1); P_yx = 1 − P_xy.

- WUM, the weak utility model: some linear order R has P_xy ≥ ½ whenever x is above y in R.
  Equivalently the strict relation {x ≻ y : P_xy > ½} has no cycle.
- HCM, the high-certainty model: every pair is decided (P_xy ≥ 0.9 or P_xy ≤ 0.1) and the
  relation {x ≻ y : P_xy ≥ 0.9} has no cycle.
- G-RUM, the general random utility model: p lies in the linear ordering polytope, the convex
  hull of the 0/1 vectors v(R) of all n! linear orders (v_xy = 1 when x is above y). The verdict
  is d(p) ≤ ε for the ∞-norm distance d(p) = min { ‖Vλ − p‖∞ : λ ≥ 0, Σλ = 1 }.

The paper decides WUM by checking all ordered triples, as we read it weak stochastic
transitivity (P_xy ≥ ½ and P_yz ≥ ½ ⇒ P_xz ≥ ½). That agrees with the model definition used
here except when some P_xy is exactly ½: its own example P_xy = P_yz = 1, P_xz = ½ fails the
triple check (P_zx ≥ ½ and P_xy ≥ ½ but P_zy = 0) yet satisfies WUM through the order x, y, z.

Two G-RUM solvers return the same verdict, distance and kind of certificate:
- "reference", the paper's method: one LP over all n! orders (scipy's HiGHS).
- "fast": the same LP by a batched revised simplex whose entering column is priced over all n!
  orders at once by an exact linear-ordering oracle (dynamic programming over subsets,
  O(2^n · n²)), i.e. column generation one column at a time. It stops at an optimal basis and
  proves it: the basic orders give a mixture with error U ≥ d(p), and the final dual gives a
  valid inequality aᵀx ≤ b whose violation L ≤ d(p). A vector is decided here only when
  U − max(L, 0) ≤ 1e-9 and d(p) is clear of ε by more than 1e-8; otherwise (LP noise near ε, or
  no convergence within the pivot limit) it is solved by the reference LP, and
  `TransitivityResult.grum_solver` says so.

The package in four layers, each importing only those before it: `orders` (pairs, validation, linear orders, the
linear-ordering oracle), `relations` (WUM, HCM, Copeland, triads), `grum` (the two G-RUM solvers and their
certificates), `results` (the entry point `transitivity_results`, aggregation, presentation-order effects); beside
them `summary` (the paper's summary statistics over many choice sets' verdicts, which needs none of the others). The
public names are re-exported here.
"""

from scoring.transitivity.grum import (
    DEFAULT_EPS,
    NOISE_BAND,
    Certificate,
    ExactWorkExceeded,
    GrumSolution,
    InequalityCertificate,
    Method,
    MixtureCertificate,
    Solver,
    grum_solutions,
)
from scoring.transitivity.orders import (
    MAX_ALTERNATIVES,
    MIN_ALTERNATIVES,
    linear_order_vertices,
    linear_ordering_optimum,
    linear_orders,
    order_vertices,
    pair_count,
    pairs,
    validated_choice_vectors,
)
from scoring.transitivity.relations import copeland_scores, hcm_holds, violating_triads, wum_holds
from scoring.transitivity.results import (
    AggregationReport,
    PresentationOrderEffect,
    TransitivityResult,
    aggregate_vector,
    aggregation_report,
    presentation_order_effects,
    transitivity_results,
)
from scoring.transitivity.summary import (
    ChoiceSetVerdict,
    OrderEffects,
    PrinciplePlaces,
    Share,
    TransitivitySummary,
    transitivity_summary,
)

__all__ = [
    "DEFAULT_EPS",
    "MAX_ALTERNATIVES",
    "MIN_ALTERNATIVES",
    "NOISE_BAND",
    "AggregationReport",
    "Certificate",
    "ChoiceSetVerdict",
    "ExactWorkExceeded",
    "GrumSolution",
    "InequalityCertificate",
    "Method",
    "MixtureCertificate",
    "OrderEffects",
    "PresentationOrderEffect",
    "PrinciplePlaces",
    "Share",
    "Solver",
    "TransitivityResult",
    "TransitivitySummary",
    "aggregate_vector",
    "aggregation_report",
    "copeland_scores",
    "grum_solutions",
    "hcm_holds",
    "linear_order_vertices",
    "linear_ordering_optimum",
    "linear_orders",
    "order_vertices",
    "pair_count",
    "pairs",
    "presentation_order_effects",
    "transitivity_results",
    "transitivity_summary",
    "validated_choice_vectors",
    "violating_triads",
    "wum_holds",
]
