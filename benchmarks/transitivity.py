"""Benchmark: the G-RUM fast path (column generation) against the reference LP, in one process.

Generates mixed choice vectors of 7 alternatives (numpy.random.default_rng(seed)): a third
uniform on [0, 1]^21, a third mixtures of 1–30 random linear orders (inside the polytope), and a
third near the boundary: from a mixture x along a random direction u, the boundary point
x + s·u is found by bisection on the fast path's distance, then moved 1e-7…1e-3 (log-uniform)
further out or back in. Every vector is tested by both solvers of
`scoring.transitivity.transitivity_results`: the reference (one HiGHS LP over all 5,040 orders,
timed per vector) and the fast path (one batched call, repeated and the median taken).

Exit status 1 if any verdict differs, or a distance differs by more than 1e-8.

    .venv/bin/python benchmarks/transitivity.py [--vectors N] [--repeats N] [--seed N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project

from scoring.transitivity import grum_solutions, linear_order_vertices, transitivity_results  # noqa: E402

N_ALTERNATIVES = 7
EPS = 1e-6
DISTANCE_TOLERANCE = 1e-8
BISECTION_STEPS = 20


def mixed_vectors(rng: np.random.Generator, count: int, n: int) -> tuple[np.ndarray, list[str]]:
    """Return ``count`` vectors (uniform, mixture, near-boundary thirds) and the kind of each."""
    vertices = linear_order_vertices(n)
    m = vertices.shape[1]
    thirds = [count // 3, count // 3, count - 2 * (count // 3)]

    def mixtures(k: int) -> np.ndarray:
        rows = []
        for _ in range(k):
            size = int(rng.integers(1, 31))
            rows.append(rng.dirichlet(np.ones(size)) @ vertices[rng.integers(0, len(vertices), size)])
        return np.clip(np.array(rows), 0.0, 1.0)

    uniform = rng.random((thirds[0], m))
    inside = mixtures(thirds[1])
    start = mixtures(thirds[2])
    direction = rng.normal(size=(thirds[2], m))
    direction /= np.abs(direction).max(axis=1, keepdims=True)
    # Longest step that stays in [0, 1]^m; the boundary of the polytope lies before it.
    room = np.where(direction > 0, (1.0 - start) / direction, np.where(direction < 0, -start / direction, np.inf))
    low, high = np.zeros(thirds[2]), room.min(axis=1)
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        inside_now = np.array([s.distance <= 1e-12 for s in grum_solutions(start + middle[:, None] * direction, n)])
        low, high = np.where(inside_now, middle, low), np.where(inside_now, high, middle)
    offset = rng.choice([-1.0, 1.0], size=thirds[2]) * 10 ** rng.uniform(-7, -3, size=thirds[2])
    near = np.clip(start + (low + offset)[:, None] * direction, 0.0, 1.0)
    kinds = ["uniform"] * thirds[0] + ["mixture"] * thirds[1] + ["near boundary"] * thirds[2]
    return np.vstack([uniform, inside, near]), kinds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20260707)
    args = parser.parse_args(argv)
    n = N_ALTERNATIVES

    vectors, kinds = mixed_vectors(np.random.default_rng(args.seed), args.vectors, n)
    transitivity_results(vectors[:5], n, EPS, method="reference")  # warm the caches of both paths
    transitivity_results(vectors[:5], n, EPS, method="fast")

    reference_times, reference = [], []
    for vector in vectors:
        started = time.perf_counter()
        reference.append(transitivity_results(vector, n, EPS, method="reference")[0])
        reference_times.append(time.perf_counter() - started)

    fast_totals = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        fast = transitivity_results(vectors, n, EPS, method="fast")
        fast_totals.append(time.perf_counter() - started)

    verdicts_differ = sum(
        (f.wum, f.hcm, f.grum) != (r.wum, r.hcm, r.grum) for f, r in zip(fast, reference, strict=True)
    )
    distance_gap = max(abs(f.grum_distance - r.grum_distance) for f, r in zip(fast, reference, strict=True))
    fallbacks = sum(f.grum_solver == "full_lp" for f in fast)
    reference_total, fast_total = sum(reference_times), statistics.median(fast_totals)

    print(f"{len(vectors)} vectors of {n} alternatives, eps = {EPS:g}")
    for kind in dict.fromkeys(kinds):
        rows = [i for i, k in enumerate(kinds) if k == kind]
        inside = sum(reference[i].grum for i in rows)
        print(f"  {kind:>14}: {len(rows)} vectors, {inside} inside G-RUM, {len(rows) - inside} outside")
    print(
        f"reference LP: median {1000 * statistics.median(reference_times):.2f} ms per vector, "
        f"total {reference_total:.1f} s"
    )
    print(
        f"fast path:    {1000 * fast_total / len(vectors):.3f} ms per vector (batched; median of "
        f"{args.repeats} runs), total {fast_total:.2f} s, {fallbacks} vectors handed to the LP near eps"
    )
    print(f"ratio (totals): {reference_total / fast_total:.0f}x (target >= 50x)")
    print(
        f"agreement: {len(vectors) - verdicts_differ}/{len(vectors)} verdicts "
        f"({100 * (len(vectors) - verdicts_differ) / len(vectors):.1f}%), "
        f"largest distance difference {distance_gap:.1e}"
    )
    return 1 if verdicts_differ or distance_gap > DISTANCE_TOLERANCE else 0


if __name__ == "__main__":
    sys.exit(main())
