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
# One client address sends every request: keep the throttle in the path, but out of the way.
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon_post": "100000000/minute"}}
# A log line per request would measure the terminal.
LOGGING = {**LOGGING, "root": {**LOGGING["root"], "level": "WARNING"}}
