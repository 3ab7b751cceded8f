"""VirtueMap settings, read from the environment (django-environ).

Defaults run on a laptop with nothing but Python: SQLite in `db.sqlite3`, Celery tasks executed in-process.
Production sets DATABASE_URL (PostgreSQL), REDIS_URL (Celery broker), SECRET_KEY, DEBUG=false and ALLOWED_HOSTS.
See `.env.example` for every variable.
"""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=True)

# No default for production: a non-debug deployment without SECRET_KEY fails at start-up.
if DEBUG:
    SECRET_KEY = env.str("SECRET_KEY", default="insecure-development-key-do-not-use-in-production")
else:
    SECRET_KEY = env.str("SECRET_KEY")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "surveys",
    "llmruns",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "virtuemap_site.urls"
WSGI_APPLICATION = "virtuemap_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------------
# SQLite by default; PostgreSQL (psycopg 3) when DATABASE_URL says so, e.g. postgres://user@host:5432/name.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (whitenoise) ------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# --- Celery ---------------------------------------------------------------------------------------------
# With REDIS_URL set, Redis is the broker and workers run tasks; without it, tasks run in-process at .delay().
REDIS_URL = env.str("REDIS_URL", default="")
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
# An unacknowledged task (its worker died) is handed out again after this many seconds. LLM suites resume
# from stored items, so a redelivery while the first worker still runs does no harm, only waiting.
# How often (seconds) a worker sweeps for such messages: kombu's defaults, lowered only by tests.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    "unacked_restore_interval": env.int("CELERY_UNACKED_RESTORE_INTERVAL", default=10),
    "unacked_restore_throttle": env.int("CELERY_UNACKED_RESTORE_THROTTLE", default=10),
}

# --- LLM run-suite ----------------------------------------------------------------------------------------
# Per request: timeout, and how often a provider error (429, 5xx, timeout) is retried, each wait capped.
LLMRUNS_REQUEST_TIMEOUT = env.float("LLMRUNS_REQUEST_TIMEOUT", default=120.0)
LLMRUNS_PROVIDER_RETRIES = env.int("LLMRUNS_PROVIDER_RETRIES", default=8)
LLMRUNS_MAX_RETRY_WAIT = env.float("LLMRUNS_MAX_RETRY_WAIT", default=60.0)
# An item claimed longer ago than this is taken to be abandoned by a dead worker and claimed again.
LLMRUNS_ITEM_LEASE_SECONDS = env.int("LLMRUNS_ITEM_LEASE_SECONDS", default=1800)

# --- Logging --------------------------------------------------------------------------------------------
# Request lines only: never client addresses or user agents (respondents must not be identifiable).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
