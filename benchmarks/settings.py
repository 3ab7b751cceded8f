"""Settings for `benchmarks/api.py`: the production settings, plus a bare JSON endpoint to compare against.

Only the benchmark uses these (DJANGO_SETTINGS_MODULE=benchmarks.settings); the bare endpoint is in no
production URL configuration.
"""

from __future__ import annotations

from virtuemap_site.settings import *  # noqa: F403
from virtuemap_site.settings import LOGGING, REST_FRAMEWORK

ROOT_URLCONF = "benchmarks.urls"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
# One load generator is one client address: the throttle would answer 429, and with its rate raised out of the way
# its per-client history (a list of timestamps re-stored on every request) would grow to tens of thousands of
# entries, which real clients at API_ANON_POST_RATE never do. So the throttle is off here.
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
# A log line per request would measure the terminal.
LOGGING = {**LOGGING, "root": {**LOGGING["root"], "level": "WARNING"}}
