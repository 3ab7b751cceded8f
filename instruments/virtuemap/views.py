"""Pages of the VirtueMap instrument for people and about models: the home page, the profiling questionnaire and its
results, and the gallery of published model profiles."""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from instruments.base import FigureContext, edition_kept_notice
from instruments.profiles import edition_comparison
from instruments.virtuemap import selectors as survey_selectors
from instruments.virtuemap.charts import RadarSeries, axis_minimum, radar_chart
from instruments.virtuemap.editions import item_text
from instruments.virtuemap.forms import RankingForm
from instruments.virtuemap.profile import figures as profile_figures
from instruments.virtuemap.profiling import profile_score, profiling_submission_store
from instruments.virtuemap.selectors import (
    ProfileScoringContext,
    dilemma_list_with_options,
    instrument_content,
    key_edition,
    profile_reference_minimum,
    profile_scores,
    profile_scoring_context,
    profiling_reference_scores,
    published_profile_list,
    published_profile_scores,
    retained_key_list,
    study_is_open,
    virtue_list,
)
from instruments.virtuemap.studies import PROFILING, VALIDATION
from instruments.virtuemap.validation import edition_of_arrival
from llmruns.results import CurrentDependencies, result_is_stale
from scoring import OPTIONS, RankingError, percentile_rank, validate_ranking
from surveys import forms
from surveys.context_processors import respondent_read
from surveys.models import Respondent
from surveys.references import browser_reference, results_token, results_token_read
from surveys.selectors import consent_text_current, respondent_by_id, study_information, study_length
from surveys.web import consent_from_form, respondent_session_key, withdraw_in_browser, withdrawal_context
from virtuemap_site.abuse import consent_rate_limited, submit_rate_limited


def model_thumbnails(virtues: list) -> list[dict]:
    """Every published model's pentagon for the home page, on one axis so they compare by eye, from the published
    scores kept in memory (`published_profile_scores`: no query once warm)."""
    profiles = published_profile_scores()
    values = {slug: [scores.get(virtue.id) for virtue in virtues] for slug, (_, scores) in profiles.items()}
    axis_min = axis_minimum([value for row in values.values() for value in row])
    names = [item_text(virtue, "name") for virtue in virtues]
    return [
        {
            "slug": slug,
            "name": name,
            "chart": radar_chart(
                axis_labels=names, series=[RadarSeries(name, values[slug], "model")], axis_min=axis_min
            ),
        }
        for slug, (name, _) in sorted(profiles.items(), key=lambda item: item[1][0])
    ]


def home(request: HttpRequest) -> HttpResponse:
    keys = retained_key_list()
    virtues = list(virtue_list())
    return render(
        request,
        "virtuemap/home.html",
        {
            "virtues": virtues,
            "thumbnails": model_thumbnails(virtues),
            "dilemma_count": dilemma_list_with_options().count(),
            "retained_key_count": keys.count(),
            "published_key_count": keys.filter(provenance="published").count(),
            # Advertised only in an edition it is open in (the edition a visitor in this language would take).
            "study_open": study_is_open(language=edition_of_arrival()),
            "study_length": study_length(study=VALIDATION),
        },
    )


# --- The profiling questionnaire ------------------------------------------------------------------------


def questionnaire_language(answers: ProfileAnswers | None = None) -> str:
    """The edition of the questionnaire being answered, whose texts its pages show and whose keys score it
    (`profile_score`): the one its first dilemma was shown in (``answers.edition``: the language of the consent, or
    of the interface then), kept for the whole questionnaire; the interface's language before any dilemma is shown."""
    return (answers.edition if answers is not None else None) or key_edition(get_language())


# The answers so far live in a signed cookie, not in the database: they survive a reload, and nothing about a
# person who has not consented is stored on the server.

ANSWERS_COOKIE = "virtuemap_profile"
ANSWERS_SALT = "surveys.profile.answers"
ANSWERS_MAX_AGE = 7 * 24 * 3600


def start_order(seed: str, dilemma: str) -> str:
    """The order a person first sees a dilemma's responses in: a shuffle of A–E drawn from their own random seed
    and the dilemma id (Python's `random.Random` seeded with the string "seed:dilemma"), so it differs between
    people and dilemmas, is the same on every reload, and can be recomputed from what the cookie records."""
    letters = list(OPTIONS)
    random.Random(f"{seed}:{dilemma}").shuffle(letters)
    return "".join(letters)


