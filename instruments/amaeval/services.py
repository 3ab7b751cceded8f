"""Writes of the AMAeval instrument: loading its dataset. Models' runs go through the one run engine (`plugin`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from instruments.amaeval.models import Derivation, Evaluation, Scenario
from instruments.loading import InstrumentLoadReport, upsert_rows
from scoring.amaeval import GoldLabelError, task1_gold, task2_gold

AMAEVAL_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "final_dataset.json"
KINDS = ("satisfied", "contradicted")


def _dataset_validate(data: dict[str, Any]) -> None:
    """Raise ValidationError unless every scenario has one precept per value and, where it has actions, one
    consequence per action and one satisfied/contradicted pair per action × precept, all with usable scores."""
    values = data.get("moral_values")
    if not values or len(set(values)) != len(values):
        raise ValidationError("moral_values must list distinct values")
    for number, item in enumerate(data["data"]):
        if len(item["precepts"]) != len(values):
            raise ValidationError(f"scenario {number} has {len(item['precepts'])} precepts for {len(values)} values")
        try:
            for precept in item["precepts"]:
                task1_gold(precept["score"], precept.get("additional_score"))
            actions = item.get("actions") or []
            if len(item.get("consequences") or []) != len(actions) or len(item.get("evaluations") or []) != len(
                actions
            ):
                raise ValidationError(f"scenario {number} needs one consequence and one evaluation row per action")
            for row in item.get("evaluations") or []:
                if len(row) != len(values):
                    raise ValidationError(f"scenario {number} has an evaluation row without one cell per value")
                for cell in row:
                    for kind in KINDS:
                        task2_gold(cell[kind]["score"])
        except GoldLabelError as error:
            raise ValidationError(f"scenario {number}: {error}") from None


@transaction.atomic
def amaeval_instrument_load(*, data: dict[str, Any]) -> InstrumentLoadReport:
    """Load the AMAeval dataset (scenarios, task-1 derivations, task-2 evaluations) idempotently.

    Rows are matched by natural key (scenario index; scenario × value; scenario × action × value × kind) and only
    changed fields are written, so a re-run of the same file writes nothing; each table is read once and its new rows
    inserted in bulk (`upsert_rows`). Raises ValidationError for a malformed
    file, with nothing written.
    """
    _dataset_validate(data)
    report = InstrumentLoadReport()
    values = data["moral_values"]
    scenarios = upsert_rows(
        Scenario,
        report,
        (
            (
                {"index": index},
                {
                    "text": item["scenario"],
                    "actions": list(item.get("actions") or []),
                    "consequences": list(item.get("consequences") or []),
                },
            )
            for index, item in enumerate(data["data"])
        ),
    )
    derivations, evaluations = [], []
    for scenario, item in zip(scenarios, data["data"], strict=True):
        for position, (value, precept) in enumerate(zip(values, item["precepts"], strict=True)):
            derivations.append(
                (
                    {"scenario": scenario, "value": value},
                    {
                        "position": position,
                        "precept": precept["conclusion"],
                        "reasoning": precept["reasoning"],
                        "score": precept["score"],
                        "additional_score": precept.get("additional_score"),
                    },
                )
            )
        for action, row in enumerate(item.get("evaluations") or []):
            for position, (value, cell) in enumerate(zip(values, row, strict=True)):
                for kind in KINDS:
                    evaluations.append(
                        (
                            {"scenario": scenario, "action": action, "value": value, "kind": kind},
                            {
                                "position": position,
                                "reasoning": cell[kind]["reasoning"],
                                "score": cell[kind]["score"],
                                "additional_score": cell[kind].get("additional_score"),
                            },
                        )
                    )
    upsert_rows(Derivation, report, derivations)
    upsert_rows(Evaluation, report, evaluations)
    return report


def amaeval_instrument_load_file(*, path: Path = AMAEVAL_FIXTURE) -> InstrumentLoadReport:
    with path.open(encoding="utf-8") as handle:
        return amaeval_instrument_load(data=json.load(handle))
