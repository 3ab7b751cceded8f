from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from instruments.moralbench.services import MORALBENCH_FIXTURE, moralbench_load_file
from surveys.services import consent_text_install_defaults


class Command(BaseCommand):
    help = (
        "Load MoralBench: its four item sets as published (MFQ_30, MFQ_30_compare, 6_concepts, 6_concepts_compare) "
        "and the paper's system prompt; the first consent texts of studies that have none. Safe to re-run: "
        "unchanged rows are not written."
    )

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=MORALBENCH_FIXTURE, help="MoralBench JSON file.")

    def handle(self, *args, **options):
        try:
            report = moralbench_load_file(path=options["file"])
        except (ValidationError, OSError) as error:
            message = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
            raise CommandError(f"{options['file']}: {message}") from None
        for text in consent_text_install_defaults():
            self.stdout.write(f"Installed {text}.")
        if not report.changed:
            self.stdout.write("MoralBench already up to date: nothing changed.")
            return
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(self.style.SUCCESS("MoralBench loaded."))
