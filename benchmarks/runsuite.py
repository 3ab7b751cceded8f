"""Benchmark: the run engine's concurrent calls against one call at a time, in one process, for two instruments.

A local OpenAI-compatible server (`llmruns.testing.FakeProvider`, 127.0.0.1) answers every request after a fixed
delay (200 ms): a valid ranking for VirtueMap, first-token log-probabilities for the transitivity test. Three models
each run a VirtueMap suite of 5 runs × 7 dilemmas, and each a transitivity run of 2 blocks × 21 pairs × 2 orders,
first with concurrency 1 (the baseline), then with concurrency 8, on a throw-away SQLite database (in /dev/shm where
there is one, so that the disk's commit latency does not dominate); everything else — seeds, plans, stopping rule,
storage — is the real code path of `llmruns.engine`. Both passes are repeated and the median wall times reported per
instrument, with calls, the ratio, and whether the stored answers of every pass are identical (they must be: same
seed, same answers).

Exit status 1 if the stored answers differ.

    .venv/bin/python benchmarks/runsuite.py [--delay 0.2] [--runs 5] [--blocks 2] [--models 3] [--concurrency 8]
                                            [--repeats 3]
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
    with open(os.devnull, "w") as quiet:
        call_command("load_instrument", verbosity=0, stdout=quiet)
        call_command("load_transitivity", verbosity=0, stdout=quiet)


def _pass(
    base_url: str, instrument: str, plan: dict, *, concurrency: int, models: int, seed: int
) -> tuple[float, list]:
    """Run ``instrument`` once per model; return (wall seconds, stored answers)."""
    from llmruns.engine import run_execute, run_start
    from llmruns.models import LLMModel, Trial

    runs = []
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
                "top_logprobs": 20,
            },
        )
        run = run_start(instrument=instrument, model=model, plan=plan, seed=seed + number, enqueue=False)
        runs.append(run_execute(run_id=run.pk))
    elapsed = time.perf_counter() - started
    if any(run.status != "finished" for run in runs):
        raise SystemExit(f"a {instrument} run did not finish: {[run.stop_detail for run in runs]}")
    trials = Trial.objects.filter(run__in=runs)
    answers = sorted(
        (slug, item, presentation, replicate, repr(answer))
        for slug, item, presentation, replicate, answer in trials.values_list(
            "run__model__slug", "item", "presentation", "replicate", "answer"
        )
    )
    return elapsed, answers


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.2, help="Seconds before each answer.")
    parser.add_argument("--models", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5, help="VirtueMap questionnaire runs per suite.")
    parser.add_argument("--blocks", type=int, default=2, help="Transitivity blocks per run (42 prompts each).")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20260610)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    plans = {
        "virtuemap": {"min_runs": args.runs, "max_runs": args.runs},
        "transitivity": {"blocks": [str(block) for block in range(1, args.blocks + 1)]},
    }
    calls_per_pass = {"virtuemap": args.models * args.runs * 7, "transitivity": args.models * args.blocks * 42}
    # Memory-backed when the machine has it: the benchmark is about concurrent calls, not the disk's fsync.
    scratch = "/dev/shm" if Path("/dev/shm").is_dir() else None
    failed = False
    with tempfile.TemporaryDirectory(dir=scratch) as directory:
        _setup_django(Path(directory) / "bench.sqlite3")
        from instruments.transitivity.testing import scripted_logprobs
        from llmruns.testing import FakeProvider

        with FakeProvider(delay=args.delay, logprobs=scripted_logprobs) as provider:
            print(
                f"{args.models} models; fake provider answering after {args.delay * 1000:.0f} ms; "
                f"median of {args.repeats} repeats"
            )
            for instrument, plan in plans.items():
                timings: dict[int, list[float]] = {1: [], args.concurrency: []}
                stored: list[list] = []
                for _ in range(args.repeats):
                    for concurrency in timings:
                        elapsed, answers = _pass(
                            provider.base_url, instrument, plan, concurrency=concurrency, models=args.models,
                            seed=args.seed,
                        )  # fmt: skip
                        timings[concurrency].append(elapsed)
                        stored.append(answers)
                medians = {concurrency: statistics.median(values) for concurrency, values in timings.items()}
                calls = calls_per_pass[instrument]
                for concurrency, median in medians.items():
                    label = "baseline" if concurrency == 1 else "concurrent"
                    print(
                        f"{instrument}: concurrency {concurrency} ({label}): {median:.2f} s wall, {calls} calls, "
                        f"{calls / median:.1f} calls/s"
                    )
                ratio = medians[1] / medians[args.concurrency]
                print(f"{instrument}: ratio concurrency {args.concurrency} / concurrency 1: {ratio:.1f}x faster")
                identical = all(answers == stored[0] for answers in stored)
                print(f"{instrument}: stored answers identical for the same seed ({len(stored)} passes): "
                      f"{'yes' if identical else 'NO'}")  # fmt: skip
                failed = failed or not identical
    if failed:
        print("FAIL: the stored answers differ between passes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
