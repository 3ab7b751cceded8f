from __future__ import annotations

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from llmruns import selectors as llm_selectors
from llmruns.models import LLMModel
from transitivity.models import ChoiceItem, ChoiceRun
from transitivity.services import (
    choice_run_execute,
    choice_run_resume,
    choice_run_start,
    transitivity_model_results,
)


def _list(value: str | None, cast=str) -> list | None:
    if value is None:
        return None
    try:
        return [cast(part.strip()) for part in value.split(",") if part.strip()]
    except ValueError as error:
        raise CommandError(f"cannot read {value!r}: {error}") from None


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
        try:
            run = self._resumed(options) if options["resume"] else self._started(options)
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        if options["run_async"]:
            self.stdout.write(f"Transitivity run {run.pk} queued for {run.model} ({run.items_total} prompts).")
            return
        self.stdout.write(
            f"Transitivity run {run.pk} of {run.model}: {run.items_total} prompts, {run.method}, seed {run.seed}."
        )
        stored = ChoiceItem.objects.filter(run=run, status=ChoiceItem.Status.DONE).count()
        with tqdm(
            total=run.items_total, initial=stored, unit="prompt", file=self.stderr._out, dynamic_ncols=True
        ) as bar:
            run = choice_run_execute(run_id=run.pk, on_progress=lambda run, item: _update(bar, run))
        self.stdout.write(f"Run {run.pk}: {run.get_status_display()} ({run.stop_reason}). {run.stop_detail}")
        self.stdout.write(json.dumps(transitivity_model_results(run=run), indent=1))

    def _started(self, options) -> ChoiceRun:
        if not options["model"]:
            raise CommandError("give --model NAME (or --resume RUN_ID)")
        try:
            model = llm_selectors.llm_model_get(name=options["model"])
        except LLMModel.DoesNotExist:
            known = ", ".join(LLMModel.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"no model {options['model']!r}; known models: {known}") from None
        return choice_run_start(
            model=model,
            blocks=_list(options["blocks"], int),
            orders=_list(options["orders"]),
            method=options["method"],
            samples=options["samples"],
            top_k=options["top_k"],
            seed=options["seed"],
            enqueue=options["run_async"],
        )

    def _resumed(self, options) -> ChoiceRun:
        run = ChoiceRun.objects.select_related("model").filter(pk=options["resume"]).first()
        if run is None:
            raise CommandError(f"no transitivity run {options['resume']}")
        if not choice_run_resume(run=run, enqueue=options["run_async"]):
            raise CommandError(f"run {run.pk} has finished; nothing to resume")
        return run


def _update(bar: tqdm, run: ChoiceRun) -> None:
    bar.n = run.items_done
    bar.set_postfix({"missing": run.items_missing, "errors": run.items_error}, refresh=True)
