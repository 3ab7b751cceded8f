"""Locust users for `benchmarks/load.py` (run by it in a locust subprocess; not imported by the site).

`Respondent` walks the study's pages as a person with a browser does: consent (with the CSRF token from the
form), every item confirmed (a 302 to the next item, or after the last to the thank-you page, acknowledges the
answer), the thank-you page with its completion code; then starts over as a new person. By default there is no
think time: each user is a closed loop, so the run measures what the server can carry. With LOAD_THINK_SECONDS=5
each user pauses that long after every page, as a person reading does, so the run measures how many people at
once the server serves.
`BareEndpoint` requests the bare Django view for the baseline phase.

The assignment ids of acknowledged answers are written, one per line, to LOAD_ACKNOWLEDGED_FILE when the run
stops, so that `load.py` can look each one up in the database.
"""

from __future__ import annotations

import os

import gevent
from locust import constant, events, task
from locust.contrib.fasthttp import FastHttpUser
from locust.exception import RescheduleTask

from benchmarks.study_forms import ASSIGNMENT, CSRF

ACKNOWLEDGED: list[int] = []
THINK_SECONDS = float(os.environ.get("LOAD_THINK_SECONDS", "0"))


class Respondent(FastHttpUser):
    wait_time = constant(0)

    def _think(self) -> None:
        """A person reads the page before the next request (gevent's sleep: other users go on meanwhile)."""
        if THINK_SECONDS:
            gevent.sleep(THINK_SECONDS)

    def _form_token(self, name: str, path: str, status: int = 200) -> str:
        with self.client.get(path, name=name, catch_response=True, allow_redirects=False) as page:
            token = CSRF.search(page.text or "")
            if page.status_code != status or token is None:
                page.failure(f"{path}: {page.status_code}, no form")
                raise RescheduleTask()
            return token.group(1)

    def _post(self, name: str, path: str, data: dict, *locations: str) -> str | None:
        """Send a form; the page it redirects to (one of ``locations``), or None (a failure) when it does not."""
        with self.client.post(path, data=data, name=name, catch_response=True, allow_redirects=False) as answer:
            location = answer.headers.get("Location", "")
            if answer.status_code == 302 and (reached := next((p for p in locations if p in location), None)):
                return reached
            answer.failure(f"{path}: {answer.status_code} to {location}")
            return None

    @task
    def journey(self) -> None:
        self.client.cookiejar.clear()  # a new person: no session cookie
        token = self._form_token("consent page", "/study/consent/")
        self._think()
        if not self._post("consent", "/study/consent/", {"csrfmiddlewaretoken": token, "agree": "on"}, "/study/"):
            return
        for _ in range(50):  # bounded: the study serves 10 items
            with self.client.get("/study/item/", name="item page", catch_response=True, allow_redirects=False) as page:
                if page.status_code == 302 and "/study/thanks/" in page.headers.get("Location", ""):
                    break
                assignment = ASSIGNMENT.search(page.text or "")
                csrf = CSRF.search(page.text or "")
                if page.status_code != 200 or assignment is None or csrf is None:
                    page.failure(f"item page: {page.status_code}")
                    return
            self._think()
            data = {"csrfmiddlewaretoken": csrf.group(1), "assignment": assignment.group(1), "action": "confirm"}
            reached = self._post("item answer", "/study/item/", data, "/study/item/", "/study/thanks/")
            if reached is None:
                return
            ACKNOWLEDGED.append(int(assignment.group(1)))
            if reached == "/study/thanks/":  # the last item answered
                break
        with self.client.get("/study/thanks/", name="thank-you", catch_response=True) as thanks:
            if thanks.status_code != 200 or "completion-code" not in (thanks.text or ""):
                thanks.failure(f"thank-you: {thanks.status_code}")


class BareEndpoint(FastHttpUser):
    """The baseline: the bare Django view of `benchmarks.settings` (full middleware, no database)."""

    wait_time = constant(0)

    @task
    def bare(self) -> None:
        self.client.get("/bench/bare/", name="bare")


@events.test_stop.add_listener
def _write_acknowledged(**_kwargs) -> None:
    path = os.environ.get("LOAD_ACKNOWLEDGED_FILE")
    if path:
        with open(path, "w") as out:
            out.write("".join(f"{assignment}\n" for assignment in ACKNOWLEDGED))
