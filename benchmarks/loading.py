"""Benchmark: loading AMAeval's dataset (40 scenarios, 200 derivations, 1,090 evaluations) with `upsert_rows` (each
table read once, new rows inserted in bulk) against the same loader with every row through `upsert` (a read and an
insert per row, as before), in one process.

Builds a fresh SQLite database in a temporary folder, or uses the PostgreSQL database `--database-url` names (dropped
and created again), then alternates the two `--repeats` times on emptied tables. Prints the median of each and their
ratio.

    .venv/bin/python benchmarks/loading.py [--repeats 5] [--database-url postgres://postgres@127.0.0.1:5432/virtuemap_bench_loading]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project


def _row_by_row(model, report, rows):
    """The baseline: the same rows through `upsert`, a read and a write per row, as the loader did before."""
    from instruments.loading import upsert

    return [upsert(model, report, lookup, values) for lookup, values in rows]


def _empty() -> None:
    from instruments.amaeval.models import Derivation, Evaluation, Scenario

    Evaluation.objects.all().delete()
    Derivation.objects.all().delete()
    Scenario.objects.all().delete()


def _timed(load) -> float:
    _empty()
    started = time.perf_counter()
    load()
    return time.perf_counter() - started


def measure(repeats: int) -> None:
    import json

    from django.core.management import call_command

    from instruments.amaeval.models import Evaluation
    from instruments.amaeval.services import AMAEVAL_FIXTURE, amaeval_instrument_load

    call_command("migrate", verbosity=0)
    data = json.loads(AMAEVAL_FIXTURE.read_text(encoding="utf-8"))
    bulk, baseline = [], []
    for _ in range(repeats):  # alternating, so load from other processes falls on both alike
        bulk.append(_timed(lambda: amaeval_instrument_load(data=data)))
        with mock.patch("instruments.amaeval.services.upsert_rows", _row_by_row):
            baseline.append(_timed(lambda: amaeval_instrument_load(data=data)))
    assert Evaluation.objects.count() == 1090
    fast, slow = statistics.median(bulk), statistics.median(baseline)
    print(f"AMAeval's dataset ({repeats} alternating repeats, medians): upsert_rows {fast * 1000:.0f} ms, "
          f"row by row {slow * 1000:.0f} ms — {slow / fast:.1f}× faster")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--database-url", help="a PostgreSQL database to use (dropped and created again)")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "virtuemap_site.settings")
    os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-not-for-production")
    with tempfile.TemporaryDirectory() as folder:
        if args.database_url:
            from benchmarks.serving import database_create

            database_create(args.database_url, fresh=True)
            os.environ["DATABASE_URL"] = args.database_url
        else:
            os.environ["DATABASE_URL"] = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        import django

        django.setup()
        measure(args.repeats)


if __name__ == "__main__":
    main()
