"""WSGI entry point (gunicorn virtuemap_site.wsgi)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "virtuemap_site.settings")
# A web process multiplies 5×5 matrices for one request at a time: BLAS threads only fight the other workers for
# the cores (under load the score API ran at a third of its single-threaded throughput). Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

application = get_wsgi_application()
