"""Reports of the transitivity instrument, built from plain choice vectors (no database).

A *choice set* is one block × presentation order: the 21-vector P_xy of one model (or person) over the 7 principles.
`instrument_report` runs `scoring.transitivity` on every complete choice set and on their aggregate (the mean, as in
the paper) and gathers what the pages, the CSV and the JSON show: the verdict grid, rankings, violating triads, the
aggregation artifact and presentation-order effects. Services and selectors fetch the vectors; this module only
arranges results, so the numbers on the pages are those of `scoring.transitivity` on the same data.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.transitivity import (
    DEFAULT_EPS,
    AggregationReport,
    TransitivityResult,
    aggregation_report,
    pairs,
    presentation_order_effects,
)
from transitivity.analysis import result_payload

MODELS = ("wum", "hcm", "grum")
MODEL_NAMES = {"wum": "WUM", "hcm": "HCM", "grum": "G-RUM"}

ChoiceSetKey = tuple[int, int]  # (block, presentation order)


@dataclass(frozen=True)
class ChoiceSet:
    """One block × presentation order: its vector (None entries are missing pairs) and, when complete, its result."""

    block: int
    order: int
    vector: tuple[float | None, ...]
    result: TransitivityResult | None

    @property
    def key(self) -> ChoiceSetKey:
        return (self.block, self.order)

    @property
    def missing(self) -> int:
        return sum(value is None for value in self.vector)

    @property
    def complete(self) -> bool:
        return self.result is not None


@dataclass(frozen=True)
class OrderEffect:
    """A block whose verdicts or ranking change when only the order of presentation changes."""

    block: int
    changed: tuple[str, ...]


@dataclass(frozen=True)
class InstrumentReport:
    """Everything the per-model (or per-person) report shows.

    choice_sets: sorted by block, then order. aggregate: the mean of the complete choice sets' vectors and its
    verdicts, None when no set is complete; aggregate_matching: the choice sets whose Copeland order equals the
    aggregate's. order_effects: only blocks complete in both orders are compared. counts: per model, how many
    complete choice sets satisfy it.
    """

    alternatives: tuple[str, ...]
    eps: float
    choice_sets: tuple[ChoiceSet, ...]
    aggregate: AggregationReport | None
    aggregate_matching: tuple[ChoiceSetKey, ...]
    order_effects: tuple[OrderEffect, ...]

    @property
    def complete_sets(self) -> tuple[ChoiceSet, ...]:
        return tuple(one for one in self.choice_sets if one.complete)

    @property
    def counts(self) -> dict[str, int]:
        return {model: sum(getattr(one.result, model) for one in self.complete_sets) for model in MODELS}

    @property
    def blocks(self) -> tuple[int, ...]:
        return tuple(sorted({one.block for one in self.choice_sets}))

    @property
    def orders(self) -> tuple[int, ...]:
        return tuple(sorted({one.order for one in self.choice_sets}))

    def choice_set(self, block: int, order: int) -> ChoiceSet | None:
        return next((one for one in self.choice_sets if one.key == (block, order)), None)

    def grid(self) -> list[dict[str, Any]]:
        """Rows of the block × order verdict grid: one per block, one cell per presentation order."""
        return [
            {"block": block, "cells": [self.choice_set(block, order) for order in self.orders]} for block in self.blocks
        ]


def instrument_report(
    *,
    alternatives: Sequence[str],
    vectors: Mapping[ChoiceSetKey, Sequence[float | None]],
    eps: float = DEFAULT_EPS,
) -> InstrumentReport:
    """Test every complete choice set and their aggregate; return the report.

    ``vectors``: (block, order) → the n(n−1)/2 values P_xy in the pair order of `scoring.transitivity.pairs`,
    None for a missing pair. A set with a missing pair gets no verdict and stays out of the aggregate (the paper
    has none missing; averaging over fewer blocks for one pair would mix different sets).
    """
    n = len(alternatives)
    keys = sorted(vectors)
    complete = [key for key in keys if all(value is not None for value in vectors[key])]
    results: dict[ChoiceSetKey, TransitivityResult] = {}
    aggregate = None
    matching: tuple[ChoiceSetKey, ...] = ()
    if complete:
        aggregate = aggregation_report([list(vectors[key]) for key in complete], n, eps)
        results = dict(zip(complete, aggregate.individuals, strict=True))
        matching = tuple(complete[index] for index in aggregate.matching)
    choice_sets = tuple(
        ChoiceSet(block=block, order=order, vector=tuple(vectors[block, order]), result=results.get((block, order)))
        for block, order in keys
    )
    return InstrumentReport(
        alternatives=tuple(alternatives),
        eps=eps,
        choice_sets=choice_sets,
        aggregate=aggregate,
        aggregate_matching=matching,
        order_effects=_order_effects(results),
    )


def _order_effects(results: Mapping[ChoiceSetKey, TransitivityResult]) -> tuple[OrderEffect, ...]:
    blocks = sorted({block for block, order in results if (block, 1) in results and (block, 2) in results})
    effects = presentation_order_effects([results[b, 1] for b in blocks], [results[b, 2] for b in blocks])
    return tuple(OrderEffect(block=blocks[effect.block], changed=effect.changed) for effect in effects)


# --- JSON and CSV ------------------------------------------------------------------------------------------


def report_payload(report: InstrumentReport) -> dict[str, Any]:
    """The report as JSON-ready data; results have the shape of the test API's (`analysis.result_payload`)."""
    names = report.alternatives
    aggregate = None
    if report.aggregate is not None:
        aggregate = {
            "vector": list(report.aggregate.aggregate_vector),
            "choice_sets": [{"block": one.block, "order": one.order} for one in report.complete_sets],
            "result": result_payload(report.aggregate.aggregate, names),
            "ranking_matches": [{"block": block, "order": order} for block, order in report.aggregate_matching],
            "ranking_matches_any": bool(report.aggregate_matching),
        }
    return {
        "alternatives": list(names),
        "pairs": [[names[x], names[y]] for x, y in pairs(len(names))],
        "eps": report.eps,
        "counts": {**report.counts, "complete_choice_sets": len(report.complete_sets)},
        "choice_sets": [
            {
                "block": one.block,
                "order": one.order,
                "vector": list(one.vector),
                "missing_pairs": one.missing,
                "result": result_payload(one.result, names) if one.result else None,
            }
            for one in report.choice_sets
        ],
        "aggregate": aggregate,
        "presentation_order_effects": [
            {"block": effect.block, "changed": list(effect.changed)} for effect in report.order_effects
        ],
    }


