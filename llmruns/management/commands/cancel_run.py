"""Cancel a run, or with --resume queue it again: `manage.py cancel_run RUN_ID [--resume] [--cost-budget X]`."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from llmruns.cli import cancel_or_resume


class Command(BaseCommand):
    help = "Cancel a queued, running or paused run (of any instrument), or with --resume queue a stopped one again."

    def add_arguments(self, parser):
        parser.add_argument("run", type=int, help="Run id.")
        parser.add_argument("--resume", action="store_true", help="Resume instead of cancelling.")
        parser.add_argument("--cost-budget", type=float, default=None, help="New budget (US$) when resuming.")

    def handle(self, *args, **options):
        run = cancel_or_resume(options["run"], resume=options["resume"], cost_budget=options["cost_budget"])
        self.stdout.write(f"Run {run.pk}: {run.get_status_display()}.")
