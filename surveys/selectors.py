"""Reads for the surveys app."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Max, Prefetch, QuerySet

from surveys.models import Dilemma, KeyCandidate, Option, Virtue


@dataclass(frozen=True)
class RetainedKey:
    id: int
    dilemma: str
    virtue: str
    ordering: str
    round: int
    provenance: str


@dataclass(frozen=True)
class ProfileScoringContext:
    """The instrument's dilemma and virtue ids (in instrument order) and the retained keys."""

    dilemmas: tuple[str, ...]
    virtues: tuple[str, ...]
    keys: tuple[RetainedKey, ...]

    def key_map(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """Dilemma id → virtue id → ordering, the form `scoring.virtue_profile` takes."""
        keys: dict[str, dict[str, tuple[str, ...]]] = {}
        for key in self.keys:
            keys.setdefault(key.dilemma, {})[key.virtue] = tuple(key.ordering)
        return keys


def virtue_list() -> QuerySet[Virtue]:
    return Virtue.objects.all()


def dilemma_list_with_options() -> QuerySet[Dilemma]:
    return Dilemma.objects.prefetch_related(Prefetch("options", queryset=Option.objects.order_by("letter")))


def dilemma_id_list() -> list[str]:
    """The dilemma ids in instrument order."""
    return list(Dilemma.objects.order_by("position").values_list("id", flat=True))


def retained_key_list(*, dilemma: str | None = None, virtue: str | None = None) -> QuerySet[KeyCandidate]:
    """The keys in use, optionally only those of one dilemma and/or one virtue."""
    keys = KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED).select_related("dilemma", "virtue")
    if dilemma is not None:
        keys = keys.filter(dilemma_id=dilemma)
    if virtue is not None:
        keys = keys.filter(virtue_id=virtue)
    return keys.order_by("dilemma__position", "virtue__position")


def retained_key_last_modified() -> datetime | None:
    """When any key candidate last changed (None without candidates): an upper bound for the retained keys."""
    return KeyCandidate.objects.aggregate(latest=Max("updated_at"))["latest"]


def retained_key_map() -> dict[str, dict[str, tuple[str, ...]]]:
    """Retained keys as plain data for `scoring`: dilemma id → virtue id → ordering."""
    keys: dict[str, dict[str, tuple[str, ...]]] = {}
    for dilemma_id, virtue_id, ordering in retained_key_list().values_list("dilemma_id", "virtue_id", "ordering"):
        keys.setdefault(dilemma_id, {})[virtue_id] = tuple(ordering)
    return keys


def profile_scoring_context() -> ProfileScoringContext:
    """Everything scoring a questionnaire needs, as plain data, in three queries."""
    keys = list(retained_key_list().values_list("id", "dilemma_id", "virtue_id", "ordering", "round", "provenance"))
    return ProfileScoringContext(
        dilemmas=tuple(dilemma_id_list()),
        virtues=tuple(Virtue.objects.order_by("position").values_list("id", flat=True)),
        keys=tuple(RetainedKey(*row) for row in keys),
    )