def ranking_text(order: Sequence[str] | None) -> str:
    return " > ".join(order) if order is not None else ""


def report_csv(report: InstrumentReport, *, subject: str) -> str:
    """One row per choice set and one for the aggregate: verdicts, ranking, triads, distance and every P_xy."""
    names = report.alternatives
    pair_columns = [f"P({names[x]},{names[y]})" for x, y in pairs(len(names))]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["subject", "block", "order", "wum", "hcm", "grum", "copeland_order", "violating_triads", "grum_distance"]
        + pair_columns
    )
    rows = [(str(one.block), str(one.order), one.vector, one.result) for one in report.choice_sets]
    if report.aggregate is not None:
        rows.append(("aggregate", "", report.aggregate.aggregate_vector, report.aggregate.aggregate))
    for block, order, vector, result in rows:
        verdicts = ["", "", "", "", "", ""]
        if result is not None:
            order_names = [names[x] for x in result.copeland_order] if result.copeland_order else None
            triads = " ".join("-".join(names[x] for x in triad) for triad in result.violating_triads)
            verdicts = [
                *(str(getattr(result, model)).lower() for model in MODELS),
                ranking_text(order_names),
                triads,
                repr(result.grum_distance),
            ]
        writer.writerow([subject, block, order, *verdicts, *("" if v is None else repr(float(v)) for v in vector)])
    return out.getvalue()
