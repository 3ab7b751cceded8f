"""The pilot's journeys, as people take them in Chromium: they read the information sheet, tick the box, answer each
item by mouse, tap or keyboard after thinking about it, switch language, keep their participant reference and use it
in another browser. Each journey returns its `Record`; nothing here reads the database.

Selectors are the pages' own names and attributes, not their words, so one journey serves both languages.
"""

from __future__ import annotations

import http.cookiejar
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlencode

from tests.browser.conftest import DESKTOP, PHONE
from tests.form_as_sent import form_as_sent
from tests.rehearsal.cast import Journey, Kind, Record
from tests.rehearsal.pace import Pace

VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}

START = {
    "validation": "/study/",
    "profiling": "/profile/",
    "transitivity": "/transitivity/questionnaire/",
    # The link a researcher hands out for one set of MoralBench (all four sets are 88 questions).
    "moralbench": "/moralbench/questionnaire/?sets=MFQ_30",
    "amaeval": "/amaeval/questionnaire/",
}
# Where an item's own words are on its page (not the page's buttons and labels, which follow the interface's language).
ITEM_TEXT = {
    "validation": ".ranking-text",
    "profiling": ".ranking-text",
    "transitivity": ".pair-option span",
    "moralbench": ".mb-question, .mb-statement",
    "amaeval": ".ama-reasoning",
}
ITEM_TEXTS = (
    "rows => rows.map(row => { const c = row.cloneNode(true); c.querySelectorAll('strong').forEach(s => "
    "s.remove()); return c.textContent; }).join(' ')"
)
CJK = re.compile(r"[\u3400-\u9fff]")
REFERENCE = re.compile(r'class="reference">([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})<')
# Items a journey answers before it switches language, resumes elsewhere or withdraws.
FEW = 3
MOST_ITEMS = 120


@dataclass
class Pilot:
    """What every journey needs: the browser, the site's address, the pace and a seeded random source."""

    browser: object
    url: str
    pace: Pace
    rng: random.Random

    def open(self, record: Record, viewport: str):
        context = self.browser.new_context(base_url=self.url, **VIEWPORTS[viewport])
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.on("console", lambda m: record.notes.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda error: record.notes.append(f"page error: {error}"))
        return context, page


def start_url(journey: Journey) -> str:
    path, _, query = START[journey.study].partition("?")
    params = dict(urllib.parse.parse_qsl(query))
    params["lang"] = journey.language
    if journey.panel:
        params.update(PROLIFIC_PID=f"rh{abs(hash(journey.name)) % 10**12:012d}", STUDY_ID="rehearsal")
        params["SESSION_ID"] = f"s-{journey.name}"
    return f"{path}?{urlencode(params)}"


def shown_language(page, study: str) -> str:
    """The language of the item's own text on the page: zh-hans when it is written in Chinese characters."""
    text = page.locator(ITEM_TEXT[study]).evaluate_all(ITEM_TEXTS)
    if not text.strip():
        raise AssertionError(f"no item text ({ITEM_TEXT[study]}) on {page.url}")
    return "zh-hans" if CJK.search(text) else "en"


def consent(pilot: Pilot, page, record: Record) -> None:
    """Arrive by the study's link, read the information sheet, agree; the record keeps the participant reference."""
    journey = record.journey
    page.goto(start_url(journey))
    if journey.study == "validation":
        link = page.locator('a[href^="/study/consent/"]')
        if not link.count():
            return
        submit(page, link.first)
    if not page.locator("#id_agree").count():
        return
    pilot.pace.read(page, pilot.rng)
    page.locator("#id_agree").check()
    submit(page, page.locator('button[name="accept"]'))
    if page.locator("#id_agree").count():
        record.notes.append(f"consent refused: {page.locator('.form-error, .field-error').all_inner_texts()}")
        return
    record.consented = True
    if journey.study == "validation" and page.locator('button[name="skip"]').count():
        submit(page, page.locator('button[name="skip"]'))
    if journey.study == "profiling" and not page.locator(".ranking-item").count():
        submit(page, page.locator('a[href*="/profile/dilemmas/"]').first)
    reference = page.locator("[data-participant-reference] .reference")
    record.reference = reference.first.inner_text() if reference.count() else ""


