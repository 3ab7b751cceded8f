"""The pages of the shared questionnaire: information and consent, one item per page, results (and a private link
to them), withdrawal.

Mounted twice: at /take/<study>/ for every registered study with a questionnaire, and by an instrument under its own
URLs with the study fixed (the transitivity test's /transitivity/questionnaire/, which panel links point to). Each
page links to its siblings in the namespace it was reached through. Whoever does not agree takes no part and has
nothing stored; the browser session holds only the respondent's UUID, and only after consent.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from instruments import registry
from instruments.base import AnswerRejected, Questionnaire, edition_kept_notice, items_edition
from instruments.registry import UnknownInstrument
from surveys import questionnaire as services
from surveys import selectors
from surveys.forms import ConsentForm
from surveys.models import QuestionnaireSession, Respondent
from surveys.references import results_token, results_token_read
from surveys.services import (
    completion_code_for,
    panel_return_url,
    respondent_finished_for_arrival,
    respondent_outcome_code,
    study_closed_return,
)
from surveys.web import (
    consent_from_form,
    elapsed_ms,
    respondent_session_key,
    withdraw_in_browser,
    withdrawal_context,
)
from virtuemap_site.abuse import consent_rate_limited, submit_rate_limited
from virtuemap_site.errors import ApplicationError
from virtuemap_site.request_guards import ascii_int


def _questionnaire(study: str) -> Questionnaire:
    try:
        return services.questionnaire_for(study)
    except UnknownInstrument as missing:
        raise Http404(str(missing)) from missing


def _url(request: HttpRequest, name: str, study: str) -> str:
    """The URL of the sibling page ``name`` in the namespace the current page was reached through."""
    match = request.resolver_match
    kwargs = {"study": study} if "study" in match.captured_kwargs else {}
    return reverse(f"{match.namespace}:{name}", kwargs=kwargs)


def _links(request: HttpRequest, study: str) -> dict[str, str]:
    names = ("questionnaire-start", "questionnaire-item", "questionnaire-results", "questionnaire-withdraw")
    # "results-link" is not a sibling to link to: it needs a token.
    return {name.split("-")[1]: _url(request, name, study) for name in names}


def _respondent(request: HttpRequest, study: str) -> Respondent | None:
    respondent_id = request.session.get(respondent_session_key(study))
    if not respondent_id:
        return None
    return selectors.respondent_by_id(respondent_id=respondent_id, study=study)


def _panel_return(code: str | None) -> dict[str, str | None]:
    return {"completion_code": code, "redirect_url": panel_return_url(code=code) if code else None}


def _session(request: HttpRequest, study: str) -> QuestionnaireSession | None:
    return services.questionnaire_session_get(respondent=_respondent(request, study))


def _base_context(request: HttpRequest, study: str, questionnaire: Questionnaire) -> dict:
    return {"study": study, "questionnaire": questionnaire, "links": _links(request, study)}


@require_http_methods(["GET", "POST"])
@consent_rate_limited
def questionnaire_start(request: HttpRequest, study: str) -> HttpResponse:
    """Information, consent, and the start of a session."""
    questionnaire = _questionnaire(study)
    session = _session(request, study)
    if session is not None:
        return redirect(_url(request, "questionnaire-results" if session.is_complete else "questionnaire-item", study))
    if request.method == "GET" and (finished := respondent_finished_for_arrival(study=study, params=request.GET)):
        return _completed_before(request, study, questionnaire, finished)
    text = selectors.consent_text_current(study=study)
    form = ConsentForm(request.POST or None, request=request)
    try:
        options, design_error = questionnaire.design_options(request.POST or request.GET), None
    except AnswerRejected as problem:
        options, design_error = {}, str(problem)
    ready = text is not None and questionnaire.is_ready()
    if design_error:
        # A link asking for a design that does not exist: say so, and let nobody consent to something else.
        ready = False
    elif request.method == "POST":
        if "decline" in request.POST:
            # Nothing is stored; a panel arrival still gets the panel's code for "no consent" and its way back.
            code = completion_code_for(outcome="no_consent") if form.is_valid() and form.panel() else None
            context = {**_base_context(request, study, questionnaire), **_panel_return(code)}
            return render(request, "surveys/questionnaire/declined.html", context)
        if not ready:
            form.add_error(None, _("The questionnaire is not ready yet; please come back later."))
        elif form.is_valid() and not form.cleaned_data["agree"]:
            form.add_error("agree", _("Please tick the box to agree, or choose not to take part."))
        elif form.is_valid():

            def start(outcome):
                return services.questionnaire_session_start(respondent=outcome.respondent, options=options)

            if consent_from_form(request, form, text=text, then=start):
                return redirect(_url(request, "questionnaire-item", study))
    context = {
        **_base_context(request, study, questionnaire),
        **questionnaire.intro_context(options),
        "text": text,
        "information": selectors.study_information(text=text, options=options) if ready else None,
        "form": form,
        "options": options,
        "ready": ready,
        "design_error": design_error,
        # Not open: a panel arrival gets the study-closed code and the way back rather than a dead end.
        **({} if ready or design_error else study_closed_return(params=request.POST or request.GET)),
    }
    failed = request.method == "POST" or design_error is not None
    return render(request, "surveys/questionnaire/start.html", context, status=400 if failed else 200)


@require_http_methods(["GET", "POST"])
@submit_rate_limited
def questionnaire_item(request: HttpRequest, study: str) -> HttpResponse:
    """The next unanswered item, or with ``?position=N`` an answered one revisited with Back (its stored answer
    shown, changeable until the questionnaire is complete). A POST stores the answer once and moves on (refresh and
    the browser's back button are harmless); a POST marked ``revisit`` changes the answer at its position."""
    questionnaire = _questionnaire(study)
    session = _session(request, study)
    if session is None:
        return redirect(_url(request, "questionnaire-start", study))
    next_position = services.questionnaire_next_position(session=session)
    if next_position is None:
        return redirect(_url(request, "questionnaire-results", study))
    error = None
    if request.method == "POST":
        position = ascii_int(request.POST.get("position", "")) or request.POST.get("position", "")
        revisit = request.POST.get("revisit") == "1"
        submit = services.questionnaire_answer_correct if revisit else services.questionnaire_answer_submit
        try:
            submit(session=session, position=position, data=request.POST, time_on_item_ms=elapsed_ms(request.POST))
        except ApplicationError as problem:
            # A 409 is a repeat of an answered page (refresh, back button) or a change after completion: the stored
            # answer stands, move on.
            if problem.status != 409:
                error = problem.message
        if error is None:
            # Post/redirect/get: a reload of the next page never re-submits this answer.
            return redirect(_next_item_url(request, study, session, after=position if revisit else None))
    revisited = ascii_int(request.POST.get("position", "") if error else request.GET.get("position", ""))
    position = revisited if revisited is not None and 1 <= revisited < next_position else next_position
    item = session.sequence[position - 1]
    stored = services.questionnaire_answer_at(session=session, position=position)
    shown = request.POST if error else (questionnaire.answer_fields(item, stored.value) if stored else {})
    context = {
        **_base_context(request, study, questionnaire),
        **questionnaire.item_context(item),
        "edition_kept": _edition_kept(session),
        "position": position,
        "total": len(session.sequence),
        "answered": next_position - 1,
        "revisit": stored is not None,
        "back_position": position - 1 if position > 1 else None,
        "shown": shown,
        "error": error,
    }
    return render(request, "surveys/questionnaire/item.html", context, status=400 if error else 200)


def _edition_kept(session: QuestionnaireSession) -> str:
    """The notice for a respondent whose interface is now in a language the instrument has other items in than their
    study's edition (they switched mid-study): the items stay in that edition (`edition_kept_notice`)."""
    identity = registry.instrument(session.instrument).identity
    edition = services.questionnaire_edition(session=session)
    return edition_kept_notice(edition) if items_edition(identity, get_language() or edition) != edition else ""


def _next_item_url(request: HttpRequest, study: str, session: QuestionnaireSession, *, after: int | None) -> str:
    """Where to go after an answer: the position after a revisited one while it is answered too (so Back, then
    Next, walks forward through one's answers), else the first unanswered item."""
    url = _url(request, "questionnaire-item", study)
    next_position = services.questionnaire_next_position(session=session)
    if isinstance(after, int) and next_position is not None and after + 1 < next_position:
        return f"{url}?position={after + 1}"
    return url


@require_GET
def questionnaire_results(request: HttpRequest, study: str) -> HttpResponse:
    """The respondent's results so far (complete or not), as the instrument shows them, and a completion code."""
    questionnaire = _questionnaire(study)
    session = _session(request, study)
    if session is None:
        return redirect(_url(request, "questionnaire-start", study))
    token = results_token({"study": study, "respondent": str(session.respondent_id)})
    link = request.build_absolute_uri(_results_link_url(request, study, token))
    return _results_page(request, study, questionnaire, session, results_link=link)


@require_GET
def questionnaire_results_link(request: HttpRequest, study: str, token: str) -> HttpResponse:
    """The results a private link (`questionnaire_results` gives it) points to, in any browser, read-only."""
    questionnaire = _questionnaire(study)
    payload = results_token_read(token)
    respondent = None
    if payload is not None and payload.get("study") == study:
        respondent = selectors.respondent_by_id(respondent_id=payload.get("respondent"), study=study)
    session = services.questionnaire_session_get(respondent=respondent)
    if session is None:
        context = {**_base_context(request, study, questionnaire), "expired": payload is None}
        return render(request, "surveys/questionnaire/results_gone.html", context, status=404)
    return _results_page(request, study, questionnaire, session, read_only=True)


def _results_link_url(request: HttpRequest, study: str, token: str) -> str:
    match = request.resolver_match
    kwargs = {"study": study} if "study" in match.captured_kwargs else {}
    return reverse(f"{match.namespace}:questionnaire-results-link", kwargs={**kwargs, "token": token})


def _results_page(
    request: HttpRequest,
    study: str,
    questionnaire: Questionnaire,
    session: QuestionnaireSession,
    *,
    results_link: str | None = None,
    read_only: bool = False,
) -> HttpResponse:
    items, answers = services.questionnaire_answers(session=session)
    respondent = session.respondent
    code = respondent_outcome_code(respondent=respondent) if respondent.panel and session.is_complete else None
    context = {
        **_base_context(request, study, questionnaire),
        **questionnaire.results_context(items, answers),
        "session": session,
        "answered": len(answers),
        "total": len(session.sequence),
        **_panel_return(code),
        "results_link": results_link,
        "results_link_days": settings.RESULTS_LINK_MAX_AGE_DAYS,
        "read_only": read_only,
    }
    return render(request, "surveys/questionnaire/results.html", context)


def _completed_before(
    request: HttpRequest, study: str, questionnaire: Questionnaire, respondent: Respondent
) -> HttpResponse:
    """A finished panel participant back through the panel's link: their completion code again, and the way back."""
    code = respondent_outcome_code(respondent=respondent)
    context = {
        **_base_context(request, study, questionnaire),
        **_panel_return(code),
    }
    return render(request, "surveys/questionnaire/completed_before.html", context)


@require_http_methods(["GET", "POST"])
def questionnaire_withdraw(request: HttpRequest, study: str) -> HttpResponse:
    """Delete the respondent and every answer they gave, and say what was deleted."""
    questionnaire = _questionnaire(study)
    respondent = _respondent(request, study)
    context = _base_context(request, study, questionnaire)
    if request.method == "POST":
        withdrawal = withdraw_in_browser(request, respondent, study=study)
        return render(request, "surveys/questionnaire/withdrawn.html", {**context, **withdrawal_context(withdrawal)})
    return render(request, "surveys/questionnaire/withdraw.html", {**context, "respondent": respondent})
