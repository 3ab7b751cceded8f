"""Publish the nine reference model profiles of the original VirtueMap run-suite (the paper's Table 1 models)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from instruments.virtuemap.records import REFERENCE_RUNS, reference_profiles_publish


class Command(BaseCommand):
    help = (
        "Import the raw records of the original VirtueMap run-suite and publish the profiles computed from them, "
        "so a fresh install can compare people with language models. Profiles entered in admin or published by "
        "a suite are kept."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--file", type=Path, default=REFERENCE_RUNS, help="Raw run records (JSON lines).")

    def handle(self, *args, file: Path, **options) -> None:
        written = reference_profiles_publish(path=file)
        self.stdout.write(f"{len(written)} reference profile(s) published.")
