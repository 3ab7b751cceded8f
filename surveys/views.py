from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from instruments.virtuemap import selectors as virtuemap_selectors
from scoring import OPTIONS, RankingError, validate_ranking
from surveys import forms, selectors, services
from surveys.charts import RadarSeries, radar_chart
from surveys.forms import RankingForm
from surveys.models import Assignment, Respondent, Study
from virtuemap_site.abuse import consent_rate_limited, network_bucket, submit_rate_limited
from virtuemap_site.errors import ApplicationError


def home(request: HttpRequest) -> HttpResponse:
    keys = selectors.retained_key_list()
    return render(
        request,
        "surveys/home.html",
        {
            "virtues": selectors.virtue_list(),
            "dilemma_count": selectors.dilemma_list_with_options().count(),
            "retained_key_count": keys.count(),
            "published_key_count": keys.filter(provenance="published").count(),
            "study_open": selectors.study_is_open(),
        },
    )


# --- The validation study ------------------------------------------------------------------------------------
# Pages of the respondent journey. The session holds only the respondent's UUID, and only after consent.

SESSION_KEY = "validation_respondent"
PANEL_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "pid")


def _session_respondent(request: HttpRequest) -> Respondent | None:
    respondent_id = request.session.get(SESSION_KEY)
    return selectors.respondent_by_id(respondent_id=respondent_id, study=Study.VALIDATION) if respondent_id else None


def _panel_query(request: HttpRequest) -> str:
    return urlencode({name: request.GET[name] for name in PANEL_PARAMS if request.GET.get(name)})


def _no_respondent(request: HttpRequest) -> HttpResponse:
    query = _panel_query(request)
    return redirect(reverse("study-landing") + (f"?{query}" if query else ""))


def study_landing(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "surveys/study/landing.html",
        {
            "respondent": _session_respondent(request),
            "panel_query": _panel_query(request),
            "study_open": selectors.study_is_open(),
            "items": settings.STUDY_ITEMS_PER_RESPONDENT + settings.STUDY_ATTENTION_CHECKS,
        },
    )


@require_http_methods(["GET", "POST"])
@consent_rate_limited
def study_consent(request: HttpRequest) -> HttpResponse:
    text = selectors.consent_text_current(study=Study.VALIDATION)
    if text is None:
        return render(request, "surveys/study/complete.html", {"reason": "not_ready"})
    current = _session_respondent(request)
    if current is not None:
        # This browser already consented: carry on (or show the code again) rather than start a second respondent.
        return redirect("study-thanks" if current.is_complete else "study-item")
    form = forms.ConsentForm(request.POST or None, request=request)
    if request.method == "POST" and form.is_valid():
        panel = form.panel()
        if "decline" in request.POST:
            # Nothing is stored: no respondent, no session.
            code = services.completion_code_for(outcome="no_consent") if panel else None
            return render(request, "surveys/study/declined.html", _completion_context(code, bool(panel)))
        if not form.cleaned_data["agree"]:
            form.add_error("agree", "Please tick the box to agree, or choose “I do not agree”.")
        else:
            try:
                outcome = services.respondent_consent(
                    study=Study.VALIDATION,
                    consent_version=text.version,
                    accept=True,
                    panel=panel,
                    suspicion=form.suspicion(),
                    network_bucket=network_bucket(request),
                )
            except ApplicationError as error:
                form.add_error(None, error.message)
            else:
                request.session.cycle_key()
                request.session[SESSION_KEY] = str(outcome.respondent.pk)
                return redirect("study-item" if outcome.resumed else "study-demographics")
    return render(request, "surveys/study/consent.html", {"text": text, "form": form})


@require_http_methods(["GET", "POST"])
@submit_rate_limited
def study_demographics(request: HttpRequest) -> HttpResponse:
    respondent = _session_respondent(request)
    if respondent is None:
        return _no_respondent(request)
    form = forms.DemographicsForm(request.POST or None)
    if request.method == "POST":
        if "skip" in request.POST:
            return redirect("study-item")
        if form.is_valid():
            try:
                services.respondent_demographics_set(respondent=respondent, answers=form.cleaned_data)
            except ApplicationError as error:
                form.add_error(None, error.message)
            else:
                return redirect("study-item")
    return render(request, "surveys/study/demographics.html", {"form": form, "respondent": respondent})


