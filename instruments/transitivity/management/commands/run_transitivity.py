"""The transitivity test's choices of one model: a shortcut for `run_instrument transitivity`."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from instruments.transitivity.selectors import run_results
from llmruns.cli import diagnostics_write, model_or_error, run_in_foreground, run_line, run_or_error
from llmruns.diagnostics import run_diagnostics
from llmruns.engine import run_resume, run_start
from llmruns.models import Run
from virtuemap_site.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Ask one model the transitivity instrument's pairwise choices (6 blocks × 21 pairs × 2 orders = 252 "
        "prompts): in the foreground with a progress bar (default), or enqueued for a Celery worker with --async. "
        "Prints the choice vectors and their WUM, HCM and G-RUM verdicts as JSON."
    )

    def add_arguments(self, parser):
        parser.add_argument("--model", help="Model slug or display name, e.g. smollm2-135m.")
        parser.add_argument("--blocks", help="Comma-separated block numbers (default: all six).")
        parser.add_argument("--orders", help="original,reversed (default: both).")
        parser.add_argument("--method", choices=["logprobs", "sampling"], help="Default: what the model supports.")
        parser.add_argument("--samples", type=int, help="Samples per prompt (sampling; default TRANSITIVITY_SAMPLES).")
        parser.add_argument("--top-k", type=int, help="Top log-probabilities (default: the model's, at most 20).")
        parser.add_argument("--seed", type=int, default=None, help="Default: random (and stored).")
        parser.add_argument("--resume", type=int, metavar="RUN_ID", help="Resume this run from its stored items.")
        parser.add_argument("--async", dest="run_async", action="store_true", help="Enqueue for a Celery worker.")

    def handle(self, *args, **options):
        run = self._resumed(options) if options["resume"] else self._started(options)
        if options["run_async"]:
            self.stdout.write(
                f"Transitivity run {run.pk} queued for {run.model} ({run.trials_total or 'all'} prompts)."
            )
            return
        self.stdout.write(
            f"Transitivity run {run.pk} of {run.model}: {run.plan['method']}, seed {run.seed}, "
            f"blocks {', '.join(map(str, run.plan['blocks']))}, orders {', '.join(run.plan['orders'])}."
        )
        run = run_in_foreground(run, stream=self.stderr._out, unit="prompt")
        self.stdout.write(run_line(run))
        diagnostics_write(self, run_diagnostics(run=run))
        self.stdout.write(json.dumps(run_results(run=run), indent=1))

    def _started(self, options) -> Run:
        if not options["model"]:
            raise CommandError("give --model NAME (or --resume RUN_ID)")
        model = model_or_error(options["model"])
        plan = {name: options[name] for name in ("blocks", "orders", "method", "samples", "top_k")}
        try:
            return run_start(
                instrument="transitivity",
                model=model,
                plan={name: value for name, value in plan.items() if value is not None},
                seed=options["seed"],
                enqueue=options["run_async"],
            )
        except ApplicationError as error:
            raise CommandError(error.message) from None

    def _resumed(self, options) -> Run:
        run = run_or_error(options["resume"], instrument="transitivity")
        if not run_resume(run=run, enqueue=options["run_async"]):
            raise CommandError(f"run {run.pk} has finished; nothing to resume")
        return run
