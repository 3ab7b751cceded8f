"""Benchmark: the embedded model (SmolLM2-135M-Instruct, llama.cpp in-process) with its prompt state cache against
without it, in one process, through the real run engine.

Four workloads, each run from a cold model (context and cache emptied) once without the state cache
(``LLMRUNS_EMBEDDED_STATE_CACHE_MB=0``: only the prefix the context still holds is reused) and once with it, the two
passes alternating for ``--repeats`` rounds:

- ``static``: AMAeval's static part, the first ``--limit`` scored items of each task, 5-shot (target ≥ 5×);
- ``chain``: AMAeval's dynamic part for one scenario (the last), the whole generation chain with replies of at most
  ``--generation-tokens`` tokens, judged by the model itself through the rubric prompt (target ≥ 3×);
- ``virtuemap``: a VirtueMap suite of ``--virtuemap-runs`` runs (no regression);
- ``moralbench``: MoralBench's MFQ-30 comparison set, generated answers in the paper's option order (no regression).

Per workload it prints the median wall time of each pass over the rounds, the ratio (and the ratio of the process's
CPU time, steadier on a machine shared with other work), the median latency of a call,
the prompt tokens evaluated, restored and kept, and whether every reply (each attempt's raw text) is identical in
every pass; the load average before and after. Exit status 1 if a reply differs.

    .venv/bin/python benchmarks/embedded.py [--limit 100] [--generation-tokens 120] [--virtuemap-runs 1]
                                            [--repeats 1] [--only static,chain,virtuemap,moralbench]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project

WORKLOADS = ("static", "chain", "virtuemap", "moralbench")
TARGETS = {"static": 5.0, "chain": 3.0}
CACHE_MB = 1024


def _setup_django(database: Path) -> None:
    # A private database and in-process tasks: the benchmark must not touch a developer's data or broker.
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ["REDIS_URL"] = ""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "virtuemap_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    with open(os.devnull, "w") as quiet:
        call_command("load_instrument", "virtuemap", "moralbench", "amaeval", verbosity=0, stdout=quiet)


def _plans(options: argparse.Namespace) -> dict[str, tuple[str, dict, bool]]:
    """Workload → (instrument, plan, judged by the model itself)."""
    runs = options.virtuemap_runs
    return {
        "static": ("amaeval", {"part": "static", "limit": options.limit}, False),
        "chain": (
            "amaeval",
            {"part": "dynamic", "scenarios": 1, "generation_tokens": options.generation_tokens},
            True,
        ),
        "virtuemap": ("virtuemap", {"min_runs": runs, "max_runs": runs}, False),
        "moralbench": ("moralbench", {"sets": ["MFQ_30_compare"], "option_order": "paper", "replicates": 1}, False),
    }


@dataclass(frozen=True)
class Pass:
    seconds: float
    cpu_seconds: float
    replies: list[tuple]
    latencies_ms: list[float]
    tokens: dict[str, int]


def _embedded_backend():
    from django.conf import settings

    from llmruns.backends.base import BackendConfig
    from llmruns.backends.local import SMOLLM2_MODEL_ID, LocalBackend

    config = BackendConfig(provider="local", model_id=SMOLLM2_MODEL_ID, local_threads=settings.LLMRUNS_EMBEDDED_THREADS)
    return LocalBackend(config)


def _pass(instrument: str, plan: dict, judged: bool, *, cache_mb: int, seed: int) -> Pass:
    from django.conf import settings

    from llmruns.engine import run_execute, run_start
    from llmruns.models import Attempt, LLMModel

    settings.LLMRUNS_EMBEDDED_STATE_CACHE_MB = cache_mb
    backend = _embedded_backend()
    backend.prefixes_forget()
    before = backend.prefix_statistics()
    model = LLMModel.objects.get(slug="smollm2-135m")
    started, cpu_started = time.perf_counter(), time.process_time()
    run = run_start(
        instrument=instrument, model=model, judge=model if judged else None, plan=plan, seed=seed, enqueue=False
    )
    run = run_execute(run_id=run.pk)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    if run.status != "finished":
        raise SystemExit(f"the {instrument} run did not finish: {run.stop_reason} {run.stop_detail}")
    after = backend.prefix_statistics()
    attempts = Attempt.objects.filter(trial__run=run).order_by(
        "trial__item", "trial__presentation", "trial__replicate", "number"
    )
    replies = list(
        attempts.values_list("trial__item", "trial__presentation", "trial__replicate", "number", "step", "raw_text")
    )
    latencies = [latency for latency in attempts.values_list("latency_ms", flat=True) if latency is not None]
    tokens = {key: after[key] - before[key] for key in ("calls", "prompt_tokens", "evaluated", "restored", "kept")}
    return Pass(seconds, cpu_seconds, replies, latencies, tokens)


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def _tokens(tokens: dict[str, int]) -> str:
    return (
        f"{tokens['calls']} calls, {tokens['prompt_tokens']:,} prompt tokens: {tokens['evaluated']:,} evaluated, "
        f"{tokens['restored']:,} restored, {tokens['kept']:,} kept"
    )


def _workload(name: str, instrument: str, plan: dict, judged: bool, *, repeats: int, seed: int) -> bool:
    print(f"\n{name}: {instrument} {plan}{' judged by itself' if judged else ''} (load average {_load()})", flush=True)
    passes: dict[str, list[Pass]] = {"without": [], "with": []}
    for round_number in range(1, repeats + 1):
        for label, cache_mb in (("without", 0), ("with", CACHE_MB)):
            result = _pass(instrument, plan, judged, cache_mb=cache_mb, seed=seed)
            passes[label].append(result)
            print(
                f"  round {round_number} {label:7s} cache: {result.seconds:8.1f} s "
                f"({result.cpu_seconds:.1f} s of CPU), median call "
                f"{statistics.median(result.latencies_ms):8.0f} ms; {_tokens(result.tokens)}",
                flush=True,
            )
    without = statistics.median(p.seconds for p in passes["without"])
    with_cache = statistics.median(p.seconds for p in passes["with"])
    ratio = without / with_cache
    cpu_ratio = statistics.median(p.cpu_seconds for p in passes["without"]) / statistics.median(
        p.cpu_seconds for p in passes["with"]
    )
    reference = passes["without"][0].replies
    identical = all(p.replies == reference for label in passes for p in passes[label])
    target = TARGETS.get(name)
    verdict = f"target ≥ {target:g}×: {'met' if ratio >= target else 'NOT met'}" if target else "no regression wanted"
    print(
        f"  {name}: median {without:.1f} s without the cache, {with_cache:.1f} s with it — ratio {ratio:.2f}× "
        f"({verdict}; of CPU time {cpu_ratio:.2f}×); {len(reference)} replies, identical in every pass: "
        f"{'yes' if identical else 'NO'}",
        flush=True,
    )
    return identical


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=100, help="Scored items per task of the static part.")
    parser.add_argument("--generation-tokens", type=int, default=120, help="Longest reply of a chain step.")
    parser.add_argument("--virtuemap-runs", type=int, default=1, help="Runs of the VirtueMap suite.")
    parser.add_argument("--repeats", type=int, default=1, help="Rounds of the two passes (medians over them).")
    parser.add_argument("--only", default=",".join(WORKLOADS), help="Comma-separated workloads to run.")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    chosen = [name.strip() for name in options.only.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {', '.join(WORKLOADS)}")
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as directory:
        _setup_django(Path(directory) / "bench.sqlite3")
        from django.conf import settings

        print(
            f"embedded model: {settings.LLMRUNS_EMBEDDED_THREADS} thread(s), state cache {CACHE_MB} MiB against "
            f"none; {os.cpu_count()} CPUs, load average {_load()}",
            flush=True,
        )
        plans = _plans(options)
        identical = [_workload(name, *plans[name], repeats=options.repeats, seed=options.seed) for name in chosen]
        print(f"\nload average at the end: {_load()}")
    return 0 if all(identical) else 1


if __name__ == "__main__":
    sys.exit(main())
