"""Writes of the MoralBench instrument: loading the published item sets. Model runs go through the one run engine
(`plugin`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from instruments.loading import InstrumentLoadReport, upsert
from instruments.moralbench.models import Item, MoralBenchSource
from instruments.moralbench.prompts import PromptError, prompt_parts
from scoring.moralbench import BINARY_SCALE, COMPARATIVE_SETS, FOUNDATIONS, LETTERS, SETS

MORALBENCH_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "moralbench.json"
SLUG = "moralbench"
# Binary option scores are two-decimal means: their sum may miss the scale by rounding only.
SCALE_TOLERANCE = 1e-6


def _scores(where: str, raw: Any) -> dict[str, float]:
    if not isinstance(raw, dict) or sorted(raw) != list(LETTERS):
        raise ValidationError(f"{where}: option_scores must hold exactly A and B")
    scores = {}
    for letter in LETTERS:
        value = raw[letter]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise ValidationError(f"{where}: option {letter} scores {value!r}, not a non-negative number")
        scores[letter] = float(value)
    return scores


def _item_validate(set_name: str, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ValidationError(f"{set_name}: every item must be an object")
    item_id, foundation, prompt = raw.get("id"), raw.get("foundation"), raw.get("prompt")
    where = f"{set_name}/{item_id}"
    if not isinstance(item_id, str) or not item_id:
        raise ValidationError(f"{set_name}: an item has no id")
    if foundation not in FOUNDATIONS or not item_id.startswith(f"{foundation}_"):
        raise ValidationError(f"{where}: foundation {foundation!r} is not one of {', '.join(FOUNDATIONS)}")
    if not isinstance(prompt, str):
        raise ValidationError(f"{where}: the prompt must be text")
    try:
        prompt_parts(prompt)
    except PromptError as error:
        raise ValidationError(f"{where}: {error}") from None
    scores = _scores(where, raw.get("option_scores"))
    if set_name in COMPARATIVE_SETS:
        if set(scores.values()) - {0.0, 1.0}:
            raise ValidationError(f"{where}: a comparative item scores its options 1 or 0")
    elif abs(scores["A"] + scores["B"] - BINARY_SCALE[set_name]) > SCALE_TOLERANCE:
        raise ValidationError(f"{where}: the option scores must sum to {BINARY_SCALE[set_name]:g}")
    return {"id": item_id, "foundation": foundation, "prompt": prompt, "scores": scores}


def _validated(data: Any) -> dict[str, list[dict[str, Any]]]:
    """The four sets' items, checked; raise ValidationError naming the first problem."""
    if not isinstance(data, dict):
        raise ValidationError("the file must hold a JSON object")
    for field in ("source", "system_prompt"):
        if not isinstance(data.get(field), str) or not data[field].strip():
            raise ValidationError(f"{field} must be non-empty text")
    sets = data.get("sets")
    if not isinstance(sets, dict) or sorted(sets) != sorted(SETS):
        raise ValidationError(f"sets must be exactly {', '.join(SETS)}")
    validated = {}
    for set_name in SETS:
        if not isinstance(sets[set_name], list) or not sets[set_name]:
            raise ValidationError(f"{set_name} must be a non-empty list of items")
        items = [_item_validate(set_name, raw) for raw in sets[set_name]]
        ids = [item["id"] for item in items]
        if len(set(ids)) != len(ids):
            raise ValidationError(f"{set_name}: item ids repeat")
        validated[set_name] = items
    return validated


@transaction.atomic
def moralbench_load(*, data: Any) -> InstrumentLoadReport:
    """Load MoralBench's four item sets and the paper's system prompt, idempotently.

    Items are matched by (set, published id) and keep the file's order as their position; only changed fields are
    written, so a re-run of the same file writes nothing. Raises ValidationError for a malformed file, before any
    write.
    """
    sets = _validated(data)
    report = InstrumentLoadReport()
    upsert(
        MoralBenchSource,
        report,
        {"slug": SLUG},
        {"source": data["source"], "system_prompt": data["system_prompt"], "scoring": data.get("scoring", {})},
    )
    for set_name, items in sets.items():
        for position, item in enumerate(items, start=1):
            upsert(
                Item,
                report,
                {"set_name": set_name, "item_id": item["id"]},
                {
                    "position": position,
                    "foundation": item["foundation"],
                    "prompt": item["prompt"],
                    "score_a": item["scores"]["A"],
                    "score_b": item["scores"]["B"],
                },
            )
    return report


def moralbench_load_file(*, path: Path = MORALBENCH_FIXTURE) -> InstrumentLoadReport:
    try:
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as error:
        raise ValidationError(f"not JSON: {error}") from None
    return moralbench_load(data=data)
