"""What the report pages show, arranged from a subject's results (see `reports`; no database, no request).

A model's report and a respondent's results share this arrangement, so people and models are shown the same way.
Every number is taken from the results as given, i.e. from `scoring.transitivity`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from instruments.transitivity.charts import heatmap_chart
from instruments.transitivity.reports import MODEL_NAMES, MODELS, ORDERS, counts, ranking_text

CHANGE_NAMES = {**MODEL_NAMES, "copeland_order": "ranking"}
ORDER_NAMES = {"original": "original order", "reversed": "reversed order"}


def verdicts(result: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Badges for one result: [{key, label, holds}] for WUM, HCM and G-RUM; [] when there is no result."""
    if result is None:
        return []
    return [{"key": key, "label": MODEL_NAMES[key], "holds": result[key]} for key in MODELS]


def choice_set_label(block: int, order: str) -> str:
    return f"block {block}, {ORDER_NAMES.get(order, order)}"


def _choice_set(
    vector: Mapping[str, Any], names: list[str], subject: str, *, position_driven: bool = False
) -> dict[str, Any]:
    result = vector["result"]
    triads = result["violating_triads"] if result else []
    index = {name: i for i, name in enumerate(names)}
    label = choice_set_label(vector["block"], vector["order"])
    return {
        **vector,
        "id": f"{vector['block']}-{vector['order']}",
        "position_driven": position_driven,
        "order_name": ORDER_NAMES.get(vector["order"], vector["order"]),
        "missing": len(vector["missing_pairs"]),
        "verdicts": verdicts(result),
        "ranking": ranking_text(result["copeland_order"]) if result else "",
        "triads": ["–".join(triad) for triad in triads],
        "title": f"{subject}: {label}",
        "chart": heatmap_chart(
            alternatives=names,
            vector=vector["p"],
            triads=[[index[name] for name in triad] for triad in triads],
            subject=f"{subject}, {label}: P(row judged worse than column)",
        ),
    }


def report_view(results: Mapping[str, Any], *, subject: str) -> dict[str, Any]:
    """The context of `transitivity/_report_body.html` for one subject's results.

    A block whose two presentation orders give different Copeland orders (or a ranking in one order only) is
    position-driven: its single orders' verdicts are marked so, and the report leads with the order effects and the
    aggregate over both orders (``order_led``).
    """
    names = list(results["alternatives"])
    driven = sorted(
        effect["block"] for effect in results["presentation_order_effects"] if "copeland_order" in effect["changed"]
    )
    choice_sets = [
        _choice_set(vector, names, subject, position_driven=vector["block"] in driven) for vector in results["vectors"]
    ]
    by_key = {(one["block"], one["order"]): one for one in choice_sets}
    orders = [order for order in ORDERS if any(key[1] == order for key in by_key)]
    blocks = sorted({block for block, _ in by_key})
    aggregate = None
    if results["aggregate"] is not None:
        result = results["aggregate"]["result"]
        aggregate = {
            "result": result,
            "sets": len(results["aggregate"]["of"]),
            "verdicts": verdicts(result),
            "ranking": ranking_text(result["copeland_order"]),
            "triads": ["–".join(triad) for triad in result["violating_triads"]],
            "matches": [choice_set_label(block, order) for block, order in results["aggregate"]["matching"]],
        }
    return {
        "orders": [{"code": order, "name": ORDER_NAMES.get(order, order)} for order in orders],
        "grid": [
            {"block": block, "cells": [{"order": order, **by_key.get((block, order), {})} for order in orders]}
            for block in blocks
        ],
        "choice_sets": choice_sets,
        "aggregate": aggregate,
        "order_effects": [
            {"block": effect["block"], "changed": [CHANGE_NAMES.get(name, name) for name in effect["changed"]]}
            for effect in results["presentation_order_effects"]
        ],
        "counts": counts(results),
        "position_driven_blocks": driven,
        "order_led": bool(driven),
    }
