from __future__ import annotations

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from llmruns import selectors
from llmruns.models import LLMModel, Suite
from llmruns.services import suite_execute, suite_start


class Command(BaseCommand):
    help = (
        "Run the VirtueMap run-suite for one model: in the foreground with a progress bar (default), or "
        "enqueued for a Celery worker with --async. Prints the final profile."
    )

    def add_arguments(self, parser):
        parser.add_argument("--model", required=True, help="Model slug or display name, e.g. smollm2-135m.")
        parser.add_argument("--min-runs", type=int, default=3)
        parser.add_argument("--max-runs", type=int, default=10)
        parser.add_argument("--batch-size", type=int, default=1, help="Runs between two stopping decisions.")
        parser.add_argument("--max-attempts", type=int, default=5, help="Answers asked for per item.")
        parser.add_argument("--ci-threshold", type=float, default=5.0)
        parser.add_argument("--consistency-threshold", type=float, default=95.0)
        parser.add_argument("--seed", type=int, default=None, help="Default: random (and stored).")
        parser.add_argument("--cost-budget", type=float, default=None, help="US$; reaching it pauses the suite.")
        parser.add_argument("--async", dest="run_async", action="store_true", help="Enqueue for a Celery worker.")

    def handle(self, *args, **options):
        try:
            model = selectors.llm_model_get(name=options["model"])
        except LLMModel.DoesNotExist:
            known = ", ".join(LLMModel.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"no model {options['model']!r}; known models: {known}") from None
        try:
            suite = suite_start(
                model=model,
                min_runs=options["min_runs"],
                max_runs=options["max_runs"],
                batch_size=options["batch_size"],
                max_attempts=options["max_attempts"],
                ci_threshold=options["ci_threshold"],
                consistency_threshold=options["consistency_threshold"],
                seed=options["seed"],
                cost_budget=options["cost_budget"],
                enqueue=options["run_async"],
            )
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        if options["run_async"]:
            self.stdout.write(f"Suite {suite.pk} queued for {model} (seed {suite.seed}).")
            return
        self.stdout.write(f"Suite {suite.pk} of {model}, seed {suite.seed}, {suite.min_runs}–{suite.max_runs} runs.")
        dilemmas = len(selectors.instrument_ids()[1])
        with tqdm(total=suite.max_runs * dilemmas, unit="item", file=self.stderr._out, dynamic_ncols=True) as bar:
            suite = suite_execute(suite_id=suite.pk, on_progress=lambda suite, item: _update(bar, suite, item))
        self._report(suite)

    def _report(self, suite: Suite) -> None:
        self.stdout.write(f"Suite {suite.pk}: {suite.get_status_display()} ({suite.stop_reason}). {suite.stop_detail}")
        profile = selectors.suite_profile_get(suite=suite)
        record = {"name": suite.model.name, "slug": suite.model.slug, **profile.record()}
        record["failure_counts"] = selectors.suite_failure_counts(suite=suite)
        self.stdout.write(json.dumps(record, indent=1))


def _update(bar: tqdm, suite: Suite, item) -> None:
    if item is not None:
        bar.update(1)
    progress = suite.progress or {}
    means = progress.get("profile") or {}
    postfix = {virtue[:4]: f"{mean:.1f}" for virtue, mean in means.items()}
    postfix["runs"] = f"{progress.get('runs', 0)}/{progress.get('attempted_runs', 0)}"
    width = progress.get("max_ci_half_width")
    postfix["ci±"] = "n/a" if width is None else f"{width:.2f}"
    bar.set_postfix(postfix, refresh=True)
