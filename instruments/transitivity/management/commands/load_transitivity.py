from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from instruments.transitivity.services import TRANSITIVITY_FIXTURE, transitivity_instrument_load_file


class Command(BaseCommand):
    help = (
        "Load the transitivity instrument: 7 principles, 6 severity blocks of vignettes with human ratings, and "
        "the paper's prompt. Safe to re-run: unchanged rows are not written."
    )

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=TRANSITIVITY_FIXTURE, help="Vignettes JSON file.")

    def handle(self, *args, **options):
        try:
            report = transitivity_instrument_load_file(path=options["file"])
        except (ValidationError, KeyError, ValueError) as error:
            raise CommandError(f"{options['file']}: {error}") from None
        if not report.changed:
            self.stdout.write("Transitivity instrument already up to date: nothing changed.")
            return
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(self.style.SUCCESS("Transitivity instrument loaded."))