@dataclass
class ProfileAnswers:
    """What the browser holds of a person's profiling questionnaire (a signed cookie).

    rankings: dilemma id → ranking as a string of letters ("CBADE"), or None for a skipped dilemma.
    seed: the person's random seed for the start orders (`start_order`), made when the first dilemma is shown.
    shown: dilemma ids whose start order was shown (a ranking sent for another dilemma cannot be a default).
    kept: dilemma ids answered with "I have not moved anything" (the start order kept on purpose).
    """

    rankings: dict[str, str | None] = field(default_factory=dict)
    seed: str | None = None
    shown: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    edition: str | None = None

    @classmethod
    def load(cls, request: HttpRequest, dilemmas: list[str]) -> ProfileAnswers:
        try:
            stored = json.loads(request.get_signed_cookie(ANSWERS_COOKIE, salt=ANSWERS_SALT, max_age=ANSWERS_MAX_AGE))
        except (KeyError, ValueError, signing.BadSignature):
            return cls()
        if not isinstance(stored, dict):
            return cls()
        # Cookies written before the start orders were a flat mapping of rankings.
        versioned = stored.get("v") == 2
        raw_rankings = stored.get("rankings") if versioned else stored
        if not isinstance(raw_rankings, dict):
            return cls()
        rankings = cls._checked(raw_rankings, dilemmas)
        if not versioned:
            return cls(rankings)
        seed = stored.get("seed")
        seed = seed if isinstance(seed, str) and 0 < len(seed) <= 64 else None
        shown, kept = (
            [dilemma for dilemma in dilemmas if isinstance(stored.get(name), list) and dilemma in stored[name]]
            for name in ("shown", "kept")
        )
        edition = key_edition(stored.get("edition"), default=None) if isinstance(stored.get("edition"), str) else None
        return cls(rankings, seed=seed, shown=shown if seed else [], kept=kept, edition=edition)

    @classmethod
    def from_rankings(
        cls, raw_rankings: object, dilemmas: list[str], *, kept: object = (), edition: object = None
    ) -> ProfileAnswers:
        """Answers from stored or linked rankings (a submission, a private results link), checked like a cookie's."""
        rankings = cls._checked(raw_rankings if isinstance(raw_rankings, dict) else {}, dilemmas)
        kept_list = [d for d in dilemmas if isinstance(kept, list | tuple) and d in kept and rankings.get(d)]
        edition = key_edition(edition, default=None) if isinstance(edition, str) else None
        return cls(rankings, kept=kept_list, edition=edition)

    @staticmethod
    def _checked(raw_rankings: dict, dilemmas: list[str]) -> dict[str, str | None]:
        # A tampered or outdated cookie can only lose answers, never inject a bad ranking.
        rankings: dict[str, str | None] = {}
        for dilemma, ranking in raw_rankings.items():
            if dilemma not in dilemmas:
                continue
            if ranking is None:
                rankings[dilemma] = None
                continue
            try:
                rankings[dilemma] = "".join(validate_ranking(list(ranking) if isinstance(ranking, str) else ranking))
            except RankingError:
                continue
        return rankings

    def save(self, response: HttpResponse) -> None:
        payload = {
            "v": 2,
            "rankings": self.rankings,
            "seed": self.seed,
            "shown": self.shown,
            "kept": self.kept,
            "edition": self.edition,
        }
        response.set_signed_cookie(
            ANSWERS_COOKIE,
            json.dumps(payload, separators=(",", ":")),
            salt=ANSWERS_SALT,
            max_age=ANSWERS_MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,  # the same policy as the session cookie
        )

    def start_order(self, dilemma: str) -> str | None:
        """The start order shown for this dilemma, or None when none was shown."""
        return start_order(self.seed, dilemma) if self.seed and dilemma in self.shown else None

    def start_orders(self) -> dict[str, str]:
        return {dilemma: order for dilemma in self.shown if (order := self.start_order(dilemma))}

    @property
    def answered(self) -> list[str]:
        return [dilemma for dilemma, ranking in self.rankings.items() if ranking is not None]

    @property
    def skipped(self) -> list[str]:
        return [dilemma for dilemma, ranking in self.rankings.items() if ranking is None]

    def for_scoring(self) -> dict[str, list[str] | None]:
        return {dilemma: (list(ranking) if ranking else None) for dilemma, ranking in self.rankings.items()}

    def store(self, respondent: Respondent) -> None:
        """Store the answers of a consenting respondent, with the start orders shown and the kept dilemmas."""
        profiling_submission_store(
            respondent=respondent,
            rankings=self.rankings,
            start_orders=self.start_orders(),
            kept_unmoved=[dilemma for dilemma in self.kept if dilemma in self.rankings],
            language=self.edition or key_edition(respondent.language),
        )