def on_item(page, study: str) -> bool:
    if study == "validation":
        return page.locator('form[data-timed] button[name="action"]').count() > 0
    if study == "profiling":
        return page.locator('button[name="action"][value="keep"]').count() > 0
    return page.locator('form[data-timed] input[type="radio"]').count() > 0


def letters(page) -> str:
    return "".join(page.locator(".ranking-item").evaluate_all("rows => rows.map(r => r.dataset.letter)"))


def move_up(page, letter: str, times: int = 1) -> None:
    """Press a response's up arrow, by keyboard, as often as given."""
    button = page.locator(f'.ranking-item[data-letter="{letter}"] button[data-move="up"]')
    for _ in range(times):
        button.focus()
        page.keyboard.press("Enter")


def submit(page, button) -> None:
    """Press the button (or follow the link) and wait for the page it leads to."""
    with page.expect_navigation():
        button.click()


def answer(pilot: Pilot, page, record: Record) -> bool:
    """Answer the item on the page after thinking about it; False when the page shows no item."""
    study, rng = record.journey.study, pilot.rng
    if not on_item(page, study):
        return False
    pilot.pace.think(page, rng)
    if study == "validation" and page.locator('button[value="check"]').count():
        # The attention check: put the response the instruction names first.
        instruction = page.locator("#attention-instruction").inner_text()
        letter = re.search(r"(?<![A-Za-z])([A-E])(?![A-Za-z])", instruction).group(1)
        move_up(page, letter, letters(page).index(letter))
        submit(page, page.locator('button[value="check"]'))
        return True
    record.shown.append(shown_language(page, study))
    if study in ("validation", "profiling"):
        order = letters(page)
        if rng.random() < 0.5:
            submit(page, page.locator('button[value="confirm"], button[value="keep"]').first)
        else:
            move_up(page, order[rng.randrange(1, 5)])
            submit(page, page.locator('button[value="correct"], button[value="answer"]').first)
        return True
    options = page.locator("form[data-timed] label:has(input[type=radio])")
    options.nth(rng.randrange(options.count())).click()  # the whole card is the control, as a tap
    submit(page, page.locator('form[data-timed] button[type="submit"]').last)
    return True


def answer_all(pilot: Pilot, page, record: Record, *, at_most: int = MOST_ITEMS) -> None:
    answered = 0
    while answered < at_most and answer(pilot, page, record):
        answered += 1
    if answered < at_most:
        record.finished = True
        keep_completion(page, record)


def keep_completion(page, record: Record) -> None:
    """Note the completion code and the way back to the panel, if the page gives them."""
    code = page.locator(".completion-code")
    if code.count():
        record.completion_code = code.first.inner_text().strip()
        # The way back is a link to the panel that carries the code (STUDY_PANEL_REDIRECT_URL's {code}).
        link = page.locator(f'a[href*="cc={record.completion_code}"]')
        if link.count():
            record.return_link = link.first.get_attribute("href") or ""


def switch_language(page, language: str) -> None:
    submit(page, page.locator(f'nav.language-switch a[hreflang="{language}"]'))


def reference_page(pilot: Pilot, record: Record, action: str):
    """Another browser (its own cookies, the other kind of device) on /withdraw/ or /resume/ with the reference."""
    viewport = "desktop" if record.journey.viewport == "phone" else "phone"
    context, page = pilot.open(record, viewport)
    page.goto(f"/{action}/?lang={record.journey.language}")
    page.locator('input[name="reference"]').fill(record.reference)
    submit(page, page.locator('main form button[type="submit"]').first)
    return context, page


def take(pilot: Pilot, journey: Journey) -> Record:
    """Consent and answer every item; a SWITCH journey changes the page's language to 简体中文 after a few."""
    record = Record(journey)
    context, page = pilot.open(record, journey.viewport)
    try:
        consent(pilot, page, record)
        if record.consented:
            if journey.kind == Kind.SWITCH:
                answer_all(pilot, page, record, at_most=FEW)
                switch_language(page, "zh-hans")
            answer_all(pilot, page, record)
        else:
            keep_completion(page, record)
    finally:
        context.close()
    return record


