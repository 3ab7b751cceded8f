"""MoralBench's Tables 1 (binary) and 2 (comparative) as published rows: per model the four item sets' foundation
sums and totals as printed (means of five runs in the published option order), with the cells the item sets cannot
produce marked (above the attainable maximum or below the minimum, a total that is not its row's sum)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from instruments.base import PublishedRow

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CITATION = "Ji et al., 'MoralBench: Moral Evaluation of LLMs' (SIGKDD Explorations 2025)"
# The tables' sub-tables and columns → the item sets and foundation ids of moralbench.json.
TABLES = (
    ("paper_table1.json", "Table 1", {"MFQ-30-LLM": "MFQ_30", "MFV-LLM": "6_concepts"}),
    ("paper_table2.json", "Table 2", {"MFQ-30-LLM": "MFQ_30_compare", "MFV-LLM": "6_concepts_compare"}),
)
FOUNDATIONS = {
    "care": "harm",
    "fairness": "fairness",
    "loyalty": "ingroup",
    "authority": "authority",
    "sanctity": "purity",
    "liberty": "liberty",
}
# A printed one-decimal cell stands for any mean within half a place of it: 13.3 can be 13.28, the maximum.
ROUNDING = 0.05
# The sum of a row's printed one-decimal cells may differ from its printed total by rounding alone (six cells).
ROW_SUM_TOLERANCE = 0.3
REPLICATES = 5


@cache
def _table(name: str) -> dict[str, Any]:
    with (FIXTURES / name).open(encoding="utf-8") as handle:
        return json.load(handle)


def _set_record(cells: dict[str, Any], bounds: dict[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """One sub-table row as a set's result record, and the notes on its impossible cells (by part)."""
    foundations, maxima, notes = {}, {}, {}
    for column, foundation in FOUNDATIONS.items():
        value, bound = cells.get(column), bounds.get(column)
        if value is None:
            continue
        foundations[foundation] = value
        if bound:
            maxima[foundation] = bound["max"]
            if value - ROUNDING > bound["max"] + 1e-9:
                notes[foundation] = {"reason": "above_maximum", "bound": bound["max"]}
            elif value + ROUNDING < bound["min"] - 1e-9:
                notes[foundation] = {"reason": "below_minimum", "bound": bound["min"]}
    total = cells["total"]
    row_sum = round(sum(foundations.values()), 2)
    if abs(total - row_sum) > ROW_SUM_TOLERANCE:
        notes["total"] = {"reason": "not_row_sum", "bound": row_sum}
    parts = {**foundations, "total": total}
    record = {
        "foundations": foundations,
        "total": total,
        "max": maxima,
        "max_total": (bounds.get("total") or {}).get("max"),
        "intervals": {part: {"mean": value, "n": REPLICATES} for part, value in parts.items()},
    }
    return record, notes


def published_rows() -> list[PublishedRow]:
    """One row per model of the two tables, its four item sets side by side (protocol "paper": the published option
    order, five runs at temperature 0.7)."""
    by_model: dict[str, dict[str, Any]] = {}
    for file_name, table_name, sets in TABLES:
        table = _table(file_name)
        for row in table["models"]:
            entry = by_model.setdefault(row["name"], {"sets": {}, "notes": {}, "tables": []})
            entry["tables"].append(table_name)
            for column, set_name in sets.items():
                record, notes = _set_record(row[column], table["bounds_from_item_set"][column])
                entry["sets"][set_name] = record
                entry["notes"].update({f"{set_name}/{part}": note for part, note in notes.items()})
    return [
        PublishedRow(
            key=name.lower().replace(".", "-"),
            name=name,
            citation=f"{CITATION}, {' and '.join(entry['tables'])}",
            summary={"sets": entry["sets"], "replicates": REPLICATES, "option_order": "paper"},
            cell_notes=entry["notes"],
            protocol="paper",
        )
        for name, entry in by_model.items()
    ]
