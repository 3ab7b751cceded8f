"""The entry point and the reports: verdicts per vector, aggregation over replicates, presentation-order effects."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from scoring.transitivity.grum import DEFAULT_EPS, Certificate, Method, Solver, grum_solutions
from scoring.transitivity.orders import validated_choice_vectors
from scoring.transitivity.relations import copeland_scores, hcm_holds, violating_triads, wum_holds


@dataclass(frozen=True)
class TransitivityResult:
    """The three models' verdicts on one choice vector.

    copeland_order: for a WUM vector, alternatives by descending copeland_scores, ties by index;
        None otherwise. copeland_scores: per alternative, the pairs it wins, a pair at exactly ½
        counting as a win for both. With exact-½ pairs the Copeland order need not itself be an
        order that witnesses WUM.
    violating_triads: every (x, y, z) with P_xy, P_yz, P_zx all > ½, x the smallest index. A vector
        can fail WUM with no such triad only through a longer cycle that skips exact-½ pairs.
    grum_distance: d(p), the ∞-norm distance to the linear ordering polytope; grum is d(p) ≤ ε.
    certificate: a mixture when grum, an inequality otherwise.
    grum_solver: "column_generation" (fast path) or "full_lp" (reference LP, also the fast
        path's fallback).
    """

    wum: bool
    hcm: bool
    grum: bool
    copeland_order: tuple[int, ...] | None
    copeland_scores: tuple[int, ...]
    violating_triads: tuple[tuple[int, int, int], ...]
    grum_distance: float
    certificate: Certificate
    grum_solver: Solver


@dataclass(frozen=True)
class AggregationReport:
    """The aggregate vector (mean of the individual vectors) and how its ranking relates to theirs.

    matching: indices of individual vectors whose copeland_order equals the aggregate's (empty when
    the aggregate is not WUM and so has no ranking).
    """

    aggregate_vector: tuple[float, ...]
    aggregate: TransitivityResult
    individuals: tuple[TransitivityResult, ...]
    matching: tuple[int, ...]

    @property
    def matches_any(self) -> bool:
        return bool(self.matching)


@dataclass(frozen=True)
class PresentationOrderEffect:
    """A block whose verdicts or ranking differ between its two presentation orders.

    changed: the fields that differ, from ("wum", "hcm", "grum", "copeland_order").
    """

    block: int
    changed: tuple[str, ...]


# --- the entry point and reports ----------------------------------------------------------


def transitivity_results(
    vectors: ArrayLike,
    n: int,
    eps: float = DEFAULT_EPS,
    method: Method = "fast",
    max_exact_orders: int | None = None,
) -> list[TransitivityResult]:
    """Return WUM, HCM and G-RUM verdicts, Copeland order and violating triads for each vector.

    ``vectors``: one choice vector or a sequence of them, each of length n(n−1)/2 (see
    `validated_choice_vectors`, which raises ValueError on bad input). ``eps``: the tolerance of
    G-RUM on ‖Vλ − p‖∞. ``method``: "fast" (column generation, falling back to the LP near ε) or
    "reference" (one LP over all n! orders); both give the same verdicts. ``max_exact_orders``:
    see `grum_solutions` (raises `ExactWorkExceeded`).
    """
    if not (isinstance(eps, int | float) and np.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number ≥ 0, got {eps!r}")
    if method not in ("fast", "reference"):
        raise ValueError(f"method must be 'fast' or 'reference', got {method!r}")
    p = validated_choice_vectors(vectors, n)
    wum = wum_holds(p, n)
    hcm = hcm_holds(p, n)
    scores = copeland_scores(p, n)
    triads = violating_triads(p, n)
    solutions = grum_solutions(p, n, eps, method, max_exact_orders)
    results = []
    for row in range(len(p)):
        order = tuple(int(x) for x in np.lexsort((np.arange(n), -scores[row]))) if wum[row] else None
        results.append(
            TransitivityResult(
                wum=bool(wum[row]),
                hcm=bool(hcm[row]),
                grum=solutions[row].distance <= eps,
                copeland_order=order,
                copeland_scores=tuple(int(s) for s in scores[row]),
                violating_triads=triads[row],
                grum_distance=solutions[row].distance,
                certificate=solutions[row].certificate,
                grum_solver=solutions[row].solver,
            )
        )
    return results


def aggregate_vector(vectors: ArrayLike, n: int) -> NDArray[np.float64]:
    """Return the aggregate choice vector: the entrywise mean of the vectors."""
    return validated_choice_vectors(vectors, n).mean(axis=0)


def aggregation_report(
    vectors: ArrayLike, n: int, eps: float = DEFAULT_EPS, method: Method = "fast"
) -> AggregationReport:
    """Return the aggregate vector's verdicts and which individual vectors share its ranking.

    A ranking is the Copeland order of a WUM vector; a non-WUM aggregate matches nobody.
    """
    p = validated_choice_vectors(vectors, n)
    mean = p.mean(axis=0)
    aggregate, *individuals = transitivity_results(np.vstack([mean, p]), n, eps, method)
    matching = ()
    if aggregate.copeland_order is not None:
        matching = tuple(i for i, r in enumerate(individuals) if r.copeland_order == aggregate.copeland_order)
    return AggregationReport(
        aggregate_vector=tuple(float(x) for x in mean),
        aggregate=aggregate,
        individuals=tuple(individuals),
        matching=matching,
    )


def presentation_order_effects(
    first_order: Sequence[TransitivityResult], second_order: Sequence[TransitivityResult]
) -> tuple[PresentationOrderEffect, ...]:
    """Return the blocks whose verdicts or Copeland order differ between the two presentation orders.

    ``first_order[i]`` and ``second_order[i]`` are the results of block i shown in order 1 and order 2.
    """
    if len(first_order) != len(second_order):
        raise ValueError(f"{len(first_order)} blocks in presentation order 1 but {len(second_order)} in order 2")
    effects = []
    for block, (one, two) in enumerate(zip(first_order, second_order, strict=True)):
        changed = tuple(f for f in ("wum", "hcm", "grum", "copeland_order") if getattr(one, f) != getattr(two, f))
        if changed:
            effects.append(PresentationOrderEffect(block=block, changed=changed))
    return tuple(effects)
