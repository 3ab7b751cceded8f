"""Business logic of the surveys app: loading the instrument, scoring profiles, later validation responses."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import models, transaction
from django.utils import timezone

from llmruns.selectors import published_profile_scores
from scoring import OPTIONS, RankingError, nearest_profiles, validate_ranking, virtue_profile
from surveys.models import Dilemma, Instrument, KeyCandidate, Option, Virtue
from surveys.selectors import ProfileScoringContext, RetainedKey, profile_scoring_context
from virtuemap_site.errors import ApplicationError

INSTRUMENT_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "instrument.json"


@dataclass
class InstrumentLoadReport:
    """How many rows `instrument_load` created and updated; all zero on a re-run of the same file."""

    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)

    def count(self, bucket: dict[str, int], model: type[models.Model]) -> None:
        bucket[model.__name__] = bucket.get(model.__name__, 0) + 1

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)


def _upsert(
    model: type[models.Model], report: InstrumentLoadReport, lookup: dict[str, Any], values: dict[str, Any]
) -> models.Model:
    """Create the row, or update only the fields that differ, so a re-run writes nothing."""
    row = model.objects.filter(**lookup).first()
    if row is None:
        report.count(report.created, model)
        return model.objects.create(**lookup, **values)
    stale = {name: value for name, value in values.items() if getattr(row, name) != value}
    if stale:
        for name, value in stale.items():
            setattr(row, name, value)
        row.save(update_fields=list(stale))
        report.count(report.updated, model)
    return row


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
    _upsert(
        Instrument,
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
        _upsert(
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
        dilemma_row = _upsert(
            Dilemma,
            report,
            {"id": dilemma["id"]},
            {"title": dilemma["title"], "scenario": dilemma["scenario"], "position": position},
        )
        for letter, text in sorted(dilemma["options"].items()):
            _upsert(Option, report, {"dilemma": dilemma_row, "letter": letter}, {"text": text})
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


# --- Profiles -------------------------------------------------------------------------------------------

NEAREST_MODEL_COUNT = 3


class RankingProblem:
    """Machine-readable names of what is wrong with a submitted set of rankings (``extra.errors[].problem``)."""

    EMPTY_BODY = "empty_body"
    NOT_AN_OBJECT = "not_an_object"
    UNKNOWN_DILEMMA = "unknown_dilemma"
    NOT_A_LIST = "not_a_list"
    NOT_FIVE = "not_five"
    WRONG_LETTERS = "wrong_letters"
    REPEATS = "repeats"


@dataclass(frozen=True)
class NearestModel:
    slug: str
    name: str
    similarity: float


@dataclass(frozen=True)
class ProfileResult:
    """A scored questionnaire: `scoring.VirtueProfile` plus the keys it used and the nearest published models.

    answered and skipped list dilemma ids in instrument order; skipped is every dilemma without a ranking.
    """

    scores: dict[str, float | None]
    per_dilemma: dict[str, dict[str, float]]
    answered: tuple[str, ...]
    skipped: tuple[str, ...]
    keys: tuple[RetainedKey, ...]
    nearest_models: tuple[NearestModel, ...]


def profile_score(*, rankings: object, context: ProfileScoringContext | None = None) -> ProfileResult:
    """Score one questionnaire against the retained keys and find the nearest published model profiles.

    ``rankings`` maps dilemma id → a ranking (a list of the five letters A–E, most preferable first) or None
    for a skipped dilemma; dilemmas left out are skipped too. Writes nothing. Raises `ApplicationError`
    naming every dilemma at fault and its problem (``extra["errors"]``: dilemma, problem, message) when the
    mapping is missing or empty-bodied, names an unknown dilemma, or holds a ranking that is not a
    permutation of A–E. A virtue with no answered dilemma that has a key for it scores None, never 0.
    """
    context = context or profile_scoring_context()
    checked = _checked_rankings(rankings, context.dilemmas)
    profile = virtue_profile(
        {dilemma: checked.get(dilemma) for dilemma in context.dilemmas}, context.key_map(), context.virtues
    )
    used = set(profile.keys_used)
    order = {dilemma: position for position, dilemma in enumerate(context.dilemmas)}
    models = published_profile_scores()
    nearest = nearest_profiles(profile.scores, {slug: scores for slug, (_, scores) in models.items()})
    return ProfileResult(
        scores=profile.scores,
        per_dilemma={dilemma: profile.per_dilemma[dilemma] for dilemma in sorted(profile.per_dilemma, key=order.get)},
        answered=tuple(sorted(profile.answered, key=order.get)),
        skipped=tuple(sorted(profile.skipped, key=order.get)),
        keys=tuple(key for key in context.keys if (key.dilemma, key.virtue) in used),
        nearest_models=tuple(
            NearestModel(slug=slug, name=models[slug][0], similarity=similarity) for slug, similarity in nearest
        ),
    )


def _checked_rankings(rankings: object, dilemmas: tuple[str, ...]) -> dict[str, tuple[str, ...] | None]:
    if rankings is None:
        raise _ranking_errors([(None, RankingProblem.EMPTY_BODY, 'the body needs "rankings": {"D1": [...], ...}')])
    if not isinstance(rankings, Mapping):
        raise _ranking_errors(
            [(None, RankingProblem.NOT_AN_OBJECT, '"rankings" must be an object of dilemma id → ranking')]
        )
    checked: dict[str, tuple[str, ...] | None] = {}
    errors: list[tuple[str | None, str, str]] = []
    for dilemma, ranking in rankings.items():
        if dilemma not in dilemmas:
            errors.append(
                (
                    dilemma,
                    RankingProblem.UNKNOWN_DILEMMA,
                    f"unknown dilemma {dilemma!r}; dilemmas are {', '.join(dilemmas)}",
                )
            )
        elif ranking is None:
            checked[dilemma] = None
        else:
            try:
                checked[dilemma] = validate_ranking(ranking)
            except RankingError as error:
                errors.append((dilemma, _ranking_problem(ranking), str(error)))
    if errors:
        raise _ranking_errors(errors)
    return checked


def _ranking_problem(ranking: object) -> str:
    # The same checks, in the same order, as scoring.validate_ranking, which words the message.
    if not isinstance(ranking, (list, tuple)):
        return RankingProblem.NOT_A_LIST
    if len(ranking) != len(OPTIONS):
        return RankingProblem.NOT_FIVE
    if any(item not in OPTIONS for item in ranking):
        return RankingProblem.WRONG_LETTERS
    return RankingProblem.REPEATS


def _ranking_errors(errors: list[tuple[str | None, str, str]]) -> ApplicationError:
    described = [f"{dilemma}: {message}" if dilemma else message for dilemma, _, message in errors]
    return ApplicationError(
        "; ".join(described),
        {"errors": [{"dilemma": d, "problem": problem, "message": m} for d, problem, m in errors]},
    )
