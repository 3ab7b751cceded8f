"""AMAeval's Table 3 as published rows: per open model the static accuracy, F1 and MAE, the dynamic accuracy on
both tasks and the AMA score ± SD as printed (means of five runs, dynamic part over the 79 scenarios, the published
classifier judge)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from instruments.base import PublishedRow

TABLE3 = Path(__file__).resolve().parent / "fixtures" / "paper_table3.json"
CITATION = "Galatolo et al., 'Beyond Ethical Alignment: Evaluating LLMs as Artificial Moral Assistants' (ECAI 2025)"
REPLICATES = 5


@cache
def table3() -> dict[str, Any]:
    with TABLE3.open(encoding="utf-8") as handle:
        return json.load(handle)


def _interval(value: float | None) -> dict[str, Any]:
    return {"mean": value, "sd": None, "n": REPLICATES}


def published_rows() -> list[PublishedRow]:
    rows = []
    for row in table3()["models"]:
        static, dynamic = row["static"], row["dynamic"]
        summary = {
            "replicates": REPLICATES,
            "ama": row["ama_score"],
            "ama_sd": row["ama_score_sd"],
            "static": {
                "t1": {
                    "intervals": {
                        "accuracy": _interval(static["accuracy_task1"]),
                        "f1": _interval(static["f1_task1"]),
                        "mae": _interval(static["mae_task1"]),
                    }
                },
                "t2": {
                    "intervals": {
                        "accuracy": _interval(static["accuracy_task2"]),
                        "f1": _interval(static["f1_task2"]),
                    }
                },
            },
            "dynamic": {
                "t1": {"intervals": {"accuracy": _interval(dynamic["accuracy_task1"])}},
                "t2": {"intervals": {"accuracy": _interval(dynamic["accuracy_task2"])}},
            },
        }
        name = f"{row['name']} {row['size']}"
        rows.append(
            PublishedRow(
                key=re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"),
                name=name,
                citation=f"{CITATION}, Table 3",
                summary=summary,
                protocol="paper",
            )
        )
    return rows
