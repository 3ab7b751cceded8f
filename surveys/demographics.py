"""The optional questions' answers: coarse bands, and countries and languages from the maintained ISO lists.

Countries are ISO 3166-1 alpha-2 codes as django-countries keeps them (its list follows the ISO standard and
translates the names); languages are ISO 639-1 codes from pycountry's copy of the ISO 639 tables (the 184 languages
with a two-letter code, which take in the first languages of nearly every panel). Each list ends with "other", for a
country or language outside it, which says more than leaving the question blank.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import pycountry
from django_countries import countries

from surveys.models import Respondent

OTHER = "other"
Choices = list[tuple[str, str]]


def country_choices() -> Choices:
    """Every ISO 3166-1 country by its alpha-2 code, ordered by its name in the active language, then "other"."""
    return [*((code, str(name)) for code, name in countries), (OTHER, "Another country or territory")]


@cache
def language_choices() -> Choices:
    """Every ISO 639-1 language by its two-letter code, ordered by its English name, then "other"."""
    # The ISO names carry qualifiers a person does not need to recognise their language ("Modern Greek (1453-)").
    named = {
        language.alpha_2: re.sub(r"\s*\(.*\)$", "", language.name)
        for language in pycountry.languages
        if hasattr(language, "alpha_2")
    }
    return [*sorted(named.items(), key=lambda pair: pair[1]), (OTHER, "Another language")]


# The five optional questions and their answers; a blank answer means "prefer not to say".
DEMOGRAPHIC_CHOICES: dict[str, Callable[[], Choices]] = {
    "age_band": lambda: Respondent.AgeBand.choices,
    "gender": lambda: Respondent.Gender.choices,
    "country": country_choices,
    "education": lambda: Respondent.Education.choices,
    "native_language": language_choices,
}


def demographic_values(name: str) -> list[str]:
    """The stored values one optional question accepts (blank aside)."""
    return [value for value, _ in DEMOGRAPHIC_CHOICES[name]()]
