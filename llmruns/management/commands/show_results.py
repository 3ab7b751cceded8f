"""Print the results of any run: `manage.py show_results RUN_ID --format json|table`."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from instruments import registry
from llmruns.cli import diagnostics_write, run_line, run_or_error
from llmruns.diagnostics import run_diagnostics
from llmruns.results import run_summary


class Command(BaseCommand):
    help = (
        "Print the results of a run (of any instrument) and their answer-quality diagnostics, computed from its stored "
        "answers, as JSON or a table."
    )

    def add_arguments(self, parser):
        parser.add_argument("run", type=int, help="Run id (printed by run_instrument).")
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args, **options):
        run = run_or_error(options["run"])
        plugin = registry.instrument(run.instrument)
        summary = run_summary(run=run)
        diagnostics = run_diagnostics(run=run)
        if options["format"] == "json":
            record = {
                "instrument": run.instrument,
                "version": run.instrument_version,
                "language": run.language,
                "run": {
                    "id": run.pk,
                    "model": run.model.slug,
                    "status": run.status,
                    "stop_reason": run.stop_reason,
                    "seed": run.seed,
                    "plan": run.plan,
                    "trials": run.trials_total,
                    "stored": run.trials_done,
                    "cost": run.cost_total,
                },
                **summary,
                "diagnostics": diagnostics,
            }
            self.stdout.write(json.dumps(record, indent=1))
            return
        self.stdout.write(f"{run_line(run)}\nModel {run.model} · {plugin.identity.name} {run.instrument_version}")
        # The flags lead, so that a result driven by the presentation is not read as a measurement.
        diagnostics_write(self, diagnostics)
        for line in plugin.summary_lines(summary):
            self.stdout.write(line)