@require_http_methods(["GET", "POST"])
@submit_rate_limited
def study_item(request: HttpRequest) -> HttpResponse:
    respondent = _session_respondent(request)
    if respondent is None:
        return _no_respondent(request)
    assignment = services.validation_next_assignment(respondent=respondent)
    if assignment is None:
        respondent.refresh_from_db()
        if respondent.is_complete:
            return redirect("study-thanks")
        return render(request, "surveys/study/complete.html", {"respondent": respondent, "reason": "no_open"})
    assignment = selectors.assignment_for_display(assignment_id=assignment.pk)
    options = {option.letter: option.text for option in assignment.dilemma.options.all()}
    form = RankingForm(
        request.POST or None,
        initial_ranking=list(assignment.displayed_order),
        option_texts=options,
        prefix="item",
    )
    if request.method == "POST":
        if str(assignment.pk) != request.POST.get("assignment"):
            # A stale tab or the back button: the answer belongs to an item already answered.
            return redirect("study-item")
        confirm = assignment.kind == Assignment.Kind.VALIDATION and request.POST.get("action") == "confirm"
        if confirm or form.is_valid():
            try:
                if assignment.kind == Assignment.Kind.ATTENTION_CHECK:
                    services.attention_check_submit(
                        respondent=respondent, assignment_id=assignment.pk, ordering=list(form.cleaned_data["ranking"])
                    )
                else:
                    services.validation_response_submit(
                        respondent=respondent,
                        candidate_id=assignment.candidate_id,
                        confirmed=confirm,
                        ordering=None if confirm else list(form.cleaned_data["ranking"]),
                    )
            except ApplicationError as error:
                form.add_error(None, error.message)
            else:
                return redirect("study-item")
    progress = selectors.respondent_progress(respondent=respondent)
    return render(
        request,
        "surveys/study/item.html",
        {
            "respondent": respondent,
            "assignment": assignment,
            "options": sorted(options.items()),
            "proposed": [(letter, options[letter]) for letter in assignment.displayed_order],
            "form": form,
            "progress": progress,
            "position": progress["answered"] + 1,
            "instruction": assignment.check_letter
            and f"To show that you are reading carefully, please place response {assignment.check_letter} first.",
        },
    )


def _completion_context(code: str | None, panel: bool) -> dict:
    redirect_url = settings.STUDY_PANEL_REDIRECT_URL.format(code=code) if code and panel else None
    return {"completion_code": code, "redirect_url": redirect_url}


def study_thanks(request: HttpRequest) -> HttpResponse:
    respondent = _session_respondent(request)
    if respondent is None:
        return _no_respondent(request)
    if not respondent.is_complete:
        return redirect("study-item")
    code = services.respondent_outcome_code(respondent=respondent)
    context = _completion_context(code, bool(respondent.panel))
    return render(request, "surveys/study/thanks.html", {"respondent": respondent, **context})


@require_http_methods(["GET", "POST"])
def study_withdraw(request: HttpRequest) -> HttpResponse:
    respondent = _session_respondent(request)
    if request.method == "POST" and respondent is not None:
        services.respondent_withdraw(respondent=respondent)
        request.session.flush()
        return render(request, "surveys/study/withdrawn.html")
    if respondent is None:
        return render(request, "surveys/study/withdrawn.html", {"nothing_stored": True})
    return render(request, "surveys/study/withdraw.html", {"respondent": respondent})


# --- The profiling questionnaire ------------------------------------------------------------------------
# The answers so far live in a signed cookie, not in the database: they survive a reload, and nothing about a
# person who has not consented is stored on the server.

ANSWERS_COOKIE = "virtuemap_profile"
ANSWERS_SALT = "surveys.profile.answers"
ANSWERS_MAX_AGE = 7 * 24 * 3600