def instrument_content_ids() -> list[str]:
    """The dilemma ids, in instrument order (from memory: `instrument_content`)."""
    return [dilemma.id for dilemma in instrument_content().dilemmas]


def _progress(answers: ProfileAnswers, total: int) -> dict[str, int | str]:
    answered, skipped = len(answers.answered), len(answers.skipped)
    return {
        "answered": answered,
        "skipped": skipped,
        "total": total,
        "text": _("%(answered)d of %(total)d answered, %(skipped)d skipped")
        % {"answered": answered, "total": total, "skipped": skipped},
    }


PROFILING_SESSION_KEY = respondent_session_key(PROFILING)
ANSWER, KEEP, SKIP = "answer", "keep", "skip"
NOT_MOVED_BUT_SAVED = gettext_lazy(
    "You have not moved anything. If this order is your answer, choose “I have not moved anything: this order is "
    "my answer”; otherwise move the responses into your order first."
)
MOVED_BUT_KEPT = gettext_lazy(
    "You have moved responses, so this is no longer the order shown. Choose “Save my ranking” to save your order."
)


def _profiling_respondent(request: HttpRequest) -> Respondent | None:
    """The respondent who consented to research use in this browser session, if any."""
    respondent_id = request.session.get(PROFILING_SESSION_KEY)
    if not respondent_id:
        return None
    respondent = respondent_by_id(respondent_id=respondent_id, study=PROFILING)
    respondent_read(request, respondent)
    return respondent


@require_http_methods(["GET", "POST"])
@consent_rate_limited
def profile_start(request: HttpRequest) -> HttpResponse:
    """The questionnaire's first page: what it is, and the choice to consent to research use or not.

    The consent is the validation study's flow with the profiling study's text: a versioned text, an explicit
    box, `respondent_consent`; starting without consent stores nothing.
    """
    dilemmas = list(instrument_content().dilemmas)
    answers = ProfileAnswers.load(request, [dilemma.id for dilemma in dilemmas])
    respondent = _profiling_respondent(request)
    text = consent_text_current(study=PROFILING)
    form = forms.ConsentForm(request.POST or None, request=request)
    if request.method == "POST" and dilemmas:
        first = reverse("profile-dilemma", args=[dilemmas[0].id])
        if "decline" in request.POST or text is None:
            return redirect(first)
        if form.is_valid() and not form.cleaned_data["agree"]:
            form.add_error("agree", _("Please tick the box to agree, or choose to start without storing anything."))
        elif form.is_valid():
            outcome = consent_from_form(request, form, text=text)
            if outcome is not None:
                if answers.rankings:
                    answers.store(outcome.respondent)
                return redirect(first)
    unseen = [dilemma for dilemma in dilemmas if dilemma.id not in answers.rankings]
    return render(
        request,
        "virtuemap/profile_start.html",
        {
            "dilemmas": dilemmas,
            "first": dilemmas[0] if dilemmas else None,
            "resume": unseen[0] if unseen and answers.rankings else None,
            "progress": _progress(answers, len(dilemmas)),
            "has_answers": bool(answers.rankings),
            "respondent": respondent,
            "text": text,
            "information": study_information(text=text) if text else None,
            "form": form,
        },
        status=400 if request.method == "POST" else 200,
    )


@require_http_methods(["GET", "POST"])
def profile_withdraw(request: HttpRequest) -> HttpResponse:
    """Delete the consenting respondent and their stored answers, and forget the answers in the browser."""
    respondent = _profiling_respondent(request)
    if request.method == "POST":
        return _withdrawn(request, respondent)
    return render(request, "virtuemap/profile_withdraw.html", {"respondent": respondent})


def _withdrawn(request: HttpRequest, respondent: Respondent | None) -> HttpResponse:
    """Withdraw the respondent (if any), forget the answers in the browser, and say what was deleted."""
    withdrawal = withdraw_in_browser(request, respondent, study=PROFILING)
    response = render(request, "virtuemap/profile_withdrawn.html", withdrawal_context(withdrawal))
    response.delete_cookie(ANSWERS_COOKIE, samesite="Lax")
    return response


