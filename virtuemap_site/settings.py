"""VirtueMap settings, read from the environment (django-environ).

Defaults run on a laptop with nothing but Python: SQLite in `db.sqlite3`, Celery tasks executed in-process.
Production sets DATABASE_URL (PostgreSQL), REDIS_URL (Celery broker), SECRET_KEY, DEBUG=false and ALLOWED_HOSTS.
See `.env.example` for every variable.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from datetime import timedelta
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
    "corsheaders",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_countries",  # the ISO 3166-1 list of the optional country question, with translated names
    "virtuemap_site",
    "surveys",
    "llmruns",
    "instruments",
    "instruments.virtuemap",
    "instruments.transitivity",
    "instruments.moralbench",
    "instruments.amaeval",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Strict input, JSON-only API writes, bounded bodies: refused before anything reads them (request_guards.py).
    "virtuemap_site.request_guards.RequestGuardMiddleware",
    # django-cors-headers, on reads only.
    "virtuemap_site.request_guards.ReadOnlyCorsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the panel link's or the switch's ?lang=, then the language cookie, then Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "virtuemap_site.i18n.LanguageFromLinkMiddleware",
    "django.middleware.common.CommonMiddleware",
    # With DEBUG on (make run), "not found" answers as in production: the site's page, or JSON under /api/.
    "virtuemap_site.errors.NotFoundEvenInDebugMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Gives the browser the participant references a view decided on (a signed cookie, never the session).
    "surveys.middleware.ParticipantReferenceMiddleware",
    # Innermost, so it sees a view's database error first: a friendly 503 while the database is unreachable.
    "virtuemap_site.unavailable.DatabaseUnavailableMiddleware",
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
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "surveys.context_processors.participant_references",
                "instruments.context_processors.navigation",
                "virtuemap_site.i18n.language_switch",
            ],
            "builtins": [
                "virtuemap_site.template_tags",
                "llmruns.templatetags.llmruns_tags",
                "instruments.virtuemap.templatetags.virtuemap_tags",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------------
# SQLite by default; PostgreSQL (psycopg 3) when DATABASE_URL says so, e.g. postgres://user@host:5432/name.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
# A persistent connection is checked before a request reuses it, so a database restart costs one request at most.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, whose health check reads the socket instead of sending SELECT 1 (virtuemap_site/postgresql).
    DATABASES["default"]["ENGINE"] = "virtuemap_site.postgresql"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# The interface's languages (docs/translations.md); the catalogue is locale/zh_Hans/LC_MESSAGES/django.po, compiled by
# `make` with Babel (no GNU gettext needed).
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (whitenoise) ------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# --- Cache ----------------------------------------------------------------------------------------------
# Holds the API's throttle counters and the scoring data below. Per process by default; point CACHE_URL at Redis (e.g.
# redis://127.0.0.1:6379/1) so several web processes share one count (a system check requires it in production).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # An unreachable Redis answers within half a second, and the site carries on without it meanwhile
    # (virtuemap_site/resilient_cache.py): a dropped packet must not hold a respondent's request for minutes.
    CACHES["default"].setdefault("OPTIONS", {}).update(socket_connect_timeout=0.5, socket_timeout=0.5)
# Rendered page parts that are the same for every visitor of a page in a language (the header, with its language and
# navigation links; an unanswered ranking component): kept in each process's memory, bounded, and never shared, since
# a shared cache would cost a round trip per part. Nothing is kept while DEBUG is on, when templates may be edited
# under the running server.
CACHES["fragments"] = {
    "BACKEND": "django.core.cache.backends." + ("dummy.DummyCache" if DEBUG else "locmem.LocMemCache"),
    "LOCATION": "page-fragments",
    "TIMEOUT": None,
    "OPTIONS": {"MAX_ENTRIES": 1000},
}
# Scoring reads the retained keys and the published model profiles on every request, so they are cached; a change
# is forgotten on commit in its own process, and in the others within this many seconds (sooner with Redis: below).
PROFILE_CACHE_SECONDS = env.int("PROFILE_CACHE_SECONDS", default=30)
# With a shared cache (Redis), how often at most a process asks it whether another process changed that data (and
# the instrument's texts): a change elsewhere reaches its scores and pages within this many seconds. Asking on every
# request cost a score request a third of its time (docs/performance.md, the score API).
SNAPSHOT_CHECK_SECONDS = env.float("SNAPSHOT_CHECK_SECONDS", default=1.0)

# --- REST API (Django REST framework, drf-spectacular, django-cors-headers) -----------------------------
# One error shape for every API error: {"message": …, "extra": {…}} (virtuemap_site/errors.py).
# Anonymous clients read; writing needs an authenticated staff user (token auth for API clients, the session
# for the browsable API). POSTs from anonymous clients are throttled per (hashed) client address.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Hashed, expiring staff tokens (django-rest-knox; see Security below), or the admin session.
        "knox.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["virtuemap_site.api.ReadOnlyOrStaff"],
    # JSON only: a browser sends a form or text/plain across sites without asking first, never JSON (415 otherwise).
    "DEFAULT_PARSER_CLASSES": ["virtuemap_site.api.JSONParser"],
    "DEFAULT_THROTTLE_CLASSES": ["virtuemap_site.api.AnonymousPostThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon_post": env.str("API_ANON_POST_RATE", default="120/minute")},
    # Proxies in front of the site: 0 = the client is REMOTE_ADDR and X-Forwarded-For (client-controlled) is ignored.
    "NUM_PROXIES": env.int("API_NUM_PROXIES", default=0),
    "DEFAULT_PAGINATION_CLASS": "virtuemap_site.api.PageNumberPagination",
    "PAGE_SIZE": env.int("API_PAGE_SIZE", default=50),
    # drf-spectacular's, with public operations documented without a lock (virtuemap_site/schema.py).
    "DEFAULT_SCHEMA_CLASS": "virtuemap_site.schema.AutoSchema",
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
    # No deep links: Swagger UI puts them as links inside each operation's button (nested controls, docs/accessibility).
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {"OptionLetter": "scoring.rankings.OPTIONS"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "virtuemap_site.api.document_common_errors",
        "virtuemap_site.api.document_links",
    ],
}
# The longest body an API write may have (the transitivity test takes more: see transitivity/budget.py). A study answer
# or a score request is under 1 KB; a longer body is refused from its Content-Length, unread (413).
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=16_384)
if API_MAX_BODY_BYTES < 1024:
    raise ValueError("API_MAX_BODY_BYTES must be at least 1024")
# CORS only for the read endpoints: browsers on the listed origins may GET, never POST; no CORS header goes on the
# answer to a write (virtuemap_site/request_guards.py).
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
# The exact LP decides what the fast path leaves open, at n! orders a vector (0.05–0.1 s for 7 alternatives, 1–2 s for
# 8): one request may ask for this many orders of it in all (one LP of 7), or is refused (422) before any runs
# (transitivity/budget.py).
TRANSITIVITY_API_EXACT_ORDERS = env.int("TRANSITIVITY_API_EXACT_ORDERS", default=5_040)
# How often each ordered pair of a block is asked in the questionnaire (choice proportions per pair need r ≥ 1).
TRANSITIVITY_REPETITIONS = env.int("TRANSITIVITY_REPETITIONS", default=2)
if TRANSITIVITY_API_MAX_VECTORS < 1 or TRANSITIVITY_REPETITIONS < 1 or TRANSITIVITY_API_EXACT_ORDERS < 0:
    raise ValueError(
        "TRANSITIVITY_API_MAX_VECTORS and TRANSITIVITY_REPETITIONS must be at least 1, "
        "TRANSITIVITY_API_EXACT_ORDERS at least 0"
    )

# --- Celery ---------------------------------------------------------------------------------------------
# With REDIS_URL set, Redis is the broker and workers run tasks; without it, tasks run in-process at .delay().
# Tasks are enqueued on commit, take ids and are idempotent (work is claimed in PostgreSQL); a message is
# acknowledged only when its task ended, and given back when the worker process running it dies.
REDIS_URL = env.str("REDIS_URL", default="")
CELERY_BROKER_URL = REDIS_URL or "memory://"
if REDIS_URL:
    # kombu's Redis transport with a channel that closes while Redis is down, so that a worker losing Redis with a
    # task in flight reconnects instead of exiting (virtuemap_site/broker.py).
    CELERY_BROKER_TRANSPORT = "virtuemap_site.broker:Transport"
    if REDIS_URL.startswith("rediss://"):
        # The scheme no longer chooses the transport, so TLS is asked for here (with the certificate verified).
        CELERY_BROKER_USE_SSL = {"ssl_cert_reqs": "required"}
# A worker (and beat) that loses Redis keeps trying to reconnect, every 2, 4, … up to 30 s, for as long as it takes:
# Celery's default gives up after 100 tries (about 50 minutes), and the worker then exits.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
# Where tasks execute in-process, a run started from admin (or the API) runs in a background thread of the process,
# so the request returns at once and the run's page shows its progress (llmruns/background.py); off, it runs inside
# the request that started it.
LLM_RUNS_IN_BACKGROUND = env.bool("LLM_RUNS_IN_BACKGROUND", default=CELERY_TASK_ALWAYS_EAGER)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
# One queue name per deployment sharing a Redis database (tests use their own).
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="celery")
# Time limits of every task (prefork pool; the solo and threads pools do not enforce them). A run task runs
# for hours with a slow model; at the soft limit it hands the run to a fresh task (llmruns.tasks), so the
# limit bounds a task, not a run. The hard limit leaves time for the requests in flight at the soft limit
# to end (LLMRUNS_REQUEST_TIMEOUT each, with retries).
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=4 * 3600)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=CELERY_TASK_SOFT_TIME_LIMIT + 1800)
if not 0 < CELERY_TASK_SOFT_TIME_LIMIT < CELERY_TASK_TIME_LIMIT:
    raise ValueError("need 0 < CELERY_TASK_SOFT_TIME_LIMIT < CELERY_TASK_TIME_LIMIT")
# Redis hands an unacknowledged message to another worker after the visibility timeout. It must be longer than
# the longest hard time limit, or a task still running would be started a second time (system check
# llmruns.E001). A worker that died is noticed much sooner through the run's heartbeat (LLM runs below).
# How often (seconds) a worker sweeps for such messages: kombu's defaults, lowered only by tests.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=CELERY_TASK_TIME_LIMIT + 3600),
    "unacked_restore_interval": env.int("CELERY_UNACKED_RESTORE_INTERVAL", default=10),
    "unacked_restore_throttle": env.int("CELERY_UNACKED_RESTORE_THROTTLE", default=10),
}
# Where `celery beat` keeps the times of its last runs.
CELERY_BEAT_SCHEDULE_FILENAME = env.str("CELERY_BEAT_SCHEDULE_FILE", default=str(BASE_DIR / "celerybeat-schedule"))

# --- Instruments ----------------------------------------------------------------------------------------------
# The one list of instruments (instruments.registry): slug -> the dotted path of its Instrument class.
INSTRUMENTS = {
    "virtuemap": "instruments.virtuemap.plugin.VirtueMap",
    "transitivity": "instruments.transitivity.plugin.Transitivity",
    "moralbench": "instruments.moralbench.plugin.MoralBench",
    "amaeval": "instruments.amaeval.plugin.Amaeval",
}

# --- LLM runs (every instrument) ------------------------------------------------------------------------------
# Per request: timeout, and how often a provider error (429, 5xx, timeout) is retried, each wait capped.
LLMRUNS_REQUEST_TIMEOUT = env.float("LLMRUNS_REQUEST_TIMEOUT", default=120.0)
LLMRUNS_PROVIDER_RETRIES = env.int("LLMRUNS_PROVIDER_RETRIES", default=8)
LLMRUNS_MAX_RETRY_WAIT = env.float("LLMRUNS_MAX_RETRY_WAIT", default=60.0)
# An item claimed longer ago than this is taken to be abandoned by a dead worker and claimed again.
LLMRUNS_ITEM_LEASE_SECONDS = env.int("LLMRUNS_ITEM_LEASE_SECONDS", default=1800)
# The embedded model (llama.cpp in-process): CPU threads, and the memory (MiB) of evaluated prompt prefixes it keeps
# so that a few-shot prompt's shared prefix is restored instead of evaluated again (0 keeps none; replies are the
# same either way). One thread: on a shared or loaded machine llama.cpp's threads wait on one another (docs/models.md).
LLMRUNS_EMBEDDED_THREADS = env.int("LLMRUNS_EMBEDDED_THREADS", default=1)
LLMRUNS_EMBEDDED_STATE_CACHE_MB = env.int("LLMRUNS_EMBEDDED_STATE_CACHE_MB", default=1024)
if LLMRUNS_EMBEDDED_THREADS < 1 or LLMRUNS_EMBEDDED_STATE_CACHE_MB < 0:
    raise ValueError("LLMRUNS_EMBEDDED_THREADS must be at least 1 and LLMRUNS_EMBEDDED_STATE_CACHE_MB at least 0")
# A running run's worker refreshes its heartbeat every few seconds. A queued or running run silent for longer than
# this is queued again by celery beat (checked every LLMRUNS_SUITE_RESUME_INTERVAL seconds). The names keep their
# first form ("suite") so existing deployments' settings stay valid.
LLMRUNS_SUITE_STALL_SECONDS = env.int("LLMRUNS_SUITE_STALL_SECONDS", default=300)
LLMRUNS_SUITE_RESUME_INTERVAL = env.float("LLMRUNS_SUITE_RESUME_INTERVAL", default=60.0)
if LLMRUNS_SUITE_STALL_SECONDS < 1 or LLMRUNS_SUITE_RESUME_INTERVAL <= 0:
    raise ValueError("LLMRUNS_SUITE_STALL_SECONDS must be at least 1 and LLMRUNS_SUITE_RESUME_INTERVAL positive")

# --- Answer-quality diagnostics of every result (`scoring.diagnostics`) -----------------------------------
# A result is flagged when its answers follow the presentation order (one-sided binomial test at this level), when
# its mean label mass (log-probability answers) is below the minimum, or when more than the maximum share of its
# answers were refused or unparseable.
DIAGNOSTICS_ALPHA = env.float("DIAGNOSTICS_ALPHA", default=0.01)
DIAGNOSTICS_LABEL_MASS_MIN = env.float("DIAGNOSTICS_LABEL_MASS_MIN", default=0.9)
DIAGNOSTICS_FAILURE_SHARE_MAX = env.float("DIAGNOSTICS_FAILURE_SHARE_MAX", default=0.10)
if not 0 < DIAGNOSTICS_ALPHA < 1:
    raise ValueError(f"DIAGNOSTICS_ALPHA must be between 0 and 1, got {DIAGNOSTICS_ALPHA}")
# A respondent is flagged for straight-lining when every one of at least this many answers took the same position.
DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS = env.int("DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS", default=10)
if DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS < 2:
    raise ValueError(
        f"DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS must be at least 2, got {DIAGNOSTICS_STRAIGHT_LINING_MIN_ITEMS}"
    )
for _name in ("DIAGNOSTICS_LABEL_MASS_MIN", "DIAGNOSTICS_FAILURE_SHARE_MAX"):
    if not 0 <= globals()[_name] <= 1:
        raise ValueError(f"{_name} must be between 0 and 1, got {globals()[_name]}")

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
# Who may take part in the key-validation study, whose answers decide the keys (docs/threat-model.md): "open" (anyone)
# or "panel" (only arrivals from the panel study STUDY_PANEL_STUDY_ID, with Prolific's PROLIFIC_PID, STUDY_ID and
# SESSION_ID). Production defaults to "panel"; `make run` to "open" so that a newcomer can try the study.
STUDY_ACCESS = env.str("STUDY_ACCESS", default="open" if DEBUG else "panel")
# The panel's ID of this study (Prolific's STUDY_ID). When set, a Prolific arrival for another study is refused.
STUDY_PANEL_STUDY_ID = env.str("STUDY_PANEL_STUDY_ID", default="")
# The study's JSON API (/api/v1/study/): "open" (anyone), "clients" (only registered front ends, which send one of
# STUDY_API_CLIENT_KEYS as X-Study-Client) or "off". Withdrawing with a respondent token works whatever this says.
STUDY_API = env.str("STUDY_API", default="open" if DEBUG else "off")
STUDY_API_CLIENT_KEYS = env.list("STUDY_API_CLIENT_KEYS", default=[])
# A respondent token (the study API's credential) answers and reads for this long after consent; withdrawing with it
# works for ever.
STUDY_TOKEN_TTL_HOURS = env.int("STUDY_TOKEN_TTL_HOURS", default=48)
# Who answers for the studies, on every information sheet where a consent text leaves them blank (admin: Consent
# texts): the researcher, the institution, an address for questions or complaints, the ethics approval's reference.
STUDY_RESEARCHER = env.str("STUDY_RESEARCHER", default="")
STUDY_INSTITUTION = env.str("STUDY_INSTITUTION", default="")
STUDY_CONTACT = env.str("STUDY_CONTACT", default="")
STUDY_ETHICS_REFERENCE = env.str("STUDY_ETHICS_REFERENCE", default="")
STUDY_ITEMS_PER_RESPONDENT = env.int("STUDY_ITEMS_PER_RESPONDENT", default=10)
STUDY_ATTENTION_CHECKS = env.int("STUDY_ATTENTION_CHECKS", default=1)
STUDY_ASSIGNMENT_EXPIRY_MINUTES = env.int("STUDY_ASSIGNMENT_EXPIRY_MINUTES", default=30)
KEY_MIN_EVALUATIONS = env.int("KEY_MIN_EVALUATIONS", default=100)
# A person's profiling results are set against the scores of the people who consented to research use once at least
# this many have answered, so that "higher than 60% of people" rests on enough people to mean something.
PROFILE_REFERENCE_MIN_RESPONDENTS = env.int("PROFILE_REFERENCE_MIN_RESPONDENTS", default=30)
# No aggregate of people (a people's row, median, agreement statistic, reference) is shown on a public page, download
# or API from fewer respondents than this, so that no one person's answers can be read from it
# (surveys.selectors.enough_people); respondents flagged or showing signs of automation are never counted.
PUBLIC_AGGREGATE_MIN_RESPONDENTS = env.int("PUBLIC_AGGREGATE_MIN_RESPONDENTS", default=10)
# A string so that 0.95 reaches the promotion rule as the exact fraction 19/20, not a binary float.
KEY_MIN_CONFIRMATION = env.str("KEY_MIN_CONFIRMATION", default="0.95")
# An automatic decision whose evidence looks manufactured (answers too fast, in a burst, from one network, identical
# corrections, suspicious or failing respondents, a key turned upside down) waits for a researcher instead
# (instruments/virtuemap/integrity.py, scoring/integrity.py). KEY_REVIEW_MIN_ITEM_SECONDS: answers sooner than this
# after the item was served count as too fast to have been read.
KEY_REVIEW_HOLD = env.bool("KEY_REVIEW_HOLD", default=True)
KEY_REVIEW_MIN_ITEM_SECONDS = env.float("KEY_REVIEW_MIN_ITEM_SECONDS", default=4.0)
# Completion codes shown (and sent to the panel) per outcome; the redirect URL gets the code in `{code}`.
STUDY_COMPLETION_CODE_COMPLETED = env.str("STUDY_COMPLETION_CODE_COMPLETED", default="VM-COMPLETED")
STUDY_COMPLETION_CODE_NO_CONSENT = env.str("STUDY_COMPLETION_CODE_NO_CONSENT", default="VM-NOCONSENT")
STUDY_COMPLETION_CODE_FAILED_CHECKS = env.str("STUDY_COMPLETION_CODE_FAILED_CHECKS", default="VM-FAILEDCHECKS")
# A panel arrival whom the study has nothing for (closed in their language, or nothing left to serve them): paid for
# their time under a code of its own, so the panel can tell them apart from people who completed.
STUDY_COMPLETION_CODE_STUDY_CLOSED = env.str("STUDY_COMPLETION_CODE_STUDY_CLOSED", default="VM-STUDYCLOSED")
STUDY_PANEL_REDIRECT_URL = env.str(
    "STUDY_PANEL_REDIRECT_URL", default="https://app.prolific.com/submissions/complete?cc={code}"
)
# Participant references (surveys/references.py): stored only as HMAC-SHA256 under this key, derived from SECRET_KEY
# unless set; changing it (or SECRET_KEY) makes every reference given so far unusable. Guesses at a reference on the
# withdraw and resume pages are limited per client by STUDY_REFERENCE_RATE. A private results link (and the browser's
# copy of its references) lasts RESULTS_LINK_MAX_AGE_DAYS.
PARTICIPANT_REFERENCE_HMAC_KEY = env.str(
    "PARTICIPANT_REFERENCE_HMAC_KEY", default=hashlib.sha256(f"participant-reference:{SECRET_KEY}".encode()).hexdigest()
)
STUDY_REFERENCE_RATE = env.str("STUDY_REFERENCE_RATE", default="20/hour")
RESULTS_LINK_MAX_AGE_DAYS = env.int("RESULTS_LINK_MAX_AGE_DAYS", default=90)
if RESULTS_LINK_MAX_AGE_DAYS < 1:
    raise ValueError("RESULTS_LINK_MAX_AGE_DAYS must be at least 1")
for _name in (
    "STUDY_ITEMS_PER_RESPONDENT",
    "KEY_MIN_EVALUATIONS",
    "PROFILE_REFERENCE_MIN_RESPONDENTS",
    "PUBLIC_AGGREGATE_MIN_RESPONDENTS",
):
    if globals()[_name] < 1:
        raise ValueError(f"{_name} must be at least 1")
if STUDY_ATTENTION_CHECKS < 0:
    raise ValueError("STUDY_ATTENTION_CHECKS must be 0 or more")
if not 0 < float(KEY_MIN_CONFIRMATION) <= 1:
    raise ValueError("KEY_MIN_CONFIRMATION must be in (0, 1]")
if STUDY_ACCESS not in ("open", "panel") or STUDY_API not in ("open", "clients", "off"):
    raise ValueError("STUDY_ACCESS must be open or panel; STUDY_API open, clients or off")
if STUDY_TOKEN_TTL_HOURS < 1:
    raise ValueError("STUDY_TOKEN_TTL_HOURS must be at least 1")
if KEY_REVIEW_MIN_ITEM_SECONDS < 0:
    raise ValueError("KEY_REVIEW_MIN_ITEM_SECONDS must be 0 or more")
# Celery beat: recount N and Y hourly and log any drift, which must never happen; queue again the runs (of every
# instrument) whose worker vanished or whose message was lost.
CELERY_BEAT_SCHEDULE = {
    "verify-key-counts": {"task": "instruments.virtuemap.tasks.verify_key_counts", "schedule": 3600.0},
    "resume-stalled-runs": {
        "task": "llmruns.tasks.resume_stalled_runs",
        "schedule": LLMRUNS_SUITE_RESUME_INTERVAL,
        # A check that waited in the queue longer than one interval is superseded by the next one.
        "options": {"expires": LLMRUNS_SUITE_RESUME_INTERVAL},
    },
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

# ================================================================================================================
# --- Security -----------------------------------------------------------------------------------------------------
# Everything that hardens the site, in one place (README "Security" lists the promises and the variables).
# `python manage.py check --deploy` with production settings (DEBUG=false …) reports no issues; see
# tests/test_security_settings.py.
# ================================================================================================================
from django.utils.csp import CSP  # noqa: E402

# HTTPS. On by default in production: redirect http to https, Secure cookies, HSTS. HTTPS=false is for trying the
# production settings over plain http on 127.0.0.1 (check --deploy then warns, as it should).
HTTPS = env.bool("HTTPS", default=not DEBUG)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
# Django's database sessions, with a change of key (at consent and resume) in three statements instead of six.
SESSION_ENGINE = "virtuemap_site.sessions"
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
# A proxy that terminates TLS tells us the original scheme in this header, e.g. HTTP_X_FORWARDED_PROTO.
if _proxy_ssl_header := env.str("SECURE_PROXY_SSL_HEADER", default=""):
    SECURE_PROXY_SSL_HEADER = (_proxy_ssl_header, "https")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SECURE_REFERRER_POLICY = "same-origin"  # panel IDs arrive in query strings: never send them to other sites
X_FRAME_OPTIONS = "DENY"
# Silenced on purpose: security.W021 asks for SECURE_HSTS_PRELOAD. Joining the browsers' preload list binds the
# domain and every subdomain to HTTPS for months, even after the list entry is removed: the domain owner's
# decision, so it is an opt-in (SECURE_HSTS_PRELOAD=true), and check --deploy does not nag about it.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
# Silenced on purpose: axes.W006 asks to lock out by IP address too. That would store client addresses, which this
# project never does; failures are counted per username whatever the address, so rotating addresses, user agents
# or cookies does not get round the limit of 5 (guessing across many usernames is a separate attack, slowed by the
# per-username limit and strong staff passwords).
SILENCED_SYSTEM_CHECKS += ["axes.W006"]

# Content Security Policy (Django's own middleware). No inline script, no eval, no plugins, no framing; forms post
# only to this site. Nonces exist for the few inline <style>/<script> elements Django's admin renders with
# {% csp_nonce_attr %}; none of our templates needs one. /api/docs/ (Swagger UI) also gets data: images for its
# icons (virtuemap_site/urls.py).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
)
TEMPLATES[0]["OPTIONS"]["context_processors"].append("django.template.context_processors.csp")

# Admin: its path (ADMIN_PATH, default "admin/") and a lockout after failed logins (django-axes). Attempts are
# counted per username only: axes is given no client address or user agent (virtuemap_site/security.py), so the
# attempt rows and axes' log lines hold neither. The price: someone who knows a staff username can lock it for
# ADMIN_LOCKOUT_MINUTES; `python manage.py axes_reset_username NAME` lifts it.
ADMIN_PATH = env.str("ADMIN_PATH", default="admin/").strip("/") + "/"
INSTALLED_APPS += ["axes", "knox"]
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
MIDDLEWARE += ["virtuemap_site.security.AnonymousAxesMiddleware", "axes.middleware.AxesMiddleware"]
AXES_FAILURE_LIMIT = env.int("ADMIN_LOGIN_FAILURE_LIMIT", default=5)
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_COOLOFF_TIME = timedelta(minutes=env.int("ADMIN_LOCKOUT_MINUTES", default=60))
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "virtuemap_site.security.no_client_address"
AXES_DISABLE_ACCESS_LOG = True  # successful logins need no record here; Django's last_login has it
AXES_SENSITIVE_PARAMETERS = ["username", "password", "ip_address"]

# Staff API tokens (django-rest-knox): only a SHA-512 digest is stored; each token expires. Created with
# `python manage.py api_token_create USERNAME` or in admin (Knox → Auth tokens), shown once.
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=env.int("API_TOKEN_TTL_DAYS", default=30)),
    "AUTO_REFRESH": False,
    "TOKEN_LIMIT_PER_USER": None,
}

# Anonymous abuse of the studies (virtuemap_site/abuse.py): per-client rate limits on consenting and on submitting
# answers (pages and the study API), keyed on an HMAC of the client address under a key that lives only in the
# cache and rotates; "off" disables a limit. The consent form's honeypot and minimum time only flag a respondent.
STUDY_CONSENT_RATE = env.str("STUDY_CONSENT_RATE", default="30/hour")
STUDY_SUBMIT_RATE = env.str("STUDY_SUBMIT_RATE", default="60/minute")
STUDY_CONSENT_MIN_SECONDS = env.float("STUDY_CONSENT_MIN_SECONDS", default=5.0)
# Lab mode: a lab or classroom whose participants share one public address (CIDR networks, e.g. 192.0.2.0/24) gets its
# own allowance instead of the per-client rates above (and STUDY_REFERENCE_RATE), which would refuse its 31st consent of
# the hour. Empty = none.
STUDY_LAB_NETWORKS = env.list("STUDY_LAB_NETWORKS", default=[])
STUDY_LAB_CONSENT_RATE = env.str("STUDY_LAB_CONSENT_RATE", default="300/hour")
STUDY_LAB_SUBMIT_RATE = env.str("STUDY_LAB_SUBMIT_RATE", default="600/minute")
STUDY_LAB_REFERENCE_RATE = env.str("STUDY_LAB_REFERENCE_RATE", default="200/hour")
ABUSE_KEY_ROTATION_SECONDS = env.int("ABUSE_KEY_ROTATION_SECONDS", default=86_400)
# In production the study's rate limits count only in a shared cache: with a per-process one (no CACHE_URL) each web
# process would admit the whole rate, so a rate-limited request answers 503 instead (virtuemap_site/abuse.py). Not an
# environment variable: it follows DEBUG, and tests turn it on.
RATE_LIMITS_NEED_SHARED_CACHE = not DEBUG

# Secrets come from the environment only. Error reports hide settings whose names say secret (Django's list plus
# URLs and broker/cache locations, which can carry passwords); logs pass through a filter that removes client
# addresses, panel IDs in query strings and the values of secret variables (virtuemap_site/log_filters.py).
LOGGING["filters"] = {
    "anonymous": {"()": "virtuemap_site.log_filters.AnonymousLogFilter"},
    "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
}
LOGGING["handlers"]["console"]["filters"] = ["anonymous"]
LOGGING["handlers"]["mail_admins"] = {
    "class": "django.utils.log.AdminEmailHandler",
    "filters": ["require_debug_false", "anonymous"],
    "level": "ERROR",
}
# Django's default logging gives "django" and "django.server" (runserver's request lines, query strings included)
# handlers of their own, without the filter; these replace them.
LOGGING["loggers"] = {
    "django": {"handlers": ["console", "mail_admins"], "level": "INFO", "propagate": False},
    "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
}
# Celery workers keep this logging (and its filter) instead of installing their own root handlers.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

for _network in STUDY_LAB_NETWORKS:
    try:
        ipaddress.ip_network(_network.strip(), strict=False)
    except ValueError:
        raise ValueError(f"STUDY_LAB_NETWORKS: {_network!r} is not a network like 192.0.2.0/24") from None
for _name in (
    "STUDY_CONSENT_RATE",
    "STUDY_SUBMIT_RATE",
    "STUDY_REFERENCE_RATE",
    "STUDY_LAB_CONSENT_RATE",
    "STUDY_LAB_SUBMIT_RATE",
    "STUDY_LAB_REFERENCE_RATE",
):
    if not re.fullmatch(r"(?i)\s*(off|none|)\s*|\s*[1-9]\d*/(s|m|h|d)\w*\s*", globals()[_name]):
        raise ValueError(f"{_name} must be a rate like 30/hour, 60/minute, or off")
if ABUSE_KEY_ROTATION_SECONDS < 60:
    raise ValueError("ABUSE_KEY_ROTATION_SECONDS must be at least 60")
