"""What every study's pages share: consenting with an agreeing form, the browser session of a respondent, and
withdrawing (in this browser or with a participant reference) with a report of what was deleted."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db import transaction
from django.http import HttpRequest

from surveys.context_processors import respondent_gone
from surveys.forms import ConsentForm
from surveys.models import ConsentText, Respondent
from surveys.references import browser_reference, forget_reference, remember_reference
from surveys.services import (
    ConsentOutcome,
    WithdrawalReport,
    completion_code_for,
    respondent_consent,
    respondent_withdraw,
)
from virtuemap_site.abuse import network_bucket
from virtuemap_site.errors import ApplicationError
from virtuemap_site.request_guards import ascii_int
from virtuemap_site.sessions import RESPONDENT_KEY_SUFFIX

# At most 9 digits: under 11.6 days in milliseconds, within every database's integer column.
ELAPSED_MS_DIGITS = 9


def consent_from_form(
    request: HttpRequest,
    form: ConsentForm,
    *,
    text: ConsentText,
    then: Callable[[ConsentOutcome], Any] | None = None,
) -> ConsentOutcome | None:
    """Record the consent of a valid, agreeing ``form`` to ``text`` (its study, version and language), with the
    arrival's panel parameters, suspicion codes and network bucket; run ``then`` (e.g. start a questionnaire) in the
    same transaction, so a refusal there stores nothing either; then give the browser a new session holding only the
    respondent's UUID (`respondent_session_key`) and the participant reference in its own cookie (never in the session,
    which is stored on the server). Returns None, with the reason added to the form, when the consent or ``then`` is
    refused."""
    try:
        with transaction.atomic():
            outcome = respondent_consent(
                study=text.study,
                consent_version=text.version,
                language=text.language,
                current_text=text,
                accept=True,
                panel=form.panel(),
                suspicion=form.suspicion(),
                network_bucket=network_bucket(request),
            )
            if then is not None:
                then(outcome)
    except ApplicationError as error:
        form.add_error(None, error.message)
        return None
    request.session.cycle_key()
    request.session[respondent_session_key(text.study)] = str(outcome.respondent.pk)
    remember_reference(request, study=text.study, reference=outcome.reference)
    return outcome


def elapsed_ms(data: Mapping[str, Any]) -> int | None:
    """The page script's time from showing an item to the press of its button, as a form posts it in ``elapsed_ms``
    (static/js/timed-form.js); None for a page that sent none (no script) or anything but 1 to 9 ASCII digits ("²",
    "-5", "1e3", ten digits). Whether the figure is plausible is for the service to judge against its own clock."""
    value = data.get("elapsed_ms", "")
    number = ascii_int(value)
    return number if number is not None and len(value) <= ELAPSED_MS_DIGITS else None


def respondent_session_key(study: str) -> str:
    """The browser-session key holding the respondent of ``study`` (one per study, so studies never mix)."""
    return f"{study}{RESPONDENT_KEY_SUFFIX}"  # the suffix keeps such a session in a cookie (virtuemap_site.sessions)


def withdraw_in_browser(request: HttpRequest, respondent: Respondent | None, *, study: str) -> WithdrawalReport | None:
    """Withdraw ``respondent`` (None: nothing stored) and make this browser forget them: the session's respondent
    and the reference in the footer. Returns what was deleted."""
    withdrawal = respondent_withdraw(respondent=respondent) if respondent is not None else None
    respondent_gone(request)
    request.session.pop(respondent_session_key(study), None)
    forget_reference(request, reference=browser_reference(request, study))
    return withdrawal


def withdrawal_context(withdrawal: WithdrawalReport | None) -> dict[str, Any]:
    """What the withdrawn pages show (`components/withdrawal_report.html`): the counts deleted and, for a panel
    arrival, the code to give the panel (the no-consent code: consent was taken back) with the instruction to return
    the submission rather than complete it."""
    panel = withdrawal is not None and bool(withdrawal.panel)
    return {
        "withdrawal": withdrawal,
        "withdrawal_panel_code": completion_code_for(outcome="no_consent") if panel else None,
    }
