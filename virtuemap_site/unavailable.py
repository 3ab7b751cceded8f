"""A friendly 503 while the database is unreachable (a restart, a failover, a network blip), or while something else
keeps a request from being served as it should (`Unavailable`, e.g. rate limits without a shared cache).

Django would answer such a request with a 500 (a traceback in DEBUG). Here a request whose database connection
fails gets 503 with `Retry-After`: a short page ("temporarily unavailable") or, under /api/, the API's error shape.
Nothing is retried on the server: the failed transaction was rolled back, so the client's retry is safe (answers
are idempotent per respondent and item). The site recovers by itself: Django drops a connection that errored at
the end of the request and, with CONN_HEALTH_CHECKS, checks a persistent one before reusing it.
"""

from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy
from django.views import defaults

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
DATABASE_ERRORS = (OperationalError, InterfaceError)
MESSAGE = gettext_lazy("The service is temporarily unavailable. Please try again in a few seconds.")


class Unavailable(Exception):
    """Raised where a request cannot be served as it should (the raiser logs why): answered 503 like a database
    outage."""


def database_unavailable_response(request: HttpRequest, error: BaseException) -> HttpResponse:
    """503 with Retry-After: JSON `{"message", "extra"}` for the API, the "temporarily unavailable" page otherwise.

    The page is rendered without the request's context processors, which could read the session or the user from
    the very database that is down.
    """
    # The error's class only: its text names the database host, and a request detail could identify a respondent.
    logger.warning("database unavailable (%s): answering 503", type(error).__name__)
    return unavailable_response(request)


def unavailable_response(request: HttpRequest) -> HttpResponse:
    """The 503 itself (see `database_unavailable_response`)."""
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {"message": str(MESSAGE), "extra": {"retry_after": RETRY_AFTER_SECONDS}}, status=503
        )
    else:
        response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """Turns a database connection error raised by a view (pages and DRF alike) into the 503 response."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, DATABASE_ERRORS):
            return database_unavailable_response(request, exception)
        if isinstance(exception, Unavailable):
            return unavailable_response(request)
        return None


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: the 503 response when the uncaught error is a database connection error (raised outside a view,
    e.g. by a middleware reading the session); Django's own 500 page otherwise."""
    error = sys.exc_info()[1]
    if isinstance(error, DATABASE_ERRORS):
        return database_unavailable_response(request, error)
    return defaults.server_error(request)
