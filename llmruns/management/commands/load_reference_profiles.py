"""Publish the three reference model profiles of the original VirtueMap run-suite (GPT, Claude, Gemini)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from llmruns.services import REFERENCE_PROFILES, model_profile_import_reference_file


class Command(BaseCommand):
    help = (
        "Publish the model profiles computed by the original VirtueMap run-suite, so a fresh install can "
        "compare people with language models. Profiles entered in admin or published by a suite are kept."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--file", type=Path, default=REFERENCE_PROFILES)

    def handle(self, *args, file: Path, **options) -> None:
        written = model_profile_import_reference_file(path=file)
        self.stdout.write(f"{len(written)} reference profile(s) published.")
