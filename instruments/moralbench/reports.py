"""MoralBench reports from stored results: the paper's two tables, a CSV, and the per-set view of one model.

The paper reports two tables: binary items (MFQ-30-LLM and MFV-LLM side by side) and comparative items (the same
two). Rows are the foundations and the total; a cell is a model's score with its 95 % replicate interval, and the
maximum stands beside each row. Plain functions over results records (`selectors.results_record`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scoring.moralbench import FOUNDATION_NAMES, FOUNDATIONS

TABLES = (
    ("binary", gettext_lazy("Binary items, in the layout of the paper's Table 1"), ("MFQ_30", "6_concepts")),
    (
        "comparative",
        gettext_lazy("Comparative items, in the layout of the paper's Table 2"),
        ("MFQ_30_compare", "6_concepts_compare"),
    ),
)
# The paper's protocol (section 4.1): generated letters, the options in their published order, five runs averaged,
# temperature 0.7. The platform's default asks both option orders instead (counterbalanced), which is not it.
PAPER_PROTOCOL = {"mode": "generate", "option_order": "paper", "replicates": 5, "temperature": 0.7}
# The foundations' names on pages, in the interface's language (`scoring.moralbench.FOUNDATION_NAMES` holds the
# English ones, for the scorer's own output, and has no Django to translate with).
FOUNDATION_LABELS = {
    "harm": gettext_lazy("Care (harm)"),
    "fairness": gettext_lazy("Fairness"),
    "ingroup": gettext_lazy("Loyalty (ingroup)"),
    "authority": gettext_lazy("Authority"),
    "purity": gettext_lazy("Sanctity (purity)"),
    "liberty": gettext_lazy("Liberty"),
}
SET_TITLES = {
    "MFQ_30": "MFQ-30-LLM",
    "6_concepts": "MFV-LLM",
    "MFQ_30_compare": "MFQ-30-LLM",
    "6_concepts_compare": "MFV-LLM",
}


def foundation_name(foundation: str) -> str:
    """A foundation's name in the interface's language; the scorer's name (or the key) for one without a label."""
    return str(FOUNDATION_LABELS.get(foundation) or FOUNDATION_NAMES.get(foundation, foundation))


def protocol(result: Mapping[str, Any]) -> dict[str, Any]:
    """The protocol a result was measured by: {"name", "paper", "label"}.

    "name" is the option order ("paper": the published order only; "counterbalanced": both orders, the platform's
    recommended default); "paper" is True only when every part of the paper's protocol (`PAPER_PROTOCOL`) holds, or
    for a published row of the paper itself (``"source": "paper"``).
    """
    if result.get("source") == "paper":
        # A published row of the paper's own tables: measured by the paper's protocol, not a run here.
        return {"name": "paper", "paper": True, "label": _("the paper's own row: its protocol")}
    measured = {
        "mode": result.get("mode"),
        "option_order": result.get("option_order"),
        "replicates": result.get("replicates"),
        "temperature": (result.get("run") or {}).get("temperature"),
    }
    is_paper = measured == PAPER_PROTOCOL
    if is_paper:
        label = _("the paper's protocol: the published option order, generated letters, 5 runs, temperature 0.7")
    else:
        order = (
            _("counterbalanced (both option orders, recommended)")
            if measured["option_order"] == "counterbalanced"
            else _("the published option order")
        )
        label = _(
            "%(order)s; %(mode)s, runs: %(replicates)s, temperature %(temperature)s; not the paper's protocol"
        ) % {
            "order": order,
            **{key: "—" if value is None else value for key, value in measured.items() if key != "option_order"},
        }
    return {"name": measured["option_order"], "paper": is_paper, "label": label}


def _cell(record: Mapping[str, Any], foundation: str | None) -> dict[str, Any]:
    """One model's score in one set for a foundation (None: the total) with its interval."""
    interval = record["intervals"]["total" if foundation is None else foundation]
    score = record["total"] if foundation is None else record["foundations"].get(foundation)
    return {"score": score, "low": interval["low"], "high": interval["high"], "n": interval["n"]}


def paper_tables(
    results: Sequence[Mapping[str, Any]],
    maxima: Mapping[str, Mapping[str, float]],
    people: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[dict]:
    """The paper's two tables for ``results`` (one record per model); ``maxima`` is set → foundation → max;
    ``people`` is set → foundation (or "total") → the people's distribution (`scoring.moralbench.distribution`)."""
    people = people or {}
    tables = []
    for key, title, sets in TABLES:
        foundations = [f for f in FOUNDATIONS if any(f in maxima.get(name, {}) for name in sets)]
        rows = []
        for foundation in [*foundations, None]:
            row_max = [
                (maxima.get(name, {}).get(foundation) if foundation else sum(maxima.get(name, {}).values()))
                for name in sets
            ]
            cells = []
            for result in results:
                for name in sets:
                    record = result.get("sets", {}).get(name)
                    present = record is not None and (foundation is None or foundation in record["foundations"])
                    cells.append(_cell(record, foundation) if present else None)
            rows.append(
                {
                    "foundation": foundation or "total",
                    "name": foundation_name(foundation) if foundation else _("Total"),
                    "max": row_max,
                    "cells": cells,
                    "people": [people.get(name, {}).get(foundation or "total") for name in sets],
                }
            )
        tables.append(
            {
                "key": key,
                "title": title,
                "sets": [(name, SET_TITLES[name]) for name in sets],
                "rows": rows,
                "protocols": [protocol(result) for result in results],
                # The maximum's and people's columns, one per set each, under the protocol row.
                "trailing_columns": 2 * len(sets),
            }
        )
    return tables


CSV_COLUMNS = (
    "model",
    "protocol",
    "paper_protocol",
    "set",
    "foundation",
    "score",
    "ci_low",
    "ci_high",
    "replicates",
    "max",
    "unusable_share",
    "follows_position",
)


def results_csv(results: Sequence[Mapping[str, Any]]) -> str:
    """One row per model × set × foundation (and the total), with the interval, maximum and the set's diagnostics."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for result in results:
        measured = protocol(result)
        for set_name, record in result.get("sets", {}).items():
            effect = record.get("order_effect") or {}
            for foundation in [*record["foundations"], "total"]:
                cell = _cell(record, None if foundation == "total" else foundation)
                maximum = record["max_total"] if foundation == "total" else record["max"][foundation]
                writer.writerow(
                    [
                        result["model"]["slug"],
                        measured["name"],
                        "yes" if measured["paper"] else "no",
                        set_name,
                        foundation,
                        _text(cell["score"]),
                        _text(cell["low"]),
                        _text(cell["high"]),
                        cell["n"],
                        maximum,
                        _text(record["answers"].get("unusable_share")),
                        _text(effect.get("follows_position")),
                    ]
                )
    return out.getvalue()


def _text(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def order_effect_items(record: Mapping[str, Any], *, threshold: float = 0.5) -> list[dict[str, Any]]:
    """The items of a set whose answers followed the position at least ``threshold`` of the time, worst first."""
    effect = record.get("order_effect") or {}
    items = [
        {"item": item, **values}
        for item, values in (effect.get("items") or {}).items()
        if values["follows_position"] is not None and values["follows_position"] >= threshold
    ]
    return sorted(items, key=lambda row: (-row["follows_position"], row["item"]))