def resume(pilot: Pilot, journey: Journey) -> Record:
    """Answer a few items, close the browser, carry on in another one with the participant reference."""
    record = Record(journey)
    context, page = pilot.open(record, journey.viewport)
    consent(pilot, page, record)
    answer_all(pilot, page, record, at_most=FEW)
    context.close()
    if record.consented:
        context, page = reference_page(pilot, record, "resume")
        answer_all(pilot, page, record)
        context.close()
    return record


def withdraw(pilot: Pilot, journey: Journey) -> Record:
    """Answer a few items, then withdraw from another browser with the participant reference (confirming when the
    page asks)."""
    record = Record(journey)
    context, page = pilot.open(record, journey.viewport)
    consent(pilot, page, record)
    answer_all(pilot, page, record, at_most=FEW)
    context.close()
    if not record.consented:
        return record
    context, page = reference_page(pilot, record, "withdraw")
    confirm = page.locator('main form button[name="confirm"]')
    if not page.locator("[data-withdrawal-report]").count() and confirm.count():
        record.confirmation_asked = True
        submit(page, confirm)
    record.withdrawn = page.locator("[data-withdrawal-report]").count() > 0
    context.close()
    return record


def closed(pilot: Pilot, journey: Journey) -> Record:
    """A panel participant whose link leads to a study that takes nobody in their language; the record notes
    whether the home page in that language advertised the study."""
    record = Record(journey)
    context, page = pilot.open(record, journey.viewport)
    page.goto(f"/?lang={journey.language}")
    record.advertised = page.locator(f'main a[href^="{START[journey.study]}"]').count() > 0
    consent(pilot, page, record)
    if record.consented:
        answer_all(pilot, page, record)
    else:
        keep_completion(page, record)
    context.close()
    return record


def scripted(pilot: Pilot, journey: Journey) -> Record:
    """A script, not a person: it fetches the consent form, posts every field at once, then answers one item."""
    record = Record(journey)
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    consent_path = "/study/consent/" if journey.study == "validation" else START[journey.study].split("?")[0]
    query = urlencode(
        {"lang": journey.language, **dict(urllib.parse.parse_qsl(START[journey.study].partition("?")[2]))}
    )

    def post(path: str, fields: dict) -> str:
        request = urllib.request.Request(pilot.url + path, data=urlencode(fields).encode(), method="POST")
        with opener.open(request, timeout=30) as response:
            return response.read().decode()

    def get(path: str) -> str:
        with opener.open(pilot.url + path, timeout=30) as response:
            return response.read().decode()

    page = post(f"{consent_path}?{query}", form_as_sent(get(f"{consent_path}?{query}"), agree="on", accept="1"))
    found = REFERENCE.search(page)
    record.consented = found is not None
    record.reference = found.group(1) if found else ""
    if not found:
        return record
    if journey.study == "validation":
        page = post("/study/about-you/", form_as_sent(page, skip="1"))
        pressed = {"action": "confirm"}
        item_path = "/study/item/"
    elif journey.study == "profiling":
        item_path = "/profile/dilemmas/D1/"
        page, pressed = get(item_path), {"action": "keep"}
    else:
        item_path = consent_path + "next/"
        page = get(item_path)
        name, value = re.search(r'<input type="radio" name="(\w+)" value="([^"]+)"', page).groups()
        pressed = {name: value}
    try:
        post(item_path, form_as_sent(page, **pressed))
    except urllib.error.HTTPError:
        pass  # a refused answer stores nothing: the check that counts the answers expects none
    else:
        record.shown.append(journey.language)
    return record


JOURNEYS = {
    Kind.TAKE: take,
    Kind.SWITCH: take,
    Kind.RESUME: resume,
    Kind.WITHDRAW: withdraw,
    Kind.SCRIPTED: scripted,
    Kind.CLOSED: closed,
}


def journey_run(pilot: Pilot, journey: Journey) -> Record:
    """Run one journey; a journey that breaks off (a page that never came, a refused request) is recorded as such,
    for the audit to report, and the pilot goes on."""
    started = time.monotonic()
    try:
        record = JOURNEYS[journey.kind](pilot, journey)
    except Exception as error:  # whatever stopped a person is a finding of the rehearsal
        record = Record(journey)
        record.notes.append(f"broke off: {type(error).__name__}: {str(error).splitlines()[0][:300]}")
    record.seconds = time.monotonic() - started
    return record
