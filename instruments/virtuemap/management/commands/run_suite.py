"""The VirtueMap run-suite of one model: a shortcut for `run_instrument virtuemap`, printing the final profile."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from instruments.virtuemap.protocols import DEFAULT, PROTOCOLS
from instruments.virtuemap.selectors import run_profile
from llmruns.cli import diagnostics_write, model_or_error, run_in_foreground, run_line
from llmruns.diagnostics import run_diagnostics
from llmruns.engine import run_start
from llmruns.models import Run
from virtuemap_site.errors import ApplicationError


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
        parser.add_argument(
            "--protocol",
            choices=PROTOCOLS,
            default=DEFAULT,
            help="original (the run-suite's, how the paper's profiles were made; default) or paper (Appendix B).",
        )
        parser.add_argument(
            "--max-attempts", type=int, default=None, help="Answers asked for per item (default: the protocol's, 8)."
        )
        parser.add_argument("--ci-threshold", type=float, default=5.0)
        parser.add_argument("--consistency-threshold", type=float, default=95.0)
        parser.add_argument("--seed", type=int, default=None, help="Default: random (and stored).")
        parser.add_argument("--language", default="en", help="Edition to ask: en or zh-hans (zh; default en).")
        parser.add_argument("--cost-budget", type=float, default=None, help="US$; reaching it pauses the suite.")
        parser.add_argument("--async", dest="run_async", action="store_true", help="Enqueue for a Celery worker.")

    def handle(self, *args, **options):
        model = model_or_error(options["model"])
        plan = {
            name: options[name]
            for name in (
                "protocol",
                "min_runs",
                "max_runs",
                "batch_size",
                "max_attempts",
                "ci_threshold",
                "consistency_threshold",
            )
        }
        try:
            run = run_start(
                instrument="virtuemap",
                model=model,
                plan=plan,
                seed=options["seed"],
                language=options["language"],
                cost_budget=options["cost_budget"],
                enqueue=options["run_async"],
            )
        except ApplicationError as error:
            raise CommandError(error.message) from None
        if options["run_async"]:
            self.stdout.write(f"Suite {run.pk} queued for {model} (seed {run.seed}).")
            return
        self.stdout.write(
            f"Suite {run.pk} of {model} in {run.language}, seed {run.seed}, "
            f"{plan['min_runs']}–{plan['max_runs']} runs, protocol {plan['protocol']}."
        )
        run = run_in_foreground(run, stream=self.stderr._out, unit="item", postfix=_postfix)
        self.stdout.write(run_line(run))
        diagnostics_write(self, run_diagnostics(run=run))
        record = {"name": run.model.name, "slug": run.model.slug, "language": run.language}
        record |= run_profile(run=run).record()
        record["failure_counts"] = (run.progress or {}).get("failure_counts", {})
        self.stdout.write(json.dumps(record, indent=1))


def _postfix(run: Run) -> dict[str, str]:
    progress = run.progress or {}
    means = progress.get("profile") or {}
    postfix = {virtue[:4]: f"{mean:.1f}" for virtue, mean in means.items()}
    postfix["runs"] = f"{progress.get('runs', 0)}/{progress.get('attempted_runs', 0)}"
    width = progress.get("max_ci_half_width")
    postfix["ci±"] = "n/a" if width is None else f"{width:.2f}"
    return postfix
