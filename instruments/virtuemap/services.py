"""Writes of the VirtueMap instrument's content: loading it from its fixture (the virtues, dilemmas, responses and
the published key) and its other editions' texts from the translation fixtures beside it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from instruments.loading import InstrumentLoadReport, upsert
from instruments.virtuemap.editions import EDITIONS, ENGLISH
from instruments.virtuemap.models import (
    Dilemma,
    KeyCandidate,
    Option,
    Virtue,
    VirtueMapInstrument,
)
from scoring.rankings import validate_ranking

INSTRUMENT_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "instrument.json"


# The texts an edition translates, per kind of row: the fixture's key → the row's field.
VIRTUE_TEXTS = {"name": "name", "short_definition": "short_definition", "definition": "definition"}
DILEMMA_TEXTS = {"title": "title", "scenario": "scenario"}
PROMPT_TEXTS = {"user": "llm_prompt_template", "note": "llm_prompt_note"}


@transaction.atomic
def instrument_load(*, data: dict[str, Any], editions: Sequence[dict[str, Any]] = ()) -> InstrumentLoadReport:
    """Load the VirtueMap instrument (virtues, dilemmas, options, published key) idempotently.

    The published key is stored as round-0 KeyCandidates with provenance "published". A published key is
    retained only when it is first created and no other key is retained for that dilemma×virtue; a re-run
    never touches existing key candidates, so keys superseded by a validation study stay superseded.
    Every ordering is checked as a permutation of A–E before anything is written.

    ``editions``: translation fixtures (`edition_texts`), checked whole before anything is written; their texts
    become every row's ``translations``. Without any, the translations already stored are left as they are.
    """
    translations = _translations(data, editions)
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
            **translations.get("instrument", {}),
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
                **translations.get(("virtue", virtue["id"]), {}),
            },
        )
    for position, dilemma in enumerate(data["dilemmas"], start=1):
        dilemma_row = upsert(
            Dilemma,
            report,
            {"id": dilemma["id"]},
            {
                "title": dilemma["title"],
                "scenario": dilemma["scenario"],
                "position": position,
                **translations.get(("dilemma", dilemma["id"]), {}),
            },
        )
        for letter, text in sorted(dilemma["options"].items()):
            values = {"text": text, **translations.get(("option", dilemma["id"], letter), {})}
            upsert(Option, report, {"dilemma": dilemma_row, "letter": letter}, values)
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


def edition_fixture(path: Path, language: str) -> Path:
    """Where the ``language`` edition of the instrument fixture at ``path`` lives: instrument.zh-hans.json."""
    return path.with_name(f"{path.stem}.{language}{path.suffix}")


def instrument_load_file(*, path: Path = INSTRUMENT_FIXTURE) -> InstrumentLoadReport:
    """Load the fixture at ``path`` with every edition fixture found beside it."""
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    editions = []
    for language in EDITIONS:
        translated = edition_fixture(path, language)
        if language != ENGLISH and translated.exists():
            editions.append(json.loads(translated.read_text(encoding="utf-8")))
    return instrument_load(data=data, editions=editions)


def edition_texts(data: dict[str, Any], edition: dict[str, Any]) -> dict[Any, dict[str, str]]:
    """The texts of one translation fixture, per row: ("virtue", id), ("dilemma", id), ("option", dilemma id, letter)
    and "instrument" → field → text. Raise ValueError unless it is an edition the instrument has, of this instrument,
    and translates every text of ``data`` (the English fixture) with a non-empty text and nothing else."""
    language = edition.get("language")
    if language not in EDITIONS or language == ENGLISH:
        raise ValueError(f"the edition's language must be one of {', '.join(EDITIONS[1:])}, got {language!r}")
    if edition.get("instrument") != data["instrument"]:
        raise ValueError(f"the {language} edition is of {edition.get('instrument')!r}, not {data['instrument']!r}")
    texts: dict[Any, dict[str, str]] = {}
    virtues = _by_id(edition.get("virtues"), [virtue["id"] for virtue in data["virtues"]], f"{language} virtues")
    for virtue_id, virtue in virtues.items():
        texts[("virtue", virtue_id)] = _texts(virtue, VIRTUE_TEXTS, f"{language} virtue {virtue_id}")
    dilemmas = _by_id(edition.get("dilemmas"), [dilemma["id"] for dilemma in data["dilemmas"]], f"{language} dilemmas")
    english_options = {dilemma["id"]: dilemma["options"] for dilemma in data["dilemmas"]}
    for dilemma_id, dilemma in dilemmas.items():
        texts[("dilemma", dilemma_id)] = _texts(dilemma, DILEMMA_TEXTS, f"{language} dilemma {dilemma_id}")
        options = dilemma.get("options")
        if not isinstance(options, dict) or sorted(options) != sorted(english_options[dilemma_id]):
            raise ValueError(f"the {language} dilemma {dilemma_id} must translate responses A–E, no more, no less")
        for letter in options:
            texts[("option", dilemma_id, letter)] = _texts(
                options, {letter: "text"}, f"{language} {dilemma_id}{letter}"
            )
    prompt = _texts(edition.get("llm_prompt_template") or {}, PROMPT_TEXTS, f"{language} prompt")
    if not all(placeholder in prompt["llm_prompt_template"] for placeholder in ("{scenario}", "{responses}")):
        raise ValueError(f"the {language} prompt must keep the placeholders {{scenario}} and {{responses}}")
    note = _texts(edition, {"translation_note": "translation_note"}, f"{language} edition")
    # A change of the edition's item text is a new edition version, which runs and answers record.
    version = edition.get("edition_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"the {language} edition_version must be a whole number from 1, got {version!r}")
    texts["instrument"] = {**prompt, **note, "edition_version": str(version)}
    return texts


def _by_id(rows: Any, ids: list[str], what: str) -> dict[str, dict[str, Any]]:
    found = {row.get("id"): row for row in rows or () if isinstance(row, dict)}
    if sorted(found) != sorted(ids):
        raise ValueError(f"the {what} must be exactly {', '.join(ids)}, got {', '.join(map(str, found)) or 'none'}")
    return found


def _texts(source: dict[str, Any], fields: dict[str, str], what: str) -> dict[str, str]:
    texts = {field: source.get(key) for key, field in fields.items()}
    empty = [key for key, field in fields.items() if not isinstance(texts[field], str) or not texts[field].strip()]
    if empty:
        raise ValueError(f"the {what} has no text for {', '.join(empty)}")
    return texts  # type: ignore[return-value]


def _translations(data: dict[str, Any], editions: Sequence[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    """Every row's ``translations`` value from the editions (language → field → text), as extra upsert values; empty
    without editions, so that a load of the English fixture alone leaves the stored translations alone."""
    merged: dict[Any, dict[str, Any]] = {}
    for edition in editions:
        for row, texts in edition_texts(data, edition).items():
            merged.setdefault(row, {"translations": {}})["translations"][edition["language"]] = texts
    return merged
