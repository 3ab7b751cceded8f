"""The VirtueMap paper's Table 1 on the platform: what its text prints over the nine published models, and which
model's imported run-suite records reproduce each printed row.

`fixtures/paper_table1.json` holds the table and the text's figures as printed; `fixtures/reference_profiles_full.json`
names the model (slug) of each row, since the original suite's records carry the same row names as the table.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from instruments.base import PrintedSummary

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TABLE1 = FIXTURES / "paper_table1.json"
REFERENCE_PROFILES = FIXTURES / "reference_profiles_full.json"
CITATION = "Tzachristas & Pavlopoulos, 'Aristotelian Virtue Profiling of LLMs through Ethical Dilemmas' (VirtueMap)"


@cache
def table1() -> dict[str, Any]:
    """The paper's Table 1 and the text's figures, as printed."""
    with TABLE1.open(encoding="utf-8") as handle:
        return json.load(handle)


@cache
def row_models() -> dict[str, str]:
    """Table 1's row name → the slug of the model the original suite's records name the same way."""
    with REFERENCE_PROFILES.open(encoding="utf-8") as handle:
        return {model["name"]: model["slug"] for model in json.load(handle)["models"]}


def printed_cells(row: dict[str, Any]) -> dict[str, float]:
    """A printed row's cells by figure key: the five virtue means and the consistency."""
    return {**row["profile"], "consistency": row["consistency"]}


def printed_summary() -> PrintedSummary:
    """Table 1's text: the mean of each virtue and of the consistency over the nine models (one decimal) and the
    ranges of courage, temperance and justice (two decimals, from unrounded means)."""
    table = table1()
    summary = table["published_summary"]
    slugs = row_models()
    return PrintedSummary(
        source=table["source"],
        models={slugs[row["name"]]: row["name"] for row in table["models"] if row["name"] in slugs},
        mean={**summary["mean_by_virtue"], "consistency": summary["mean_consistency"]},
        range=dict(summary["range_by_virtue"]),
        cells={slugs[row["name"]]: printed_cells(row) for row in table["models"] if row["name"] in slugs},
        mean_decimals=1,
        range_decimals=2,
        cell_decimals=1,
    )
