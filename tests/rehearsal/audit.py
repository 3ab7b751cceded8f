"""The audit: what the pilot left in the database and in admin's CSV exports, held against what its people did.

Each check returns the problems it found, one sentence each (an empty list: the data is right). The checks read the
stored rows through the ORM and the exports as a researcher downloads them; they never change anything.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from tests.rehearsal.cast import STUDIES, Kind, Record
from tests.rehearsal.site import ADMIN_PASSWORD, ADMIN_USERNAME, Site

QUESTIONNAIRE_STUDIES = ("transitivity", "moralbench", "amaeval")


# --- Reading what was stored -------------------------------------------------------------------------------------


def respondent_of(record: Record):
    """The stored respondent a journey's participant reference leads to, or None."""
    from surveys.models import Respondent
    from surveys.references import reference_hash

    if not record.reference:
        return None
    return Respondent.objects.filter(reference_hash=reference_hash(record.reference)).first()


def stored_answers(respondent) -> list:
    """The respondent's answers in the order given: validation responses, a profiling submission's answered dilemmas
    (as its one row per dilemma answered), or questionnaire answers."""
    from surveys.models import QuestionnaireAnswer

    if respondent.study == "validation":
        return list(respondent.validation_responses.order_by("submitted_at", "pk"))
    if respondent.study == "profiling":
        submission = getattr(respondent, "profiling_submission", None)
        if submission is None:
            return []
        return [submission for ranking in submission.rankings.values() if ranking]
    return list(QuestionnaireAnswer.objects.filter(session__respondent=respondent).order_by("position"))


def has_field(model, name: str) -> bool:
    return any(field.name == name for field in model._meta.get_fields())


# --- The checks ----------------------------------------------------------------------------------------------------


def journeys_went_as_expected(records: list[Record]) -> list[str]:
    """Every person consented and finished what their journey sets out to do, with no console error on any page."""
    problems = []
    for record in records:
        journey, name = record.journey, record.journey.name
        problems += [f"{name}: {note}" for note in record.notes]
        if journey.kind == Kind.CLOSED:
            continue
        if not record.consented:
            problems.append(f"{name}: could not consent")
        elif journey.kind in (Kind.TAKE, Kind.SWITCH, Kind.RESUME) and not record.finished:
            problems.append(f"{name}: could not finish ({len(record.shown)} answers)")
        elif journey.kind == Kind.WITHDRAW and not record.withdrawn:
            problems.append(f"{name}: the withdrawal by reference did not report what it deleted")
        if journey.is_browser and not record.reference:
            problems.append(f"{name}: no participant reference was shown after consent")
    return problems


def automation_flags(records: list[Record]) -> list[str]:
    """People in a browser are never flagged as automation; the script always is."""
    problems = []
    for record in records:
        respondent = respondent_of(record)
        if respondent is None or record.withdrawn:
            continue
        flags = respondent.suspicion
        if record.journey.is_browser and (flags or respondent.flagged):
            problems.append(f"{record.journey.name}: a person in a browser is flagged {flags or 'flagged'!r}")
        if not record.journey.is_browser and not flags:
            problems.append(f"{record.journey.name}: the script's consent carries no sign of automation")
    return problems


def panel_codes(records: list[Record], *, closed: bool) -> list[str]:
    """Every panel participant who finished leaves with the completion code and the link back to the panel;
    ``closed``: the one sent to a closed study gets a code of its own, distinct from the completion code."""
    from django.conf import settings

    problems = []
    for record in records:
        journey = record.journey
        if not journey.panel or (journey.kind == Kind.CLOSED) != closed:
            continue
        if journey.kind != Kind.CLOSED and not record.finished:
            continue
        if not record.completion_code:
            problems.append(f"{journey.name}: no completion code")
        elif not record.return_link:
            problems.append(f"{journey.name}: the code {record.completion_code} but no way back to the panel")
        completed = settings.STUDY_COMPLETION_CODE_COMPLETED
        if closed and record.completion_code == completed:
            problems.append(f"{journey.name}: the closed study gave the completion code {completed}")
    return problems


