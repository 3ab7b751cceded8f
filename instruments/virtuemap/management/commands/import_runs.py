from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from instruments.virtuemap.records import run_records_import
from llmruns.results import result_publish
from virtuemap_site.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Import raw run records of the original VirtueMap run-suite (JSON lines; UTF-8 with or without a byte-order "
        "mark, LF or CRLF). Re-importing changes nothing; a bad line stops the import with its number and stores none."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--publish", action="store_true", help="Publish each imported model's profile.")

    def handle(self, *args, **options):
        path: Path = options["file"]
        try:
            with path.open(encoding="utf-8-sig") as handle:
                report = run_records_import(lines=handle, label=path.name)
        except OSError as error:
            raise CommandError(str(error)) from None
        except UnicodeDecodeError as error:
            raise CommandError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
        except ApplicationError as error:
            raise CommandError(f"{path}: {error.message}") from None
        self.stdout.write(f"{report.items} item records and {report.notes} new notes from {path.name}.")
        for run in report.runs:
            self.stdout.write(f"  suite {run.pk}: {run.model.name}, {run.progress.get('runs')} valid full runs")
        if options["publish"]:
            for run in report.runs:
                result_publish(run=run)
            self.stdout.write(self.style.SUCCESS(f"Published {len(report.runs)} profiles."))