def profile_resume(request: HttpRequest) -> HttpResponse:
    """Where a participant reference resumes the profiling questionnaire: the answers stored with consent come back
    into this browser (unless it holds answers of its own), then the questionnaire carries on."""
    respondent = _profiling_respondent(request)
    if respondent is None:
        return redirect("profile-start")
    ids = [dilemma.id for dilemma in instrument_content().dilemmas]
    answers = ProfileAnswers.load(request, ids)
    stored = getattr(respondent, "profiling_submission", None)
    if not answers.rankings and stored is not None:
        answers = ProfileAnswers.from_rankings(stored.rankings, ids, kept=stored.kept_unmoved, edition=stored.language)
    unseen = [dilemma for dilemma in ids if dilemma not in answers.rankings]
    response = redirect("profile-dilemma", unseen[0]) if unseen else redirect("profile-results")
    answers.save(response)
    return response


@submit_rate_limited
def profile_dilemma(request: HttpRequest, dilemma_id: str) -> HttpResponse:
    dilemmas = list(instrument_content().dilemmas)
    ids = [dilemma.id for dilemma in dilemmas]
    if dilemma_id not in ids:
        raise Http404("No such dilemma.")
    index = ids.index(dilemma_id)
    dilemma = dilemmas[index]
    answers = ProfileAnswers.load(request, ids)
    respondent = _profiling_respondent(request)
    if answers.edition is None:
        # The first dilemma shown fixes the questionnaire's edition: the consent's, else the interface's.
        answers.edition = key_edition(respondent.language) if respondent is not None else questionnaire_language()
    edition = answers.edition
    texts = {option.letter: item_text(option, "text", edition) for option in dilemma.options.all()}
    saved = answers.rankings.get(dilemma_id)
    new_seed = answers.seed is None
    if new_seed:
        answers.seed = secrets.token_hex(8)
    if request.method == "GET" and not saved and dilemma_id not in answers.shown:
        answers.shown.append(dilemma_id)
    # What the list shows first: the person's own earlier ranking, else their random start order (no default A–E).
    shown = saved or answers.start_order(dilemma_id)
    initial = list(shown or start_order(answers.seed, dilemma_id))
    next_url = reverse("profile-dilemma", args=[ids[index + 1]]) if index + 1 < len(ids) else reverse("profile-results")
    if request.method == "POST":
        form = RankingForm(request.POST, initial_ranking=initial, option_texts=texts)
        action = request.POST.get("action", ANSWER)
        if action == SKIP:
            answers.rankings[dilemma_id] = None
            answers.kept = [d for d in answers.kept if d != dilemma_id]
        elif form.is_valid():
            ranking = "".join(form.cleaned_data["ranking"])
            if action == KEEP and shown is not None and ranking != shown:
                form.add_error(None, MOVED_BUT_KEPT)
                action = "invalid"
            elif action != KEEP and shown is not None and ranking == shown:
                form.add_error(None, NOT_MOVED_BUT_SAVED)
                action = "invalid"
            else:
                answers.rankings[dilemma_id] = ranking
                answers.kept = [d for d in answers.kept if d != dilemma_id]
                if action == KEEP and not saved:
                    answers.kept.append(dilemma_id)
        else:
            action = "invalid"
        if action != "invalid":
            if respondent is not None:
                answers.store(respondent)
            response = redirect(next_url)
            answers.save(response)
            return response
    else:
        form = RankingForm(initial_ranking=initial, option_texts=texts)
    back_url = reverse("profile-dilemma", args=[ids[index - 1]]) if index > 0 else reverse("profile-start")
    page = render(
        request,
        "virtuemap/profile_dilemma.html",
        {
            "dilemma": dilemma,
            "number": index + 1,
            "form": form,
            "progress": _progress(answers, len(ids)),
            "status": "answered" if saved else ("skipped" if dilemma_id in answers.rankings else "new"),
            "back_url": back_url,
            "is_last": index + 1 == len(ids),
            "has_answers": bool(answers.answered),
            "respondent": respondent,
            "edition": edition,
            "edition_kept": edition_kept_notice(edition),
        },
        status=400 if request.method == "POST" else 200,
    )
    if request.method == "GET":
        answers.save(page)  # the seed and the start orders shown, so a reload shows the same order
    return page


