"""Reads for the surveys app."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, Max, Prefetch, Q, QuerySet

from scoring import AlignmentTable, PreparedProfiles, alignment_table, key_weight_arrays, prepared_profiles
from scoring.promotion import mean_kendall_tau, wilson_interval
from scoring.rankings import OPTIONS
from surveys.models import (
    Assignment,
    ConsentText,
    Dilemma,
    KeyCandidate,
    Option,
    Respondent,
    ValidationResponse,
    Virtue,
)
from virtuemap_site.snapshots import CachedSnapshot

# The responses that N and Y count: given while the candidate was open, by a respondent who is not flagged.
COUNTING = Q(counted=True, respondent__flagged=False)


@dataclass(frozen=True)
class RetainedKey:
    id: int
    dilemma: str
    virtue: str
    ordering: str
    round: int
    provenance: str


@dataclass(frozen=True, eq=False)
class ProfileScoringContext:
    """The instrument's dilemma and virtue ids (in instrument order), the retained keys, the same keys as
    `scoring.key_weight_arrays` for `scoring.virtue_profile_from_key_weights` and as `scoring.alignment_table`
    for `scoring.virtue_profile_from_table`, and the published model profiles to compare a profile with (`models`:
    slug → virtue id → mean score, as `scoring.prepared_profiles`; `model_names`: slug → display name)."""

    dilemmas: tuple[str, ...]
    virtues: tuple[str, ...]
    keys: tuple[RetainedKey, ...]
    key_weights: list[list[list[float]]]
    key_present: list[list[bool]]
    alignments: AlignmentTable = field(default_factory=dict)
    models: PreparedProfiles = field(default_factory=lambda: prepared_profiles({}, ()))
    model_names: dict[str, str] = field(default_factory=dict)

    def key_map(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """Dilemma id → virtue id → ordering, the form `scoring.virtue_profile` takes."""
        keys: dict[str, dict[str, tuple[str, ...]]] = {}
        for key in self.keys:
            keys.setdefault(key.dilemma, {})[key.virtue] = tuple(key.ordering)
        return keys


def virtue_list() -> QuerySet[Virtue]:
    return Virtue.objects.all()


def dilemma_list_with_options() -> QuerySet[Dilemma]:
    return Dilemma.objects.prefetch_related(Prefetch("options", queryset=Option.objects.order_by("letter")))


def dilemma_id_list() -> list[str]:
    """The dilemma ids in instrument order."""
    return list(Dilemma.objects.order_by("position").values_list("id", flat=True))


def retained_key_list(*, dilemma: str | None = None, virtue: str | None = None) -> QuerySet[KeyCandidate]:
    """The keys in use, optionally only those of one dilemma and/or one virtue."""
    keys = KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED).select_related("dilemma", "virtue")
    if dilemma is not None:
        keys = keys.filter(dilemma_id=dilemma)
    if virtue is not None:
        keys = keys.filter(virtue_id=virtue)
    return keys.order_by("dilemma__position", "virtue__position")


def retained_key_last_modified() -> datetime | None:
    """When any key candidate last changed (None without candidates): an upper bound for the retained keys."""
    return KeyCandidate.objects.aggregate(latest=Max("updated_at"))["latest"]


def retained_key_map() -> dict[str, dict[str, tuple[str, ...]]]:
    """Retained keys as plain data for `scoring`: dilemma id → virtue id → ordering."""
    keys: dict[str, dict[str, tuple[str, ...]]] = {}
    for dilemma_id, virtue_id, ordering in retained_key_list().values_list("dilemma_id", "virtue_id", "ordering"):
        keys.setdefault(dilemma_id, {})[virtue_id] = tuple(ordering)
    return keys


PROFILE_SCORING_CONTEXT = CachedSnapshot("surveys:profile-scoring-context")


def profile_scoring_context() -> ProfileScoringContext:
    """Everything scoring a questionnaire needs, as plain data: kept in memory, loaded in four queries.

    Every score request needs it and it rarely changes, so it is a `CachedSnapshot`: a saved or deleted key
    candidate, virtue or dilemma (`surveys.apps`), model or model profile (`llmruns.apps`) forgets it when its
    transaction commits; other processes notice at once through a shared cache (``CACHE_URL`` on Redis), else
    within ``PROFILE_CACHE_SECONDS``. The model profiles are in it too, so a request checks one generation.
    """
    return PROFILE_SCORING_CONTEXT.get(_profile_scoring_context_load)


def profile_scoring_context_forget() -> None:
    PROFILE_SCORING_CONTEXT.forget()


def _profile_scoring_context_load() -> ProfileScoringContext:
    rows = retained_key_list().values_list("id", "dilemma_id", "virtue_id", "ordering", "round", "provenance")
    keys = tuple(RetainedKey(*row) for row in rows)
    dilemmas = tuple(dilemma_id_list())
    virtues = tuple(Virtue.objects.order_by("position").values_list("id", flat=True))
    by_dilemma: dict[str, dict[str, tuple[str, ...]]] = {}
    for key in keys:
        by_dilemma.setdefault(key.dilemma, {})[key.virtue] = tuple(key.ordering)
    key_weights, key_present = key_weight_arrays(by_dilemma, dilemmas, virtues)
    # instruments.virtuemap.selectors imports this module.
    from instruments.virtuemap.selectors import published_profile_scores_load

    models = published_profile_scores_load()
    # As lists: the per-request arithmetic is plain Python (see `virtue_profile_from_key_weights`).
    return ProfileScoringContext(
        dilemmas=dilemmas,
        virtues=virtues,
        keys=keys,
        key_weights=key_weights.tolist(),
        key_present=key_present.tolist(),
        alignments=alignment_table(dilemmas, virtues, key_weights.tolist(), key_present.tolist()),
        models=prepared_profiles({slug: scores for slug, (_, scores) in models.items()}, virtues),
        model_names={slug: name for slug, (name, _) in models.items()},
    )


def consent_text_current(*, study: str) -> ConsentText | None:
    return ConsentText.objects.filter(study=study, is_current=True).first()


def respondent_by_token(*, token: str, study: str | None = None) -> Respondent | None:
    """The respondent holding this API token (compared by its SHA-256), or None."""
    if not token:
        return None
    respondents = Respondent.objects.filter(token_hash=hashlib.sha256(token.encode()).hexdigest())
    if study:
        respondents = respondents.filter(study=study)
    return respondents.first()


def respondent_token_expired(*, respondent: Respondent, now: datetime | None = None) -> bool:
    """Whether the respondent's API token has outlived STUDY_TOKEN_TTL_HOURS since consent."""
    from django.conf import settings
    from django.utils import timezone

    lifetime = timedelta(hours=settings.STUDY_TOKEN_TTL_HOURS)
    return (now or timezone.now()) > respondent.consented_at + lifetime


