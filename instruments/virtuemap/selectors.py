"""Reads of the VirtueMap instrument: its content and retained keys, the scoring context of a profile, the evidence
behind key decisions and the study's exports, and the model side (run profiles, published profiles, the original
run-suite's records)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, Max, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from instruments.virtuemap.answers import SLUG, run_items
from instruments.virtuemap.models import (
    Assignment,
    Dilemma,
    KeyCandidate,
    KeyDecision,
    Option,
    ProfilingSubmission,
    ValidationResponse,
    Virtue,
)
from llmruns.diagnostics import run_diagnostics
from llmruns.models import AgentNote, LLMModel, Result, Run, Trial
from llmruns.selectors import result_list, run_latest, stored_trials
from scoring import AlignmentTable, PreparedProfiles, alignment_table, key_weight_arrays, prepared_profiles
from scoring.promotion import mean_kendall_tau, wilson_interval
from scoring.rankings import OPTIONS
from scoring.stats import Quantile
from scoring.suite import SuiteProfile, suite_profile
from surveys.models import Respondent
from virtuemap_site.i18n import supported_language
from virtuemap_site.prepared_queries import PreparedQuery
from virtuemap_site.snapshots import CachedSnapshot

COUNTING = Q(counted=True, respondent__flagged=False)


ENGLISH = "en"


def key_edition(language: str | None, *, default: str | None = ENGLISH) -> str | None:
    """The edition (a code of settings.LANGUAGES) for a language code: "zh", "zh-Hans" and "zh-hans" give "zh-hans",
    "en-us" gives "en"; an unknown or empty code gives `default` (`virtuemap_site.i18n.supported_language`)."""
    return supported_language(language or "") or default


def key_editions() -> tuple[str, ...]:
    """Every edition's code, English first: settings.LANGUAGES."""
    return tuple(code for code, _ in settings.LANGUAGES)


@dataclass(frozen=True)
class RetainedKey:
    """A key that scores a questionnaire; `language` is its edition, English where the questionnaire's own edition
    has no retained key for the pair yet."""

    id: int
    dilemma: str
    virtue: str
    ordering: str
    round: int
    provenance: str
    language: str = ENGLISH


def key_language_map(keys: Iterable[RetainedKey]) -> dict[str, dict[str, str]]:
    """Dilemma id → virtue id → the edition whose key scores it (`RetainedKey.language`), for these keys: what a
    scored questionnaire, a score body and a model's summary record as `key_language`."""
    editions: dict[str, dict[str, str]] = {}
    for key in keys:
        editions.setdefault(key.dilemma, {})[key.virtue] = key.language
    return editions


