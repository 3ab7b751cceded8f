"""gunicorn settings, read from the environment (used by the Procfile and `make serve`).

The access log names neither the client address (%(h)s), the user agent (%(a)s) nor the referrer (%(f)s), and
shows the path without its query string (%(U)s instead of %(r)s): a panel arrival's URL carries their panel ID.
"""

from __future__ import annotations

import os

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
accesslog = "-"
access_log_format = '%(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms'
