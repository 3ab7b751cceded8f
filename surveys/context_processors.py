"""What every page's footer shows a participant: the references this browser holds for studies they are still in."""

from __future__ import annotations

from django.db import DatabaseError
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext

from instruments import registry
from surveys.models import Respondent
from surveys.references import browser_references, reference_hash


def respondent_read(request: HttpRequest, respondent: Respondent | None) -> None:
    """Tell the footer that ``respondent`` exists: the view has just read it, so its reference needs no query."""
    if respondent is not None and respondent.reference_hash:
        request.respondents_read = {
            *getattr(request, "respondents_read", ()),
            (respondent.study, respondent.reference_hash),
        }


def respondent_gone(request: HttpRequest) -> None:
    """Forget what `respondent_read` vouched for (a view withdrew the respondent)."""
    request.respondents_read = set()


def _current_references(request: HttpRequest) -> list[dict[str, str]]:
    held = browser_references(request)
    if not held:
        return []
    hashes = {reference: reference_hash(reference) for _, reference in held}
    existing = set(getattr(request, "respondents_read", ()))
    unknown = [hashes[reference] for study, reference in held if (study, hashes[reference]) not in existing]
    try:
        if unknown:
            # A reference withdrawn from another browser no longer shows here.
            existing |= set(
                Respondent.objects.filter(reference_hash__in=unknown).values_list("study", "reference_hash")
            )
    except DatabaseError:
        # A page about the database being down must still render.
        return []
    studies = registry.studies()
    return [
        {"study": gettext(studies[study].name) if study in studies else study, "reference": reference}
        for study, reference in held
        if (study, hashes[reference]) in existing
    ]


def participant_references(request: HttpRequest) -> dict[str, object]:
    """``participant_references``: [{"study": name, "reference": "7KQ4-M2XD-9PBR"}], read only if a page shows it."""
    return {"participant_references": SimpleLazyObject(lambda: _current_references(request))}
