"""VirtueMap settings, read from the environment (django-environ).

Defaults run on a laptop with nothing but Python: SQLite in `db.sqlite3`, Celery tasks executed in-process.
Production sets DATABASE_URL (PostgreSQL), REDIS_URL (Celery broker), SECRET_KEY, DEBUG=false and ALLOWED_HOSTS.
See `.env.example` for every variable.
"""

from __future__ import annotations

import hashlib
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
    "rest_framework.authtoken",
    "corsheaders",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "surveys",
    "llmruns",
    "transitivity",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "corsheaders.middleware.CorsMiddleware",
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

# --- Cache ----------------------------------------------------------------------------------------------
# Holds the API's throttle counters and the scoring data below. Per process by default; point CACHE_URL at Redis (e.g.
# redis://127.0.0.1:6379/1) so several web processes share one count.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# Scoring reads the retained keys and the published model profiles on every request, so they are cached; a change
# is forgotten on commit in its own process, and in the others within this many seconds (at once with Redis).
PROFILE_CACHE_SECONDS = env.int("PROFILE_CACHE_SECONDS", default=30)

# --- REST API (Django REST framework, drf-spectacular, django-cors-headers) -----------------------------
# One error shape for every API error: {"message": …, "extra": {…}} (virtuemap_site/errors.py).
# Anonymous clients read; writing needs an authenticated staff user (token auth for API clients, the session
# for the browsable API). POSTs from anonymous clients are throttled per (hashed) client address.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["virtuemap_site.api.ReadOnlyOrStaff"],
    "DEFAULT_THROTTLE_CLASSES": ["virtuemap_site.api.AnonymousPostThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon_post": env.str("API_ANON_POST_RATE", default="120/minute")},
    # Proxies in front of the site: 0 = the client is REMOTE_ADDR and X-Forwarded-For (client-controlled) is ignored.
    "NUM_PROXIES": env.int("API_NUM_PROXIES", default=0),
    "DEFAULT_PAGINATION_CLASS": "virtuemap_site.api.PageNumberPagination",
    "PAGE_SIZE": env.int("API_PAGE_SIZE", default=50),
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "virtuemap_site.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "VirtueMap API",
    "DESCRIPTION": (
        "Read the VirtueMap instrument, the retained virtue keys and the published language-model profiles, "
        "and score a set of rankings into a virtue profile. Errors share one shape: "
        '`{"message": "...", "extra": {...}}`.'
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI's files come from drf-spectacular-sidecar, served by us: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {"OptionLetter": "scoring.rankings.OPTIONS"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "virtuemap_site.api.document_common_errors",
    ],
}
# CORS only for the read endpoints: browsers on the listed origins may GET, never POST.
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_ALLOW_ALL_ORIGINS = env.bool("CORS_ALLOW_ALL_ORIGINS", default=False)
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["ETag", "Last-Modified"]

# --- Transitivity instrument: the test API and the people's questionnaire --------------------------------
# Vectors per POST /api/v1/transitivity/test/: a vector of 8 alternatives near the G-RUM boundary can cost an LP
# over 40,320 orders (seconds each), so an anonymous request stays bounded: 8 alternatives get an eighth of it. The
# command has no limit.
TRANSITIVITY_API_MAX_VECTORS = env.int("TRANSITIVITY_API_MAX_VECTORS", default=200)
# How often each ordered pair of a block is asked in the questionnaire (choice proportions per pair need r ≥ 1).
TRANSITIVITY_REPETITIONS = env.int("TRANSITIVITY_REPETITIONS", default=2)
if TRANSITIVITY_API_MAX_VECTORS < 1 or TRANSITIVITY_REPETITIONS < 1:
    raise ValueError("TRANSITIVITY_API_MAX_VECTORS and TRANSITIVITY_REPETITIONS must be at least 1")

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

# --- Transitivity instrument: LLM choices ----------------------------------------------------------------
# Answers sampled per prompt for a model without log-probabilities (choice frequencies instead).
TRANSITIVITY_SAMPLES = env.int("TRANSITIVITY_SAMPLES", default=20)
if TRANSITIVITY_SAMPLES < 1:
    raise ValueError(f"TRANSITIVITY_SAMPLES must be at least 1, got {TRANSITIVITY_SAMPLES}")

# --- Error reports ---------------------------------------------------------------------------------------
# Error reports (500 pages in DEBUG, mails to ADMINS) leave out client addresses and user agents.
DEFAULT_EXCEPTION_REPORTER_FILTER = "virtuemap_site.errors.AnonymousExceptionReporterFilter"

# --- Studies: consent, panels, the validation study -----------------------------------------------------
# The panel ID is stored only as HMAC-SHA256 under this key. No default in production; in development a key is
# derived from SECRET_KEY so `make run` works. Changing it lets a person who already took part take part again.
if DEBUG:
    STUDY_PANEL_HMAC_KEY = env.str(
        "STUDY_PANEL_HMAC_KEY", default=hashlib.sha256(f"panel:{SECRET_KEY}".encode()).hexdigest()
    )
else:
    STUDY_PANEL_HMAC_KEY = env.str("STUDY_PANEL_HMAC_KEY")
STUDY_ITEMS_PER_RESPONDENT = env.int("STUDY_ITEMS_PER_RESPONDENT", default=10)
STUDY_ATTENTION_CHECKS = env.int("STUDY_ATTENTION_CHECKS", default=1)
STUDY_ASSIGNMENT_EXPIRY_MINUTES = env.int("STUDY_ASSIGNMENT_EXPIRY_MINUTES", default=30)
KEY_MIN_EVALUATIONS = env.int("KEY_MIN_EVALUATIONS", default=100)
# A string so that 0.95 reaches the promotion rule as the exact fraction 19/20, not a binary float.
KEY_MIN_CONFIRMATION = env.str("KEY_MIN_CONFIRMATION", default="0.95")
# Completion codes shown (and sent to the panel) per outcome; the redirect URL gets the code in `{code}`.
STUDY_COMPLETION_CODE_COMPLETED = env.str("STUDY_COMPLETION_CODE_COMPLETED", default="VM-COMPLETED")
STUDY_COMPLETION_CODE_NO_CONSENT = env.str("STUDY_COMPLETION_CODE_NO_CONSENT", default="VM-NOCONSENT")
STUDY_COMPLETION_CODE_FAILED_CHECKS = env.str("STUDY_COMPLETION_CODE_FAILED_CHECKS", default="VM-FAILEDCHECKS")
STUDY_PANEL_REDIRECT_URL = env.str(
    "STUDY_PANEL_REDIRECT_URL", default="https://app.prolific.com/submissions/complete?cc={code}"
)
for _name in ("STUDY_ITEMS_PER_RESPONDENT", "KEY_MIN_EVALUATIONS"):
    if globals()[_name] < 1:
        raise ValueError(f"{_name} must be at least 1")
if STUDY_ATTENTION_CHECKS < 0:
    raise ValueError("STUDY_ATTENTION_CHECKS must be 0 or more")
if not 0 < float(KEY_MIN_CONFIRMATION) <= 1:
    raise ValueError("KEY_MIN_CONFIRMATION must be in (0, 1]")
# Celery beat (when one runs): recount N and Y hourly and log any drift, which must never happen.
CELERY_BEAT_SCHEDULE = {
    "verify-key-counts": {"task": "surveys.tasks.verify_key_counts", "schedule": 3600.0},
}

# --- Logging --------------------------------------------------------------------------------------------
# Request lines only: never client addresses or user agents (respondents must not be identifiable).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