def closed_study_not_advertised(records: list[Record]) -> list[str]:
    """The home page in the closed study's language does not invite people to it."""
    return [
        f"{record.journey.name}: the {record.journey.language} home page links to the closed study"
        for record in records
        if record.journey.kind == Kind.CLOSED and record.advertised
    ]


def counts_match(records: list[Record]) -> list[str]:
    """The database holds one respondent per journey that consented and did not withdraw, with as many answers as
    it gave; the withdrawn are gone and counted as withdrawals; every respondent stored is one of the pilot's."""
    from surveys.models import Respondent, Withdrawal

    problems, kept = [], Counter()
    for record in records:
        name, respondent = record.journey.name, respondent_of(record)
        if record.withdrawn:
            if respondent is not None:
                problems.append(f"{name}: withdrawn, but the respondent is still stored")
            continue
        if not record.consented:
            continue
        if respondent is None:
            problems.append(f"{name}: consented, but no respondent holds its reference")
            continue
        kept[record.journey.study] += 1
        answers = len(stored_answers(respondent))
        if answers != len(record.shown):
            problems.append(f"{name}: {len(record.shown)} answers given, {answers} stored")
        if record.finished and record.journey.study != "profiling" and not respondent.is_complete:
            problems.append(f"{name}: finished, but the respondent is not marked complete")
    for study in STUDIES:
        stored = Respondent.objects.filter(study=study).count()
        if stored != kept[study]:
            problems.append(f"{study}: {kept[study]} respondents consented and stayed, {stored} stored")
        withdrawn = sum(1 for r in records if r.withdrawn and r.journey.study == study)
        if Withdrawal.objects.filter(study=study).count() != withdrawn:
            problems.append(
                f"{study}: {withdrawn} withdrawals, {Withdrawal.objects.filter(study=study).count()} counted"
            )
    return problems


def nothing_orphaned(records: list[Record], exports: dict[str, list[dict[str, str]]]) -> list[str]:
    """No row outlives or lacks its respondent: sessions belong to their study's instrument, answers sit at positions
    of their session's sequence, N and Y equal the counted responses, and no export names a respondent that is gone."""
    from django.db.models import Count, Q

    from instruments import registry
    from instruments.virtuemap.models import KeyCandidate
    from surveys.models import QuestionnaireAnswer, QuestionnaireSession, Respondent

    problems = []
    for session in QuestionnaireSession.objects.select_related("respondent"):
        instrument = registry.study(session.respondent.study).instrument
        if session.instrument != instrument:
            problems.append(f"session {session.pk}: instrument {session.instrument}, study of {instrument}")
    for answer in QuestionnaireAnswer.objects.select_related("session"):
        if not 1 <= answer.position <= len(answer.session.sequence):
            problems.append(f"answer {answer.pk}: position {answer.position} outside its session's sequence")
    counted = Q(responses__counted=True, responses__respondent__flagged=False)
    candidates = KeyCandidate.objects.annotate(
        n=Count("responses", filter=counted), y=Count("responses", filter=counted & Q(responses__confirmed=True))
    )
    for candidate in candidates:
        if (candidate.n_evaluations, candidate.n_confirmations) != (candidate.n, candidate.y):
            problems.append(
                f"{candidate}: N, Y = {candidate.n_evaluations}, {candidate.n_confirmations}; rows say "
                f"{candidate.n}, {candidate.y}"
            )
    stored = {str(pk) for pk in Respondent.objects.values_list("pk", flat=True)}
    for name, rows in exports.items():
        gone = {row["respondent"] for row in rows if row.get("respondent") and row["respondent"] not in stored}
        if gone:
            problems.append(f"export {name}: {len(gone)} respondent(s) no longer stored")
    return problems


def time_on_item_kept(records: list[Record]) -> list[str]:
    """Every answer a person gave in a browser keeps the time the page measured."""
    problems = []
    for record in records:
        respondent = respondent_of(record)
        if respondent is None or not record.journey.is_browser or respondent.study == "profiling":
            continue
        missing = sum(1 for answer in stored_answers(respondent) if answer.time_on_item_ms is None)
        if missing:
            problems.append(f"{record.journey.name}: {missing} answer(s) without a time on item")
    return problems


