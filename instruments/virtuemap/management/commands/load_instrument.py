from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from instruments.virtuemap.services import INSTRUMENT_FIXTURE, instrument_load_file
from surveys.services import consent_text_install_defaults


class Command(BaseCommand):
    help = (
        "Load the VirtueMap instrument and its published key, and the first consent texts if there are none. "
        "Safe to re-run: unchanged rows are not written."
    )

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=INSTRUMENT_FIXTURE, help="Instrument JSON file.")

    def handle(self, *args, **options):
        report = instrument_load_file(path=options["file"])
        for text in consent_text_install_defaults():
            self.stdout.write(f"Installed {text}.")
        if not report.changed:
            self.stdout.write("Instrument already up to date: nothing changed.")
            return
        for verb, counts in (("created", report.created), ("updated", report.updated)):
            for model_name, count in sorted(counts.items()):
                self.stdout.write(f"{model_name}: {count} {verb}")
        self.stdout.write(self.style.SUCCESS("Instrument loaded."))
