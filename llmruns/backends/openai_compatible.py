"""Any OpenAI-compatible endpoint (OpenRouter, vLLM, Ollama, llama.cpp server) through the official client.

Transient failures (429, 5xx, timeouts, dropped connections) are retried here with exponential backoff, or
after the server's Retry-After when it sends one; the client's own retries are off so that one policy
applies. Other HTTP errors (401, 404, 400 …) are permanent.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from llmruns.backends.base import (
    Backend,
    BackendConfig,
    BackendError,
    Completion,
    FirstToken,
    Message,
    OutputConstraint,
)
from virtuemap_site.log_filters import redact_secrets, register_secret

# llama.cpp servers and vLLM ignore an API key, but the client insists on one.
PLACEHOLDER_API_KEY = "not-needed"


def is_transient(error: BaseException) -> bool:
    """True for errors worth retrying: timeouts, connection failures, 408, 409, 429 and 5xx."""
    if isinstance(error, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in (408, 409, 429) or error.status_code >= 500
    return False


def retry_after_seconds(error: BaseException | None) -> float | None:
    """Return the wait the server asked for in Retry-After (seconds or an HTTP date), or None."""
    response = getattr(error, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class _RetryAfterOrBackoff:
    """tenacity wait: the server's Retry-After when given, else random exponential backoff; capped."""

    def __init__(self, cap: float) -> None:
        self.cap = cap
        self.backoff = wait_random_exponential(multiplier=0.5, max=cap)

    def __call__(self, retry_state: RetryCallState) -> float:
        error = retry_state.outcome.exception() if retry_state.outcome else None
        asked = retry_after_seconds(error)
        return min(asked, self.cap) if asked is not None else self.backoff(retry_state)


class OpenAICompatibleBackend(Backend):
    provider = "openai_compatible"

    def __init__(self, config: BackendConfig) -> None:
        super().__init__(config)
        # Whatever the variable is called, its value is now kept out of every log line and stored error text.
        register_secret(config.api_key)
        self.client = openai.OpenAI(
            base_url=config.base_url or None,
            api_key=config.api_key or PLACEHOLDER_API_KEY,
            timeout=config.timeout,
            max_retries=0,
        )

    def complete(
        self,
        messages: Sequence[Message],
        *,
        constraint: OutputConstraint | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        config = self.config
        params = self.sampling_params(seed, max_tokens)
        schema, constrained = _schema(config, constraint)
        if config.json_output and schema is not None:
            if config.structured_output == "json_object":
                params["response_format"] = {"type": "json_object", "schema": dict(schema)}
            else:
                params["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": constraint.name, "strict": True, "schema": dict(schema)},
                }
        else:
            constrained = False
        started = time.perf_counter()
        response, retries = self._create(messages, params)
        latency_ms = (time.perf_counter() - started) * 1000.0
        if not response.choices:
            raise BackendError("the provider returned no choices")
        choice = response.choices[0]
        usage = response.usage
        return Completion(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
            completion_tokens=(usage.completion_tokens or 0) if usage else 0,
            cost=_cost(usage),
            served_by=str((response.model_extra or {}).get("provider") or response.model or ""),
            constrained=constrained,
            latency_ms=latency_ms,
            retries=retries,
        )

    def first_token(
        self,
        messages: Sequence[Message],
        *,
        top_k: int = 5,
        seed: int | None = None,
        labels: Sequence[str] = (),
    ) -> FirstToken:
        # The provider shows only its top k, so ``labels`` cannot be summed over the vocabulary here.
        params: dict[str, Any] = {
            "temperature": self.config.temperature,
            "max_tokens": 1,
            "logprobs": True,
            "top_logprobs": top_k,
        }
        if seed is not None:
            params["seed"] = seed
        started = time.perf_counter()
        response, retries = self._create(messages, params)
        latency_ms = (time.perf_counter() - started) * 1000.0
        logprobs = response.choices[0].logprobs if response.choices else None
        if logprobs is None or not logprobs.content:
            raise BackendError("the provider returned no log-probabilities", permanent=True)
        first = logprobs.content[0]
        candidates = [(candidate.token, float(candidate.logprob)) for candidate in first.top_logprobs or []]
        if first.token not in {token for token, _ in candidates}:
            # Some servers list the sampled token only outside top_logprobs; its log-probability is as real.
            candidates.append((first.token, float(first.logprob)))
        candidates.sort(key=lambda candidate: -candidate[1])
        usage = response.usage
        return FirstToken(
            candidates=tuple(candidates),
            raw=response.model_dump(mode="json"),
            served_by=str((response.model_extra or {}).get("provider") or response.model or ""),
            latency_ms=latency_ms,
            prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
            cost=_cost(usage),
            retries=retries,
        )

    def _create(self, messages: Sequence[Message], params: dict[str, Any]) -> tuple[Any, int]:
        """Send one request with the retry policy; return (response, number of retries)."""
        config = self.config
        extra = dict(config.extra_params)
        # Keys the client knows go as keyword arguments; the rest (OpenRouter's "provider" routing, llama.cpp's
        # "grammar", …) travel in the request body unchanged.
        known = {key: extra.pop(key) for key in list(extra) if key in _CLIENT_KEYWORDS}
        retrying = Retrying(
            retry=retry_if_exception(is_transient),
            wait=_RetryAfterOrBackoff(config.max_retry_wait),
            stop=stop_after_attempt(config.max_retries + 1),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    response = self.client.chat.completions.create(
                        model=config.model_id,
                        messages=[dict(message) for message in messages],
                        **(params | known),
                        extra_body=extra or None,
                    )
                    return response, attempt.retry_state.attempt_number - 1
        # Providers may quote the key in their error text ("Incorrect API key provided: sk-…"); it is stored.
        except openai.APIStatusError as error:
            raise BackendError(
                redact_secrets(f"HTTP {error.status_code} from {config.base_url}: {error.message}"),
                permanent=not is_transient(error),
            ) from error
        except (openai.APITimeoutError, openai.APIConnectionError) as error:
            raise BackendError(
                redact_secrets(f"{type(error).__name__} talking to {config.base_url}: {error}")
            ) from error
        except openai.OpenAIError as error:
            raise BackendError(redact_secrets(f"{type(error).__name__}: {error}"), permanent=True) from error
        raise AssertionError("unreachable: tenacity either returns or re-raises")


def _cost(usage: Any) -> float:
    """The charge of a request in US$, as OpenRouter reports it (usage.cost); 0 where the provider says nothing."""
    extra = usage.model_extra if usage is not None and usage.model_extra else {}
    return float(extra.get("cost") or 0.0)


def _schema(config: BackendConfig, constraint: OutputConstraint | None) -> tuple[Mapping[str, Any] | None, bool]:
    """The schema to send and whether it restricts decoding to the valid answers (the strict one, when asked)."""
    if constraint is None:
        return None, False
    if config.constrained_decoding and constraint.strict_schema is not None:
        return constraint.strict_schema, True
    return constraint.schema, False


_CLIENT_KEYWORDS = frozenset(
    {
        "temperature",
        "max_tokens",
        "max_completion_tokens",
        "top_p",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "response_format",
        "reasoning_effort",
        "n",
    }
)