def answer_languages(records: list[Record]) -> list[str]:
    """Every answer records the language its item was shown in, and a validation answer counts for a key candidate
    of that language."""
    problems = []
    for record in records:
        respondent = respondent_of(record)
        if respondent is None:
            continue
        answers = stored_answers(respondent)
        stored = [getattr(answer, "language", None) for answer in answers]
        if stored != record.shown[: len(stored)]:
            problems.append(f"{record.journey.name}: shown in {record.shown}, stored as {stored}")
        if respondent.study == "validation":
            editions = [response.candidate.language for response in answers]
            if editions != record.shown[: len(editions)]:
                problems.append(f"{record.journey.name}: shown in {record.shown}, counted for keys of {editions}")
    return problems


def exports_complete(records: list[Record], exports: dict[str, list[dict[str, str]]]) -> list[str]:
    """Every study's answers are in an admin export, one row per answer, each with the language it was shown in; no
    export holds more rows of a study than it has answers."""
    from surveys.models import Respondent

    study_of = {str(pk): study for pk, study in Respondent.objects.values_list("pk", "study")}
    rows_by_study: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(dict)
    for name, rows in exports.items():
        for row in rows:
            if row.get("respondent") in study_of:
                rows_by_study[study_of[row["respondent"]]].setdefault(name, []).append(row)
    problems = []
    for study in STUDIES:
        stored = sum(len(stored_answers(respondent)) for respondent in Respondent.objects.filter(study=study))
        found = rows_by_study.get(study, {})
        if not any(len(rows) == stored for rows in found.values()):
            counts = ", ".join(f"{name}: {len(rows)}" for name, rows in found.items()) or "none"
            problems.append(f"{study}: {stored} answers stored, rows in admin's exports: {counts}")
        for name, rows in found.items():
            if len(rows) > stored:
                problems.append(f"{study}: {name} has {len(rows)} rows for {stored} answers")
            if "language" not in rows[0]:
                problems.append(f"{study}: {name} has no language column")
    return problems


def public_aggregates(pages: dict[str, str], minimum: int) -> list[str]:
    """No public page shows an aggregate of people drawn from fewer than ``minimum`` respondents."""
    problems = []
    for url, text in pages.items():
        for count in re.findall(r"\((\d+) respondents?\)", text):
            if int(count) < minimum:
                problems.append(f"{url}: an aggregate of {count} respondent(s)")
    return problems


def withdrawals_confirmed(records: list[Record]) -> list[str]:
    """A withdrawal by reference asks once for confirmation before it deletes."""
    return [
        f"{record.journey.name}: deleted without asking for confirmation"
        for record in records
        if record.journey.kind == Kind.WITHDRAW and record.withdrawn and not record.confirmation_asked
    ]


# --- Downloading --------------------------------------------------------------------------------------------------


def admin_exports(browser, site: Site) -> dict[str, list[dict[str, str]]]:
    """Sign in to admin as the researcher `make rehearse` created and download every CSV export a changelist offers:
    export address → its rows as dicts by column."""
    from django.conf import settings
    from django.contrib import admin
    from django.urls import reverse

    context = browser.new_context(base_url=site.url)
    page = context.new_page()
    page.goto(f"/{settings.ADMIN_PATH}login/")
    page.locator("#id_username").fill(ADMIN_USERNAME)
    page.locator("#id_password").fill(ADMIN_PASSWORD)
    with page.expect_navigation():
        page.locator('input[type="submit"], button[type="submit"]').first.click()
    found = {}
    for model, model_admin in admin.site._registry.items():
        for export in getattr(model_admin, "exports", ()):
            opts = model._meta
            url = reverse(f"admin:{opts.app_label}_{opts.model_name}_export_{export.name}".replace("-", "_"))
            response = context.request.get(url)
            if not response.ok or "text/csv" not in response.headers.get("content-type", ""):
                raise AssertionError(f"{url}: {response.status} {response.headers.get('content-type')}")
            found[url] = list(csv.DictReader(io.StringIO(response.text())))
    context.close()
    return found


def public_pages(browser, site: Site, paths: Iterable[str]) -> dict[str, str]:
    context = browser.new_context(base_url=site.url)
    page = context.new_page()
    texts = {}
    for path in paths:
        page.goto(path)
        texts[path] = page.locator("main").inner_text()
    context.close()
    return texts
