"""Reads of the AMAeval instrument: the dataset as loaded, and the published results for the pages and the API."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from instruments.amaeval import items
from instruments.amaeval.models import Derivation, Evaluation, Scenario
from scoring.amaeval import PersonRating, task1_class

INSTRUMENT = "amaeval"

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


def rating_items() -> list[items.RatingItem]:
    """Every task-1 and task-2 item of the loaded dataset, in the dataset's order."""
    return items.rating_items(dataset())


def rating_texts(item_id: str) -> dict[str, Any]:
    """What a person is shown of one rating item: the scenario, the value, the precept and the reasoning, and for task
    2 the action and its consequence. Raises Derivation.DoesNotExist or Evaluation.DoesNotExist for an unknown id."""
    parts = item_id.split("/")
    if parts[0] == "t1" and len(parts) == 3:
        scenario, value, action, kind = parts[1], parts[2], None, None
    elif parts[0] == "t2" and len(parts) == 5:
        scenario, action, value, kind = parts[1:]
    else:
        raise Derivation.DoesNotExist(f"{item_id!r} is no rating item")
    derivation = Derivation.objects.select_related("scenario").get(scenario_id=int(scenario), value=value)
    texts = {"scenario": derivation.scenario.text, "value": value, "precept": derivation.precept}
    if action is None:
        return texts | {"reasoning": derivation.reasoning}
    row = Evaluation.objects.get(scenario_id=int(scenario), action=int(action), value=value, kind=kind)
    return texts | {
        "reasoning": row.reasoning,
        "action": derivation.scenario.actions[row.action],
        "consequence": derivation.scenario.consequences[row.action],
    }


def rating_class(task: int, rating: Any) -> int:
    """The class of a person's stored rating: task 1 1–4 or "n/a" (class 0), task 2 0 or 1."""
    return task1_class(rating) if task == 1 else int(rating)


def people_ratings(bank: Sequence[items.RatingItem] | None = None) -> list[PersonRating]:
    """Every rating people gave in the AMAeval questionnaire, with its item's gold label from ``bank`` (default: the
    loaded dataset's items), from the respondents who may enter a public aggregate
    (`surveys.selectors.public_questionnaire_answers`). A withdrawn respondent's answers are deleted with them; an item
    no longer in the dataset is left out."""
    from surveys.selectors import public_questionnaire_answers

    gold = {item.id: item.gold for item in (rating_items() if bank is None else bank) if item.gold is not None}
    rows = public_questionnaire_answers(instrument=INSTRUMENT).values_list("session__respondent_id", "item", "value")
    return [
        PersonRating(respondent, item["task"], gold[item["id"]], rating_class(item["task"], value["rating"]))
        for respondent, item, value in rows.iterator()
        if item["id"] in gold
    ]
