"""Reads for the surveys app."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from surveys.models import Dilemma, KeyCandidate, Option, Virtue


def virtue_list() -> QuerySet[Virtue]:
    return Virtue.objects.all()


def dilemma_list_with_options() -> QuerySet[Dilemma]:
    return Dilemma.objects.prefetch_related(Prefetch("options", queryset=Option.objects.order_by("letter")))


def retained_key_list() -> QuerySet[KeyCandidate]:
    return KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED).select_related("dilemma", "virtue")


def retained_key_map() -> dict[str, dict[str, tuple[str, ...]]]:
    """Retained keys as plain data for `scoring`: dilemma id → virtue id → ordering."""
    keys: dict[str, dict[str, tuple[str, ...]]] = {}
    for dilemma_id, virtue_id, ordering in retained_key_list().values_list("dilemma_id", "virtue_id", "ordering"):
        keys.setdefault(dilemma_id, {})[virtue_id] = tuple(ordering)
    return keys
