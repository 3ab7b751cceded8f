from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from instruments.amaeval.services import AMAEVAL_FIXTURE, amaeval_instrument_load_file


class Command(BaseCommand):
    help = (
        "Load the AMAeval dataset: 40 scenarios, 200 derivations of precepts (task 1) and 1,090 satisfied or "
        "contradicted reasonings (task 2) with their annotations. Safe to re-run: unchanged rows are not written."
    )

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=AMAEVAL_FIXTURE, help="AMAeval final_dataset.json.")

    def handle(self, *args, **options):
        try:
            report = amaeval_instrument_load_file(path=options["file"])
        except (ValidationError, KeyError, TypeError, ValueError, OSError) as error:
            raise CommandError(f"{options['file']}: {error}") from None
        if not report.changed:
            self.stdout.write("AMAeval instrument already up to date: nothing changed.")
            return
        for verb, counts in (("created", report.created), ("updated", report.updated)):
            for model_name, count in sorted(counts.items()):
                self.stdout.write(f"{model_name}: {count} {verb}")
        self.stdout.write(self.style.SUCCESS("AMAeval instrument loaded."))
