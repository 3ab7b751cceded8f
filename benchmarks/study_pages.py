"""Benchmark: what each page of the validation study costs the server, in one process, against the bare view.

Runs respondents through the study's pages with Django's test client — the whole middleware stack, the views, the
templates and the database, but no HTTP server and no load generator — as `benchmarks/locustfile.py`'s `Respondent`
does: the consent page, consent (with the form's CSRF token), every item confirmed, the thank-you page. Rounds of
journeys alternate with rounds of the bare view (`benchmarks.urls`, full middleware, no database), so that load from
other processes falls on both alike. Reports, per request kind, the median server time and the statements it ran
(BEGIN and COMMIT not counted; recording them adds a few microseconds a statement, to every version alike), and the
mean time of a respondent request over the bare view's median: the cost per page that `benchmarks/load.py`
multiplies by gunicorn, PostgreSQL and locust sharing two cores.

It runs on a throwaway database `bench_<NAME>` created and migrated next to the one in DATABASE_URL (PostgreSQL, as
in production; SQLite works but says so) and drops it afterwards. The attention check is off and the promotion
threshold out of reach, as in `benchmarks/load.py`.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/virtuemap .venv/bin/python benchmarks/study_pages.py
        [--journeys 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import io
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere, without installing the project

from benchmarks.serving import in_process_site, throwaway_database  # noqa: E402
from benchmarks.study_forms import ASSIGNMENT, CSRF  # noqa: E402

# The settings `benchmarks/load.py` gives gunicorn, in this process.
in_process_site(STUDY_ATTENTION_CHECKS="0", KEY_MIN_EVALUATIONS="1000000")

from django.db import close_old_connections, connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

TRANSACTION_CONTROL = re.compile(r"\s*(BEGIN|COMMIT|SAVEPOINT|RELEASE SAVEPOINT)\b", re.I)
HOST = "127.0.0.1"


class Timings:
    """Server time and statements of each request, by kind."""

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.statements: dict[str, list[int]] = defaultdict(list)

    def request(self, kinds: dict[int, str], send: Callable, *args, **kwargs):
        """Send one request; ``kinds`` names the request kind by the status code it may answer with."""
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            # What a server's handler does as a request starts, and the test client leaves out: a persistent
            # connection is marked for its health check, which runs with the request's first query.
            close_old_connections()
            response = send(*args, **kwargs)
            elapsed = time.perf_counter() - started
        kind = kinds.get(response.status_code)
        if kind is None:
            raise RuntimeError(f"{args[0]}: {response.status_code}, expected one of {sorted(kinds)}")
        self.seconds[kind].append(elapsed)
        self.statements[kind].append(
            sum(1 for query in captured.captured_queries if not TRANSACTION_CONTROL.match(query["sql"]))
        )
        connection.queries_log.clear()
        return response


def journey(timings: Timings, client: Client) -> None:
    """One respondent: consent page, consent, every item confirmed, thank-you page.

    Every journey shares one client, as gunicorn's worker shares one handler: a new client loads the middleware
    again, and WhiteNoise reads every static file's details when it loads (25 ms with `collectstatic` done)."""
    client.cookies.clear()  # a new person: no session cookie
    page = timings.request({200: "consent page"}, client.get, "/study/consent/")
    token = CSRF.search(page.content.decode()).group(1)
    timings.request({302: "consent"}, client.post, "/study/consent/", {"csrfmiddlewaretoken": token, "agree": "on"})
    for _ in range(50):  # bounded: the study serves ten items
        page = timings.request({200: "item page", 302: "item page → thanks"}, client.get, "/study/item/")
        if page.status_code == 302:
            break
        html = page.content.decode()
        answer = {
            "csrfmiddlewaretoken": CSRF.search(html).group(1),
            "assignment": ASSIGNMENT.search(html).group(1),
            "action": "confirm",
        }
        sent = timings.request({302: "item answer"}, client.post, "/study/item/", answer)
        if sent["Location"].endswith("/study/thanks/"):  # the last item answered
            break
    timings.request({200: "thank-you"}, client.get, "/study/thanks/")


def bare(timings: Timings, requests: int) -> None:
    client = Client(HTTP_HOST=HOST)
    for _ in range(requests):
        timings.request({200: "bare view"}, client.get, "/bench/bare/")


def prepare() -> None:
    from django.core.management import call_command

    for command in ("migrate", "load_instrument", "open_validation"):
        call_command(command, verbosity=0, stdout=io.StringIO())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--journeys", type=int, default=20, help="respondents per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    timings = Timings()
    with throwaway_database():
        prepare()
        client = Client(enforce_csrf_checks=True, HTTP_HOST=HOST)
        journey(Timings(), client)  # warm: the instrument's text, the keys and the templates in memory
        for _ in range(args.rounds):
            for _ in range(args.journeys):
                journey(timings, client)
            bare(timings, 20 * args.journeys)
    report(timings, args)
    return 0


def report(timings: Timings, args: argparse.Namespace) -> None:
    bare_ms = statistics.median(timings.seconds.pop("bare view")) * 1000
    timings.statements.pop("bare view")
    print(
        f"database: {connection.vendor}; {args.rounds} rounds of {args.journeys} respondents, "
        "alternating with the bare view; server time per request, medians"
    )
    print(f"{'request':<22} {'requests':>8} {'median ms':>10} {'statements':>11}")
    respondent_seconds: list[float] = []
    for kind, seconds in timings.seconds.items():
        respondent_seconds += seconds
        statements = max(timings.statements[kind])
        print(f"{kind:<22} {len(seconds):>8} {statistics.median(seconds) * 1000:>10.2f} {statements:>11}")
    print(f"{'bare view':<22} {'':>8} {bare_ms:>10.2f} {0:>11}")
    mean_ms = statistics.fmean(respondent_seconds) * 1000
    print(
        f"a respondent request costs {mean_ms:.2f} ms on average (all kinds, in the journey's proportions): "
        f"{mean_ms / bare_ms:.0f}× the bare view"
    )


if __name__ == "__main__":
    sys.exit(main())