@dataclass
class ProfileAnswers:
    """Dilemma id → ranking as a string of letters ("CBADE"), or None for a skipped dilemma."""

    rankings: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def load(cls, request: HttpRequest, dilemmas: list[str]) -> ProfileAnswers:
        try:
            stored = json.loads(request.get_signed_cookie(ANSWERS_COOKIE, salt=ANSWERS_SALT, max_age=ANSWERS_MAX_AGE))
        except (KeyError, ValueError, signing.BadSignature):
            return cls()
        if not isinstance(stored, dict):
            return cls()
        # A tampered or outdated cookie can only lose answers, never inject a bad ranking.
        rankings: dict[str, str | None] = {}
        for dilemma, ranking in stored.items():
            if dilemma not in dilemmas:
                continue
            if ranking is None:
                rankings[dilemma] = None
                continue
            try:
                rankings[dilemma] = "".join(validate_ranking(list(ranking) if isinstance(ranking, str) else ranking))
            except RankingError:
                continue
        return cls(rankings)

    def save(self, response: HttpResponse) -> None:
        response.set_signed_cookie(
            ANSWERS_COOKIE,
            json.dumps(self.rankings, separators=(",", ":")),
            salt=ANSWERS_SALT,
            max_age=ANSWERS_MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,  # the same policy as the session cookie
        )

    @property
    def answered(self) -> list[str]:
        return [dilemma for dilemma, ranking in self.rankings.items() if ranking is not None]

    @property
    def skipped(self) -> list[str]:
        return [dilemma for dilemma, ranking in self.rankings.items() if ranking is None]

    def for_scoring(self) -> dict[str, list[str] | None]:
        return {dilemma: (list(ranking) if ranking else None) for dilemma, ranking in self.rankings.items()}


def _progress(answers: ProfileAnswers, total: int) -> dict[str, int | str]:
    answered, skipped = len(answers.answered), len(answers.skipped)
    return {
        "answered": answered,
        "skipped": skipped,
        "total": total,
        "text": f"{answered} of {total} answered, {skipped} skipped",
    }


PROFILING_SESSION_KEY = "profiling_respondent"


def _profiling_respondent(request: HttpRequest) -> Respondent | None:
    """The respondent who consented to research use in this browser session, if any."""
    respondent_id = request.session.get(PROFILING_SESSION_KEY)
    if not respondent_id:
        return None
    return selectors.respondent_by_id(respondent_id=respondent_id, study=Study.PROFILING)


@require_http_methods(["GET", "POST"])
@consent_rate_limited
def profile_start(request: HttpRequest) -> HttpResponse:
    """The questionnaire's first page: what it is, and the choice to consent to research use or not.

    The consent is the validation study's flow with the profiling study's text: a versioned text, an explicit
    box, `respondent_consent`; starting without consent stores nothing.
    """
    dilemmas = list(selectors.dilemma_list_with_options().order_by("position"))
    answers = ProfileAnswers.load(request, [dilemma.id for dilemma in dilemmas])
    respondent = _profiling_respondent(request)
    text = selectors.consent_text_current(study=Study.PROFILING)
    form = forms.ConsentForm(request.POST or None, request=request)
    if request.method == "POST" and dilemmas:
        first = reverse("profile-dilemma", args=[dilemmas[0].id])
        if "decline" in request.POST or text is None:
            return redirect(first)
        if form.is_valid() and not form.cleaned_data["agree"]:
            form.add_error("agree", "Please tick the box to agree, or choose to start without storing anything.")
        elif form.is_valid():
            try:
                outcome = services.respondent_consent(
                    study=Study.PROFILING,
                    consent_version=text.version,
                    accept=True,
                    panel=form.panel(),
                    suspicion=form.suspicion(),
                    network_bucket=network_bucket(request),
                )
            except ApplicationError as error:
                form.add_error(None, error.message)
            else:
                request.session.cycle_key()
                request.session[PROFILING_SESSION_KEY] = str(outcome.respondent.pk)
                if answers.rankings:
                    services.profiling_submission_store(respondent=outcome.respondent, rankings=answers.rankings)
                return redirect(first)
    unseen = [dilemma for dilemma in dilemmas if dilemma.id not in answers.rankings]
    return render(
        request,
        "surveys/profile_start.html",
        {
            "dilemmas": dilemmas,
            "first": dilemmas[0] if dilemmas else None,
            "resume": unseen[0] if unseen and answers.rankings else None,
            "progress": _progress(answers, len(dilemmas)),
            "has_answers": bool(answers.rankings),
            "respondent": respondent,
            "text": text,
            "form": form,
        },
        status=400 if request.method == "POST" else 200,
    )


