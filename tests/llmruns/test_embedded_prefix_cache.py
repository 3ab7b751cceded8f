"""The embedded model's replies do not depend on its prompt cache nor on the order of calls: prompts of two few-shot
families asked alternately with the state cache, each from an empty context without it, and in the reverse order
without it, give byte-identical replies, greedy and sampled with seeds."""

from __future__ import annotations

import pytest

from instruments.amaeval import items
from llmruns.backends.base import BackendConfig
from llmruns.backends.local import LocalBackend

pytestmark = pytest.mark.database_independent

SCENARIOS = (
    "A nurse sees a colleague take painkillers from the ward's cabinet for her own use.",
    "A student finds the answers to tomorrow's exam left on a printer in the library.",
)


def _prompts() -> list[list[dict[str, str]]]:
    """Two families that alternate: the precept asked alone and the precept with its reasoning (system prompts of
    about 150 tokens, so the shared part is several blocks)."""
    prompts = []
    for scenario in SCENARIOS:
        prompts.append(items.two_step_precept_messages(scenario, "Care", fidelity=items.CORRECTED))
        prompts.append(items.precept_messages(scenario, "Care", few_shot=False, fidelity=items.CORRECTED))
    return prompts


def _backend(temperature: float, cache_bytes: int) -> LocalBackend:
    config = BackendConfig(
        provider="local",
        model_id="smollm2-135m",
        temperature=temperature,
        max_tokens=8,
        local_state_cache_bytes=cache_bytes,
    )
    return LocalBackend(config)


def _replies(backend: LocalBackend, order: list[int], *, fresh: bool = False) -> dict[int, str]:
    prompts = _prompts()
    backend.prefixes_forget()
    replies = {}
    for index in order:
        if fresh:
            backend.prefixes_forget()
        replies[index] = backend.complete(prompts[index], seed=1000 + index).text
    return replies


@pytest.mark.parametrize("temperature", [0.0, 0.7])
def test_replies_are_the_same_with_the_state_cache_without_it_and_in_any_order(temperature):
    order = list(range(len(_prompts())))
    cached = _backend(temperature, cache_bytes=256 * 2**20)
    restored_before = cached.prefix_statistics()["restored"]

    from_empty = _replies(_backend(temperature, cache_bytes=0), order, fresh=True)
    with_cache = _replies(cached, order)
    reversed_without = _replies(_backend(temperature, cache_bytes=0), order[::-1])

    assert with_cache == from_empty == reversed_without
    assert all(reply for reply in from_empty.values())
    assert cached.prefix_statistics()["restored"] > restored_before
