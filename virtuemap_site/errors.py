"""The one application error and the one JSON error shape of the API.

Every API error body is ``{"message": str, "extra": dict}``: `ApplicationError` raised by a service, Django's
`ValidationError`, and DRF's own exceptions (validation, 404, throttling, authentication) all come out in it.
Pages catch `ApplicationError` themselves and show its message as a form error.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler


class ApplicationError(Exception):
    """A request the application refuses, with a message for people and `extra` details for programs."""

    def __init__(self, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Map any error a view raises to ``{"message", "extra"}`` with the right status; None = a 500."""
    if isinstance(exc, ApplicationError):
        return Response({"message": exc.message, "extra": exc.extra}, status=400)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(detail=exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        body = {"message": "The request is not valid.", "extra": {"fields": response.data}}
    elif isinstance(exc, exceptions.Throttled):
        body = {"message": str(exc.detail), "extra": {"wait_seconds": exc.wait}}
    else:
        body = {"message": str(getattr(exc, "detail", exc)), "extra": {}}
    response.data = body
    return response
