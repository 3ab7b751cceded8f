"""LLM backends: a registry that maps a model's provider name to its backend class.

backend = backend_for(config)
completion = backend.complete(messages, constraint=...)
"""

from __future__ import annotations

from llmruns.backends.base import Backend, BackendConfig, BackendError, Completion
from llmruns.backends.local import LocalBackend
from llmruns.backends.openai_compatible import OpenAICompatibleBackend

REGISTRY: dict[str, type[Backend]] = {
    OpenAICompatibleBackend.provider: OpenAICompatibleBackend,
    LocalBackend.provider: LocalBackend,
}


def backend_for(config: BackendConfig) -> Backend:
    """Return a backend for ``config.provider``; an unknown provider is a permanent `BackendError`."""
    try:
        backend_class = REGISTRY[config.provider]
    except KeyError:
        raise BackendError(
            f"unknown provider {config.provider!r}; known: {', '.join(REGISTRY)}", permanent=True
        ) from None
    return backend_class(config)


__all__ = ["REGISTRY", "Backend", "BackendConfig", "BackendError", "Completion", "backend_for"]