@dataclass(frozen=True, eq=False)
class ProfileScoringContext:
    """The instrument's dilemma and virtue ids (in instrument order), the keys that score a questionnaire in
    `language` (the edition's retained key per dilemma × virtue, else the English one), the same keys as
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
    language: str = ENGLISH

    def key_map(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """Dilemma id → virtue id → ordering, the form `scoring.virtue_profile` takes."""
        keys: dict[str, dict[str, tuple[str, ...]]] = {}
        for key in self.keys:
            keys.setdefault(key.dilemma, {})[key.virtue] = tuple(key.ordering)
        return keys


@dataclass(frozen=True, eq=False)
class InstrumentContent:
    """The instrument's text as respondents' pages show it: the dilemmas in instrument order, each with its options
    prefetched (A–E), and the virtues in instrument order. Shared by every request of a process: read only."""

    dilemmas: tuple[Dilemma, ...]
    virtues: tuple[Virtue, ...]

    def dilemma(self, dilemma_id: str) -> Dilemma | None:
        return next((dilemma for dilemma in self.dilemmas if dilemma.id == dilemma_id), None)

    def virtue(self, virtue_id: str) -> Virtue | None:
        return next((virtue for virtue in self.virtues if virtue.id == virtue_id), None)

    def option_texts(self, dilemma_id: str, *, language: str | None = None) -> dict[str, str]:
        """Letter → text of a dilemma's options in ``language``'s edition (default: the active language's; {} for an
        unknown dilemma)."""
        from instruments.virtuemap.editions import item_text

        dilemma = self.dilemma(dilemma_id)
        if dilemma is None:
            return {}
        return {option.letter: item_text(option, "text", language) for option in dilemma.options.all()}


INSTRUMENT_CONTENT = CachedSnapshot("virtuemap:content")


def instrument_content() -> InstrumentContent:
    """The dilemmas with their options and the virtues, kept in memory (a `CachedSnapshot`, no query once warm):
    every item and dilemma page shows them, and they change only when the instrument is loaded or edited, which
    forgets them (`instruments.virtuemap.apps`)."""
    return INSTRUMENT_CONTENT.get(_instrument_content_load)


def instrument_content_forget() -> None:
    INSTRUMENT_CONTENT.forget()


def _instrument_content_load() -> InstrumentContent:
    return InstrumentContent(
        dilemmas=tuple(dilemma_list_with_options().order_by("position")), virtues=tuple(virtue_list())
    )


def virtue_list() -> QuerySet[Virtue]:
    return Virtue.objects.all()


def dilemma_list_with_options() -> QuerySet[Dilemma]:
    return Dilemma.objects.prefetch_related(Prefetch("options", queryset=Option.objects.order_by("letter")))


def dilemma_id_list() -> list[str]:
    """The dilemma ids in instrument order."""
    return list(Dilemma.objects.order_by("position").values_list("id", flat=True))


def dilemma_virtue_pair_count() -> int:
    """How many dilemma × virtue pairs the instrument has (each needs a key)."""
    return Dilemma.objects.count() * Virtue.objects.count()


def retained_key_list(
    *, dilemma: str | None = None, virtue: str | None = None, language: str | None = ENGLISH
) -> QuerySet[KeyCandidate]:
    """The keys one edition retained (English by default; every edition's when `language` is None), optionally only
    those of one dilemma and/or one virtue. No fallback: a translated edition lists only its own keys."""
    keys = KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED).select_related("dilemma", "virtue")
    if language is not None:
        keys = keys.filter(language=language)
    if dilemma is not None:
        keys = keys.filter(dilemma_id=dilemma)
    if virtue is not None:
        keys = keys.filter(virtue_id=virtue)
    return keys.order_by("dilemma__position", "virtue__position", "language")


def retained_key_last_modified() -> datetime | None:
    """When any key candidate last changed (None without candidates): an upper bound for the retained keys."""
    return KeyCandidate.objects.aggregate(latest=Max("updated_at"))["latest"]


def edition_keys(*, language: str = ENGLISH) -> tuple[RetainedKey, ...]:
    """The keys that score answers given in `language`, in instrument order: per dilemma × virtue the edition's
    retained key, else the English edition's (each `RetainedKey` says which). English answers get the English keys."""
    rows = retained_key_list(language=None).filter(language__in={ENGLISH, language})
    chosen: dict[tuple[str, str], RetainedKey] = {}
    for row in rows.values_list("id", "dilemma_id", "virtue_id", "ordering", "round", "provenance", "language"):
        key = RetainedKey(*row)
        if key.language == language or (key.dilemma, key.virtue) not in chosen:
            chosen[(key.dilemma, key.virtue)] = key
    return tuple(chosen.values())


def retained_key_map(*, language: str = ENGLISH) -> dict[str, dict[str, tuple[str, ...]]]:
    """The keys that score answers in `language` (`edition_keys`) as plain data for `scoring`: dilemma id → virtue
    id → ordering."""
    keys: dict[str, dict[str, tuple[str, ...]]] = {}
    for key in edition_keys(language=language):
        keys.setdefault(key.dilemma, {})[key.virtue] = tuple(key.ordering)
    return keys


# One snapshot per edition; English keeps the name it always had.
PROFILE_SCORING_CONTEXTS = {
    code: CachedSnapshot("surveys:profile-scoring-context" + ("" if code == ENGLISH else f":{code}"))
    for code, _ in settings.LANGUAGES
}
PROFILE_SCORING_CONTEXT = PROFILE_SCORING_CONTEXTS[ENGLISH]


def profile_scoring_context(*, language: str = ENGLISH) -> ProfileScoringContext:
    """Everything scoring a questionnaire in `language` (an edition's code) needs, as plain data: kept in memory,
    loaded in four queries. Its keys are `edition_keys(language=language)`.

    Every score request needs it and it rarely changes, so it is a `CachedSnapshot`: a saved or deleted key
    candidate, virtue or dilemma (`surveys.apps`), model or model profile (`llmruns.apps`) forgets it when its
    transaction commits; other processes notice through a shared cache (``CACHE_URL`` on Redis) within
    ``SNAPSHOT_CHECK_SECONDS``, else within ``PROFILE_CACHE_SECONDS``. The model profiles are in it too, so a request
    checks one generation.
    """
    return PROFILE_SCORING_CONTEXTS[language].get(lambda: _profile_scoring_context_load(language))


def profile_scoring_context_forget() -> None:
    for snapshot in PROFILE_SCORING_CONTEXTS.values():
        snapshot.forget()


def _profile_scoring_context_load(language: str = ENGLISH) -> ProfileScoringContext:
    keys = edition_keys(language=language)
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
        language=language,
    )


