from __future__ import annotations

from django.core.management.base import BaseCommand

from llmruns.cli import cancel_or_resume


class Command(BaseCommand):
    help = "Cancel a queued, running or paused suite, or with --resume queue a stopped one again (see cancel_run)."

    def add_arguments(self, parser):
        parser.add_argument("suite", type=int, help="Suite (run) id.")
        parser.add_argument("--resume", action="store_true", help="Resume instead of cancelling.")
        parser.add_argument("--cost-budget", type=float, default=None, help="New budget (US$) when resuming.")

    def handle(self, *args, **options):
        suite = cancel_or_resume(
            options["suite"], resume=options["resume"], cost_budget=options["cost_budget"], instrument="virtuemap"
        )
        self.stdout.write(f"Suite {suite.pk}: {suite.get_status_display()}.")
