"""Benchmark: vectorised virtue profiles against a pure-Python baseline, in one process.

Simulates questionnaires of 7 uniformly random rankings (numpy.random.default_rng(seed)),
scores them into 5-virtue profiles against the published key with
`scoring.virtue_profiles_batch` (in chunks, to bound memory), and scores a sample of the
same questionnaires with a straightforward per-ranking implementation of the same
formula in plain Python (dicts and loops, no numpy). Each timing is repeated and the
median reported. The baseline is timed on the sample only; its throughput in
questionnaires per second is extrapolated from it.

Exit status 1 if the two disagree on the sample by more than 1e-9.

    .venv/bin/python benchmarks/scoring.py [--questionnaires N] [--baseline-sample N]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project

from scoring import OPTIONS, key_weight_arrays, virtue_profiles_batch  # noqa: E402

INSTRUMENT_PATH = ROOT / "instruments" / "virtuemap" / "fixtures" / "instrument.json"
TOLERANCE = 1e-9


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questionnaires", type=int, default=1_000_000)
    parser.add_argument("--baseline-sample", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunk-size", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20260610)
    args = parser.parse_args(argv)
    n_total, n_sample = args.questionnaires, min(args.baseline_sample, args.questionnaires)

    instrument = json.loads(INSTRUMENT_PATH.read_text())
    key = instrument["published_key"]
    virtues = [virtue["id"] for virtue in instrument["virtues"]]
    dilemmas = [dilemma["id"] for dilemma in instrument["dilemmas"]]
    key_weights, key_present = key_weight_arrays(key, dilemmas, virtues)

    rng = np.random.default_rng(args.seed)
    # int8 keeps 1M x 7 x 5 option indices at 35 MB; each row is an independent shuffle.
    base = np.broadcast_to(np.arange(len(OPTIONS), dtype=np.int8), (n_total, len(dilemmas), len(OPTIONS)))
    rankings = rng.permuted(base, axis=-1)
    answered = np.ones((n_total, len(dilemmas)), dtype=bool)

    def score_all() -> np.ndarray:
        profiles = np.empty((n_total, len(virtues)))
        for start in range(0, n_total, args.chunk_size):
            stop = start + args.chunk_size
            profiles[start:stop] = virtue_profiles_batch(
                rankings[start:stop], answered[start:stop], key_weights, key_present
            )
        return profiles

    # The baseline gets letter tuples, the natural Python form; converting is not timed.
    sample = [
        [tuple(OPTIONS[i] for i in ranking) for ranking in questionnaire]
        for questionnaire in rankings[:n_sample].tolist()
    ]
    key_points = _baseline_key_points(key)

    def score_sample_baseline() -> list[dict[str, float | None]]:
        return [_baseline_profile(q, dilemmas, virtues, key_points) for q in sample]

    vector_times, profiles = _timed(score_all, args.repeats)
    baseline_times, baseline_profiles = _timed(score_sample_baseline, args.repeats)

    expected = np.array([[p[v] for v in virtues] for p in baseline_profiles], dtype=np.float64)
    max_diff = float(np.max(np.abs(profiles[:n_sample] - expected))) if n_sample else 0.0

    vector_rate = n_total / statistics.median(vector_times)
    baseline_rate = n_sample / statistics.median(baseline_times)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"questionnaires: {n_total:,} x {len(dilemmas)} rankings, {len(virtues)} virtues, seed {args.seed}")
    print(
        f"vectorised (virtue_profiles_batch, chunks of {args.chunk_size:,}): "
        f"median {statistics.median(vector_times):.3f} s over {args.repeats} repeats "
        f"-> {vector_rate:,.0f} questionnaires/s"
    )
    print(
        f"baseline (pure Python, dicts and loops): timed on a sample of {n_sample:,}, "
        f"median {statistics.median(baseline_times):.3f} s over {args.repeats} repeats "
        f"-> {baseline_rate:,.0f} questionnaires/s (extrapolated from the sample)"
    )
    print(f"ratio vectorised / baseline: {vector_rate / baseline_rate:.1f}x")
    print(f"max |vectorised - baseline| on the sample: {max_diff:.3g} (tolerance {TOLERANCE:g})")
    print(f"peak resident memory: {peak_mb:,.0f} MB")
    if not max_diff <= TOLERANCE:
        print("FAIL: the vectorised and baseline profiles differ", file=sys.stderr)
        return 1
    return 0


def _timed[T](function: Callable[[], T], repeats: int) -> tuple[list[float], T]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return times, result


def _baseline_key_points(key: Mapping[str, Mapping[str, Sequence[str]]]) -> dict[str, dict[str, dict]]:
    # Key weights are fixed, so even a plain implementation would compute them once.
    return {
        dilemma: {
            virtue: {option: len(order) - position for position, option in enumerate(order)}
            for virtue, order in orders.items()
        }
        for dilemma, orders in key.items()
    }


def _baseline_profile(
    questionnaire: Sequence[Sequence[str]],
    dilemmas: Sequence[str],
    virtues: Sequence[str],
    key_points: Mapping[str, Mapping[str, Mapping[str, int]]],
) -> dict[str, float | None]:
    """P(v) = mean over dilemmas with a key for v of S = 100·(Σ_o b_R(o)·b_O(o) - 35)/20."""
    totals = dict.fromkeys(virtues, 0.0)
    counts = dict.fromkeys(virtues, 0)
    for dilemma, ranking in zip(dilemmas, questionnaire, strict=True):
        points = {option: len(ranking) - position for position, option in enumerate(ranking)}
        for virtue in virtues:
            key = key_points[dilemma].get(virtue)
            if key is None:
                continue
            raw = sum(points[option] * weight for option, weight in key.items())
            totals[virtue] += 100 * (raw - 35) / 20
            counts[virtue] += 1
    return {v: totals[v] / counts[v] if counts[v] else None for v in virtues}


if __name__ == "__main__":
    sys.exit(main())
