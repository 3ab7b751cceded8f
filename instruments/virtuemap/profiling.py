"""Profiling: scoring a person's rankings into a virtue profile with the nearest published models, and storing
the answers of those who consented."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from instruments.virtuemap.editions import edition_version
from instruments.virtuemap.models import (
    ProfilingSubmission,
)
from instruments.virtuemap.ranking_errors import ranking_problem_message
from instruments.virtuemap.selectors import (
    ENGLISH,
    ProfileScoringContext,
    RetainedKey,
    key_edition,
    key_language_map,
    profile_scoring_context,
)
from instruments.virtuemap.studies import PROFILING
from scoring import nearest_profiles_prepared, virtue_profile_from_table
from scoring.rankings import OPTIONS, RankingError, validate_ranking
from surveys.models import Respondent
from virtuemap_site.errors import ApplicationError

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
    language: str = ENGLISH

    @property
    def key_language(self) -> dict[str, dict[str, str]]:
        """Dilemma id → virtue id → the edition whose key entered the score: the questionnaire's `language` where
        its edition has retained the key, else en (the English edition's key stands in)."""
        return key_language_map(self.keys)

    @property
    def fallback_keys(self) -> tuple[RetainedKey, ...]:
        """The keys of another edition (English) that scored this questionnaire; () for an English one."""
        return tuple(key for key in self.keys if key.language != self.language)


def profile_score(
    *, rankings: object, context: ProfileScoringContext | None = None, language: str = ENGLISH
) -> ProfileResult:
    """Score one questionnaire against the retained keys and find the nearest published model profiles.

    A questionnaire in `language` (an edition's code, `selectors.key_edition`) is scored per dilemma × virtue with
    that edition's retained key, else with the English one; the result's `key_language` says which.

    ``rankings`` maps dilemma id → a ranking (a list of the five letters A–E, most preferable first) or None
    for a skipped dilemma; dilemmas left out are skipped too. Writes nothing. Raises `ApplicationError`
    naming every dilemma at fault and its problem (``extra["errors"]``: dilemma, problem, message) when the
    mapping is missing or empty-bodied, names an unknown dilemma, or holds a ranking that is not a
    permutation of A–E. A virtue with no answered dilemma that has a key for it scores None, never 0.
    """
    context = context or profile_scoring_context(language=language)
    checked = _checked_rankings(rankings, context)
    ranked = {dilemma: checked.get(dilemma) for dilemma in context.dilemmas}
    profile = virtue_profile_from_table(ranked, context.alignments, context.virtues)
    # In instrument order, where the profile sorts them by id.
    answered = tuple(dilemma for dilemma, ranking in ranked.items() if ranking is not None)
    skipped = tuple(dilemma for dilemma, ranking in ranked.items() if ranking is None)
    nearest = nearest_profiles_prepared(profile.scores, context.models, k=NEAREST_MODEL_COUNT)
    return ProfileResult(
        scores=profile.scores,
        per_dilemma={dilemma: profile.per_dilemma[dilemma] for dilemma in answered},
        answered=answered,
        skipped=skipped,
        # Every key of an answered dilemma enters its scores (the context's keys are the instrument's virtues').
        keys=tuple(key for key in context.keys if key.dilemma in profile.per_dilemma),
        nearest_models=tuple(
            NearestModel(slug=slug, name=context.model_names[slug], similarity=similarity)
            for slug, similarity in nearest
        ),
        language=context.language,
    )


def _checked_rankings(rankings: object, context: ProfileScoringContext) -> dict[str, tuple[str, ...] | None]:
    if rankings is None:
        raise _ranking_errors([(None, RankingProblem.EMPTY_BODY, _('the body needs "rankings": {"D1": [...], ...}'))])
    if not isinstance(rankings, Mapping):
        raise _ranking_errors(
            [(None, RankingProblem.NOT_AN_OBJECT, _('"rankings" must be an object of dilemma id → ranking'))]
        )
    dilemmas, table = context.dilemmas, context.alignments
    checked: dict[str, tuple[str, ...] | None] = {}
    errors: list[tuple[str | None, str, str]] = []
    for dilemma, ranking in rankings.items():
        if dilemma not in dilemmas:
            errors.append(
                (
                    dilemma,
                    RankingProblem.UNKNOWN_DILEMMA,
                    _("unknown dilemma %(dilemma)s; dilemmas are %(dilemmas)s")
                    % {"dilemma": repr(dilemma), "dilemmas": ", ".join(dilemmas)},
                )
            )
        elif ranking is None:
            checked[dilemma] = None
        elif type(ranking) is list and _is_listed(ranking, table[dilemma]):
            # The table holds every permutation of A–E: found there, the ranking is valid.
            checked[dilemma] = tuple(ranking)
        else:
            try:
                checked[dilemma] = validate_ranking(ranking)
            except RankingError as error:
                errors.append((dilemma, _ranking_problem(ranking), ranking_problem_message(ranking) or str(error)))
    if errors:
        raise _ranking_errors(errors)
    return checked


def _is_listed(ranking: list[object], entries: Mapping[tuple[str, ...], object]) -> bool:
    try:
        return tuple(ranking) in entries
    except TypeError:  # an item that cannot be a dictionary key (a list, an object): not a letter
        return False


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
    described = [f"{dilemma}: {message}" if dilemma else message for dilemma, _problem, message in errors]
    return ApplicationError(
        "; ".join(described),
        {"errors": [{"dilemma": d, "problem": problem, "message": m} for d, problem, m in errors]},
    )


@transaction.atomic
def profiling_submission_store(
    *,
    respondent: Respondent,
    rankings: Mapping[str, str | None],
    start_orders: Mapping[str, str] | None = None,
    kept_unmoved: list[str] | None = None,
    language: str = ENGLISH,
) -> ProfilingSubmission:
    """Store (or replace) the profiling answers of a respondent who consented to research use.

    ``rankings`` maps dilemma id → ranking letters ("CBADE") or None for a skipped dilemma. The scores and the
    keys used are stored with them (scored in `language`, the questionnaire's, with `key_language` saying whose key
    scored each dilemma × virtue), and what the questionnaire showed: ``start_orders`` (dilemma id → the random
    order the responses were first shown in) and ``kept_unmoved`` (dilemmas answered with "I have not moved
    anything"); start orders recorded earlier for dilemmas still answered are kept. Start orders that are not
    permutations of A–E, and kept dilemmas without a ranking, are refused.
    Refuses (ApplicationError) a respondent of another study, since only
    consent to the profiling study's text covers these answers, and rankings that `profile_score` refuses.
    """
    if respondent.study != PROFILING:
        raise ApplicationError(_("Only consent to the profiling questionnaire covers storing its answers."), status=403)
    language = key_edition(language)
    result = profile_score(rankings={d: (list(r) if r else None) for d, r in rankings.items()}, language=language)
    start_orders = dict(start_orders or {})
    kept_unmoved = list(kept_unmoved or [])
    for dilemma, order in start_orders.items():
        try:
            validate_ranking(list(order))
        except RankingError as error:
            problem = ranking_problem_message(list(order)) or str(error)
            raise ApplicationError(
                _("Start order of %(dilemma)s: %(problem)s.") % {"dilemma": dilemma, "problem": problem},
                {"field": "start_orders"},
            ) from None
    if any(not rankings.get(dilemma) for dilemma in kept_unmoved):
        raise ApplicationError(_("A dilemma kept unmoved must have a ranking."), {"field": "kept_unmoved"})
    fields = {
        "kept_unmoved": kept_unmoved,
        "rankings": {dilemma: (ranking or None) for dilemma, ranking in rankings.items()},
        "scores": result.scores,
        "keys_used": [key.id for key in result.keys],
        "language": language,
        "edition_version": edition_version(language),
        "key_language": result.key_language,
    }
    # One locked read of the earlier answers, then one write (update_or_create would read them twice).
    submission = ProfilingSubmission.objects.select_for_update().filter(respondent=respondent).first()
    if submission is None:
        try:
            with transaction.atomic():
                return ProfilingSubmission.objects.create(respondent=respondent, start_orders=start_orders, **fields)
        except IntegrityError:  # the same browser's other request created them meanwhile
            submission = ProfilingSubmission.objects.select_for_update().get(respondent=respondent)
    # A start order once recorded stands: a browser that resumed with the participant reference never saw it.
    earlier = {d: o for d, o in (submission.start_orders or {}).items() if d in rankings}
    for name, value in {**fields, "start_orders": {**earlier, **start_orders}}.items():
        setattr(submission, name, value)
    submission.save(update_fields=[*fields, "start_orders", "updated_at"])
    return submission
