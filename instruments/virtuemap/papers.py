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

from instruments.base import PrintedSummary, PublishedRow

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


def published_rows() -> list[PublishedRow]:
    """Table 1's nine rows as published rows: the virtue means, consistency and largest CI half-width as printed,
    made by the original run-suite's protocol (how the paper's profiles were made)."""
    from instruments.virtuemap.protocols import ORIGINAL

    table = table1()
    rows = []
    for row in table["models"]:
        summary = {
            "runs": row["runs"],
            "profile_stats": {
                virtue: {"mean": mean, "std": None, "ci_low": None, "ci_high": None, "ci_half_width": None}
                for virtue, mean in row["profile"].items()
            },
            "max_ci_half_width": row["ci_half_width_max"],
            "mean_pairwise_kendall_tau": None,
            "consistency": row["consistency"],
            "consistency_stats": None,
            "invalid_count": None,
            "failure_counts": None,
            "reproduced_by": row_models().get(row["name"], ""),
        }
        rows.append(
            PublishedRow(
                key=row["name"].lower(),
                name=row["name"],
                citation=f"{CITATION}, Table 1",
                summary=summary,
                protocol=ORIGINAL,
            )
        )
    return rows