def open_candidates_with_load(*, now: datetime, language: str = ENGLISH) -> list[KeyCandidate]:
    """Open candidates of one edition, each annotated with `in_flight`: unanswered assignments that have not
    expired."""
    candidates = KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN, language=language)
    return list(candidates.annotate(in_flight=_in_flight(now)))


def open_candidates_for(*, respondent: Respondent, now: datetime) -> list[Any]:
    """The open candidates of the respondent's edition (the language they consented in: they read its texts, so only
    its keys are theirs to judge) for the dilemma×virtue pairs they have not had, in one query, as rows (named tuples)
    of `pk`, `dilemma_id`, `virtue_id`, `ordering`, `n_evaluations`, `in_flight` (as `open_candidates_with_load`)
    and `dilemma_seen`: how many validation items of that dilemma the respondent has had. Rows rather than
    models, and a query compiled once per process: the next item is chosen from them on every item page, and only
    these fields decide it."""
    return _OPEN_CANDIDATES_FOR.run(respondent=respondent.pk, language=key_edition(respondent.language), now=now)


def _open_candidates_for(*, respondent: Any, language: str, now: datetime) -> QuerySet:
    had = Assignment.objects.filter(respondent=respondent, kind=Assignment.Kind.VALIDATION)
    seen = (
        had.filter(dilemma=OuterRef("dilemma")).order_by().values("dilemma").annotate(count=Count("pk")).values("count")
    )
    return (
        KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN, language=language)
        .exclude(Exists(had.filter(dilemma=OuterRef("dilemma"), virtue=OuterRef("virtue"))))
        .annotate(in_flight=_in_flight(now), dilemma_seen=Coalesce(Subquery(seen), 0))
        # By id, not the model's order: that order joins the dilemma and virtue tables, which only slows the query.
        .order_by("pk")
        .values_list(
            "pk", "dilemma_id", "virtue_id", "ordering", "n_evaluations", "in_flight", "dilemma_seen", named=True
        )
    )


_OPEN_CANDIDATES_FOR = PreparedQuery(
    _open_candidates_for,
    respondent=Respondent._meta.pk,
    language=KeyCandidate._meta.get_field("language"),
    now=Assignment._meta.get_field("expires_at"),
)


