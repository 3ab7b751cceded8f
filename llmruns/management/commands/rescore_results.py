"""Re-score stale published results from their runs' stored answers: `manage.py rescore_results [--instrument X]`."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from instruments import registry
from llmruns.results import results_stale_rescore


class Command(BaseCommand):
    help = (
        "Re-score every published result whose dependencies changed (e.g. a newly retained VirtueMap key) from its "
        "run's stored answers, and every one published before results carried answer-quality diagnostics. No language "
        "model is asked."
    )

    def add_arguments(self, parser):
        parser.add_argument("--instrument", help="Only this instrument's results.")

    def handle(self, *args, **options):
        instrument = options["instrument"]
        if instrument is not None and instrument not in registry.slugs():
            raise CommandError(f"no instrument {instrument!r}; registered: {', '.join(registry.slugs())}")
        rescored = results_stale_rescore(instrument=instrument)
        for result in rescored:
            self.stdout.write(f"Re-scored the {result}.")
        self.stdout.write(f"{len(rescored)} stale result(s) re-scored.")
