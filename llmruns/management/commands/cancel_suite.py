from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from llmruns.models import Suite
from llmruns.services import suite_cancel, suite_resume


class Command(BaseCommand):
    help = "Cancel a queued, running or paused suite, or with --resume queue a stopped one again."

    def add_arguments(self, parser):
        parser.add_argument("suite", type=int, help="Suite id.")
        parser.add_argument("--resume", action="store_true", help="Resume instead of cancelling.")
        parser.add_argument("--cost-budget", type=float, default=None, help="New budget (US$) when resuming.")

    def handle(self, *args, **options):
        suite = Suite.objects.filter(pk=options["suite"]).first()
        if suite is None:
            raise CommandError(f"no suite {options['suite']}")
        if options["resume"]:
            done = suite_resume(suite=suite, cost_budget=options["cost_budget"])
        else:
            done = suite_cancel(suite=suite)
        if not done:
            raise CommandError(f"suite {suite.pk} is {suite.get_status_display().lower()}; nothing to do")
        self.stdout.write(f"Suite {suite.pk}: {suite.get_status_display()}.")
