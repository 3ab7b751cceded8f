"""The backend interface: chat completion and top-k first-token log-probabilities, one error type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

Message = Mapping[str, str]


class BackendError(Exception):
    """A request that failed after the backend's own retries.

    ``permanent`` is True when asking again cannot help (bad credentials, unknown model, a malformed request),
    False for a transient failure (rate limit, server error, timeout) that a later resume may get past.
    """

    def __init__(self, message: str, permanent: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.permanent = permanent


@dataclass(frozen=True)
class BackendConfig:
    """Everything a backend needs, as plain data (the API key resolved from its variable, never stored)."""

    provider: str
    model_id: str
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    temperature: float = 0.7
    max_tokens: int = 256
    json_output: bool = True
    # "json_schema" (the OpenAI form) or "json_object" (a schema inside json_object, llama-cpp-python's server).
    structured_output: str = "json_schema"
    # Restrict decoding to the instrument's valid answers (its OutputConstraint) where the backend can.
    constrained_decoding: bool = False
    extra_params: Mapping[str, Any] = field(default_factory=dict)
    timeout: float = 120.0
    # Provider errors (429, 5xx, timeouts) are retried this many times, waiting at most max_retry_wait each.
    max_retries: int = 8
    max_retry_wait: float = 60.0
    # The embedded backend only: CPU threads of llama.cpp, and the bytes of evaluated prompt prefixes it keeps
    # (0: none kept; see `llmruns.backends.local`).
    local_threads: int = 1
    local_state_cache_bytes: int = 0


@dataclass(frozen=True)
class OutputConstraint:
    """What a valid reply looks like, as the instrument describes it; each backend uses what it supports.

    schema: a JSON schema sent as structured output when the model's ``json_output`` is on. strict_schema: a schema
    whose language is exactly the valid replies (e.g. an enum of every ranking), sent instead under constrained
    decoding. grammar: the same language as a llama.cpp GBNF grammar, for the embedded backend. ``name`` labels the
    schema in the request.
    """

    name: str
    schema: Mapping[str, Any] | None = None
    strict_schema: Mapping[str, Any] | None = None
    grammar: str | None = None


@dataclass(frozen=True)
class Completion:
    """One answer. ``constrained`` says whether decoding was restricted to the instrument's valid replies."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    served_by: str = ""
    constrained: bool = False
    latency_ms: float = 0.0
    retries: int = 0


@dataclass(frozen=True)
class FirstToken:
    """What a backend reveals about the distribution of an answer's first token (one request, one token).

    candidates: (token, natural-log probability), most likely first: the provider's top k, or the k most likely
        tokens of the full distribution for a backend that sees it.
    label_masses: only from a backend that sees the full distribution: for each requested label, the total
        probability of every vocabulary token equal to the label up to whitespace. None otherwise (the caller
        then has only the candidates).
    raw: the response as JSON-serialisable data, kept verbatim with the result.
    """

    candidates: tuple[tuple[str, float], ...]
    raw: dict[str, Any]
    label_masses: Mapping[str, float] | None = None
    served_by: str = ""
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    cost: float = 0.0
    retries: int = 0


class Backend:
    """Base class: subclasses set ``provider`` and implement `complete` and `first_token`."""

    provider: ClassVar[str] = ""
    # True for a backend that keeps the evaluated state of a prompt's prefix between calls (the embedded model):
    # the engine then hands out trials whose requests share a prefix one after another.
    reuses_prompt_prefixes: ClassVar[bool] = False

    def __init__(self, config: BackendConfig) -> None:
        self.config = config

    def sampling_params(self, seed: int | None, max_tokens: int | None = None) -> dict[str, Any]:
        """Return the request parameters every backend sends: temperature, max tokens (``max_tokens`` when given,
        else the model's), and the seed if given."""
        params: dict[str, Any] = {
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
        }
        if seed is not None:
            params["seed"] = seed
        return params

    def complete(
        self,
        messages: Sequence[Message],
        *,
        constraint: OutputConstraint | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """Return the model's answer to ``messages``, at most ``max_tokens`` long (default: the model's setting).

        ``constraint`` describes a valid answer: under the model's ``constrained_decoding`` a backend restricts
        decoding to it where it can (a grammar, a strict schema); otherwise it sends its schema as structured output
        when the model's ``json_output`` is on. Raises `BackendError`.
        """
        raise NotImplementedError

    def first_token(
        self,
        messages: Sequence[Message],
        *,
        top_k: int = 5,
        seed: int | None = None,
        labels: Sequence[str] = (),
    ) -> FirstToken:
        """Return the first token's top ``top_k`` candidates with log-probabilities, at the configured temperature.

        A backend that sees the full next-token distribution also sums it per label in ``labels`` (tokens equal
        to a label up to whitespace) into `FirstToken.label_masses`. Raises `BackendError`, permanent when the
        provider returns no log-probabilities.
        """
        raise NotImplementedError

    def first_token_logprobs(
        self, messages: Sequence[Message], *, top_k: int = 5, seed: int | None = None
    ) -> dict[str, float]:
        """Return the top ``top_k`` candidates for the answer's first token → natural-log probability."""
        return dict(self.first_token(messages, top_k=top_k, seed=seed).candidates)
