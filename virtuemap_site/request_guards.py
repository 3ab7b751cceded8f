"""Cheap refusals before any view runs: strict input, JSON-only API writes, bounded bodies, read-only CORS.

Each rule answers a hostile request with a 4xx at the cost of a header or a string test, never with a 500 and
never after reading a body it will refuse:

- a NUL character in the path is a 404 (no such resource can exist; PostgreSQL cannot even compare it), in the query
  string a 400 (form fields are left to the forms, whose fields refuse NUL, and to `ascii_int` for numbers);
- an API write (POST, PUT, PATCH) with a body must be JSON (415 otherwise): a browser can send a cross-site form or
  `text/plain` post without asking first, but never a JSON one, so this is what keeps other sites from writing;
- an API write whose `Origin` is another site's is refused (403), whatever it carries;
- an API body longer than the view's limit (`API_MAX_BODY_BYTES`, or the view's own `max_body_bytes()`) is refused
  from its Content-Length (413), before a byte of it is read;
- CORS headers go only on reads: an allowed origin may read keys and profiles, never a write's answer (a token).

API refusals come in the API's one error shape `{"message": …, "extra": {…}}`, in the request's language; pages get
Django's 400/404 pages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from corsheaders.middleware import CorsMiddleware
from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from django.utils.translation import gettext as _

from virtuemap_site.i18n import requested_language

API_PREFIX = "/api/"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
BODY_METHODS = ("POST", "PUT", "PATCH")
JSON_TYPES = ("application/json",)


def ascii_int(value: Any) -> int | None:
    """The int that `value` spells in ASCII digits ("12"), or None for anything else ("", "x", "²", "١", "-1", None).

    `str.isdigit()` is true for "²" and "١", and `int()` refuses the first and accepts the second: both would let
    a query string or a form field choose a 500 or a surprise.
    """
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        return int(value)
    return None


def api_error(message: str, status: int, **extra: Any) -> JsonResponse:
    """A response in the API's one error shape."""
    return JsonResponse({"message": message, "extra": extra}, status=status)


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _has_nul(values: Any) -> bool:
    return any("\x00" in key or any("\x00" in value for value in values.getlist(key)) for key in values)


def _same_site(request: HttpRequest, origin: str) -> bool:
    # The rule of Django's CSRF check: this site's own scheme and host, or an origin trusted in settings.
    return origin == f"{request.scheme}://{request.get_host()}" or origin in settings.CSRF_TRUSTED_ORIGINS


class RequestGuardMiddleware:
    """The rules of this module's docstring. Sits just inside SecurityMiddleware, before anything reads the body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # This runs before LocaleMiddleware, so the refusal's language is chosen here, the way that middleware and
        # the ?lang= one would choose it.
        language = requested_language(request) or translation.get_language_from_request(request)
        with translation.override(language):
            refusal = self.refusal(request)
        return refusal if refusal is not None else self.get_response(request)

    def refusal(self, request: HttpRequest) -> HttpResponse | None:
        api = is_api(request)
        if "\x00" in request.path:
            if api:
                return api_error(_("No such page."), 404)
            raise Http404("No such page.")
        if _has_nul(request.GET):
            if api:
                return api_error(_("The query string contains a NUL character."), 400)
            raise BadRequest("The query string contains a NUL character.")
        if not api:
            # Form fields are the forms' to judge: Django's form fields refuse NUL, and withdrawing must work
            # whatever else a post carries.
            return None
        if request.method in SAFE_METHODS:
            return None
        origin = request.headers.get("Origin")
        if origin is not None and not _same_site(request, origin):
            return api_error(_("The API does not take writes from other sites."), 403, origin=origin)
        if request.method in BODY_METHODS and _content_length(request) > 0:
            media_type = request.content_type.lower()
            if media_type not in JSON_TYPES and not media_type.endswith("+json"):
                return api_error(
                    _("Send the body as JSON (Content-Type: application/json)."), 415, content_type=media_type
                )
        return None

    def process_view(self, request: HttpRequest, view: Callable, args: Any, kwargs: Any) -> HttpResponse | None:
        """The body limit, once the route (and so the view's own limit) is known, before the body is read."""
        if not is_api(request) or request.method not in BODY_METHODS:
            return None
        limit = body_limit(view)
        length = _content_length(request)
        if length > limit:
            return api_error(
                _("The body is %(length)s bytes; this operation takes at most %(limit)s.")
                % {"length": length, "limit": limit},
                413,
                limit_bytes=limit,
                setting="API_MAX_BODY_BYTES",
            )
        return None


def body_limit(view: Callable) -> int:
    """The body limit of a view: its class's `max_body_bytes()` if it has one, else `API_MAX_BODY_BYTES`."""
    own = getattr(getattr(view, "cls", None), "max_body_bytes", None)
    return own() if callable(own) else settings.API_MAX_BODY_BYTES


def _content_length(request: HttpRequest) -> int:
    value = ascii_int(request.META.get("CONTENT_LENGTH") or "0")
    # A length that is not a number cannot be read safely either: treat it as too long.
    return 10**18 if value is None else value


class ReadOnlyCorsMiddleware(CorsMiddleware):
    """django-cors-headers for reads only: a write (even from an allowed origin) gets no CORS header, so no other
    site's script can read what a POST returned, e.g. a respondent token."""

    def is_enabled(self, request: HttpRequest) -> bool:
        return request.method in SAFE_METHODS and super().is_enabled(request)
