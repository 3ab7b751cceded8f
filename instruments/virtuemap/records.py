"""The original VirtueMap run-suite's record files: importing them as runs, and the reference profiles.

A record file is JSON lines: one record per model × run × dilemma (the display permutation, the raw text, the parsed
and canonical rankings, the number of answers, validity) and agent notes. Each model of a file becomes one run of
the engine with status IMPORTED (per file name), its records trials with one imported attempt each (the records keep
only the last answer).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db import transaction

from instruments.base import AnswerStatus
from instruments.virtuemap.parsing import parse_ranking
from instruments.virtuemap.plugin import VirtueMap
from instruments.virtuemap.prompts import canonical_ranking
from instruments.virtuemap.protocols import ORIGINAL
from instruments.virtuemap.selectors import dilemma_id_list
from llmruns.engine import run_progress_refresh, trial_counts_refresh
from llmruns.models import AgentNote, Attempt, LLMModel, Result, Run, Trial
from llmruns.results import result_publish
from scoring.rankings import RankingError, validate_ranking
from virtuemap_site.errors import ApplicationError

INSTRUMENT = VirtueMap.identity.slug
# The raw records of the original VirtueMap run-suite for the paper's nine models, as published (byte-order mark and
# CRLF line ends kept; fixtures/SOURCE.md). tests/data holds a three-model sample of the same suite.
REFERENCE_RUNS = Path(__file__).resolve().parent / "fixtures" / "reference_runs_full.jsonl"


@dataclass
class ImportReport:
    """What `run_records_import` stored: trial records, agent notes, and the runs they went to."""

    items: int = 0
    notes: int = 0
    runs: list[Run] = field(default_factory=list)


class _BadRecord(ValueError):
    pass


@transaction.atomic
def run_records_import(*, lines: Iterable[str], label: str) -> ImportReport:
    """Import the raw records of the original VirtueMap run-suite (JSON lines), idempotently.

    Each model (by ``model_slug``) gets one IMPORTED run per ``label`` (the file name); a record for a run × dilemma
    already stored replaces it, so a re-import changes nothing. Models are created when unknown. Lines may end in CRLF
    or LF and blank lines are skipped (open files with encoding "utf-8-sig", which also drops a byte-order mark).
    Every record is checked before it is stored: a valid record's canonical ranking must be a permutation and equal
    its display ranking mapped through ``display_position_to_canonical``. Raises ApplicationError naming the line;
    nothing of the file is stored then.
    """
    if not dilemma_id_list():
        raise ApplicationError("the VirtueMap instrument is not loaded; run `python manage.py load_instrument` first")
    dilemma_ids = set(dilemma_id_list())
    report = ImportReport()
    runs: dict[str, Run] = {}
    for number, line in enumerate(lines, start=1):
        text = line.strip().lstrip("\ufeff")
        if not text:
            continue
        try:
            record = json.loads(text)
            if not isinstance(record, dict):
                raise _BadRecord("a record is a JSON object")
            if record.get("record_type") == "agent_note":
                _, created = AgentNote.objects.get_or_create(
                    timestamp=datetime.fromisoformat(record["timestamp"]), message=record["message"]
                )
                report.notes += created
                continue
            if record["dilemma_id"] not in dilemma_ids:
                raise _BadRecord(f"unknown dilemma {record['dilemma_id']!r}")
            slug = record["model_slug"]
            if slug not in runs:
                runs[slug] = _import_run(record, label)
            _import_trial(runs[slug], record)
            report.items += 1
        except (KeyError, ValueError, TypeError, AttributeError, RankingError) as error:
            raise ApplicationError(f"line {number}: {_message(error)}", {"line": number}) from error
    for run in runs.values():
        trial_counts_refresh(run.pk)
        run.refresh_from_db()
        run_progress_refresh(run=run)
    report.runs = list(runs.values())
    return report


def _message(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"missing field {error.args[0]!r}"
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at column {error.colno})"
    return str(error)


def _import_run(record: dict[str, Any], label: str) -> Run:
    model, _ = LLMModel.objects.get_or_create(
        slug=record["model_slug"],
        defaults={"name": record["model_name"], "model_id": record["model_slug"], "temperature": record["temperature"]},
    )
    run = Run.objects.filter(model=model, instrument=INSTRUMENT, label=label, status=Run.Status.IMPORTED).first()
    if run is None:
        plugin = VirtueMap()
        run = Run.objects.create(
            model=model,
            instrument=INSTRUMENT,
            instrument_version=plugin.identity.version,
            items_hash=plugin.items_hash(),
            label=label,
            status=Run.Status.IMPORTED,
            # The original suite's records were asked by its own protocol under its plan (3–10 runs, CI 5.0,
            # consistency 95.0, 8 answers): the plan named "original" here.
            plan=plugin.plan({"protocol": ORIGINAL}),
            request_params={"model_id": record["model_slug"], "temperature": record["temperature"]},
        )
    return run


def _import_trial(run: Run, record: dict[str, Any]) -> None:
    display_to_option = {str(label): option for label, option in record["display_position_to_canonical"].items()}
    if sorted(display_to_option.values()) != sorted("ABCDE") or len(display_to_option) != 5:
        raise _BadRecord("display_position_to_canonical is not a mapping of five labels onto A–E")
    valid = bool(record["valid"])
    display_ranking = record.get("display_ranking")
    answer = None
    if valid:
        canonical = "".join(validate_ranking(record["canonical_ranking"]))
        if tuple(canonical) != canonical_ranking(display_ranking, display_to_option):
            raise _BadRecord("canonical_ranking is not display_ranking mapped through the permutation")
        answer = {"display_ranking": [str(label) for label in display_ranking], "ranking": canonical}
    raw_text = record.get("raw_text") or ""
    status = AnswerStatus.VALID if valid else parse_ranking(raw_text).status
    completed_at = datetime.fromisoformat(record["timestamp"])
    attempts = int(record.get("attempts") or 0)
    trial, _ = Trial.objects.update_or_create(
        run=run,
        item=record["dilemma_id"],
        presentation="",
        replicate=int(record["run_id"]),
        defaults={
            "status": Trial.Status.DONE,
            "display": {"display_to_option": display_to_option},
            "answer": answer,
            "answer_status": str(status),
            "attempt_count": attempts,
            "completed_at": completed_at,
        },
    )
    # The original records keep only the last answer and the number of answers.
    Attempt.objects.update_or_create(
        trial=trial,
        number=1,
        defaults={
            "step": "answer",
            "counts_as_answer": True,
            "raw_text": raw_text,
            "status": str(status),
            "imported": True,
            "at": completed_at,
        },
    )


@transaction.atomic
def reference_profiles_publish(*, path: Path = REFERENCE_RUNS) -> list[Result]:
    """Import the original run-suite's raw records and publish each model's imported run (source IMPORT).

    The profiles are computed from the records by the same statistics as every run (`scoring.suite`), so a fresh
    install can compare people with the paper's nine language models. A profile entered in admin or published from a
    run made here is newer evidence and is left alone; a profile already published from these records is not
    rewritten, so re-running changes nothing. Returns the profiles written.
    """
    with path.open(encoding="utf-8-sig") as handle:
        report = run_records_import(lines=handle, label=path.name)
    written = []
    for run in report.runs:
        existing = Result.objects.filter(model=run.model, instrument=INSTRUMENT, language=run.language).first()
        if existing is not None and (existing.source != Result.Source.IMPORT or existing.run_id == run.pk):
            continue
        written.append(result_publish(run=run))
    return written