START_AGAIN_WITHDRAW, START_AGAIN_KEEP = "withdraw", "keep"


@require_http_methods(["GET", "POST"])
def profile_results(request: HttpRequest) -> HttpResponse:
    respondent = _profiling_respondent(request)
    reference = browser_reference(request, PROFILING) if respondent else None
    if request.method == "POST":
        return _start_again(request, respondent, reference)
    answers = ProfileAnswers.load(request, list(instrument_content_ids()))
    context = profile_scoring_context(language=questionnaire_language(answers))
    # A private link to these results holds the rankings only: it works without consent, and says nothing of who.
    token = results_token({"study": PROFILING, "rankings": answers.rankings, "edition": context.language})
    link = request.build_absolute_uri(reverse("profile-results-link", args=[token]))
    return _results_page(
        request, context, answers, respondent=respondent, extra={"results_link": link, "reference": reference}
    )


@require_http_methods(["GET", "POST"])
def profile_results_link(request: HttpRequest, token: str) -> HttpResponse:
    """The results a private link holds (their rankings, scored against today's keys), in any browser, read-only.

    The link is also the resume code of someone who did not consent (nothing of theirs is on the server): a POST
    carries on with its answers in this browser, provided the browser holds no answers, stored or not, of its own.
    """
    ids = list(instrument_content_ids())
    payload = results_token_read(token)
    if payload is None or payload.get("study") != PROFILING:
        return render(request, "virtuemap/profile_results_gone.html", status=404)
    answers = ProfileAnswers.from_rankings(payload.get("rankings"), ids, edition=payload.get("edition"))
    context = profile_scoring_context(language=questionnaire_language(answers))
    free = not ProfileAnswers.load(request, ids).rankings and _profiling_respondent(request) is None
    if request.method == "POST" and free:
        unseen = [dilemma for dilemma in ids if dilemma not in answers.rankings]
        response = redirect("profile-dilemma", unseen[0]) if unseen else redirect("profile-results")
        answers.save(response)
        return response
    refused = request.method == "POST"
    extra = {"read_only": True, "can_continue": free, "link_refused": refused}
    return _results_page(request, context, answers, respondent=None, extra=extra, status=409 if refused else 200)


def _start_again(request: HttpRequest, respondent: Respondent | None, reference: str | None) -> HttpResponse:
    """ "Start again": forget every answer in this browser. Answers stored with consent are either withdrawn (and the
    page says what was deleted) or kept under the participant reference, which the page shows once more, so that
    they are never out of their owner's reach. Withdrawing asks for confirmation first (a post with ``confirm``)."""
    choice = request.POST.get("start_again")
    if respondent is not None and (choice == START_AGAIN_WITHDRAW or reference is None):
        if request.POST.get("confirm") != "1":
            # Deleting cannot be undone: asked once, on a page of its own (no script needed), with a way back.
            return render(request, "virtuemap/profile_start_again_confirm.html")
        return _withdrawn(request, respondent)
    request.session.pop(PROFILING_SESSION_KEY, None)
    if respondent is not None:
        response = render(request, "virtuemap/profile_kept.html", {"reference": reference})
    else:
        response = redirect("profile-start")
    response.delete_cookie(ANSWERS_COOKIE, samesite="Lax")
    return response


