"""Who takes part in the pilot, and the record of what each of them did, which the audit holds the data against."""

from __future__ import annotations

from dataclasses import dataclass, field

STUDIES = ("validation", "profiling", "transitivity", "moralbench", "amaeval")
LANGUAGES = ("en", "zh-hans")
# Studies whose links a panel such as Prolific hands out (profiling is for visitors who want their own profile).
PANEL_STUDIES = ("validation", "transitivity", "moralbench", "amaeval")


class Kind:
    TAKE = "take"  # consents and answers every item
    SWITCH = "switch"  # consents in English, switches the page to 简体中文 midway, finishes
    RESUME = "resume"  # answers a few items, then carries on in another browser with the participant reference
    WITHDRAW = "withdraw"  # answers a few items, then withdraws from another browser with the participant reference
    SCRIPTED = "scripted"  # a script, not a browser: fetches the consent form and posts it at once
    CLOSED = "closed"  # a panel participant sent to a study that takes nobody in their language


@dataclass(frozen=True)
class Journey:
    study: str
    language: str
    kind: str
    viewport: str = "desktop"  # phone or desktop
    panel: bool = False
    number: int = 0

    @property
    def name(self) -> str:
        panel = "-panel" if self.panel else ""
        return f"{self.study}-{self.language}-{self.kind}{self.number}-{self.viewport}{panel}"

    @property
    def is_browser(self) -> bool:
        return self.kind != Kind.SCRIPTED


@dataclass
class Record:
    """What a journey did and saw. ``shown`` holds, per answer the person gave, the language its item was shown in
    (read from the item's own text, not the page's chrome), in the order given."""

    journey: Journey
    reference: str = ""
    consented: bool = False
    shown: list[str] = field(default_factory=list)
    finished: bool = False
    completion_code: str = ""
    return_link: str = ""
    withdrawn: bool = False
    confirmation_asked: bool = False
    advertised: bool = False  # the home page in the journey's language links to its study
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def kept(self) -> bool:
        """Whether the data of this journey should still be stored."""
        return self.consented and not self.withdrawn


def cast(size: int) -> list[Journey]:
    """``size`` people per study and language, alternately on a phone and a desktop, every other one a panel arrival
    where panels are used. The first in English switches the page to 简体中文 midway; the first in Chinese carries on in
    another browser with the participant reference. Per study, one more person withdraws from another browser with
    the reference and one script consents; and one panel participant is sent to the Chinese validation study, which a
    fresh install does not open."""
    journeys = []
    for study in STUDIES:
        panel = study in PANEL_STUDIES
        for offset, language in enumerate(LANGUAGES):
            for number in range(size):
                kind = (Kind.SWITCH, Kind.RESUME)[offset] if number == 0 else Kind.TAKE
                viewport = "phone" if (number + offset) % 2 == 0 else "desktop"
                journeys.append(Journey(study, language, kind, viewport, panel and number % 2 == 0, number))
        journeys += [Journey(study, "en", Kind.WITHDRAW, "desktop"), Journey(study, "en", Kind.SCRIPTED)]
    journeys.append(Journey("validation", "zh-hans", Kind.CLOSED, "phone", panel=True))
    return journeys
