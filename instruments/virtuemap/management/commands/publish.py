from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from llmruns.cli import diagnostics_write, run_or_error
from llmruns.results import result_publish
from virtuemap_site.errors import ApplicationError


class Command(BaseCommand):
    help = "Publish a finished run (of any instrument; a VirtueMap suite's id) as its model's result."

    def add_arguments(self, parser):
        parser.add_argument("suite", type=int, help="Run (suite) id.")

    def handle(self, *args, **options):
        run = run_or_error(options["suite"])
        try:
            result = result_publish(run=run)
        except ApplicationError as error:
            raise CommandError(error.message) from None
        runs = result.summary.get("runs")
        detail = f": {runs} valid full runs" if runs is not None else ""
        language = f", {result.language}" if result.language != "en" else ""
        self.stdout.write(self.style.SUCCESS(f"Published {result.model} ({result.instrument}{language}){detail}."))
        diagnostics_write(self, result.diagnostics)
