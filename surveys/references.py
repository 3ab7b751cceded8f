"""Participant references and private results links: what a person keeps to reach their data from any browser.

A participant reference is 12 characters in Crockford's base-32 alphabet (no I, L, O or U, so nothing reads as
another character), shown in three groups of four ("7KQ4-M2XD-9PBR"): 60 random bits. The server keeps only its
HMAC-SHA256 under PARTICIPANT_REFERENCE_HMAC_KEY (derived from SECRET_KEY), so the reference cannot be read back from
the database. The browser that consented keeps the plain reference in a signed cookie of its own, only to show it in
the footer; the session (stored on the server) never holds it.

A private results link is a token made with `django.core.signing`: signed and timestamped, it holds the study and
what the results are computed from (a respondent's random UUID, or a profile's rankings), never anything about the
person, and expires after RESULTS_LINK_MAX_AGE_DAYS.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
GROUPS, GROUP_LENGTH = 3, 4
LENGTH = GROUPS * GROUP_LENGTH
# Read as the character they are mistaken for (Crockford's decoding), so a reference copied by hand still works.
LOOKALIKES = str.maketrans({"O": "0", "I": "1", "L": "1"})
REFERENCE_EXAMPLE = "7KQ4-M2XD-9PBR"

REFERENCES_COOKIE = "participant_references"
REFERENCES_SALT = "surveys.participant-references"
BROWSER_REFERENCES_KEPT = 8
RESULTS_LINK_SALT = "surveys.results-link"


def reference_new() -> str:
    """A fresh random participant reference, formatted in groups ("7KQ4-M2XD-9PBR")."""
    return _formatted("".join(secrets.choice(ALPHABET) for _ in range(LENGTH)))


def _formatted(plain: str) -> str:
    return "-".join(plain[start : start + GROUP_LENGTH] for start in range(0, LENGTH, GROUP_LENGTH))


def reference_normalise(text: object) -> str | None:
    """The reference ``text`` stands for, formatted in groups, or None when it cannot be one.

    Case, spaces and hyphens do not matter, and O, I and L are read as 0, 1 and 1."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    plain = "".join(text.split()).replace("-", "").upper().translate(LOOKALIKES)
    if len(plain) != LENGTH or any(character not in ALPHABET for character in plain):
        return None
    return _formatted(plain)


def reference_hash(reference: str) -> str:
    """HMAC-SHA256 (hex) of a normalised reference under PARTICIPANT_REFERENCE_HMAC_KEY: what the database keeps."""
    message = reference.replace("-", "").encode()
    return hmac.new(settings.PARTICIPANT_REFERENCE_HMAC_KEY.encode(), message, hashlib.sha256).hexdigest()


# --- the browser's copy -----------------------------------------------------------------------------------------


def browser_references(request: HttpRequest) -> list[tuple[str, str]]:
    """The (study, reference) pairs this browser was given, oldest first, from its signed cookie (or from what a view
    decided during this request); a tampered cookie gives none."""
    decided = getattr(request, "participant_references", None)
    if decided is not None:
        return decided
    try:
        stored = json.loads(request.get_signed_cookie(REFERENCES_COOKIE, salt=REFERENCES_SALT))
    except (KeyError, ValueError, signing.BadSignature):
        return []
    if not isinstance(stored, list):
        return []
    return [
        (pair[0], pair[1])
        for pair in stored
        if isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and reference_normalise(pair[1]) == pair[1]
    ]


def browser_reference(request: HttpRequest, study: str) -> str | None:
    """This browser's newest reference for ``study``: the one of the respondent its session holds, if any."""
    return next((reference for held, reference in reversed(browser_references(request)) if held == study), None)


def browser_references_save(response: HttpResponse, references: list[tuple[str, str]]) -> None:
    """Write the browser's references, or delete the cookie when none is left."""
    if not references:
        response.delete_cookie(REFERENCES_COOKIE, samesite="Lax")
        return
    response.set_signed_cookie(
        REFERENCES_COOKIE,
        json.dumps(references, separators=(",", ":")),
        salt=REFERENCES_SALT,
        max_age=settings.RESULTS_LINK_MAX_AGE_DAYS * 86_400,
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def remember_reference(request: HttpRequest, *, study: str, reference: str) -> None:
    """Have `ParticipantReferenceMiddleware` give this browser ``reference`` for ``study`` with the response.

    Earlier references stay beside it (a person who took part again after their session ended must still see the
    one that reaches their earlier answers), up to the newest BROWSER_REFERENCES_KEPT."""
    kept = [pair for pair in browser_references(request) if pair[1] != reference]
    request.participant_references = [*kept, (study, reference)][-BROWSER_REFERENCES_KEPT:]


def forget_reference(request: HttpRequest, *, reference: str | None) -> None:
    """Have `ParticipantReferenceMiddleware` drop ``reference`` from this browser with the response."""
    request.participant_references = [pair for pair in browser_references(request) if pair[1] != reference]


# --- private results links --------------------------------------------------------------------------------------


def results_token(payload: dict[str, Any]) -> str:
    """A signed, timestamped token of ``payload`` (plain JSON data, nothing about the person)."""
    return signing.dumps(payload, salt=RESULTS_LINK_SALT, compress=True)


def results_token_read(token: str) -> dict[str, Any] | None:
    """The payload of a results token, or None when it is forged, damaged or older than RESULTS_LINK_MAX_AGE_DAYS."""
    try:
        payload = signing.loads(token, salt=RESULTS_LINK_SALT, max_age=settings.RESULTS_LINK_MAX_AGE_DAYS * 86_400)
    except signing.BadSignature:  # SignatureExpired is one
        return None
    return payload if isinstance(payload, dict) else None
