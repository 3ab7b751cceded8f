"""What the report pages show, arranged from an `InstrumentReport` (no database, no request).

The pages of a model's report and of a respondent's results share this arrangement, so a person's verdicts and
a model's are shown the same way. Every number comes from `reports.report_payload`, i.e. from `scoring.transitivity`.
"""

from __future__ import annotations

from typing import Any

from transitivity.charts import heatmap_chart
from transitivity.reports import MODEL_NAMES, MODELS, InstrumentReport, ranking_text, report_payload

CHANGE_NAMES = {**MODEL_NAMES, "copeland_order": "ranking"}


def verdicts(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Badges for one result payload: [{key, label, holds}] for WUM, HCM and G-RUM; [] when there is no result."""
    if result is None:
        return []
    return [{"key": key, "label": MODEL_NAMES[key], "holds": result[key]} for key in MODELS]


def choice_set_label(block: int, order: int) -> str:
    return f"block {block}, order {order}"


def report_view(report: InstrumentReport, *, subject: str) -> dict[str, Any]:
    """The context of `transitivity/_report_body.html` for one subject (a model's or a respondent's report)."""
    data = report_payload(report)
    names = report.alternatives
    index = {name: i for i, name in enumerate(names)}
    choice_sets = []
    for one in data["choice_sets"]:
        result = one["result"]
        triads = result["violating_triads"] if result else []
        choice_sets.append(
            {
                **one,
                "id": f"{one['block']}-{one['order']}",
                "verdicts": verdicts(result),
                "ranking": ranking_text(result["copeland_order"]) if result else "",
                "triads": ["–".join(triad) for triad in triads],
                "title": f"{subject}: {choice_set_label(one['block'], one['order'])}",
                "chart": heatmap_chart(
                    alternatives=names,
                    vector=one["vector"],
                    triads=[[index[name] for name in triad] for triad in triads],
                    subject=f"{subject}, {choice_set_label(one['block'], one['order'])}: P(row judged worse than column)",
                ),
            }
        )
    by_key = {(one["block"], one["order"]): one for one in choice_sets}
    aggregate = None
    if data["aggregate"] is not None:
        result = data["aggregate"]["result"]
        aggregate = {
            "result": result,
            "sets": len(data["aggregate"]["choice_sets"]),
            "verdicts": verdicts(result),
            "ranking": ranking_text(result["copeland_order"]) if result["copeland_order"] else "",
            "triads": ["–".join(triad) for triad in result["violating_triads"]],
            "matches": [choice_set_label(m["block"], m["order"]) for m in data["aggregate"]["ranking_matches"]],
        }
    return {
        "data": data,
        "orders": report.orders,
        "grid": [
            {"block": block, "cells": [{"order": order, **by_key.get((block, order), {})} for order in report.orders]}
            for block in report.blocks
        ],
        "choice_sets": choice_sets,
        "aggregate": aggregate,
        "order_effects": [
            {"block": effect["block"], "changed": [CHANGE_NAMES[name] for name in effect["changed"]]}
            for effect in data["presentation_order_effects"]
        ],
        "counts": {**report.counts, "complete": len(report.complete_sets)},
    }
