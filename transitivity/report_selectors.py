"""Reads for the report pages: the language models with choice runs, and their choice vectors per block × order.

One run per model is reported: its latest finished run, or, while none has finished, its latest run (its
unanswered items leave those choice sets incomplete, and the page says the run is still going).
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.transitivity import pairs
from transitivity.models import ChoiceItem, ChoiceRun, PresentationOrder, Principle

ORDER_NUMBERS = {PresentationOrder.ORIGINAL.value: 1, PresentationOrder.REVERSED.value: 2}


@dataclass(frozen=True)
class ModelChoiceSets:
    """One model's reported run and its vectors: (block, order number) → P_xy per pair, None when missing."""

    slug: str
    name: str
    run: ChoiceRun
    vectors: dict[tuple[int, int], list[float | None]]

    @property
    def finished(self) -> bool:
        return self.run.status == ChoiceRun.Status.FINISHED


def principle_codes() -> list[str]:
    return list(Principle.objects.order_by("index").values_list("code", flat=True))


def _reported_runs() -> list[ChoiceRun]:
    runs: dict[int, ChoiceRun] = {}
    for run in ChoiceRun.objects.select_related("model").order_by("-created_at", "-id"):
        current = runs.get(run.model_id)
        if current is None or (current.status != ChoiceRun.Status.FINISHED and run.status == ChoiceRun.Status.FINISHED):
            runs[run.model_id] = run
    return sorted(runs.values(), key=lambda run: run.model.name.lower())


def _run_vectors(run: ChoiceRun, codes: list[str]) -> dict[tuple[int, int], list[float | None]]:
    index = {code: i for i, code in enumerate(codes)}
    slot = {pair: i for i, pair in enumerate(pairs(len(codes)))}
    vectors = {(int(block), ORDER_NUMBERS[order]): [None] * len(slot) for block in run.blocks for order in run.orders}
    items = ChoiceItem.objects.filter(run=run, status=ChoiceItem.Status.DONE, missing=False).values_list(
        "block_id", "order", "principle_x_id", "principle_y_id", "probability"
    )
    for block, order, x, y, probability in items:
        vectors.setdefault((block, ORDER_NUMBERS[order]), [None] * len(slot))[slot[index[x], index[y]]] = probability
    return vectors


def model_choice_sets_list() -> list[ModelChoiceSets]:
    """Every model with a choice run, by name, with the vectors of its reported run."""
    codes = principle_codes()
    return [
        ModelChoiceSets(slug=run.model.slug, name=run.model.name, run=run, vectors=_run_vectors(run, codes))
        for run in _reported_runs()
    ]


def model_choice_sets_get(*, slug: str) -> ModelChoiceSets | None:
    return next((one for one in model_choice_sets_list() if one.slug == slug), None)
