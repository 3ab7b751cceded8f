"""Forms for respondent pages. The ranking form works with and without JavaScript."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django import forms
from django.conf import settings
from django.core import signing

from scoring.rankings import OPTIONS, RankingError, ranking_from_positions, validate_ranking
from surveys.models import Respondent


@dataclass(frozen=True)
class RankingItem:
    letter: str
    text: str
    field: forms.BoundField


class RankingForm(forms.Form):
    """A ranking of the five responses, submitted as one position (1–5) per response.

    Without JavaScript the respondent picks the positions in the selects; with JavaScript the list is
    reordered by drag and drop or the up/down buttons, and the script keeps the same selects in step, so
    the server sees one format. `cleaned_data["ranking"]` is the ranking as a tuple of letters.
    """

    def __init__(
        self,
        *args,
        initial_ranking: Sequence[str] = OPTIONS,
        option_texts: Mapping[str, str] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.initial_ranking = validate_ranking(list(initial_ranking))
        self.option_texts = dict(option_texts or {})
        choices = [(str(position), str(position)) for position in range(1, len(OPTIONS) + 1)]
        for position, letter in enumerate(self.initial_ranking, start=1):
            self.fields[f"position_{letter}"] = forms.TypedChoiceField(
                label=f"Position of response {letter}", choices=choices, coerce=int, initial=position
            )

    def clean(self) -> dict:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        positions = {letter: cleaned.get(f"position_{letter}") for letter in OPTIONS}
        try:
            cleaned["ranking"] = ranking_from_positions(positions)
        except RankingError as error:
            raise forms.ValidationError(f"Please give each response its own position: {error}.") from None
        return cleaned

    def position_field(self, letter: str) -> forms.BoundField:
        return self[f"position_{letter}"]

    @property
    def items(self) -> list[RankingItem]:
        """The responses in the order they are first shown, each with its text and position field."""
        return [
            RankingItem(letter=letter, text=self.option_texts.get(letter, ""), field=self.position_field(letter))
            for letter in self.initial_ranking
        ]


FORM_TIME_SALT = "surveys.consent.form_time"


def form_time_token(now: float | None = None) -> str:
    """A signed record of when the consent page was shown, sent back with the form."""
    return signing.dumps(time.time() if now is None else now, salt=FORM_TIME_SALT)


def form_time_read(token: str | None) -> float | None:
    """The display time inside a `form_time_token`, or None when it is missing or was not signed by us."""
    try:
        shown_at = signing.loads(token or "", salt=FORM_TIME_SALT)
    except signing.BadSignature:
        return None
    return float(shown_at) if isinstance(shown_at, int | float) else None


class ConsentForm(forms.Form):
    """The explicit consent checkbox; panel IDs ride along as hidden fields until consent is given, so
    nothing about the person is stored before it.

    Two cheap signs of automation ride along too: a honeypot field that people never see (hidden by the
    stylesheet, not by `type=hidden`, which bots skip) and the signed time the page was shown. Either only
    flags the respondent (`suspicion()`); nobody is turned away for it.
    """

    HONEYPOT = "contact_note"

    agree = forms.BooleanField(required=False, label="I have read the information above and I agree to take part.")
    PROLIFIC_PID = forms.CharField(required=False, max_length=128, widget=forms.HiddenInput)
    pid = forms.CharField(required=False, max_length=128, widget=forms.HiddenInput)
    contact_note = forms.CharField(
        required=False,
        max_length=1000,
        label="Leave this field empty",
        widget=forms.TextInput(attrs={"autocomplete": "off", "tabindex": "-1"}),
    )
    form_time = forms.CharField(required=False, max_length=200, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["form_time"].initial = form_time_token()

    def panel(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in ("PROLIFIC_PID", "pid") if self.cleaned_data.get(name)}

    def suspicion(self, now: float | None = None) -> list[str]:
        """`Respondent.Suspicion` codes for this (valid) submission: honeypot filled, too fast, or unsigned."""
        reasons = []
        if self.cleaned_data.get(self.HONEYPOT):
            reasons.append(Respondent.Suspicion.HONEYPOT)
        shown_at = form_time_read(self.cleaned_data.get("form_time"))
        if shown_at is None:
            reasons.append(Respondent.Suspicion.NO_FORM_TIME)
        elif (time.time() if now is None else now) - shown_at < settings.STUDY_CONSENT_MIN_SECONDS:
            reasons.append(Respondent.Suspicion.TOO_FAST)
        return reasons


def _band_field(label: str, choices) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, required=False, choices=[("", "Prefer not to say"), *choices], initial="")


class DemographicsForm(forms.Form):
    """Optional, coarse bands only; every question can be left at "Prefer not to say"."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["age_band"] = _band_field("Age", Respondent.AgeBand.choices)
        self.fields["gender"] = _band_field("Gender", Respondent.Gender.choices)
        self.fields["country"] = _band_field("Country you live in", Respondent.Country.choices)
        self.fields["education"] = _band_field("Highest education", Respondent.Education.choices)
        self.fields["native_language"] = _band_field("Native language", Respondent.NativeLanguage.choices)
