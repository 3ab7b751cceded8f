"""Gives the browser the participant references a view decided on (`surveys.references`), with the response."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from surveys.references import browser_references_save


class ParticipantReferenceMiddleware:
    """Writes the references cookie when a view changed it (`remember_reference`, `forget_reference`).

    A cookie rather than the session: the session is stored on the server, which must never hold a plain reference.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        changed = getattr(request, "participant_references", None)
        if changed is not None:
            browser_references_save(response, changed)
        return response
