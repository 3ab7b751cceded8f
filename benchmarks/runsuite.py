"""Benchmark: the run-suite's concurrent item calls against one call at a time, in one process.

A local OpenAI-compatible server (`llmruns.testing.FakeProvider`, 127.0.0.1) answers every request with a valid
ranking after a fixed delay (200 ms). Three models each run a suite of 5 runs × 7 dilemmas, first with
concurrency 1 (the baseline), then with concurrency 8, on a throw-away SQLite database (in /dev/shm where there
is one, so that the disk's commit latency does not dominate); everything else —
seeds, stopping rule, storage — is the real code path. Both passes are repeated and the median wall times
reported, with calls, tokens, the ratio, and whether the stored rankings of every pass are identical (they
must be: same seed, same answers).

Exit status 1 if the stored rankings differ.

    .venv/bin/python benchmarks/runsuite.py [--delay 0.2] [--runs 5] [--models 3] [--concurrency 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project


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
    call_command("load_instrument", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115


def _pass(base_url: str, *, concurrency: int, models: int, runs: int, seed: int) -> tuple[float, list, int]:
    """Run one suite per model; return (wall seconds, stored rankings, tokens)."""
    from django.db.models import Sum

    from llmruns.models import ItemResponse, LLMModel
    from llmruns.services import suite_execute, suite_start

    suites = []
    started = time.perf_counter()
    for number in range(1, models + 1):
        model, _ = LLMModel.objects.update_or_create(
            slug=f"bench/model-{number}",
            defaults={
                "name": f"Bench model {number}",
                "base_url": base_url,
                "model_id": f"bench-{number}",
                "requests_per_minute": 0,
                "concurrency": concurrency,
            },
        )
        suite = suite_start(model=model, min_runs=runs, max_runs=runs, seed=seed + number, enqueue=False)
        suites.append(suite_execute(suite_id=suite.pk))
    elapsed = time.perf_counter() - started
    items = ItemResponse.objects.filter(run__suite__in=suites)
    rankings = sorted(
        items.values_list("run__suite__model__slug", "run__index", "dilemma_id", "canonical_ranking", "valid")
    )
    tokens = items.aggregate(total=Sum("prompt_tokens") + Sum("completion_tokens"))["total"] or 0
    return elapsed, rankings, tokens


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.2, help="Seconds before each answer.")
    parser.add_argument("--models", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20260610)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    # Memory-backed when the machine has it: the benchmark is about concurrent calls, not the disk's fsync.
    scratch = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=scratch) as directory:
        _setup_django(Path(directory) / "bench.sqlite3")
        from llmruns.testing import FakeProvider

        with FakeProvider(delay=args.delay) as provider:
            timings: dict[int, list[float]] = {1: [], args.concurrency: []}
            stored: list[list] = []
            for _ in range(args.repeats):
                for concurrency in timings:
                    calls_before = len(provider.requests)
                    elapsed, rankings, tokens = _pass(
                        provider.base_url, concurrency=concurrency, models=args.models, runs=args.runs, seed=args.seed
                    )
                    timings[concurrency].append(elapsed)
                    stored.append(rankings)
                    calls = len(provider.requests) - calls_before

    print(
        f"suites: {args.models} models x {args.runs} runs x 7 dilemmas, fake provider answering after "
        f"{args.delay * 1000:.0f} ms; median of {args.repeats} repeats"
    )
    medians = {concurrency: statistics.median(values) for concurrency, values in timings.items()}
    for concurrency, median in medians.items():
        label = "baseline" if concurrency == 1 else "concurrent"
        print(
            f"concurrency {concurrency} ({label}): {median:.2f} s wall, {calls} calls, {tokens:,} tokens, "
            f"{calls / median:.1f} calls/s"
        )
    print(f"ratio concurrency {args.concurrency} / concurrency 1: {medians[1] / medians[args.concurrency]:.1f}x faster")
    identical = all(rankings == stored[0] for rankings in stored)
    print(f"stored rankings identical for the same seed ({len(stored)} passes): {'yes' if identical else 'NO'}")
    if not identical:
        print("FAIL: the stored rankings differ between the two passes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