def respondent_by_id(*, respondent_id: object, study: str | None = None) -> Respondent | None:
    respondents = Respondent.objects.filter(pk=respondent_id)
    if study:
        respondents = respondents.filter(study=study)
    return respondents.first()


def open_candidates_with_load(*, now: datetime) -> list[KeyCandidate]:
    """Open candidates, each annotated with `in_flight`: unanswered assignments that have not expired."""
    in_flight = Count(
        "assignments",
        filter=Q(assignments__answered_at__isnull=True, assignments__expires_at__gt=now),
    )
    return list(KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN).annotate(in_flight=in_flight))


def key_counts_from_responses(*, candidate_ids: list[int] | None = None) -> dict[int, tuple[int, int]]:
    """candidate id → (N, Y) counted from stored responses; candidates without any are absent."""
    responses = ValidationResponse.objects.filter(COUNTING)
    if candidate_ids is not None:
        responses = responses.filter(candidate_id__in=candidate_ids)
    rows = responses.values("candidate_id").annotate(n=Count("id"), y=Count("id", filter=Q(confirmed=True)))
    return {row["candidate_id"]: (row["n"], row["y"]) for row in rows}


@dataclass(frozen=True)
class KeyCountDrift:
    candidate_id: int
    stored: tuple[int, int]
    recounted: tuple[int, int]


def key_count_drift() -> list[KeyCountDrift]:
    """Every candidate whose stored N, Y differ from the counts of its counting responses (there should be none)."""
    counts = key_counts_from_responses()
    drift = []
    for candidate_id, n, y in KeyCandidate.objects.values_list("pk", "n_evaluations", "n_confirmations"):
        recounted = counts.get(candidate_id, (0, 0))
        if (n, y) != recounted:
            drift.append(KeyCountDrift(candidate_id=candidate_id, stored=(n, y), recounted=recounted))
    return drift


@dataclass(frozen=True)
class CandidateEvidence:
    """What a decision on a candidate rests on: the corrections that count, the Wilson 95 % interval of q, and
    the mean Kendall τ between the corrections and the candidate (None without corrections)."""

    corrections: list[tuple[str, ...]]
    wilson: tuple[float, float] | None
    agreement_tau: float | None


def key_candidate_evidence(*, candidate: KeyCandidate) -> CandidateEvidence:
    orderings = candidate.responses.filter(COUNTING, confirmed=False).values_list("ordering", flat=True)
    corrections = [tuple(ordering) for ordering in orderings]
    return CandidateEvidence(
        corrections=corrections,
        wilson=wilson_interval(candidate.n_confirmations, candidate.n_evaluations),
        agreement_tau=mean_kendall_tau(corrections, candidate.ordering_letters),
    )


def key_candidate_top_corrections(*, candidate: KeyCandidate, limit: int = 5) -> list[tuple[str, int]]:
    """The most frequent counting corrections with their counts, most frequent first (ties alphabetically)."""
    counter = Counter(candidate.responses.filter(COUNTING, confirmed=False).values_list("ordering", flat=True))
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:limit]


def key_candidate_rank_table(*, candidate: KeyCandidate) -> dict[str, list[int]]:
    """option → how many counting responses put it at rank 1, 2, …, 5 (confirmations included)."""
    table = {option: [0] * len(OPTIONS) for option in OPTIONS}
    for ordering in candidate.responses.filter(COUNTING).values_list("ordering", flat=True):
        for rank, option in enumerate(ordering):
            table[option][rank] += 1
    return table


def respondent_progress(*, respondent: Respondent) -> dict[str, int]:
    """answered and total items (validation items plus attention checks) for the progress bar."""
    from django.conf import settings

    total = settings.STUDY_ITEMS_PER_RESPONDENT + settings.STUDY_ATTENTION_CHECKS
    answered = respondent.assignments.filter(answered_at__isnull=False).count()
    return {"answered": answered, "total": total}


def assignment_for_display(*, assignment_id: int) -> Assignment:
    return Assignment.objects.select_related("dilemma", "virtue", "candidate").get(pk=assignment_id)


def validation_responses_for_export() -> QuerySet[ValidationResponse]:
    return ValidationResponse.objects.select_related("respondent", "candidate").order_by("submitted_at", "pk")


def key_candidates_for_export() -> QuerySet[KeyCandidate]:
    return KeyCandidate.objects.order_by("dilemma__position", "virtue__position", "round")


def study_is_open() -> bool:
    """Whether the validation study has anything to serve."""
    return KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN).exists()
