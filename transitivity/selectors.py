"""Reads of the transitivity instrument, as querysets or plain data for `scoring.transitivity`."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from llmruns.models import LLMModel
from scoring.transitivity import pairs
from transitivity.models import ChoiceItem, ChoiceRun, Principle


@dataclass(frozen=True)
class ChoiceVector:
    """One block × presentation order of a run: P(x worse than y) for the 21 canonical pairs.

    p: one value per pair in the order of `scoring.transitivity.pairs` (indices into `alternatives`), None where
    the item is missing or not stored yet. missing_pairs: the pairs (principle codes) without a value.
    """

    block: int
    order: str
    p: tuple[float | None, ...]
    missing_pairs: tuple[tuple[str, str], ...]

    @property
    def complete(self) -> bool:
        return not self.missing_pairs


def alternatives() -> tuple[str, ...]:
    """The principle codes in alternative order (`Principle.index`)."""
    return tuple(Principle.objects.order_by("index").values_list("code", flat=True))


def choice_run_list() -> QuerySet[ChoiceRun]:
    return ChoiceRun.objects.select_related("model", "instrument")


def choice_run_latest(*, model: LLMModel) -> ChoiceRun | None:
    """The model's most recent finished run, else its most recent run with at least one stored item."""
    runs = ChoiceRun.objects.filter(model=model).order_by("-created_at", "-id")
    return runs.filter(status=ChoiceRun.Status.FINISHED).first() or runs.filter(items_done__gt=0).first()


def choice_vectors(*, run: ChoiceRun) -> list[ChoiceVector]:
    """The run's choice vectors, one per block × order of the run (blocks ascending, orders as in the run).

    Only DONE, non-missing items give values; anything else leaves None at its pair.
    """
    codes = alternatives()
    index = {code: position for position, code in enumerate(codes)}
    pair_position = {pair: position for position, pair in enumerate(pairs(len(codes)))}
    values: dict[tuple[int, str], list[float | None]] = {
        (block, order): [None] * len(pair_position) for block in sorted(run.blocks) for order in run.orders
    }
    stored = ChoiceItem.objects.filter(
        run=run, status=ChoiceItem.Status.DONE, missing=False, probability__isnull=False
    ).values_list("block_id", "order", "principle_x_id", "principle_y_id", "probability")
    for block, order, x, y, probability in stored:
        if (block, order) in values:
            values[block, order][pair_position[index[x], index[y]]] = probability
    pair_codes = [(codes[x], codes[y]) for x, y in pairs(len(codes))]
    return [
        ChoiceVector(
            block=block,
            order=order,
            p=tuple(vector),
            missing_pairs=tuple(pair_codes[i] for i, value in enumerate(vector) if value is None),
        )
        for (block, order), vector in values.items()
    ]
