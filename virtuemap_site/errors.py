"""The one application error and its mapping to the API's JSON error shape.

Services raise `ApplicationError(message, extra)` for anything a caller can fix; the API turns it (and Django's
and DRF's validation errors) into `{"message": …, "extra": {…}}` with a 4xx status, and pages show the message as
a form error. Nothing else is caught: a bug stays a 500.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.views.debug import SafeExceptionReporterFilter

from virtuemap_site.log_filters import redact_secrets


class ApplicationError(Exception):
    """A request the application refuses, with a message for people and `extra` data for programs.

    `status` is the HTTP status the API answers with (400 unless the service says otherwise: 403 for a
    refusal, 404 for something not found, 409 for a conflict with stored state).
    """

    def __init__(self, message: str, extra: dict[str, Any] | None = None, *, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.status = status


def api_exception_handler(exc: Exception, context: dict[str, Any]):
    """DRF exception handler: every error becomes `{"message": str, "extra": dict}`."""
    from rest_framework import exceptions
    from rest_framework.response import Response
    from rest_framework.views import exception_handler

    if isinstance(exc, ApplicationError):
        return Response(_encodable({"message": exc.message, "extra": exc.extra}), status=exc.status)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"message": _first_message(exc.detail), "extra": {"fields": exc.detail}}
    elif isinstance(exc, exceptions.Throttled):
        response.data = {"message": str(exc.detail), "extra": {"wait_seconds": exc.wait}}
    else:
        response.data = {"message": str(getattr(exc, "detail", exc)), "extra": {}}
    response.data = _encodable(response.data)
    return response


def not_found(request, exception=None):
    """The site's 404: under /api/ the API's JSON error shape (a program asked), elsewhere Django's HTML page.

    Installed as `handler404`, so it answers every path no URL pattern matches after APPEND_SLASH has had its
    chance to redirect; with DEBUG on (`make run`), `NotFoundEvenInDebugMiddleware` calls it where Django would show
    its technical page.
    """
    from django.views.defaults import page_not_found

    from virtuemap_site.request_guards import api_error, is_api

    if not is_api(request):
        return page_not_found(request, exception)
    path = _encodable(request.path)
    message = _("No API endpoint at %(path)s; the operations are listed at /api/docs/.") % {"path": path}
    return api_error(message, 404, path=path)


def _encodable(data: Any) -> Any:
    """`data` with every string made encodable as UTF-8. Error bodies echo the client's input (an unknown
    dilemma id, an unknown field name), and a lone surrogate in it, which JSON may carry as `"\\ud800"`,
    would otherwise turn the 400 into a 500 when the body is encoded; it is shown as `\\ud800` instead."""
    if isinstance(data, str):
        return data.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(data, dict):
        return {_encodable(key): _encodable(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_encodable(item) for item in data]
    return data


def _first_message(detail: Any) -> str:
    """The first human-readable message in a DRF error detail, prefixed with its field name."""
    if isinstance(detail, dict):
        for field, value in detail.items():
            inner = _first_message(value)
            return inner if field == "non_field_errors" else f"{field}: {inner}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


# Request headers that could identify a respondent; error reports must not carry them.
IDENTIFYING_META = ("REMOTE_ADDR", "REMOTE_HOST", "HTTP_USER_AGENT", "HTTP_X_FORWARDED_FOR", "HTTP_X_REAL_IP")


class AnonymousExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's safe filter, minus client addresses and user agents (respondents must stay anonymous), and with
    more settings hidden: URLs and broker/cache locations can carry passwords (redis://:password@host)."""

    hidden_settings = re.compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|CREDENTIAL|PRIVATE|URL|BROKER|LOCATION|DSN|HMAC",
        flags=re.IGNORECASE,
    )

    def get_safe_request_meta(self, request):
        meta = super().get_safe_request_meta(request)
        for key in IDENTIFYING_META:
            meta.pop(key, None)
        # runserver copies the process environment into META; a key in a variable of any name is hidden too.
        return {key: redact_secrets(value) if isinstance(value, str) else value for key, value in meta.items()}


class NotFoundEvenInDebugMiddleware:
    """With DEBUG on, as under `make run`, answer "not found" as production does (`not_found`: the site's translated
    page, or the API's JSON error under /api/) instead of Django's technical page, which a researcher trying the
    platform would otherwise meet for every mistyped address and every API client would fail to parse. With DEBUG
    off it does nothing: Django calls `handler404` itself.

    It sits inside CommonMiddleware, which still redirects a path missing its slash, since the answer is a 404.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.DEBUG:
            try:
                resolve(request.path_info, getattr(request, "urlconf", None))
            except Resolver404 as exception:
                return not_found(request, exception)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if settings.DEBUG and isinstance(exception, Http404):
            return not_found(request, exception)
        return None