def _results_page(
    request: HttpRequest,
    context: ProfileScoringContext,
    answers: ProfileAnswers,
    *,
    respondent: Respondent | None,
    extra: dict,
    status: int = 200,
) -> HttpResponse:
    result = profile_score(rankings=answers.for_scoring(), context=context)
    content = instrument_content()
    virtues = list(content.virtues)
    if not virtues:
        # Nothing loaded yet: the start page says so, where a chart with no axes has nothing to draw.
        return redirect("profile-start")
    dilemmas = {dilemma.id: dilemma for dilemma in content.dilemmas}
    person = [result.scores[virtue.id] for virtue in virtues]
    names = [item_text(virtue, "name") for virtue in virtues]
    best = result.nearest_models[0] if result.nearest_models else None
    best_scores = None
    if best is not None:
        _name, scores = published_profile_scores().get(best.slug, (None, None))
        best_scores = [scores.get(virtue.id) for virtue in virtues] if scores else None
    yours = _("Your profile")
    charts = {"person": radar_chart(axis_labels=names, series=[RadarSeries(yours, person)])}
    if best_scores is not None:
        charts["overlay"] = radar_chart(
            axis_labels=names,
            series=[RadarSeries(yours, person), RadarSeries(best.name, best_scores, style="model")],
        )
    people, reference = profiling_reference_scores(
        virtues=[virtue.id for virtue in virtues], exclude=respondent.pk if respondent else None
    )
    use_reference = people >= profile_reference_minimum()
    rows = []
    for virtue in virtues:
        score = result.scores[virtue.id]
        among = reference[virtue.id] if use_reference and score is not None else []
        rows.append(
            {
                "virtue": virtue,
                "score": score,
                "percentile": percentile_rank(score, among) if among else None,
                "reference_n": len(among),
            }
        )
    scored = [row for row in rows if row["score"] is not None]
    return render(
        request,
        "virtuemap/profile_results.html",
        {
            "rows": rows,
            "example": max(scored, key=lambda row: row["score"]) if scored else None,
            "reference_people": people,
            "reference_min": profile_reference_minimum(),
            "use_reference": use_reference,
            "result": result,
            "answered": [dilemmas[dilemma_id] for dilemma_id in result.answered],
            "skipped": [dilemmas[dilemma_id] for dilemma_id in result.skipped],
            "not_seen": [dilemmas[d] for d in result.skipped if d not in answers.rankings],
            "charts": charts,
            "best": best,
            "progress": _progress(answers, len(context.dilemmas)),
            "first": next(iter(dilemmas.values()), None),
            "respondent": respondent,
            "results_link_days": settings.RESULTS_LINK_MAX_AGE_DAYS,
            **extra,
        },
        status=status,
    )


def person_profile_summary(request: HttpRequest) -> dict | None:
    """The browser's profiling answers scored now, in a published profile's shape (one run, no interval); None
    before any dilemma is answered."""
    answers = ProfileAnswers.load(request, list(instrument_content_ids()))
    if not answers.answered:
        return None
    context = profile_scoring_context(language=questionnaire_language(answers))
    result = profile_score(rankings=answers.for_scoring(), context=context)
    return {"runs": 1, "profile_stats": {virtue: {"mean": score} for virtue, score in result.scores.items()}}


# --- the gallery -----------------------------------------------------------------------------------------------


def gallery(request: HttpRequest) -> HttpResponse:
    virtues = list(survey_selectors.virtue_list())
    results = list(published_profile_list())
    current = CurrentDependencies()
    names = [item_text(virtue, "name") for virtue in virtues]
    values = {result.pk: [profile_scores(result).get(virtue.id) for virtue in virtues] for result in results}
    # One axis for every chart, so the pentagons can be compared by eye.
    axis_min = axis_minimum([value for row in values.values() for value in row])
    editions = _gallery_editions(results, virtues)
    cards = []
    for result in results:
        summary = result.summary
        profile = {
            "id": result.pk,
            "model": result.model,
            "runs": summary.get("runs"),
            "consistency": summary.get("consistency"),
            "max_ci_half_width": summary.get("max_ci_half_width"),
            "source_display": result.get_source_display(),
            "stale": result_is_stale(result, current=current),
            "diagnostics": result.diagnostics,
        }
        stats = summary.get("profile_stats") or {}
        cards.append(
            {
                "profile": profile,
                "chart": radar_chart(
                    axis_labels=names,
                    series=[RadarSeries(result.model.name, values[result.pk], "model")],
                    axis_min=axis_min,
                ),
                "rows": [{"virtue": virtue, "stats": stats.get(virtue.id) or {}} for virtue in virtues],
                "editions": editions.get(result.model_id),
            }
        )
    return render(request, "virtuemap/gallery.html", {"cards": cards})


def _gallery_editions(english: list, virtues: list) -> dict[int, dict]:
    """Model id → its profiles in English and every other language it was published in, side by side with their
    differences (`instruments.profiles.edition_comparison`), for the models published in more than one; one query."""
    context = FigureContext(labels={virtue.id: item_text(virtue, "name") for virtue in virtues})
    by_model = {result.model_id: {"en": profile_figures(result.summary, context)} for result in english}
    for result in survey_selectors.published_profiles_in_other_languages():
        if result.model_id in by_model:
            by_model[result.model_id][result.language] = profile_figures(result.summary, context)
    found = {model_id: edition_comparison(figures) for model_id, figures in by_model.items()}
    return {model_id: comparison for model_id, comparison in found.items() if comparison is not None}
