"""Deployment checks (`python manage.py check --deploy`) of what the abuse defences rely on.

Errors make `check --deploy` fail (exit status 1) rather than print a warning someone may scroll past:

- E001: a per-process cache (no CACHE_URL, or a local-memory or dummy one): every web process would keep its own
  rate-limit counters, so N processes allow N times the limits, and a key change would reach the others late;
- E002: a weak STUDY_PANEL_HMAC_KEY (short, repetitive, or the SECRET_KEY itself): panel IDs are few enough to be
  hashed one by one against a weak key, which would undo their pseudonymity;
- E003: a SECRET_KEY shorter than Django's recommendation (50 characters, 5 distinct), which signs sessions and
  the consent form's display time;
- E004: a validation study restricted to panel arrivals (STUDY_ACCESS=panel) without the panel's study ID to check
  them against;
- E005: a study API for registered clients (STUDY_API=clients) without a usable client key;
- E006: a weak PARTICIPANT_REFERENCE_HMAC_KEY (short, repetitive, or another key of the site's): participant
  references (60 bits) could be recovered from their stored hashes, and each one withdraws and resumes a person.

Warnings name a defence turned off, which a study may want (an open study, a simulation) but should mean to
(`check --deploy --fail-level WARNING` fails on them too):

- W001: KEY_REVIEW_HOLD=false: automatic key decisions on manufactured-looking evidence are not held for review;
- W002: STUDY_ACCESS=open: anyone, not only the panel study's arrivals, takes part in the key-validation study;
- W003: STUDY_API=open: anyone may script respondents through the study API;
- W004: a study rate limit set to off (consent, answer, reference tries; the lab's own in lab mode).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

from virtuemap_site.abuse import LAB_RATE_SETTINGS, PER_PROCESS_CACHES, parse_rate

# Django's own recommendation for SECRET_KEY (security.W009).
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_UNIQUE = 5
HMAC_KEY_MIN_LENGTH = 32
HMAC_KEY_MIN_UNIQUE = 8
CLIENT_KEY_MIN_LENGTH = 32


def weak_key(value: str, *, min_length: int, min_unique: int) -> bool:
    """Whether a secret is too short or too repetitive to be one."""
    return len(value) < min_length or len(set(value)) < min_unique


@checks.register(checks.Tags.security, deploy=True)
def shared_cache(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    backend = settings.CACHES["default"]["BACKEND"]
    if backend in PER_PROCESS_CACHES:
        return [
            checks.Error(
                f"The cache is per process ({backend.rsplit('.', 1)[1]}): each web process keeps its own rate-limit "
                "counters, so N processes allow N times every limit.",
                hint="Point CACHE_URL at Redis, e.g. redis://127.0.0.1:6379/1.",
                id="virtuemap_site.E001",
            )
        ]
    return []


@checks.register(checks.Tags.security, deploy=True)
def strong_keys(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors = []
    panel_key = settings.STUDY_PANEL_HMAC_KEY
    if weak_key(panel_key, min_length=HMAC_KEY_MIN_LENGTH, min_unique=HMAC_KEY_MIN_UNIQUE) or panel_key == (
        settings.SECRET_KEY
    ):
        errors.append(
            checks.Error(
                f"STUDY_PANEL_HMAC_KEY is weak: panel IDs stored under it could be recovered by hashing candidates. "
                f"It needs at least {HMAC_KEY_MIN_LENGTH} characters, {HMAC_KEY_MIN_UNIQUE} of them distinct, "
                "and must differ from SECRET_KEY.",
                hint='Generate one: python -c "import secrets; print(secrets.token_urlsafe(32))"',
                id="virtuemap_site.E002",
            )
        )
    if weak_key(settings.SECRET_KEY, min_length=SECRET_KEY_MIN_LENGTH, min_unique=SECRET_KEY_MIN_UNIQUE):
        errors.append(
            checks.Error(
                f"SECRET_KEY is shorter than Django's recommendation ({SECRET_KEY_MIN_LENGTH} characters, "
                f"{SECRET_KEY_MIN_UNIQUE} distinct); it signs sessions and the consent form's display time.",
                hint='Generate one: python -c "import secrets; print(secrets.token_urlsafe(50))"',
                id="virtuemap_site.E003",
            )
        )
    return errors


@checks.register(checks.Tags.security, deploy=True)
def study_access(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors = []
    if settings.STUDY_ACCESS == "panel" and not settings.STUDY_PANEL_STUDY_ID:
        errors.append(
            checks.Error(
                "STUDY_ACCESS=panel admits only arrivals from the panel study STUDY_PANEL_STUDY_ID, which is not set: "
                "the validation study would admit nobody.",
                hint="Set STUDY_PANEL_STUDY_ID to the panel's study ID (Prolific's STUDY_ID), or STUDY_ACCESS=open.",
                id="virtuemap_site.E004",
            )
        )
    keys = settings.STUDY_API_CLIENT_KEYS
    if settings.STUDY_API == "clients" and (
        not keys or any(weak_key(key, min_length=CLIENT_KEY_MIN_LENGTH, min_unique=HMAC_KEY_MIN_UNIQUE) for key in keys)
    ):
        errors.append(
            checks.Error(
                f"STUDY_API=clients needs STUDY_API_CLIENT_KEYS: one or more keys of at least {CLIENT_KEY_MIN_LENGTH} "
                "characters, which the registered front ends send as X-Study-Client.",
                hint='Generate one: python -c "import secrets; print(secrets.token_urlsafe(32))"',
                id="virtuemap_site.E005",
            )
        )
    return errors


@checks.register(checks.Tags.security, deploy=True)
def reference_key(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    key = settings.PARTICIPANT_REFERENCE_HMAC_KEY
    if weak_key(key, min_length=HMAC_KEY_MIN_LENGTH, min_unique=HMAC_KEY_MIN_UNIQUE) or key in (
        settings.SECRET_KEY,
        settings.STUDY_PANEL_HMAC_KEY,
    ):
        return [
            checks.Error(
                f"PARTICIPANT_REFERENCE_HMAC_KEY is weak: participant references stored under it could be recovered by "
                f"hashing candidates, and each withdraws and resumes a person. It needs at least {HMAC_KEY_MIN_LENGTH} "
                f"characters, {HMAC_KEY_MIN_UNIQUE} of them distinct, and must differ from SECRET_KEY and "
                "STUDY_PANEL_HMAC_KEY.",
                hint='Generate one, or leave it unset (it is then derived from SECRET_KEY): python -c "import secrets; '
                'print(secrets.token_urlsafe(32))"',
                id="virtuemap_site.E006",
            )
        ]
    return []


# Each defence a setting can turn off: (id, is it off?, what that allows, what to set instead).
TURNED_OFF = (
    (
        "W001",
        lambda: not settings.KEY_REVIEW_HOLD,
        "KEY_REVIEW_HOLD=false: a key decision on evidence that looks manufactured (answers too fast, from one "
        "network, identical corrections …) is taken automatically instead of waiting for a researcher.",
        "Keep KEY_REVIEW_HOLD=true for a real study (docs/threat-model.md).",
    ),
    (
        "W002",
        lambda: settings.STUDY_ACCESS == "open",
        "STUDY_ACCESS=open: anyone, not only arrivals from the panel study, takes part in the key-validation study "
        "whose answers decide the keys.",
        "STUDY_ACCESS=panel with STUDY_PANEL_STUDY_ID, unless the study must be open to anyone.",
    ),
    (
        "W003",
        lambda: settings.STUDY_API == "open",
        "STUDY_API=open: anyone may consent and answer through the study API, which is made for scripts.",
        "STUDY_API=off, or clients with STUDY_API_CLIENT_KEYS for a front end of yours.",
    ),
)


def _rates_turned_off() -> list[str]:
    names = [*LAB_RATE_SETTINGS, *(LAB_RATE_SETTINGS.values() if settings.STUDY_LAB_NETWORKS else ())]
    return [name for name in names if parse_rate(getattr(settings, name)) is None]


@checks.register(checks.Tags.security, deploy=True)
def defences_turned_off(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    warnings = [
        checks.Warning(message, hint=hint, id=f"virtuemap_site.{check}")
        for check, turned_off, message, hint in TURNED_OFF
        if turned_off()
    ]
    if off := _rates_turned_off():
        warnings.append(
            checks.Warning(
                f"Rate limits turned off: {', '.join(off)}. One client may then consent, answer or try participant "
                "references as fast as it likes.",
                hint="Give each a rate such as 30/hour; for a lab behind one address, list it in STUDY_LAB_NETWORKS.",
                id="virtuemap_site.W004",
            )
        )
    return warnings
