"""Run any registered instrument on one model: `manage.py run_instrument INSTRUMENT --model SLUG [plan options]`."""

from __future__ import annotations

import argparse
import json

from django.core.management.base import BaseCommand, CommandError

from instruments import registry
from llmruns.cli import diagnostics_write, model_or_error, run_in_foreground, run_line
from llmruns.diagnostics import run_diagnostics
from llmruns.engine import run_start
from llmruns.results import run_summary
from virtuemap_site.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Run a registered instrument on one model through the run engine: in the foreground with a progress bar "
        "(default), or enqueued for a Celery worker with --async. Prints the run id first and the result at the end. "
        "`run_instrument INSTRUMENT --help` lists the instrument's plan options."
    )

    def add_arguments(self, parser):
        instruments = parser.add_subparsers(dest="instrument", required=True, metavar="INSTRUMENT")
        for plugin in registry.instruments():
            sub = instruments.add_parser(plugin.slug, help=plugin.identity.summary, description=plugin.identity.name)
            sub.add_argument("--model", required=True, help="Model slug or display name, e.g. smollm2-135m.")
            sub.add_argument("--seed", type=int, default=None, help="Default: random (and stored).")
            editions = ", ".join(plugin.identity.languages)
            sub.add_argument("--language", default="en", help=f"Edition to ask: {editions} (zh: zh-hans; default en).")
            sub.add_argument("--judge", default=None, help="Model that scores judge steps (instruments with them).")
            sub.add_argument("--cost-budget", type=float, default=None, help="US$; reaching it pauses the run.")
            sub.add_argument("--async", dest="run_async", action="store_true", help="Enqueue for a Celery worker.")
            plan = sub.add_argument_group(f"plan options of {plugin.slug}")
            for option in plugin.plan_options:
                if option.kind == "bool":
                    plan.add_argument(option.flag, dest=f"plan_{option.name}", action=argparse.BooleanOptionalAction)
                else:
                    default = "decided by the instrument" if option.default is None else option.default
                    plan.add_argument(
                        option.flag, dest=f"plan_{option.name}", default=None, help=f"{option.help} ({default})."
                    )

    def handle(self, *args, **options):
        plugin = registry.instrument(options["instrument"])
        model = model_or_error(options["model"])
        judge = model_or_error(options["judge"]) if options["judge"] else None
        plan = {
            option.name: options[f"plan_{option.name}"]
            for option in plugin.plan_options
            if options.get(f"plan_{option.name}") is not None
        }
        try:
            run = run_start(
                instrument=plugin.slug,
                model=model,
                plan=plan,
                seed=options["seed"],
                language=options["language"],
                judge=judge,
                cost_budget=options["cost_budget"],
                enqueue=options["run_async"],
            )
        except ApplicationError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"Run {run.pk}: {plugin.slug} for {model} (seed {run.seed}).")
        if options["run_async"]:
            self.stdout.write(f"Run {run.pk} queued; follow it in admin or with `show_results {run.pk}`.")
            return
        run = run_in_foreground(run, stream=self.stderr._out)
        self.stdout.write(run_line(run))
        diagnostics_write(self, run_diagnostics(run=run))
        self.stdout.write(json.dumps(run_summary(run=run), indent=1))
