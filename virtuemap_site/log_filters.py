"""A logging filter that keeps what could identify a respondent out of every log line.

Panel IDs arrive in query strings (`?PROLIFIC_PID=…`), and some records carry a request's URL in their text: at
DEBUG, `django.template` logs each failed variable lookup with the whole template context, the request's repr
(method, path and query string) included, and its traceback repeats it. The filter renders the message and any
traceback once and cuts every query string out of both, so the line says which path, never with what parameters.
Client addresses and user agents are never put into log messages by our code or Django's; error reports drop them
(`virtuemap_site.errors.AnonymousExceptionReporterFilter`).
"""

from __future__ import annotations

import logging
import re

# A query string: "?" followed by name=value text, up to whitespace or the quote/bracket that ends a repr.
QUERY_STRING = re.compile(r"\?[^\s'\"<>]*=[^\s'\"<>]*")
REDACTED = "?[query removed]"
_traceback = logging.Formatter()


def redact(text: str) -> str:
    return QUERY_STRING.sub(REDACTED, text)


class RedactQueryStrings(logging.Filter):
    """Rewrites the record in place (message rendered, traceback rendered), so every handler after it is safe too."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = _traceback.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
