from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from llmruns.services import run_records_import


class Command(BaseCommand):
    help = "Import raw run records of the original VirtueMap run-suite (JSON lines). Re-importing changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--publish", action="store_true", help="Publish each imported model's profile.")

    def handle(self, *args, **options):
        path: Path = options["file"]
        try:
            with path.open(encoding="utf-8") as handle:
                report = run_records_import(lines=handle, label=path.name)
        except OSError as error:
            raise CommandError(str(error)) from None
        except ValidationError as error:
            raise CommandError(f"{path}: {'; '.join(error.messages)}") from None
        self.stdout.write(f"{report.items} item records and {report.notes} new notes from {path.name}.")
        for suite in report.suites:
            progress = suite.progress
            self.stdout.write(f"  suite {suite.pk}: {suite.model.name}, {progress.get('runs')} valid full runs")
        if options["publish"]:
            from llmruns.services import suite_publish

            for suite in report.suites:
                suite_publish(suite=suite)
            self.stdout.write(self.style.SUCCESS(f"Published {len(report.suites)} profiles."))
