"""A fake chooser for tests and demonstrations: first-token log-probabilities that follow a known order.

Used with `llmruns.testing.FakeProvider(logprobs=scripted_logprobs)`: the provider's choice between two
vignettes is a logistic function of how wrong it finds each principle, so every block is WUM with a known
Copeland order.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from instruments.transitivity.services import TRANSITIVITY_FIXTURE
from llmruns.models import LLMModel
from llmruns.testing import FakeProvider

# How wrong the fake provider finds a violation of each principle: a strict order, so every block is WUM.
WRONGNESS = {"Cp": 3.0, "F": 2.5, "Li": 2.0, "Ce": 1.5, "S": 1.0, "A": 0.5, "Lo": 0.0}
LABEL_MASS = 0.9  # the rest of the first token's probability goes to other tokens


def _principle_of_text() -> dict[str, str]:
    data = json.loads(TRANSITIVITY_FIXTURE.read_text(encoding="utf-8"))
    return {v["text"]: v["principle"] for block in data["blocks"] for v in block["vignettes"]}


PRINCIPLE_OF_TEXT = _principle_of_text()


def shown_principles(body: dict[str, Any]) -> tuple[str, str]:
    """The principles shown as Situation 1 and 2 in a request body."""
    content = body["messages"][-1]["content"]
    first = re.search(r"Situation 1\) (.*)\n", content).group(1)
    second = re.search(r"Situation 2\) (.*)\n", content).group(1)
    return PRINCIPLE_OF_TEXT[first], PRINCIPLE_OF_TEXT[second]


def situation_1_worse(body: dict[str, Any]) -> float:
    """P(Situation 1 worse) of the fake model: a logistic function of the wrongness difference."""
    one, two = shown_principles(body)
    return 1.0 / (1.0 + math.exp(-(WRONGNESS[one] - WRONGNESS[two])))


def expected_x_worse(x: str, y: str) -> float:
    return 1.0 / (1.0 + math.exp(-(WRONGNESS[x] - WRONGNESS[y])))


def scripted_logprobs(body: dict[str, Any]) -> list[tuple[str, float]]:
    """Candidates " 1" and "2" sharing LABEL_MASS by `situation_1_worse`, "The" holding the rest."""
    p = situation_1_worse(body)
    candidates = [(" 1", math.log(LABEL_MASS * p)), ("2", math.log(LABEL_MASS * (1 - p))), ("The", math.log(0.1))]
    return sorted(candidates, key=lambda candidate: -candidate[1])


def provider_model(provider: FakeProvider, **fields: Any) -> LLMModel:
    return LLMModel.objects.create(
        slug=fields.pop("slug", "fake/choices"),
        name=fields.pop("name", "Fake chooser"),
        provider=LLMModel.Provider.OPENAI_COMPATIBLE,
        base_url=provider.base_url,
        model_id="fake-model",
        requests_per_minute=0,
        concurrency=4,
        **fields,
    )
