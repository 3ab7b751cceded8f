"""The openai_compatible backend against the local scripted provider: what it sends and what it reads back."""

from __future__ import annotations

import pytest

from instruments.virtuemap.prompts import ranking_constraint, ranking_json_schema
from llmruns.backends import BackendConfig, BackendError, backend_for
from llmruns.backends.base import OutputConstraint
from llmruns.testing import Reply

MESSAGES = [{"role": "user", "content": "Rank the responses."}]


def _backend(provider, **options):
    config = {"provider": "openai_compatible", "model_id": "fake", "base_url": provider.base_url, "max_retries": 2}
    return backend_for(BackendConfig(**(config | options)))


def test_the_temperature_seed_and_token_limit_are_sent(fake_provider):
    _backend(fake_provider, temperature=0.3, max_tokens=50).complete(MESSAGES, seed=17)

    sent = fake_provider.requests[0]
    assert (sent["temperature"], sent["seed"], sent["max_tokens"]) == (0.3, 17, 50)


def test_extra_parameters_pin_openrouter_provider_routing(fake_provider):
    routing = {"order": ["DeepInfra"], "allow_fallbacks": False, "require_parameters": True}

    _backend(fake_provider, extra_params={"provider": routing}).complete(MESSAGES)

    assert fake_provider.requests[0]["provider"] == routing


OBJECT = OutputConstraint(name="answer", schema={"type": "object"})


def test_structured_output_sends_the_instruments_schema(fake_provider):
    completion = _backend(fake_provider).complete(MESSAGES, constraint=ranking_constraint())

    sent = fake_provider.requests[0]["response_format"]["json_schema"]
    assert sent["schema"] == ranking_json_schema(constrain=False) and sent["name"] == "ranking"
    assert not completion.constrained


def test_a_model_with_constrained_decoding_sends_the_instruments_strict_schema_and_says_so(fake_provider):
    completion = _backend(fake_provider, constrained_decoding=True).complete(MESSAGES, constraint=ranking_constraint())

    sent = fake_provider.requests[0]["response_format"]["json_schema"]["schema"]
    assert len(sent["properties"]["ranking"]["enum"]) == 120
    assert completion.constrained


def test_constrained_decoding_without_a_strict_schema_sends_the_loose_one_and_says_it_is_not_constrained(
    fake_provider,
):
    completion = _backend(fake_provider, constrained_decoding=True).complete(MESSAGES, constraint=OBJECT)

    assert fake_provider.requests[0]["response_format"]["json_schema"]["schema"] == {"type": "object"}
    assert not completion.constrained


def test_the_json_object_format_carries_the_schema_for_llama_cpp_python(fake_provider):
    _backend(fake_provider, structured_output="json_object").complete(MESSAGES, constraint=OBJECT)

    assert fake_provider.requests[0]["response_format"] == {"type": "json_object", "schema": {"type": "object"}}


def test_without_json_output_no_format_is_requested(fake_provider):
    _backend(fake_provider, json_output=False).complete(MESSAGES, constraint=OBJECT)

    assert "response_format" not in fake_provider.requests[0]


def test_usage_cost_tokens_and_the_serving_provider_are_read(fake_provider):
    fake_provider.queue(Reply(cost=0.0042))

    completion = _backend(fake_provider).complete(MESSAGES)

    assert completion.cost == pytest.approx(0.0042)
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert completion.served_by == "FakeProvider"


def test_an_unknown_model_is_a_permanent_error(fake_provider):
    fake_provider.queue(Reply(status=404))

    with pytest.raises(BackendError) as raised:
        _backend(fake_provider).complete(MESSAGES)

    assert raised.value.permanent
    assert len(fake_provider.requests) == 1


def test_server_errors_beyond_the_retry_limit_are_a_transient_error(fake_provider):
    fake_provider.queue(*[Reply(status=502)] * 3)

    with pytest.raises(BackendError) as raised:
        _backend(fake_provider, max_retries=2, max_retry_wait=0.05).complete(MESSAGES)

    assert not raised.value.permanent
    assert len(fake_provider.requests) == 3


def test_first_token_logprobs_are_read(fake_provider):
    logprobs = _backend(fake_provider).first_token_logprobs(MESSAGES, top_k=3)

    assert logprobs == {"1": 0.0, "2": -1.0, "3": -2.0}
    assert fake_provider.requests[0]["top_logprobs"] == 3


def test_an_unknown_provider_is_a_permanent_error():
    with pytest.raises(BackendError, match="unknown provider"):
        backend_for(BackendConfig(provider="carrier-pigeon", model_id="x"))
