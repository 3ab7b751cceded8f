"""Forms of the respondent flow: consent (with the signed display time and the honeypot), the optional questions,
and the participant reference."""

from __future__ import annotations

import secrets
import time

from django import forms
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.core import signing
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys import references
from surveys.demographics import DEMOGRAPHIC_CHOICES
from surveys.models import Respondent

FORM_TIME_SALT = "surveys.consent.form_time"
# A consent page left open longer than this is stale: its display time no longer vouches for anything.
FORM_TIME_MAX_AGE = 3 * 3600
# The session's nonce, which a display time must carry and which a consent uses up.
FORM_NONCE_SESSION_KEY = "consent_form_nonce"


def form_time_token(session: SessionBase, now: float | None = None) -> str:
    """A signed record of when the consent page was shown to this browser session, sent back with the form.

    It carries the session's nonce (created here on the first page), so it is good for this session only, and only
    until a consent uses the nonce up.
    """
    nonce = session.get(FORM_NONCE_SESSION_KEY)
    if not nonce:
        nonce = session[FORM_NONCE_SESSION_KEY] = secrets.token_urlsafe(16)
    return signing.dumps({"t": time.time() if now is None else now, "n": nonce}, salt=FORM_TIME_SALT)


def form_time_read(token: str | None, session: SessionBase) -> tuple[float | None, str]:
    """The display time inside a `form_time_token` and what is wrong with it: "" when nothing, `no_form_time` when
    it is missing, forged or older than FORM_TIME_MAX_AGE, `form_time_reused` when it was issued to another session
    or its nonce was used up by a consent."""
    try:
        payload = signing.loads(token or "", salt=FORM_TIME_SALT, max_age=FORM_TIME_MAX_AGE)
    except signing.BadSignature:
        return None, Respondent.Suspicion.NO_FORM_TIME
    shown_at = payload.get("t") if isinstance(payload, dict) else None
    if not isinstance(shown_at, int | float) or time.time() - shown_at > FORM_TIME_MAX_AGE:
        return None, Respondent.Suspicion.NO_FORM_TIME
    if not payload.get("n") or payload.get("n") != session.get(FORM_NONCE_SESSION_KEY):
        return float(shown_at), Respondent.Suspicion.FORM_TIME_REUSED
    return float(shown_at), ""


class FreshValueField(forms.CharField):
    """A hidden field that always renders its initial value, computed afresh when the page is drawn, never the value
    the browser sent: the consent form's display time must be a new one on every page (after a refused consent too,
    whose nonce was used up), yet be an ordinary field so that every browser submits it. (A `disabled` field renders
    its initial value as well, but browsers never submit a disabled control.)"""

    widget = forms.HiddenInput

    def bound_data(self, data, initial):
        return initial


class ConsentForm(forms.Form):
    """The explicit consent checkbox; panel IDs ride along as hidden fields until consent is given, so
    nothing about the person is stored before it.

    Two cheap signs of automation ride along too: a honeypot field that people never see (hidden by the
    stylesheet, not by `type=hidden`, which bots skip) and the signed time the page was shown, bound to the browser
    session and good for one consent. Either only flags the respondent (`suspicion()`); nobody is turned away for it.
    """

    HONEYPOT = "contact_note"
    PANEL_FIELDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "pid")

    agree = forms.BooleanField(
        required=False, label=gettext_lazy("I have read the information above and I agree to take part.")
    )
    PROLIFIC_PID = forms.CharField(required=False, max_length=128, widget=forms.HiddenInput)
    STUDY_ID = forms.CharField(required=False, max_length=128, widget=forms.HiddenInput)
    SESSION_ID = forms.CharField(required=False, max_length=128, widget=forms.HiddenInput)
    pid = forms.CharField(required=False, max_length=128, widget=forms.HiddenInput)
    contact_note = forms.CharField(
        required=False,
        max_length=1000,
        label=gettext_lazy("Leave this field empty"),
        widget=forms.TextInput(attrs={"autocomplete": "off", "tabindex": "-1"}),
    )
    # Submitted by the browser like any field; drawn with a fresh token (computed when the page is drawn, after any
    # consent used the last one up), never with the one posted.
    form_time = FreshValueField(required=False)

    def __init__(self, *args, request: HttpRequest, **kwargs) -> None:
        initial = kwargs.pop("initial", None) or {name: request.GET.get(name, "") for name in self.PANEL_FIELDS}
        super().__init__(*args, initial=initial, **kwargs)
        self.session = request.session
        self.fields["form_time"].initial = lambda: form_time_token(self.session)

    def panel(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in self.PANEL_FIELDS if self.cleaned_data.get(name)}

    def suspicion(self, now: float | None = None) -> list[str]:
        """`Respondent.Suspicion` codes for this (valid) submission: honeypot filled, too fast, missing or reused
        display time. Uses up the session's nonce, so the same display time cannot vouch for a second consent."""
        reasons = []
        if self.cleaned_data.get(self.HONEYPOT):
            reasons.append(Respondent.Suspicion.HONEYPOT)
        shown_at, problem = form_time_read(self.cleaned_data.get("form_time"), self.session)
        self.session.pop(FORM_NONCE_SESSION_KEY, None)
        if problem:
            reasons.append(problem)
        elif (time.time() if now is None else now) - shown_at < settings.STUDY_CONSENT_MIN_SECONDS:
            reasons.append(Respondent.Suspicion.TOO_FAST)
        return reasons


def _band_field(label: str, choices) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, required=False, choices=[("", _("Prefer not to say")), *choices], initial="")


class DemographicsForm(forms.Form):
    """Optional: coarse bands, a country and a first language from the ISO lists; every question can be left at
    "Prefer not to say"."""

    LABELS = {
        "age_band": gettext_lazy("Age"),
        "gender": gettext_lazy("Gender"),
        "country": gettext_lazy("Country you live in"),
        "education": gettext_lazy("Highest education"),
        "native_language": gettext_lazy("Native language"),
    }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, choices in DEMOGRAPHIC_CHOICES.items():
            self.fields[name] = _band_field(self.LABELS[name], choices())


class ReferenceForm(forms.Form):
    """A participant reference typed or pasted by its holder (any case, spaces or hyphens; O, I and L read as 0, 1)."""

    reference = forms.CharField(
        label=gettext_lazy("Your participant reference"),
        max_length=40,
    )  # drawn by components/reference_field.html

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Per form, in the request's language: a lazy text cannot be %-formatted when the class is defined.
        self.fields["reference"].help_text = _("12 letters and digits, like %(example)s.") % {
            "example": references.REFERENCE_EXAMPLE
        }

    def clean_reference(self) -> str:
        normalised = references.reference_normalise(self.cleaned_data["reference"])
        if normalised is None:
            raise forms.ValidationError(
                _("This is not a participant reference: 12 letters and digits, like %(example)s.")
                % {"example": references.REFERENCE_EXAMPLE}
            )
        return normalised
