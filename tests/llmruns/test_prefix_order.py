"""A backend that keeps evaluated prompt prefixes gets the trials whose requests share a prefix one after another;
the trials, their seeds and their number stay what the plan made."""

from __future__ import annotations

import pytest

from llmruns.backends.base import Backend, BackendConfig, Completion
from llmruns.engine import run_execute, run_start
from llmruns.models import LLMModel, Run, Trial

pytestmark = pytest.mark.django_db


class RecordingBackend(Backend):
    """Answers "1" to everything and records (system prompt, last message, seed) of each request."""

    provider = "recording"

    def __init__(self) -> None:
        super().__init__(BackendConfig(provider="recording", model_id="recording"))
        self.asked: list[tuple[str, str, int | None]] = []

    def complete(self, messages, *, constraint=None, seed=None, max_tokens=None) -> Completion:
        self.asked.append((messages[0]["content"], messages[-1]["content"], seed))
        return Completion(text="1")


class PrefixReusingBackend(RecordingBackend):
    reuses_prompt_prefixes = True


def _interleaved_run(model: LLMModel) -> Run:
    """A static AMAeval run whose trials, in creation order, alternate between two system prompts."""
    run = run_start(
        instrument="amaeval", model=model, plan={"part": "static", "limit": 3, "replicates": 1}, seed=7, enqueue=False
    )
    for number, trial in enumerate(Trial.objects.filter(run=run).order_by("pk")):
        trial.messages = [{"role": "system", "content": "family B" if number % 2 else "family A"}, *trial.messages[1:]]
        trial.save(update_fields=["messages"])
    return run


def test_a_prefix_reusing_backend_is_asked_each_family_in_a_row(amaeval_instrument, fake_model):
    backend = PrefixReusingBackend()
    run = run_execute(run_id=_interleaved_run(fake_model).pk, backend=backend)

    assert run.status == Run.Status.FINISHED and run.trials_done == 6
    assert [system for system, _, _ in backend.asked] == ["family A"] * 3 + ["family B"] * 3


def test_the_order_changes_neither_the_trials_nor_their_seeds(amaeval_instrument, fake_model):
    in_creation_order, in_prefix_order = RecordingBackend(), PrefixReusingBackend()
    run_execute(run_id=_interleaved_run(fake_model).pk, backend=in_creation_order)
    run_execute(run_id=_interleaved_run(fake_model).pk, backend=in_prefix_order)

    assert [system for system, _, _ in in_creation_order.asked] == ["family A", "family B"] * 3
    assert sorted(in_creation_order.asked) == sorted(in_prefix_order.asked)
    assert len({seed for _, _, seed in in_prefix_order.asked}) == 6
