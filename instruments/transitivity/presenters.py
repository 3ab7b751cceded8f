"""What the report pages show, arranged from a subject's results (see `reports`; no database, no request).

A model's report and a respondent's results share this arrangement, so people and models are shown the same way.
Every number is taken from the results as given, i.e. from `scoring.transitivity`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from instruments.transitivity.charts import heatmap_chart
from instruments.transitivity.reports import MODEL_NAMES, MODELS, ORDERS, counts, ranking_text

CHANGE_NAMES = {**MODEL_NAMES, "copeland_order": gettext_lazy("ranking")}
ORDER_NAMES = {"original": gettext_lazy("original order"), "reversed": gettext_lazy("reversed order")}


def verdicts(result: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Badges for one result: [{key, label, holds}] for WUM, HCM and G-RUM; [] when there is no result."""
    if result is None:
        return []
    return [{"key": key, "label": MODEL_NAMES[key], "holds": result[key]} for key in MODELS]


def choice_set_label(block: int, order: str) -> str:
    return _("block %(block)s, %(order)s") % {"block": block, "order": ORDER_NAMES.get(order, order)}


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
        "title": _("%(subject)s: %(choice_set)s") % {"subject": subject, "choice_set": label},
        "chart": heatmap_chart(
            alternatives=names,
            vector=vector["p"],
            triads=[[index[name] for name in triad] for triad in triads],
            subject=_("%(subject)s, %(choice_set)s: P(row judged worse than column)")
            % {"subject": subject, "choice_set": label},
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


# --- a respondent's results in plain words ------------------------------------------------------------------


def plain_summary(results: Mapping[str, Any], *, situations: Mapping[str, Mapping[str, str]]) -> dict[str, Any] | None:
    """What a respondent's choices say, for the words of their results page; None until one choice set is complete.

    ``situations``: principle code → {"name", "text"} (the principle and the vignette the person read). Reads the
    aggregate over both presentation orders (every choice of the person together): ``one_order`` whether WUM holds
    (the choices can be put in one order, worst first: ``ranking``), ``mixture`` whether G-RUM holds, ``cycles``
    every three situations that formed a cycle (each judged worse than the next, the third worse than the first),
    from the aggregate or else from a single order (``cycle_orders`` names it), and ``per_order`` the verdicts of
    each presentation order alone.
    """
    aggregate = results["aggregate"]
    if aggregate is None:
        return None
    result = aggregate["result"]
    cycles, cycle_orders = result["violating_triads"], []
    if not cycles:
        # All choices together can hang together although one presentation order alone did not.
        for vector in results["vectors"]:
            if vector["result"] and vector["result"]["violating_triads"]:
                cycles = [*cycles, *(t for t in vector["result"]["violating_triads"] if t not in cycles)]
                cycle_orders.append(ORDER_NAMES.get(vector["order"], vector["order"]))
    return {
        "one_order": result["wum"],
        "clear": result["hcm"],
        "mixture": result["grum"],
        "ranking": [{"code": code, **situations[code]} for code in result["copeland_order"] or []],
        "cycles": [[{"code": code, **situations[code]} for code in triad] for triad in cycles],
        "cycle_orders": cycle_orders,
        "per_order": [
            {"order": ORDER_NAMES.get(vector["order"], vector["order"]), "one_order": vector["result"]["wum"]}
            for vector in results["vectors"]
            if vector["result"] is not None
        ],
    }


def block_shares(results: Mapping[str, Any], blocks: set[int] | None = None) -> list[float | None]:
    """P(x worse than y) per pair, the mean over the subject's choice sets (of ``blocks``, default all) that have a
    value for it; None for a pair none has."""
    vectors = [v["p"] for v in results["vectors"] if blocks is None or v["block"] in blocks]
    shares = []
    for pair in range(len(results["pairs"])):
        known = [vector[pair] for vector in vectors if vector[pair] is not None]
        shares.append(sum(known) / len(known) if known else None)
    return shares


def same_side(first: float | None, second: float | None) -> bool | None:
    """Whether two choice shares judge the same situation worse; None when either is missing or exactly ½."""
    if first is None or second is None or first == 0.5 or second == 0.5:
        return None
    return (first > 0.5) == (second > 0.5)


def pair_comparison(
    person: Sequence[float | None], models: Sequence[Mapping[str, Any]], *, block: int
) -> list[dict[str, Any]]:
    """Each model's answers next to a person's on the pairs the person answered (block ``block``).

    ``models``: the models' subject results (`reports.subject_results` shape); one entry each, in their order. A
    model asked that block is compared on the very same pairs of situations; a model not asked it, on the same pairs
    of principles in the blocks it was asked (``same_block`` False, ``blocks`` says which). ``agreed`` of
    ``decided``: the pairs where both judged the same situation worse, of those both decided (neither at ½).
    """
    compared = []
    for results in models:
        asked = sorted({v["block"] for v in results["vectors"]})
        same_block = block in asked
        shares = block_shares(results, {block} if same_block else None)
        sides = [same_side(mine, theirs) for mine, theirs in zip(person, shares, strict=True)]
        compared.append(
            {
                "same_block": same_block,
                "blocks": [block] if same_block else asked,
                "shares": shares,
                "agreed": sum(side is True for side in sides),
                "decided": sum(side is not None for side in sides),
            }
        )
    return compared
