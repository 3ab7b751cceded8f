"""The interface language: chosen by a link's ``?lang=``, remembered in the language cookie, else Accept-Language.

A panel link such as ``/study/?lang=zh-hans`` or the switch at the top of every page sets the language of that
request and of the visit (Django's language cookie); with neither, Django's ``LocaleMiddleware`` reads the cookie,
then the browser's Accept-Language. The API takes the same ``?lang=``.
"""

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.utils import translation
from django.utils.functional import SimpleLazyObject

LANGUAGE_PARAMETER = "lang"


def supported_language(asked: str) -> str | None:
    """The code of the supported language ``asked`` names (``zh``, ``zh-Hans`` and ``zh-hans`` alike give
    ``zh-hans``, the code stored with runs, results and respondents), or None for a language the site does not have."""
    asked = asked.strip()
    if not asked:
        return None
    try:
        return translation.get_supported_language_variant(asked.lower())
    except LookupError:
        return None


def requested_language(request) -> str | None:
    """The supported language code a request's ``?lang=`` names (see `supported_language`), or None."""
    return supported_language(request.GET.get(LANGUAGE_PARAMETER, ""))


class LanguageFromLinkMiddleware:
    """After ``LocaleMiddleware``: a ``?lang=`` naming a supported language wins, and is remembered in the cookie.

    An unsupported value is ignored (the page stays in the language it would have had), never an error.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = requested_language(request)
        if language is None:
            return self.get_response(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
        )
        return response


def language_switch(request):
    """Context processor: a link per language to this same page in it (no script, no form, so it works everywhere),
    built only if the page renders them (base.html keeps its header rendered)."""
    return {"language_links": SimpleLazyObject(lambda: language_links(request))}


def language_links(request) -> list[dict[str, Any]]:
    """A link per supported language to the requested page in it, with ``?lang=`` set and the rest of the query kept."""
    current = translation.get_language()
    query = request.GET.copy()
    links = []
    for code, name in settings.LANGUAGES:
        query[LANGUAGE_PARAMETER] = code
        links.append(
            {
                "code": code,
                "name": name,
                "url": f"{request.path}?{urlencode(sorted(query.items()))}",
                "current": translation.get_supported_language_variant(current) == code,
            }
        )
    return links


def translated(record: Mapping[str, Any], key: str) -> str:
    """The sentence ``record[key]`` in the active language: scoring stores the English text and, under
    ``<key>_i18n``, its pattern and facts (`scoring.text.phrased`); a record without them (stored before they were)
    keeps its English text."""
    parts = record.get(f"{key}_i18n")
    if not parts:
        return record.get(key, "")
    return translation.gettext(parts["pattern"]) % parts["facts"]