def _in_flight(now: datetime) -> Coalesce:
    """The candidate's unanswered, unexpired assignments, counted in a subquery that reads only those rows (the
    index `assignment_in_flight` on candidate, answered_at, expires_at). A join of every assignment with a GROUP BY
    would read all the assignments the study has ever served on each item page: work that grows without bound."""
    pending = (
        Assignment.objects.filter(candidate=OuterRef("pk"), answered_at__isnull=True, expires_at__gt=now)
        .order_by()
        .values("candidate")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return Coalesce(Subquery(pending), 0)


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


def items_total() -> int:
    """The items a respondent of the validation study answers: validation items plus attention checks."""
    return settings.STUDY_ITEMS_PER_RESPONDENT + settings.STUDY_ATTENTION_CHECKS


def every_item_answered(answered: int) -> bool:
    """The study's completion rule: a respondent who has answered ``answered`` items (validation items and attention
    checks) has answered every item they are given (`items_total`). Serving decides by it that they are complete,
    and the item page that the thank-you page follows their last answer."""
    return answered >= items_total()


def respondent_progress(*, respondent: Respondent) -> dict[str, int]:
    """answered and total items (validation items plus attention checks) for the progress bar."""
    answered = respondent.assignments.filter(answered_at__isnull=False).count()
    return {"answered": answered, "total": items_total()}


def assignment_for_display(*, assignment_id: int) -> Assignment:
    return Assignment.objects.select_related("dilemma", "virtue", "candidate").get(pk=assignment_id)


def validation_responses_for_export() -> QuerySet[ValidationResponse]:
    return ValidationResponse.objects.select_related("respondent", "candidate").order_by("submitted_at", "pk")


def profiling_submissions_for_export() -> QuerySet[ProfilingSubmission]:
    return ProfilingSubmission.objects.select_related("respondent").order_by("created_at", "pk")


def key_candidates_for_export() -> QuerySet[KeyCandidate]:
    """Every candidate in instrument order, with `overridden`: whether a researcher decided on it against the
    promotion rule (a `KeyDecision` marked as an override)."""
    overrides = KeyDecision.objects.filter(candidate=OuterRef("pk"), override=True)
    return KeyCandidate.objects.annotate(overridden=Exists(overrides)).order_by(
        "dilemma__position", "virtue__position", "round"
    )


def study_is_open(*, language: str | None = None) -> bool:
    """Whether the validation study has anything to serve: in one edition, or in any when `language` is None."""
    candidates = KeyCandidate.objects.filter(status=KeyCandidate.Status.OPEN)
    return (candidates if language is None else candidates.filter(language=language)).exists()


def validation_ever_opened(*, language: str = ENGLISH) -> bool:
    """Whether a validation round of the edition was ever opened (round 0 is the published key, not a round people
    answer)."""
    return KeyCandidate.objects.filter(round__gte=1, language=language).exists()


# --- the model side ------------------------------------------------------------------------------------------


INSTRUMENT = SLUG


def run_profile(*, run: Run, quantile: Quantile = "exact") -> SuiteProfile:
    """The run's statistics from its stored trials and the current retained keys of its edition (English ones where
    the edition has none)."""
    virtues = tuple(virtue_list().values_list("id", flat=True))
    keys = retained_key_map(language=run.language)
    return suite_profile(run_items(stored_trials(run)), keys, virtues, tuple(dilemma_id_list()), quantile=quantile)


def models_with_runs() -> QuerySet[LLMModel]:
    return LLMModel.objects.filter(runs__instrument=INSTRUMENT, runs__trials_done__gt=0).distinct().order_by("name")


def model_profile_records(*, quantile: Quantile = "exact") -> list[dict[str, Any]]:
    """Return, per model with stored runs, its profile in the field names of ``reference_profiles_sample.json``.

    The run is the one the model's published profile comes from, else its latest run with a stored trial. Each record
    also has "diagnostics", that run's answer-quality diagnostics with their flags (a field the reference file lacks).
    """
    records = []
    for model in models_with_runs():
        run = run_latest(model=model, instrument=INSTRUMENT)
        if run is not None:
            record = run_profile(run=run, quantile=quantile).record()
            records.append({"name": model.name, "slug": model.slug, **record, "diagnostics": run_diagnostics(run=run)})
    return records


def run_records_export(*, runs: Iterable[Run] | None = None) -> Iterator[dict[str, Any]]:
    """Yield the raw records of the original VirtueMap run-suite, in timestamp order.

    One record per finished trial (model × run × dilemma) with the original's field names, and the agent notes.
    ``raw_text`` is the last answer received; ``attempts`` the number of answers. Each trial's record also carries
    ``suite_diagnostics``, the answer-quality diagnostics of its whole suite with their flags
    (`llmruns.diagnostics.run_diagnostics`): a field the original format lacks, which `import_runs` ignores.
    """
    trials = (
        Trial.objects.filter(run__instrument=INSTRUMENT, status=Trial.Status.DONE)
        .select_related("run__model")
        .prefetch_related("attempts")
    )
    if runs is not None:
        trials = trials.filter(run__in=list(runs))
    records: list[dict[str, Any]] = [
        {"timestamp": note.timestamp, "record_type": "agent_note", "message": note.message}
        for note in AgentNote.objects.all()
    ]
    diagnostics: dict[int, dict[str, Any]] = {}
    for trial in trials:
        run = trial.run
        if run.pk not in diagnostics:
            diagnostics[run.pk] = run_diagnostics(run=run)
        answers = [attempt for attempt in trial.attempts.all() if attempt.counts_as_answer]
        display_to_option = trial.display["display_to_option"]
        valid = trial.valid
        records.append(
            {
                "timestamp": trial.completed_at,
                "model_name": run.model.name,
                "model_slug": run.model.slug,
                "run_id": trial.replicate,
                "dilemma_id": trial.item,
                "temperature": run.request_params.get("temperature"),
                "display_position_to_canonical": display_to_option,
                "canonical_to_display_position": {option: label for label, option in display_to_option.items()},
                "attempts": trial.attempt_count,
                "raw_text": answers[-1].raw_text if answers else "",
                "display_ranking": trial.answer["display_ranking"] if valid else None,
                "canonical_ranking": list(trial.answer["ranking"]) if valid else None,
                "valid": valid,
                "suite_diagnostics": diagnostics[run.pk],
            }
        )
    records.sort(key=lambda record: record["timestamp"])
    for record in records:
        record["timestamp"] = record["timestamp"].isoformat(timespec="microseconds")
        yield record


# --- published profiles ---------------------------------------------------------------------------------------


def published_profile_list(*, with_paper_rows: bool = False) -> QuerySet[Result]:
    """Every published profile with its model, by model name. A model is published once it has a profile. The
    paper's Table 1 rows (source PAPER) only ``with_paper_rows``: the gallery and the nearest-model search show the
    models measured here, the models API both."""
    if not with_paper_rows:
        return result_list(instrument=INSTRUMENT)
    return (
        Result.objects.filter(instrument=INSTRUMENT, language="en")
        .select_related("model", "run")
        .order_by("model__name", "model__slug")
    )


def published_profiles_in_other_languages() -> QuerySet[Result]:
    """The published profiles of runs in another language than English (e.g. zh-hans), by model name, language."""
    return (
        Result.objects.filter(instrument=INSTRUMENT)
        .exclude(language="en")
        .select_related("model")
        .order_by("model__name", "model__slug", "language")
    )


def published_profile_get(*, slug: str) -> Result | None:
    return published_profile_list(with_paper_rows=True).filter(model__slug=slug).first()


def profile_scores(result: Result) -> dict[str, float | None]:
    """Virtue id → mean score of a published profile (None where it has no value for that virtue)."""
    return {virtue: (stats or {}).get("mean") for virtue, stats in (result.summary.get("profile_stats") or {}).items()}


PUBLISHED_PROFILE_SCORES = CachedSnapshot("llmruns:published-profile-scores")


def published_profile_scores() -> dict[str, tuple[str, dict[str, float | None]]]:
    """Model slug → (display name, virtue id → mean score) for every published profile, kept in memory.

    A `CachedSnapshot` like `surveys.selectors.profile_scoring_context`: saving or deleting a model or a result
    forgets it when its transaction commits (`llmruns.apps`).
    """
    return PUBLISHED_PROFILE_SCORES.get(published_profile_scores_load)


def published_profile_scores_forget() -> None:
    PUBLISHED_PROFILE_SCORES.forget()


def published_profile_scores_load() -> dict[str, tuple[str, dict[str, float | None]]]:
    """What `published_profile_scores` keeps, read from the database now."""
    return {result.model.slug: (result.model.name, profile_scores(result)) for result in published_profile_list()}


def published_profile_last_modified() -> datetime | None:
    return Result.objects.filter(instrument=INSTRUMENT).aggregate(latest=Max("published_at"))["latest"]


def profiling_reference_scores(*, virtues: Iterable[str], exclude: Any = None) -> tuple[int, dict[str, list[float]]]:
    """The scores of the people who consented to research use of their profiling answers, as a reference.

    Returns (n, virtue id → their scores), n being the number of people with at least one score; a person
    without a score for a virtue (no answered dilemma with its key) is not in that virtue's list. `exclude`
    (a respondent id) leaves the person being compared out of their own reference. Scores are those stored
    with each person's answers, from the keys of the time. Public, so only respondents who may enter a public
    aggregate count (`surveys.selectors.public_respondents`), and their lists are empty while too few did
    (`surveys.selectors.enough_people`).
    """
    from surveys.selectors import enough_people, public_respondents

    virtues = list(virtues)
    submissions = ProfilingSubmission.objects.filter(respondent__in=public_respondents())
    if exclude is not None:
        submissions = submissions.exclude(respondent_id=exclude)
    people = 0
    reference: dict[str, list[float]] = {virtue: [] for virtue in virtues}
    for scores in submissions.values_list("scores", flat=True).iterator():
        scored = {v: scores.get(v) for v in virtues if isinstance(scores, dict) and scores.get(v) is not None}
        if not scored:
            continue
        people += 1
        for virtue, score in scored.items():
            reference[virtue].append(float(score))
    if not enough_people(people):
        return people, {virtue: [] for virtue in virtues}
    return people, reference


def profile_reference_minimum() -> int:
    """How many consenting people must be there before a profile is set against theirs:
    PROFILE_REFERENCE_MIN_RESPONDENTS, and never fewer than PUBLIC_AGGREGATE_MIN_RESPONDENTS."""
    return max(settings.PROFILE_REFERENCE_MIN_RESPONDENTS, settings.PUBLIC_AGGREGATE_MIN_RESPONDENTS)
