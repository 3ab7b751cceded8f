"""Hostile input for the property-based tests of every respondent form and API body, and the database snapshot
those tests compare before and after a request.

The strategies mix values the application expects with values that break careless code: wrong types, huge
strings, NUL bytes, lone surrogates and other awkward unicode, deeply nested JSON, bodies that are not what their
Content-Type says. A rejected request must leave `db_state()` unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from instruments.virtuemap.models import Assignment, KeyCandidate, KeyDecision, ProfilingSubmission, ValidationResponse
from surveys.models import Respondent

# Bounded for CI (the suite runs on SQLite and on PostgreSQL); no deadline, as for every property test
# (`tests/conftest.py`), and here also because the first request of a test pays for template loading. derandomize:
# the same examples on every run, so a failure is reproducible.
HOSTILE_SETTINGS = settings(
    max_examples=60,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

NASTY_STRINGS = [
    "",
    " ",
    "\x00",
    "A\x00",
    "\ud800",  # a lone surrogate: valid in a Python str and in JSON ("\ud800"), not encodable as UTF-8
    "\udfffB",
    "\ufeff",
    "\u202eEDCBA",
    "é",
    "𝔸",
    "A\n",
    "1\n",
    "-1",
    "0",
    "99999999999999999999",
    "1e309",
    "NaN",
    "true",
    "null",
    "[]",
    "{}",
    "<script>alert(1)</script>",
    "' OR '1'='1",
    "../../etc/passwd",
    "%00",
    "A" * 100_000,
]

# Every code point, surrogates included.
any_character = st.characters(codec=None, categories=None, exclude_categories=())
# The listed strings twice as often as random text, since they are the ones that break things.
nasty_text = st.sampled_from(NASTY_STRINGS)
hostile_text = st.one_of(nasty_text, nasty_text, st.text(any_character, max_size=40))
hostile_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**63, -(2**63) - 1, 10**40]),
    st.floats(allow_nan=False, allow_infinity=False),
    hostile_text,
)
hostile_json = st.recursive(
    hostile_scalar,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(hostile_text, children, max_size=4)),
    max_leaves=12,
)

# Bodies that no JSON parser should turn into a server error.
MALFORMED_BODIES = [
    b"",
    b"{",
    b"[" * 100_000 + b"]" * 100_000,  # deeper than Python's recursion limit
    b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    b"NaN",
    b"\xff\xfe\x00\x00",
    b'{"rankings": {"D1": ["A", "B", "C", "D", "E"]}}\x00',
    b"\xed\xa0\x80",  # a surrogate encoded as UTF-8, which UTF-8 forbids
    '{"\ud800": 1}'.encode("utf-8", "surrogatepass"),
]
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-16",
    "application/json; charset=no-such-codec",
    "text/plain",
    "application/xml",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "multipart/form-data; boundary=xyz",
    "",
]


FORM = "application/x-www-form-urlencoded"


def form_body(fields: Mapping[str, Any]) -> bytes:
    """URL-encode form fields, lone surrogates included (as the invalid UTF-8 a hostile client would send)."""
    pairs = []
    for name, value in fields.items():
        for item in value if isinstance(value, list) else [value]:
            pairs.append((name, item))
    return urlencode(pairs, encoding="utf-8", errors="surrogatepass").encode("ascii")


def json_body(value: Any) -> bytes:
    return json.dumps(value, allow_nan=False).encode("ascii")


def _fields(draw, fields: Mapping[str, st.SearchStrategy]) -> dict[str, Any]:
    """The given fields, each usually drawn from its strategy, sometimes hostile or missing, plus unknown ones."""
    values = {}
    for name, strategy in fields.items():
        presence = draw(st.sampled_from(["expected", "expected", "expected", "hostile", "missing"]))
        if presence != "missing":
            values[name] = draw(strategy if presence == "expected" else hostile_json)
    values.update(draw(st.dictionaries(hostile_text, hostile_json, max_size=2)))
    return values


def _garbage(draw) -> tuple[bytes, str]:
    body = draw(st.one_of(st.sampled_from(MALFORMED_BODIES), st.binary(max_size=200)))
    return body, draw(st.sampled_from(CONTENT_TYPES))


@st.composite
def form_request(draw, fields: Mapping[str, st.SearchStrategy]) -> tuple[bytes, str]:
    """A form POST body and its Content-Type: mostly URL-encoded fields, sometimes JSON or garbage."""
    kind = draw(st.sampled_from(["form", "form", "form", "json", "garbage"]))
    if kind == "garbage":
        return _garbage(draw)
    values = _fields(draw, fields)
    if kind == "json":
        return json_body(values), "application/json"
    return form_body({name: _form_value(value) for name, value in values.items()}), FORM


@st.composite
def json_request(draw, fields: Mapping[str, st.SearchStrategy]) -> tuple[bytes, str]:
    """A JSON API body and its Content-Type: mostly a JSON object, sometimes another JSON value, form encoding
    or garbage."""
    kind = draw(st.sampled_from(["json", "json", "json", "other_json", "form", "garbage"]))
    if kind == "garbage":
        return _garbage(draw)
    if kind == "other_json":
        return json_body(draw(hostile_json)), "application/json"
    values = _fields(draw, fields)
    if kind == "form":
        return form_body({name: _form_value(value) for name, value in values.items()}), FORM
    return json_body(values), "application/json"


def _form_value(value: Any) -> str | list[str]:
    if isinstance(value, list):
        return [item if isinstance(item, str) else json.dumps(item) for item in value]
    return value if isinstance(value, str) else json.dumps(value)


def db_state() -> dict[str, Any]:
    """Every row a respondent's request can write, as comparable values."""
    return {
        "respondents": sorted(
            Respondent.objects.values_list(
                "pk",
                "study",
                "token_hash",
                "panel_id_hash",
                "flagged",
                "attention_checks_failed",
                "completed_at",
                "age_band",
                "gender",
                "country",
                "education",
                "native_language",
            )
        ),
        "assignments": sorted(Assignment.objects.values_list("pk", "answered_at", "check_answer", "check_passed")),
        "responses": sorted(
            ValidationResponse.objects.values_list("pk", "respondent_id", "candidate_id", "confirmed", "ordering")
        ),
        "candidates": sorted(KeyCandidate.objects.values_list("pk", "status", "n_evaluations", "n_confirmations")),
        "decisions": KeyDecision.objects.count(),
        "submissions": sorted(
            (str(pk), json.dumps(rankings, sort_keys=True))
            for pk, rankings in ProfilingSubmission.objects.values_list("respondent_id", "rankings")
        ),
    }


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> set[str]:
    return {name for name in before if before[name] != after[name]}


@contextmanager
def rolled_back() -> Iterator[None]:
    """Run one example in a savepoint that is rolled back, so every example starts from the same data."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def hostile_study_open(settings) -> None:
    """The study both hostile-input modules attack: two open pairs, one item and then an attention check."""
    from instruments.virtuemap.validation import validation_open

    validation_open(pairs=[("D1", "wisdom"), ("D2", "courage")])
    settings.STUDY_ITEMS_PER_RESPONDENT = 1
    settings.STUDY_ATTENTION_CHECKS = 1
    # Every example posts from the same client address; the per-client rate limits (tests/security) would turn
    # later examples into 429s and hide what the input itself does.
    settings.STUDY_CONSENT_RATE = "off"
    settings.STUDY_SUBMIT_RATE = "off"
