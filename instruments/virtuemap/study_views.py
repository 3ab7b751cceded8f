"""Pages of the key-validation study (`/study/`): landing, consent, optional questions, the confirm-or-correct
items, thanks and withdrawal. The session holds only the respondent's UUID, and only after consent."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from instruments.base import edition_kept_notice
from instruments.virtuemap.forms import RankingForm
from instruments.virtuemap.models import Assignment
from instruments.virtuemap.selectors import (
    every_item_answered,
    instrument_content,
    items_total,
    study_is_open,
)
from instruments.virtuemap.studies import VALIDATION
from instruments.virtuemap.validation import (
    CHOOSE_A_BUTTON,
    CONFIRM,
    CORRECT,
    ItemAnswer,
    assignment_edition,
    attention_check_item_answer,
    edition_of_arrival,
    validation_item_answer,
    validation_serve,
)
from surveys import forms
from surveys.context_processors import respondent_read
from surveys.models import Respondent
from surveys.selectors import consent_text_current, respondent_by_id, study_information, study_length
from surveys.services import (
    completion_code_for,
    respondent_demographics_set,
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

# --- The validation study ------------------------------------------------------------------------------------
# Pages of the respondent journey. The session holds only the respondent's UUID, and only after consent.

SESSION_KEY = respondent_session_key(VALIDATION)
PANEL_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "pid")


def _session_respondent(request: HttpRequest) -> Respondent | None:
    respondent_id = request.session.get(SESSION_KEY)
    respondent = respondent_by_id(respondent_id=respondent_id, study=VALIDATION) if respondent_id else None
    respondent_read(request, respondent)
    return respondent


def _panel_query(request: HttpRequest) -> str:
    return urlencode({name: request.GET[name] for name in PANEL_PARAMS if request.GET.get(name)})


def _no_respondent(request: HttpRequest) -> HttpResponse:
    query = _panel_query(request)
    return redirect(reverse("study-landing") + (f"?{query}" if query else ""))


def study_landing(request: HttpRequest) -> HttpResponse:
    if finished := respondent_finished_for_arrival(study=VALIDATION, params=request.GET):
        return _thanks(request, finished)
    respondent = _session_respondent(request)
    study_open = study_is_open(language=edition_of_arrival())
    return render(
        request,
        "virtuemap/study/landing.html",
        {
            "respondent": respondent,
            "panel_query": _panel_query(request),
            "study_open": study_open,
            "length": study_length(study=VALIDATION),
            **({} if study_open or respondent else study_closed_return(params=request.GET)),
        },
    )


@require_http_methods(["GET", "POST"])
@consent_rate_limited
def study_consent(request: HttpRequest) -> HttpResponse:
    text = consent_text_current(study=VALIDATION)
    if text is None:
        return render(request, "virtuemap/study/complete.html", {"reason": "not_ready"})
    current = _session_respondent(request)
    if current is not None:
        # This browser already consented: carry on (or show the code again) rather than start a second respondent.
        return redirect("study-thanks" if current.is_complete else "study-item")
    if request.method == "GET" and (finished := respondent_finished_for_arrival(study=VALIDATION, params=request.GET)):
        # Back from the panel's link after finishing: the completion code again, not a consent form.
        return _thanks(request, finished)
    if not study_is_open(language=edition_of_arrival(consent_language=text.language)):
        # Nothing to judge in this language: no consent to a study that would then have nothing to show, and a panel
        # arrival gets the study-closed code and the way back.
        closed = study_closed_return(params=request.POST or request.GET)
        return render(request, "virtuemap/study/complete.html", {"reason": "closed", **closed})
    form = forms.ConsentForm(request.POST or None, request=request)
    if request.method == "POST" and form.is_valid():
        panel = form.panel()
        if "decline" in request.POST:
            # Nothing is stored: no respondent, no session.
            code = completion_code_for(outcome="no_consent") if panel else None
            return render(request, "virtuemap/study/declined.html", _completion_context(code, bool(panel)))
        if not form.cleaned_data["agree"]:
            form.add_error("agree", _("Please tick the box to agree, or choose “I do not agree”."))
        else:
            outcome = consent_from_form(request, form, text=text)
            if outcome is not None:
                return redirect("study-item" if outcome.resumed else "study-demographics")
    information = study_information(text=text)
    return render(request, "virtuemap/study/consent.html", {"text": text, "information": information, "form": form})


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
                respondent_demographics_set(respondent=respondent, answers=form.cleaned_data)
            except ApplicationError as error:
                form.add_error(None, error.message)
            else:
                return redirect("study-item")
    return render(request, "virtuemap/study/demographics.html", {"form": form, "respondent": respondent})


@require_http_methods(["GET", "POST"])
@submit_rate_limited
def study_item(request: HttpRequest) -> HttpResponse:
    respondent_id = request.session.get(SESSION_KEY)
    if respondent_id is None:
        return _no_respondent(request)
    if request.method == "GET":
        return _item_page(request)
    # An answer is stored without reading anything first: the service locks and checks what it needs.
    form = RankingForm(request.POST, prefix="item")
    try:
        answered = _answer_sent(request, form, respondent_id=respondent_id)
    except ApplicationError as error:
        return _item_page(request, refused=True, error=error.message)
    if answered is None:
        return _item_page(request, refused=True)
    # After the last item, straight to the thank-you page (which completes the respondent), not via the item page.
    return redirect("study-thanks" if every_item_answered(answered) else "study-item")


def _answer_sent(request: HttpRequest, form: RankingForm, *, respondent_id: str) -> int | None:
    """Send the page's answer to its service and return how many items the respondent has answered now (0 when the
    answer was not stored); None when its positions are invalid (the errors are on ``form``).

    The services write nothing for an item that is not the respondent's pending one (a stale tab or the back
    button: the answer belongs to an item already answered), and the page that follows shows the pending one."""
    assignment_id = _posted_assignment(request)
    if request.POST.get("action") in (CONFIRM, CORRECT):
        answer = _item_answer(request, form)
        if answer is None:
            return None
        outcome = validation_item_answer(respondent_id=respondent_id, assignment_id=assignment_id, answer=answer)
        return outcome.answered if outcome is not None else 0
    # The attention check's page has one button, and a client may send none.
    if not form.is_valid():
        return None
    ordering = list(form.cleaned_data["ranking"])
    check = attention_check_item_answer(respondent_id=respondent_id, assignment_id=assignment_id, ordering=ordering)
    if check is None:
        # Not the pending check: a stale tab (the page that follows shows the pending item), or a validation item.
        raise ApplicationError(str(CHOOSE_A_BUTTON))
    return check.position  # items are served in order, each answered before the next: its position is the count


def _item_page(request: HttpRequest, *, refused: bool = False, error: str = "") -> HttpResponse:
    """The respondent's current item (served now if need be); ``refused``: with the errors of the answer sent."""
    served = _served(request)
    if served is None:
        return _no_respondent(request)
    respondent, assignment = served
    if assignment is None:
        if respondent.is_complete:
            return redirect("study-thanks")
        closed = study_closed_return(respondent=respondent)
        context = {"respondent": respondent, "reason": "no_open", **closed}
        return render(request, "virtuemap/study/complete.html", context)
    edition = assignment_edition(assignment)
    form = RankingForm(
        request.POST or None,
        initial_ranking=list(assignment.displayed_order),
        option_texts=instrument_content().option_texts(assignment.dilemma_id, language=edition),
        prefix="item",
    )
    if request.method == "POST":
        if str(assignment.pk) != request.POST.get("assignment"):
            # A stale tab or the back button: the answer belongs to an item already answered.
            return redirect("study-item")
        if refused:
            form.is_valid()
            if error:
                form.add_error(None, error)
    progress = {"answered": assignment.answered_before, "total": items_total()}
    return render(
        request,
        "virtuemap/study/item.html",
        {
            "respondent": assignment.respondent,
            "assignment": assignment,
            "form": form,
            "progress": progress,
            "position": progress["answered"] + 1,
            "edition": edition,
            "edition_kept": edition_kept_notice(edition),
            "instruction": assignment.check_letter
            and _("To show that you are reading carefully, please place response %(letter)s first.")
            % {"letter": assignment.check_letter},
        },
    )


