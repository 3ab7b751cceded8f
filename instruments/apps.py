from __future__ import annotations

from django.apps import AppConfig


class InstrumentsConfig(AppConfig):
    """The registry's own app: no models, the commands that work on every registered instrument."""

    name = "instruments"
    verbose_name = "Instruments"
