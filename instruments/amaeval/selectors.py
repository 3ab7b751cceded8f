"""Reads of the AMAeval instrument: the dataset as loaded, and the published results for the pages and the API."""

from __future__ import annotations

from typing import Any

from instruments.amaeval.models import Derivation, Evaluation, Scenario

VALUES_FALLBACK = ("Authority", "Care", "Fairness", "Loyalty", "Sanctity")


def moral_values() -> list[str]:
    """The moral values in the dataset's order (as loaded), or AMAeval's five before loading."""
    rows = Derivation.objects.order_by("position").values_list("position", "value").distinct()
    values = [value for _, value in dict(rows).items()]
    return values or list(VALUES_FALLBACK)


def dataset() -> dict[str, Any]:
    """The loaded dataset in the structure of final_dataset.json ({"moral_values", "data"}), {"data": []} if none."""
    values = moral_values()
    derivations: dict[int, list[dict[str, Any]]] = {}
    for row in Derivation.objects.order_by("scenario", "position"):
        record = {"conclusion": row.precept, "reasoning": row.reasoning, "score": row.score}
        if row.additional_score is not None:
            record["additional_score"] = row.additional_score
        derivations.setdefault(row.scenario_id, []).append(record)
    evaluations: dict[int, dict[int, dict[int, dict[str, Any]]]] = {}
    for row in Evaluation.objects.all():
        cell = evaluations.setdefault(row.scenario_id, {}).setdefault(row.action, {}).setdefault(row.position, {})
        cell[row.kind] = {"reasoning": row.reasoning, "score": row.score}
        if row.additional_score is not None:
            cell[row.kind]["additional_score"] = row.additional_score
    data = []
    for scenario in Scenario.objects.order_by("index"):
        item: dict[str, Any] = {"scenario": scenario.text, "precepts": derivations.get(scenario.index, [])}
        if scenario.actions:
            rows = evaluations.get(scenario.index, {})
            item |= {
                "actions": scenario.actions,
                "consequences": scenario.consequences,
                "evaluations": [
                    [rows.get(action, {}).get(position, {}) for position in range(len(values))]
                    for action in range(len(scenario.actions))
                ],
            }
        data.append(item)
    return {"moral_values": values, "data": data}


def scenarios() -> list[tuple[int, str]]:
    return list(Scenario.objects.order_by("index").values_list("index", "text"))


def dataset_counts() -> dict[str, int]:
    return {
        "scenarios": Scenario.objects.count(),
        "derivations": Derivation.objects.count(),
        "evaluations": Evaluation.objects.count(),
    }
