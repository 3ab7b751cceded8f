"""Writes of the transitivity instrument: loading it. LLM choice runs go through the one run engine (`plugin`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from instruments.loading import InstrumentLoadReport, upsert
from instruments.transitivity.models import Block, Principle, TransitivityInstrument, Vignette

TRANSITIVITY_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "vignettes.json"


# --- the instrument -----------------------------------------------------------------------------------------


def _instrument_validate(data: dict[str, Any]) -> None:
    """Raise ValidationError unless every block has exactly one vignette per principle and the prompt both slots."""
    codes = [principle["code"] for principle in data["principles"]]
    if len(set(codes)) != len(codes):
        raise ValidationError("principle codes repeat")
    for block in data["blocks"]:
        shown = sorted(vignette["principle"] for vignette in block["vignettes"])
        if shown != sorted(codes):
            raise ValidationError(f"block {block['block']} does not have exactly one vignette per principle")
    template = data["prompt_template"]
    if "{vignette_1}" not in template or "{vignette_2}" not in template:
        raise ValidationError("the prompt template needs both {vignette_1} and {vignette_2}")


@transaction.atomic
def transitivity_instrument_load(*, data: dict[str, Any]) -> InstrumentLoadReport:
    """Load the transitivity instrument (principles, blocks, vignettes, prompt) idempotently.

    Principles keep the fixture's order as their `index`, the alternative order of `scoring.transitivity`.
    Rows are matched by natural key (principle code, block number, block × principle) and only changed fields
    are written, so a re-run of the same file writes nothing. Raises ValidationError for a malformed file.
    """
    _instrument_validate(data)
    report = InstrumentLoadReport()
    upsert(
        TransitivityInstrument,
        report,
        {"slug": data["instrument"]},
        {
            "version": data["version"],
            "source": data["source"],
            "prompt_template": data["prompt_template"],
            "extraction": data.get("extraction", ""),
            "design": data.get("design", {}),
        },
    )
    for index, principle in enumerate(data["principles"]):
        upsert(
            Principle,
            report,
            {"code": principle["code"]},
            {
                "index": index,
                "name": principle["name"],
                "definition": principle["definition"],
                "military_example": principle.get("military_example", ""),
            },
        )
    for block in data["blocks"]:
        block_row = upsert(Block, report, {"number": block["block"]}, {"severity_rank": block["severity_rank"]})
        for position, vignette in enumerate(block["vignettes"], start=1):
            upsert(
                Vignette,
                report,
                {"block": block_row, "principle_id": vignette["principle"]},
                {"text": vignette["text"], "rating": float(vignette["rating"]), "position": position},
            )
    return report


def transitivity_instrument_load_file(*, path: Path = TRANSITIVITY_FIXTURE) -> InstrumentLoadReport:
    with path.open(encoding="utf-8") as handle:
        return transitivity_instrument_load(data=json.load(handle))
