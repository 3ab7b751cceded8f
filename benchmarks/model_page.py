"""Benchmark: a model's page with four instruments' results (`/models/<slug>/`) against the bare Django view, in one
process and one run.

Builds a fresh SQLite database in a temporary folder (migrated; the four instruments loaded; the reference VirtueMap
profiles published), measures the first reference model on the transitivity test (one block, both orders),
MoralBench (two sets, two replicates) and AMAeval (the static part, two scenarios, two replicates) through the
scripted provider on 127.0.0.1 (`llmruns.testing.FakeProvider`), then times requests through Django's test client —
the whole middleware stack and the view, no network — alternating the model page and the bare view
(`benchmarks.urls`) in rounds so that load from other processes falls on both alike. Reports the median server
time of each, their ratio and the page's queries.

Exit status 1 if the page's median is above 50 ms or it takes more than 8 queries.

    .venv/bin/python benchmarks/model_page.py [--requests 200] [--rounds 5]
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

TARGET_MS = 50.0
TARGET_QUERIES = 8
SLUG = "openai/gpt-5"


def _reply(body: dict) -> str:
    """A valid answer to each instrument's question: "A" for MoralBench, a rating for AMAeval's two tasks."""
    system = body["messages"][0]["content"]
    if "Only output 0 or 1" in system:
        return "1"
    if "score from 1-4" in system:
        return "3"
    return "A"


def build(provider_url: str) -> None:
    """Load the instruments and the reference profiles; measure the model on the other three instruments."""
    from django.core.management import call_command

    from llmruns.engine import run_execute, run_start
    from llmruns.models import LLMModel

    call_command("migrate", verbosity=0)
    for command in ("load_instrument", "load_transitivity", "load_moralbench", "load_amaeval"):
        call_command(command, verbosity=0)
    call_command("load_reference_profiles", verbosity=0)
    LLMModel.objects.filter(slug=SLUG).update(
        base_url=provider_url, model_id="fake-model", requests_per_minute=0, concurrency=4
    )
    model = LLMModel.objects.get(slug=SLUG)
    plans = {
        "transitivity": {"blocks": [1]},
        "moralbench": {"replicates": 2, "sets": ["MFQ_30", "6_concepts_compare"]},
        "amaeval": {"part": "static", "limit": 2, "replicates": 2},
    }
    for instrument, plan in plans.items():
        run_execute(run_id=run_start(instrument=instrument, model=model, plan=plan, enqueue=False).pk)
    if model.results.count() != 4:
        raise SystemExit(f"the model has {model.results.count()} results, not 4: a run did not publish")


def timed(client, path: str, count: int) -> list[float]:
    """Milliseconds of each of ``count`` GET requests of ``path`` (each must answer 200)."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{path} answered {response.status_code}")
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per endpoint, over all rounds")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.settings")
        os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-not-for-production")
        import django

        django.setup()
        from django.db import connection
        from django.test import Client

        from llmruns.testing import FakeProvider

        with FakeProvider(answer=_reply) as provider:
            build(provider.base_url)
        # No `setup_test_environment`: its template-rendering hooks would be measured too.
        client = Client(HTTP_HOST="127.0.0.1")
        page = f"/models/{SLUG}/"
        timed(client, page, 5)  # warm the caches and the templates
        timed(client, "/bench/bare/", 5)
        queries: list[str] = []

        def count(execute, sql, params, many, context):
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            timed(client, page, 1)
        per_round = max(1, args.requests // args.rounds)
        times: dict[str, list[float]] = {"page": [], "bare": []}
        for _ in range(args.rounds):
            times["page"] += timed(client, page, per_round)
            times["bare"] += timed(client, "/bench/bare/", per_round)

    page_ms, bare_ms = statistics.median(times["page"]), statistics.median(times["bare"])
    print(f"Django test client, SQLite, {args.rounds} alternating rounds of {per_round} requests each")
    print(f"{'endpoint':<44} {'median ms':>10} {'p90 ms':>8}")
    for name, label in (("page", f"GET {page} (4 instruments)"), ("bare", "GET /bench/bare/ (constant JSON)")):
        p90 = statistics.quantiles(times[name], n=10)[-1]
        print(f"{label:<44} {statistics.median(times[name]):>10.2f} {p90:>8.2f}")
    met = page_ms <= TARGET_MS and len(queries) <= TARGET_QUERIES
    print(f"queries of the page: {len(queries)} (target ≤ {TARGET_QUERIES})")
    print(f"ratio page/bare (medians): {page_ms / bare_ms:.1f}; page median {page_ms:.2f} ms (target ≤ {TARGET_MS:g})")
    print("met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
