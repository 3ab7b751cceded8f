"""Helpers for the transitivity page tests: store a model's finished run from plain vectors, with its result."""

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


def choice_run_store(*, slug: str, name: str, vectors: dict, status: str = "finished", model=None):
    """A model (``model``, else a new one) with one run whose done trials carry ``vectors`` ((block, order) → 21
    values; None = missing); a finished run is published as the model's result, as the engine does when a run
    finishes."""
    from instruments.transitivity.models import Principle
    from llmruns.engine import trial_counts_refresh
    from llmruns.models import LLMModel, Run, Trial
    from llmruns.results import result_publish

    model = model or LLMModel.objects.create(slug=slug, name=name, model_id=slug)
    plan = {
        "blocks": sorted({block for block, _ in vectors}),
        "orders": ["original", "reversed"],
        "method": "logprobs",
        "samples": 20,
        "top_k": 20,
    }
    run = Run.objects.create(model=model, instrument="transitivity", instrument_version="1", seed=1, plan=plan)
    codes = list(Principle.objects.order_by("index").values_list("code", flat=True))
    trials = []
    for (block, order), vector in vectors.items():
        for (x, y), value in zip(pairs(7), vector, strict=True):
            trials.append(
                Trial(
                    run=run,
                    item=f"{block}/{codes[x]}-{codes[y]}",
                    presentation=ORDER_CODES[order],
                    status="done",
                    answer={"p": value},
                    answer_status="missing" if value is None else "valid",
                    answer_detail="neither label in the top k" if value is None else "",
                )
            )
    Trial.objects.bulk_create(trials)
    trial_counts_refresh(run.pk)
    Run.objects.filter(pk=run.pk).update(status=status)
    run.refresh_from_db()
    if status == "finished":
        result_publish(run=run)
    return run
