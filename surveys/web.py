"""What every consent page does with an agreeing consent form: one place, for every study's pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import HttpRequest

from surveys.forms import ConsentForm
from surveys.models import ConsentText
from surveys.services import ConsentOutcome, respondent_consent
from virtuemap_site.abuse import network_bucket
from virtuemap_site.errors import ApplicationError


def consent_from_form(
    request: HttpRequest,
    form: ConsentForm,
    *,
    text: ConsentText,
    session_key: str,
    then: Callable[[ConsentOutcome], Any] | None = None,
) -> ConsentOutcome | None:
    """Record the consent of a valid, agreeing ``form`` to ``text`` (its study, version and language), with the
    arrival's panel parameters, suspicion codes and network bucket; run ``then`` (e.g. start a questionnaire) in the
    same transaction, so a refusal there stores nothing either; then give the browser a new session holding only the
    respondent's UUID under ``session_key``. Returns None, with the reason added to the form, when the consent or
    ``then`` is refused."""
    try:
        with transaction.atomic():
            outcome = respondent_consent(
                study=text.study,
                consent_version=text.version,
                language=text.language,
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
    request.session[session_key] = str(outcome.respondent.pk)
    return outcome
