"""What a simulated respondent reads off the study's pages to send the next form: the CSRF token and the pending
item's assignment id. Shared by the locust users (`locustfile.py`) and the in-process walk (`study_pages.py`); imports
nothing, so that locust's gevent patching and Django's setup stay each in its own process."""

from __future__ import annotations

import re

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ASSIGNMENT = re.compile(r'name="assignment" value="(\d+)"')
