"""Writes of the VirtueMap instrument's content: loading it from its fixture (the virtues, dilemmas, responses and
the published key)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from instruments.loading import InstrumentLoadReport, upsert
from instruments.virtuemap.models import (
    Dilemma,
    KeyCandidate,
    Option,
    Virtue,
    VirtueMapInstrument,
)
from scoring.rankings import validate_ranking

INSTRUMENT_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "instrument.json"


@transaction.atomic
def instrument_load(*, data: dict[str, Any]) -> InstrumentLoadReport:
    """Load the VirtueMap instrument (virtues, dilemmas, options, published key) idempotently.

    The published key is stored as round-0 KeyCandidates with provenance "published". A published key is
    retained only when it is first created and no other key is retained for that dilemma×virtue; a re-run
    never touches existing key candidates, so keys superseded by a validation study stay superseded.
    Every ordering is checked as a permutation of A–E before anything is written.
    """
    report = InstrumentLoadReport()
    published_key = {
        dilemma_id: {virtue_id: "".join(validate_ranking(order)) for virtue_id, order in by_virtue.items()}
        for dilemma_id, by_virtue in data["published_key"].items()
    }
    prompt = data.get("llm_prompt_template", {})
    upsert(
        VirtueMapInstrument,
        report,
        {"slug": data["instrument"]},
        {
            "version": data["version"],
            "source": data["source"],
            "llm_prompt_template": prompt.get("user", ""),
            "llm_prompt_note": prompt.get("note", ""),
            "published_key_provenance": data.get("published_key_provenance", ""),
        },
    )
    for position, virtue in enumerate(data["virtues"], start=1):
        upsert(
            Virtue,
            report,
            {"id": virtue["id"]},
            {
                "name": virtue["name"],
                "greek_name": virtue["greek"],
                "short_definition": virtue["short_definition"],
                "definition": virtue["definition"],
                "position": position,
            },
        )
    for position, dilemma in enumerate(data["dilemmas"], start=1):
        dilemma_row = upsert(
            Dilemma,
            report,
            {"id": dilemma["id"]},
            {"title": dilemma["title"], "scenario": dilemma["scenario"], "position": position},
        )
        for letter, text in sorted(dilemma["options"].items()):
            upsert(Option, report, {"dilemma": dilemma_row, "letter": letter}, {"text": text})
    _load_published_key(published_key, report)
    return report


def _load_published_key(published_key: dict[str, dict[str, str]], report: InstrumentLoadReport) -> None:
    already_retained = set(
        KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED).values_list("dilemma_id", "virtue_id")
    )
    existing_published = set(KeyCandidate.objects.filter(round=0).values_list("dilemma_id", "virtue_id"))
    now = timezone.now()
    for dilemma_id, by_virtue in published_key.items():
        for virtue_id, ordering in by_virtue.items():
            if (dilemma_id, virtue_id) in existing_published:
                continue
            retain = (dilemma_id, virtue_id) not in already_retained
            KeyCandidate.objects.create(
                dilemma_id=dilemma_id,
                virtue_id=virtue_id,
                ordering=ordering,
                round=0,
                provenance=KeyCandidate.Provenance.PUBLISHED,
                status=KeyCandidate.Status.RETAINED if retain else KeyCandidate.Status.SUPERSEDED,
                decided_at=now,
            )
            report.count(report.created, KeyCandidate)


def instrument_load_file(*, path: Path = INSTRUMENT_FIXTURE) -> InstrumentLoadReport:
    with path.open(encoding="utf-8") as handle:
        return instrument_load(data=json.load(handle))
