"""The optional questions' answers: coarse bands, and countries and languages from the maintained ISO lists.

Countries are ISO 3166-1 alpha-2 codes as django-countries keeps them (its list follows the ISO standard and
translates the names); languages are ISO 639-1 codes from pycountry's copy of the ISO 639 tables (the 184 languages
with a two-letter code, which take in the first languages of nearly every panel), named in the interface's language
from the translations pycountry ships. Each list ends with "other", for a
country or language outside it, which says more than leaving the question blank.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable
from functools import cache

import pycountry
from django.utils import translation
from django.utils.translation import gettext as _
from django_countries import countries

from surveys.models import Respondent

OTHER = "other"
Choices = list[tuple[str, str]]


def country_choices() -> Choices:
    """Every ISO 3166-1 country by its alpha-2 code, ordered by its name in the active language, then "other"."""
    return [*((code, str(name)) for code, name in countries), (OTHER, _("Another country or territory"))]


# pycountry's name for the locale of an interface language whose names it translates (others read English names).
ISO_NAME_LOCALES = {"zh-hans": "zh_CN"}


def language_choices() -> Choices:
    """Every ISO 639-1 language by its two-letter code, ordered by its name in the active language, then "other"."""
    return [*_language_names(translation.get_language() or "en"), (OTHER, _("Another language"))]


@cache
def _language_names(language: str) -> tuple[tuple[str, str], ...]:
    names = gettext.translation(
        "iso639-3", pycountry.LOCALES_DIR, languages=[ISO_NAME_LOCALES.get(language, "en")], fallback=True
    )
    named = {
        iso.alpha_2: _plain_name(names.gettext(iso.name)) for iso in pycountry.languages if hasattr(iso, "alpha_2")
    }
    return tuple(sorted(named.items(), key=lambda pair: pair[1]))


def _plain_name(name: str) -> str:
    """The first of a language's names without its qualifier: a person does not need "Modern Greek (1453-)" or
    "中文; 汉语; 华语" to recognise their language."""
    first = name.split(";")[0].strip()
    return re.sub(r"\s*[(（].*[)）]$", "", first)


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
