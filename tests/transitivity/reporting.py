"""Helpers for the transitivity page tests: store a model's choice run from plain vectors."""

from __future__ import annotations

import numpy as np

from scoring.transitivity import order_vertices, pairs

ORDER_CODES = {1: "original", 2: "reversed"}


def vectors_for_model(seed: int, blocks=range(1, 7)) -> dict[tuple[int, int], list[float]]:
    """12 choice vectors of 7 principles: mixtures of a few random orders, rounded, so verdicts vary."""
    rng = np.random.default_rng(seed)
    vectors = {}
    for block in blocks:
        for order in (1, 2):
            orders = np.array([rng.permutation(7) for _ in range(3)])
            weights = rng.dirichlet(np.ones(3))
            vectors[block, order] = (weights @ order_vertices(orders, 7)).round(3).tolist()
    return vectors


def choice_run_store(*, slug: str, name: str, vectors: dict, status: str = "finished"):
    """A model with one run whose done items carry ``vectors`` ((block, order) → 21 values; None = missing)."""
    from llmruns.models import LLMModel
    from transitivity.models import ChoiceItem, ChoiceRun, Principle, TransitivityInstrument

    model = LLMModel.objects.create(slug=slug, name=name, model_id=slug)
    run = ChoiceRun.objects.create(
        model=model,
        instrument=TransitivityInstrument.objects.get(),
        method="logprobs",
        seed=1,
        blocks=sorted({block for block, _ in vectors}),
        orders=["original", "reversed"],
        status=status,
    )
    codes = list(Principle.objects.order_by("index").values_list("code", flat=True))
    items = []
    for (block, order), vector in vectors.items():
        for (x, y), value in zip(pairs(7), vector, strict=True):
            first, second = (codes[x], codes[y]) if order == 1 else (codes[y], codes[x])
            items.append(
                ChoiceItem(
                    run=run,
                    block_id=block,
                    principle_x_id=codes[x],
                    principle_y_id=codes[y],
                    order=ORDER_CODES[order],
                    situation_1_id=first,
                    situation_2_id=second,
                    status="done",
                    method="logprobs",
                    probability=value,
                    missing=value is None,
                    missing_reason="neither label in the top k" if value is None else "",
                )
            )
    ChoiceItem.objects.bulk_create(items)
    return run
