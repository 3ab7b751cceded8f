"""gunicorn settings for VirtueMap: `gunicorn -c gunicorn.conf.py` (command-line options override these).

Anonymity: the access log has no client address (%(h)s), no user agent (%(a)s), no referer (%(f)s) and no query
string (%(U)s is the path alone; panel IDs arrive in query strings). gunicorn's error log names the client address
on malformed requests ("Invalid request from ip=…") and the full URI on errors, so both logs pass through the
project's anonymising filter (`virtuemap_site.log_filters`), which also redacts secret values.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

# gunicorn loads this file before the application; make the project importable from any working directory.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from virtuemap_site.log_filters import AnonymousLogFilter

wsgi_app = "virtuemap_site.wsgi:application"
bind = [f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"]
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# gunicorn 27's control socket is one path per user ($HOME/.gunicorn/gunicorn.ctl): several servers on one machine
# (tests, benchmarks, make serve) would fight over it, and nothing here uses it.
control_socket_disable = True

# "-" is stdout; "off" turns the access log off (benchmarks).
accesslog = None if os.environ.get("GUNICORN_ACCESS_LOG") == "off" else os.environ.get("GUNICORN_ACCESS_LOG", "-")
errorlog = os.environ.get("GUNICORN_ERROR_LOG", "-")
# time, "METHOD /path PROTOCOL", status, body bytes, milliseconds.
access_log_format = '%(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms'

# Logger-level filters: gunicorn writes to these two loggers directly, whatever handlers it sets up later.
for _name in ("gunicorn.error", "gunicorn.access"):
    _logger = logging.getLogger(_name)
    if not any(isinstance(existing, AnonymousLogFilter) for existing in _logger.filters):
        _logger.addFilter(AnonymousLogFilter())
