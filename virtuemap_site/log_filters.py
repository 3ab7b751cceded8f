"""Logging filters that keep respondents anonymous and secrets secret, whatever a library chooses to log.

No Django import at module level: gunicorn's config (`gunicorn.conf.py`) installs the same filter on its own
error and access logs before Django is loaded.

- Client addresses (IPv4 and IPv6, validated with `ipaddress`, so times like 16:54:51 stay) become `[address]`.
- Panel IDs in query strings (`PROLIFIC_PID=…`, `pid=…`, `STUDY_ID=…`, `SESSION_ID=…`) become `[redacted]`;
  runserver's request lines and gunicorn's "Error handling request" messages carry the query string.
- Secret values become `[secret]`: the values of environment variables whose names look secret (`*_API_KEY`,
  `*SECRET*`, `*TOKEN*`, `*PASSWORD*`, …), plus any value registered with `register_secret` (an LLM backend
  registers the key it was given, whatever the variable is called).

The filter rewrites the record's message and formatted traceback in place, so every handler it sits on (console,
file, gunicorn's logs) writes the cleaned text. User agents are not recognisable in general; nothing of ours
logs them, gunicorn's access format leaves them out, and django-axes is given none (see settings, Security).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import threading

ADDRESS = "[address]"
SECRET = "[secret]"
REDACTED = "[redacted]"

# Names of environment variables whose values are secrets (the same words Django's error reports hide).
SECRET_NAME = re.compile(r"API|KEY|TOKEN|SECRET|PASS|SIGNATURE|CREDENTIAL|PRIVATE", re.IGNORECASE)
# Shorter values are not worth redacting and would turn ordinary words into "[secret]".
MIN_SECRET_LENGTH = 8

_IPV4_CANDIDATE = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])")
# Hex groups and colons (with an optional dotted IPv4 tail, and a zone); validated before replacing.
_IPV6_CANDIDATE = re.compile(
    r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?:%\w+)?(?![\w:])"
)
_PANEL_PARAMETER = re.compile(r"\b(PROLIFIC_PID|STUDY_ID|SESSION_ID|pid)=[^&\s\"'#]*")

_registered: set[str] = set()
_registered_lock = threading.Lock()


def register_secret(value: str) -> None:
    """Redact ``value`` from every log record from now on (for secrets read from variables of any name)."""
    if value and len(value) >= MIN_SECRET_LENGTH:
        with _registered_lock:
            _registered.add(value)


def secret_values() -> list[str]:
    """The values to redact, longest first (so a secret that contains another is replaced whole)."""
    from_environment = {
        value for name, value in os.environ.items() if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH
    }
    with _registered_lock:
        values = from_environment | _registered
    return sorted(values, key=len, reverse=True)


def redact_secrets(text: str) -> str:
    """``text`` with every secret value replaced (for text that is stored, such as a provider's error message)."""
    for value in secret_values():
        text = text.replace(value, SECRET)
    return text


def _address_or_text(match: re.Match[str]) -> str:
    text = match.group(0)
    try:
        ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return text
    return ADDRESS


def scrub(text: str) -> str:
    """``text`` without client addresses, panel IDs in query strings or secret values."""
    text = redact_secrets(text)
    text = _PANEL_PARAMETER.sub(lambda match: f"{match.group(1)}={REDACTED}", text)
    text = _IPV4_CANDIDATE.sub(_address_or_text, text)
    return _IPV6_CANDIDATE.sub(_address_or_text, text)


class AnonymousLogFilter(logging.Filter):
    """Rewrite each record's message and traceback with `scrub`; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the logger's bug; keep its raw text, cleaned
            message = str(record.msg)
        record.msg, record.args = scrub(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = scrub(record.stack_info)
        return True