def _served(request: HttpRequest) -> tuple[Respondent, Assignment | None] | None:
    """This browser's respondent, read once, locked, by the service that serves their item, and that item
    (`validation_serve`; None when they are done); None when there is no respondent (withdrawn, or never consented)."""
    respondent_id = request.session.get(SESSION_KEY)
    if respondent_id is None:
        return None
    try:
        respondent, assignment = validation_serve(respondent_id=respondent_id)
    except Respondent.DoesNotExist:  # withdrawn
        respondent_read(request, None)
        return None
    respondent_read(request, respondent)
    return respondent, assignment


def _posted_assignment(request: HttpRequest) -> int:
    return ascii_int(request.POST.get("assignment", "")) or 0


def _item_answer(request: HttpRequest, form: RankingForm) -> ItemAnswer | None:
    """The answer the item page sent, or None when its list of positions is invalid (the errors are on ``form``).

    A confirmation may come without positions (a client that sends none confirms the proposed order); a correction,
    or a confirmation that sent them, needs a valid ranking, which the service compares with the proposed order.
    """
    action = request.POST.get("action", "")
    sent_positions = any(name.startswith(f"{form.prefix}-position_") for name in request.POST)
    ordering = None
    if action == CORRECT or (action == CONFIRM and sent_positions):
        if not form.is_valid():
            return None
        ordering = "".join(form.cleaned_data["ranking"])
    edition = request.POST.get("edition") or None
    return ItemAnswer(action=action, ordering=ordering, time_on_item_ms=elapsed_ms(request.POST), edition=edition)


def _completion_context(code: str | None, panel: bool) -> dict:
    redirect_url = settings.STUDY_PANEL_REDIRECT_URL.format(code=code) if code and panel else None
    return {"completion_code": code, "redirect_url": redirect_url}


def study_thanks(request: HttpRequest) -> HttpResponse:
    served = _served(request)
    if served is None:
        return _no_respondent(request)
    # Straight from the last answer, serving finds nothing left and completes the respondent.
    respondent, _assignment = served
    if not respondent.is_complete:
        return redirect("study-item")
    return _thanks(request, respondent)


def _thanks(request: HttpRequest, respondent: Respondent) -> HttpResponse:
    code = respondent_outcome_code(respondent=respondent)
    context = _completion_context(code, bool(respondent.panel))
    return render(request, "virtuemap/study/thanks.html", {"respondent": respondent, **context})


@require_http_methods(["GET", "POST"])
def study_withdraw(request: HttpRequest) -> HttpResponse:
    respondent = _session_respondent(request)
    if request.method == "POST" and respondent is not None:
        withdrawal = withdraw_in_browser(request, respondent, study=VALIDATION)
        return render(request, "virtuemap/study/withdrawn.html", withdrawal_context(withdrawal))
    if respondent is None:
        return render(request, "virtuemap/study/withdrawn.html", {"nothing_stored": True})
    return render(request, "virtuemap/study/withdraw.html", {"respondent": respondent})
