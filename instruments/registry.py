"""The one list of instruments: slug → the dotted path of its `instruments.base.Instrument` class.

The list is the setting ``INSTRUMENTS`` (settings.py), so a deployment or a test can add a plug-in without touching
the platform. Classes are imported the first time they are asked for, like plug-ins, so the web process of an
instrument's pages never imports another instrument's code. URLs, admin, commands and the API are built from here.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string

from instruments.base import Instrument, Study


class UnknownInstrument(LookupError):
    """No registered instrument or study has this slug; the message lists the registered ones."""


@cache
def _instance(path: str) -> Instrument:
    return import_string(path)()


def slugs() -> tuple[str, ...]:
    """The registered instrument slugs, in the order of the setting."""
    return tuple(settings.INSTRUMENTS)


def instrument(slug: str) -> Instrument:
    """The instrument registered as ``slug``; raises `UnknownInstrument` naming the registered ones."""
    path = settings.INSTRUMENTS.get(slug)
    if path is None:
        raise UnknownInstrument(f"no instrument {slug!r}; registered: {', '.join(slugs()) or 'none'}")
    return _instance(path)


def instruments() -> list[Instrument]:
    return [instrument(slug) for slug in slugs()]


def studies() -> dict[str, Study]:
    """Every study of every registered instrument, by slug (a study slug is unique across instruments)."""
    found: dict[str, Study] = {}
    for each in instruments():
        for study in each.studies:
            if study.slug in found:
                raise ImproperlyRegistered(f"study {study.slug!r} is declared by two instruments")
            found[study.slug] = study
    return found


def study(slug: str) -> Study:
    """The registered study ``slug``; raises `UnknownInstrument` naming the registered studies."""
    found = studies()
    if slug not in found:
        raise UnknownInstrument(f"no study {slug!r}; registered: {', '.join(found) or 'none'}")
    return found[slug]


class ImproperlyRegistered(RuntimeError):
    """Two instruments claim the same study slug."""