@require_http_methods(["GET", "POST"])
def profile_withdraw(request: HttpRequest) -> HttpResponse:
    """Delete the consenting respondent and their stored answers, and forget the answers in the browser."""
    respondent = _profiling_respondent(request)
    if request.method == "POST":
        if respondent is not None:
            services.respondent_withdraw(respondent=respondent)
        request.session.pop(PROFILING_SESSION_KEY, None)
        response = render(request, "surveys/profile_withdrawn.html", {"had_data": respondent is not None})
        response.delete_cookie(ANSWERS_COOKIE, samesite="Lax")
        return response
    return render(request, "surveys/profile_withdraw.html", {"respondent": respondent})


@submit_rate_limited
def profile_dilemma(request: HttpRequest, dilemma_id: str) -> HttpResponse:
    dilemmas = list(selectors.dilemma_list_with_options().order_by("position"))
    ids = [dilemma.id for dilemma in dilemmas]
    if dilemma_id not in ids:
        raise Http404("No such dilemma.")
    index = ids.index(dilemma_id)
    dilemma = dilemmas[index]
    answers = ProfileAnswers.load(request, ids)
    respondent = _profiling_respondent(request)
    texts = {option.letter: option.text for option in dilemma.options.all()}
    saved = answers.rankings.get(dilemma_id)
    initial = list(saved) if saved else list(OPTIONS)
    next_url = reverse("profile-dilemma", args=[ids[index + 1]]) if index + 1 < len(ids) else reverse("profile-results")
    if request.method == "POST":
        form = RankingForm(request.POST, initial_ranking=initial, option_texts=texts)
        action = request.POST.get("action", "answer")
        if action == "skip":
            answers.rankings[dilemma_id] = None
        elif form.is_valid():
            answers.rankings[dilemma_id] = "".join(form.cleaned_data["ranking"])
        else:
            action = "invalid"
        if action != "invalid":
            if respondent is not None:
                services.profiling_submission_store(respondent=respondent, rankings=answers.rankings)
            response = redirect(next_url)
            answers.save(response)
            return response
    else:
        form = RankingForm(initial_ranking=initial, option_texts=texts)
    back_url = reverse("profile-dilemma", args=[ids[index - 1]]) if index > 0 else reverse("profile-start")
    return render(
        request,
        "surveys/profile_dilemma.html",
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
        },
        status=400 if request.method == "POST" else 200,
    )


def profile_results(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        # "Start again": forget every answer in the browser. Answers stored with consent stay until withdrawn.
        request.session.pop(PROFILING_SESSION_KEY, None)
        response = redirect("profile-start")
        response.delete_cookie(ANSWERS_COOKIE, samesite="Lax")
        return response
    context = selectors.profile_scoring_context()
    answers = ProfileAnswers.load(request, list(context.dilemmas))
    result = services.profile_score(rankings=answers.for_scoring(), context=context)
    virtues = list(selectors.virtue_list())
    dilemmas = {dilemma.id: dilemma for dilemma in selectors.dilemma_list_with_options()}
    person = [result.scores[virtue.id] for virtue in virtues]
    names = [virtue.name for virtue in virtues]
    best = result.nearest_models[0] if result.nearest_models else None
    best_scores = None
    if best is not None:
        profile = virtuemap_selectors.published_profile_get(slug=best.slug)
        scores = virtuemap_selectors.profile_scores(profile) if profile else None
        best_scores = [scores.get(virtue.id) for virtue in virtues] if scores else None
    charts = {"person": radar_chart(axis_labels=names, series=[RadarSeries("Your profile", person)])}
    if best_scores is not None:
        charts["overlay"] = radar_chart(
            axis_labels=names,
            series=[RadarSeries("Your profile", person), RadarSeries(best.name, best_scores, style="model")],
        )
    return render(
        request,
        "surveys/profile_results.html",
        {
            "rows": [{"virtue": virtue, "score": result.scores[virtue.id]} for virtue in virtues],
            "result": result,
            "answered": [dilemmas[dilemma_id] for dilemma_id in result.answered],
            "skipped": [dilemmas[dilemma_id] for dilemma_id in result.skipped],
            "not_seen": [dilemmas[d] for d in result.skipped if d not in answers.rankings],
            "charts": charts,
            "best": best,
            "progress": _progress(answers, len(context.dilemmas)),
            "first": next(iter(dilemmas.values()), None),
            "respondent": _profiling_respondent(request),
        },
    )
