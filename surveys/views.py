"""The pages a participant reaches from any browser with their participant reference: withdraw, and resume."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from instruments import registry
from surveys import selectors
from surveys.forms import ReferenceForm
from surveys.questionnaire import questionnaire_for
from surveys.references import browser_reference, browser_references, forget_reference, remember_reference
from surveys.services import respondent_withdraw_by_reference
from surveys.web import respondent_session_key, withdrawal_context
from virtuemap_site.abuse import reference_rate_limited

NOT_FOUND = gettext_lazy(
    "No participant holds this reference, so nothing was changed. Check it against the one you noted (the letters "
    "O, I and L are read as 0, 1 and 1); a reference already used to withdraw no longer exists."
)


@require_http_methods(["GET", "POST"])
@reference_rate_limited
def reference_withdraw(request: HttpRequest) -> HttpResponse:
    """Withdraw with a participant reference, from any browser, and say what was deleted. Deleting cannot be undone,
    so it asks once: a reference sent without ``confirm`` shows which study's answers would go, with the button that
    deletes them (a second page: no script needed) and a way back; only that button's post deletes."""
    form = ReferenceForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        reference = form.cleaned_data["reference"]
        if request.POST.get("confirm") != "1":
            respondent = selectors.respondent_by_reference(reference=reference)
            if respondent is not None:
                context = {"reference": reference, "study_name": _study_name(respondent.study)}
                return render(request, "surveys/reference_withdraw_confirm.html", context)
            form.add_error("reference", NOT_FOUND)
            return render(request, "surveys/reference_withdraw.html", {"form": form}, status=400)
        withdrawal = respondent_withdraw_by_reference(reference=reference)
        if withdrawal is not None:
            if browser_reference(request, withdrawal.study) == reference:
                # The browser whose session holds the respondent: it forgets them too.
                request.session.pop(respondent_session_key(withdrawal.study), None)
            if reference in (held for _, held in browser_references(request)):
                forget_reference(request, reference=reference)
            context = {**withdrawal_context(withdrawal), "study_name": _study_name(withdrawal.study)}
            return render(request, "surveys/reference_withdrawn.html", context)
        form.add_error("reference", NOT_FOUND)
    status = 400 if request.method == "POST" else 200
    return render(request, "surveys/reference_withdraw.html", {"form": form}, status=status)


@require_http_methods(["GET", "POST"])
@reference_rate_limited
def reference_resume(request: HttpRequest) -> HttpResponse:
    """Carry on in this browser where the reference's holder left off (or see their results, once finished)."""
    form = ReferenceForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        reference = form.cleaned_data["reference"]
        respondent = selectors.respondent_by_reference(reference=reference)
        if respondent is not None:
            # A new session for the respondent, as at consent; a reference this browser showed before stays in view.
            request.session.cycle_key()
            request.session[respondent_session_key(respondent.study)] = str(respondent.pk)
            remember_reference(request, study=respondent.study, reference=reference)
            return redirect(_continue_url(respondent.study))
        form.add_error("reference", NOT_FOUND)
    status = 400 if request.method == "POST" else 200
    return render(request, "surveys/reference_resume.html", {"form": form}, status=status)


def _study_name(study: str) -> str:
    studies = registry.studies()
    return studies[study].name if study in studies else study


def _continue_url(study: str) -> str:
    declared = registry.study(study)
    if declared.continue_url_name:
        return reverse(declared.continue_url_name)
    questionnaire_for(study)  # every other study runs through the shared questionnaire
    return reverse("surveys:questionnaire-item", kwargs={"study": study})
