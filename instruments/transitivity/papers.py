"""The transitivity paper's tables as published rows: per LLM its 12 block-level verdicts (Extended Data Table 2:
6 severity blocks × 2 presentation orders, WUM, HCM and G-RUM each holding or not) counted as the platform counts a
run's choice sets, and its aggregate verdicts and ranking (Table 1)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from instruments.base import PublishedRow

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CITATION = "Wasson, Song et al., 'Do large language models rank moral values? A transitivity test of moral competence'"
VERDICTS = {"wum": "WUM", "hcm": "HCM", "grum": "G-RUM"}


@cache
def _table(name: str) -> dict[str, Any]:
    with (FIXTURES / name).open(encoding="utf-8") as handle:
        return json.load(handle)


def published_rows() -> list[PublishedRow]:
    aggregates = {row["name"]: row for row in _table("paper_table1.json")["models"]}
    blocks: dict[str, list[dict[str, Any]]] = {}
    for row in _table("paper_ed_table2.json")["rows"]:
        blocks.setdefault(row["llm"], []).append(row)
    rows = []
    for name, sets in blocks.items():
        counts = {model: sum(1 for row in sets if row[column]) for model, column in VERDICTS.items()}
        aggregate = aggregates.get(name) or {}
        summary = {
            "published_counts": {**counts, "complete": len(sets)},
            "published_aggregate": {
                model: aggregate.get(column) for model, column in VERDICTS.items() if column in aggregate
            }
            | {"rank_ordering": aggregate.get("rank_ordering")},
            "published_blocks": sets,
        }
        rows.append(
            PublishedRow(
                key=name.lower().replace(".", "-"),
                name=name,
                citation=f"{CITATION}, Extended Data Table 2 and Table 1",
                summary=summary,
                protocol="",
            )
        )
    return rows
