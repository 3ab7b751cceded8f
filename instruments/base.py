"""The instrument contract: everything the platform needs to know about an instrument, and nothing more.

An instrument is a plug-in. It declares who it is (`Identity`), how a run of it is planned (`PlanOption`s, validated
into a plain dict stored with the run), which trials a run asks next or why it stops (`next_trials`), how one trial
is answered (`response_mode`: free text with corrective re-asks, probabilities over a fixed label set, or a chain of
steps with a judge), how stored answers become a result (`result_summary`, which calls its pure scorer in
`scoring/`), what a result depends on (`result_dependencies`, e.g. the retained keys), and which studies people take
it in (`studies`, `on_withdraw`). The one run engine (`llmruns.engine`), the result store (`llmruns.results`), the
respondent flow (`surveys`), the commands and the API know instruments only through this class and
`instruments.registry`.

Everything here is plain data: the engine hands an instrument `StoredTrial`s, never database rows, so a plan's
decisions and a result's arithmetic can be tested without a database.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from django.utils import translation
from django.utils.translation import gettext, pgettext_lazy

Message = Mapping[str, str]


class AnswerStatus(StrEnum):
    """What became of a reply, the same vocabulary for every instrument (and for the diagnostics across them)."""

    VALID = "valid"
    REFUSAL = "refusal"
    UNPARSEABLE = "unparseable"
    OFF_SCALE = "off_scale"  # read, but not an answer the instrument allows (e.g. a ranking that is no permutation)
    TRUNCATED = "truncated"
    MISSING = "missing"  # no answer could be estimated (e.g. neither label among the top log-probabilities)
    PROVIDER_ERROR = "provider_error"  # the request failed; the trial is asked again on resume


@dataclass(frozen=True)
class Answer:
    """A trial's canonical answer: ``value`` is JSON-ready and instrument-defined, None unless ``status`` is valid
    (or, for label probabilities, whatever could be estimated)."""

    status: AnswerStatus
    value: Any = None
    detail: str = ""

    @property
    def valid(self) -> bool:
        return self.status is AnswerStatus.VALID


@dataclass(frozen=True)
class Identity:
    """Who an instrument is. ``version`` changes whenever its items or scoring change; ``citation`` names the paper."""

    slug: str
    name: str
    version: str
    citation: str
    languages: tuple[str, ...] = ("en",)
    summary: str = ""

    # ``name`` and ``summary`` stay plain English strings (commands, logs and the API's identifiers read them); a
    # plug-in marks them with gettext_noop so that the catalogue holds them, and pages show these.
    @property
    def display_name(self) -> str:
        """The name in the interface's language."""
        return gettext(self.name)

    @property
    def display_summary(self) -> str:
        """The summary in the interface's language."""
        return gettext(self.summary) if self.summary else ""


# The languages an instrument's items can be written in, named as a sentence about the items reads them.
ITEM_LANGUAGE_NAMES = {
    "en": pgettext_lazy("the language of an instrument's items", "English"),
    "zh-hans": pgettext_lazy("the language of an instrument's items", "Simplified Chinese"),
}


def _same_language(one: str, other: str) -> bool:
    # "zh", "zh-hans" and "zh-Hans" name one edition; "en" and "en-gb" another.
    return one.lower().split("-")[0] == other.lower().split("-")[0]


def items_edition(identity: Identity, language: str) -> str:
    """The edition (one of ``identity.languages``) whose items a study in ``language`` shows: the one in that language,
    else the instrument's first (an English-only instrument's items are in English whatever the interface's)."""
    return next((code for code in identity.languages if _same_language(language, code)), identity.languages[0])


def edition_kept_notice(edition: str) -> str:
    """A sentence, in the interface's language, for a respondent whose interface is no longer in the language of their
    study's ``edition`` (they switched mid-study): the items stay in that edition, and how to take the study in the
    interface's language instead. "" while the interface is in the edition's language."""
    current = translation.get_language() or "en"
    if _same_language(current, edition):
        return ""
    return gettext(
        "You started this study in %(edition)s, so its items stay in %(edition)s and your answers count for that "
        "edition. To take it in %(language)s instead, withdraw (this deletes your answers) and start again."
    ) % {
        "edition": ITEM_LANGUAGE_NAMES.get(edition, edition),
        "language": ITEM_LANGUAGE_NAMES.get(current.lower(), current),
    }


def items_language_notice(identity: Identity) -> str:
    """A sentence, in the interface's language, saying which language an instrument's items are in when the
    interface's language is not one of them (``identity.languages``): a Chinese page of an English-only instrument says
    its items are in English. "" when the items exist in the interface's language."""
    current = translation.get_language() or "en"
    if any(_same_language(current, language) for language in identity.languages):
        return ""
    names = [str(ITEM_LANGUAGE_NAMES.get(language, language)) for language in identity.languages]
    return gettext("The items of %(instrument)s are in %(language)s; only the interface is translated.") % {
        "instrument": identity.display_name,
        "language": " / ".join(names),
    }


@dataclass(frozen=True)
class PlanOption:
    """One option of an instrument's plan: a command-line flag of `run_instrument`, a field of the instruments API.

    ``kind`` is "int", "float", "str", "bool" or "list" (comma-separated on the command line). ``default`` None means
    the instrument decides (e.g. from the model's capabilities).
    """

    name: str
    kind: str
    default: Any
    help: str
    _: KW_ONLY
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "help": self.help,
            "choices": list(self.choices) if self.choices is not None else None,
            "minimum": self.minimum,
            "maximum": self.maximum,
        }


class PlanError(ValueError):
    """A plan option an instrument cannot work with; the message names the option and the limit."""


@dataclass(frozen=True)
class TrialSpec:
    """A trial the plan asks for: an item, shown one way (``presentation`` and ``display``), the ``replicate``-th time.

    ``messages`` are the first request's chat messages in the run's language. ``display`` records what was shown
    (e.g. the option permutation) so an answer can be mapped back and audited.
    """

    item: str
    messages: Sequence[Message]
    presentation: str = ""
    replicate: int = 1
    display: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredTrial:
    """A trial as the engine hands it back to its instrument: plain data, no database row.

    ``status`` is the engine's (pending, running, done, error); ``answer_status`` and ``answer`` the instrument's.
    """

    item: str
    presentation: str
    replicate: int
    status: str
    answer_status: str
    answer: Any
    display: Mapping[str, Any]

    @property
    def done(self) -> bool:
        return self.status == "done"


@dataclass(frozen=True)
class Presented:
    """How one stored answer relates to the way its item was shown, for the answer-quality diagnostics.

    ``ranking``: the display positions (1 = shown first) in the order the answer ranks them; ``first_shown``: the
    probability that the option shown first was chosen (1.0 or 0.0 for a discrete choice); ``label_mass``: the share
    of the first token's probability that fell on the answer labels, for an answer read from log-probabilities. None
    where the answer says nothing of the kind.
    """

    ranking: tuple[int, ...] | None = None
    first_shown: float | None = None
    label_mass: float | None = None


def attempt_seed(base_seed: int, replicate: int, key: str, attempt: int) -> int:
    """Return a 31-bit sampling seed per request, so a resumed or repeated run asks the same way."""
    digest = hashlib.sha256(f"{base_seed}:{replicate}:{key}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class TrialWork:
    """A claimed trial as the thread that answers it sees it: plain data loaded by the engine."""

    id: int
    item: str
    presentation: str
    replicate: int
    display: Mapping[str, Any]
    messages: Sequence[Message]
    run_seed: int

    def seed(self, attempt: int) -> int:
        """The request seed of the ``attempt``-th request of this trial (1-based)."""
        key = f"{self.item}/{self.presentation}" if self.presentation else self.item
        return attempt_seed(self.run_seed, self.replicate, key, attempt)


class ResponseMode:
    """How one trial is answered: `answer` asks the model through ``ask`` (an `llmruns.modes.Asker`, which sends each
    request under the run's rate limit and records it) and returns the trial's canonical `Answer`. The shared modes
    are in `llmruns.modes`; a chain of steps with a judge is an instrument's own subclass."""

    def answer(self, trial: TrialWork, ask: Any) -> Answer:
        raise NotImplementedError


@dataclass(frozen=True)
class Stop:
    """The plan's decision to end a run: a short machine-readable ``reason`` and a sentence for people."""

    reason: str
    detail: str


@dataclass(frozen=True)
class RunContext:
    """What an instrument knows about the run it plans or answers for (plain data, read by the engine).

    ``judge`` is the slug of the run's judge model ("" for none): results built on judge steps name it."""

    run_id: int
    seed: int
    language: str
    plan: Mapping[str, Any]
    model_provider: str = ""
    top_logprobs: int = 0
    judge: str = ""


@dataclass(frozen=True)
class Study:
    """A study people take an instrument in: its registered slug (what `surveys.Respondent.study` and
    `surveys.ConsentText.study` hold), its name, and the first version of its consent text (a mapping with "version",
    "title", "information_sheet" and "consent_statement"; "supersedes": the text hashes of earlier built-in wordings,
    which `load_instrument` replaces by this one, as the next version, where a deployment still has one unedited).
    ``consent_translations``: the first version of the same text in other languages, each such a mapping with its
    "language" (e.g. "zh-hans"); the consent page shows the text in the request's language, else the English.
    ``panel_gated``: the deployment's panel rules
    (STUDY_ACCESS, STUDY_PANEL_STUDY_ID) apply to it, because its answers decide something (VirtueMap's keys).
    ``continue_url_name``: see below."""

    slug: str
    name: str
    instrument: str
    consent: Mapping[str, Any] = field(default_factory=dict)
    consent_translations: tuple[Mapping[str, Any], ...] = ()
    panel_gated: bool = False
    # For a study with pages of its own: the URL name of the page that carries on for the respondent in the browser
    # session (where a participant reference resumes). Studies of the shared questionnaire continue at /take/.
    continue_url_name: str = ""


@dataclass(frozen=True)
class StudyLength:
    """What taking part in a study asks, computed from the settings and the item bank, for its information sheet:
    ``items`` pages (``checks`` of them attention checks) at about ``seconds_per_item`` each."""

    items: int
    seconds_per_item: int
    checks: int = 0

    @property
    def minutes(self) -> int:
        """The estimate in whole minutes, at least one: round(items × seconds per item / 60)."""
        return max(1, round(self.items * self.seconds_per_item / 60))


@dataclass(frozen=True)
class RespondentColumn:
    """A column an instrument adds to the respondents' admin list, filled for the respondents of its studies.

    ``annotations``: name → a query expression over `surveys.Respondent`, added to the list's one query (so a page of
    respondents costs no query per row); ``render(respondent)``: the cell's text from the annotated respondent;
    ``name``: the column's identifier (its CSS class is field-<name>).
    """

    name: str
    title: str
    annotations: Mapping[str, Any]
    render: Callable[[Any], str]


@dataclass(frozen=True)
class RespondentAnswerTable:
    """A table of an instrument's own holding respondents' answers (``model``: "app_label.ModelName", with a foreign
    key to `surveys.Respondent`), shown read-only with ``fields`` on the admin page of a respondent of ``study`` (None:
    of any of the instrument's studies)."""

    model: str
    fields: tuple[str, ...]
    study: str | None = None


@dataclass(frozen=True)
class StudyAnswers:
    """Where the answers of a study with pages of its own are, for the study dashboard: ``answers`` a queryset of one
    row per answer, ``answered_at`` its timestamp field, ``time_ms`` its time-on-item field (None: not measured)."""

    answers: Any
    answered_at: str
    time_ms: str | None = None


@dataclass(frozen=True)
class DashboardTable:
    """A table an instrument adds to a study's dashboard (plain text cells), with a sentence saying how to read it."""

    title: str
    header: tuple[str, ...]
    rows: Sequence[Sequence[Any]]
    note: str = ""


@dataclass(frozen=True)
class Figure:
    """One number of a result, as a model's page, a comparison, a leaderboard and the API show it.

    ``key`` is stable across models (a virtue id, "MFQ_30/care"), so two subjects' figures pair up. ``mean`` is the
    estimate over the run's replicates, ``std`` their sample standard deviation and ``n`` how many there were (None
    and 0 where the instrument has no replicates, e.g. a count of verdicts): `scoring.compare` builds the interval of
    a difference from them. ``maximum`` is the scale's top where it is not 100; ``group`` heads related figures.
    """

    key: str
    label: str
    mean: float | None
    std: float | None = None
    n: int = 0
    group: str = ""
    maximum: float | None = None

    def record(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "group": self.group,
            "mean": self.mean,
            "std": self.std,
            "n": self.n,
            "maximum": self.maximum,
        }


@dataclass(frozen=True)
class PeopleFigure:
    """People's distribution of one figure (the same key as a model's): median, quartiles and how many people."""

    key: str
    median: float | None
    q1: float | None
    q3: float | None
    n: int

    def record(self) -> dict[str, Any]:
        return {"key": self.key, "median": self.median, "q1": self.q1, "q3": self.q3, "n": self.n}


@dataclass(frozen=True)
class FigureContext:
    """What an instrument reads once per page to show any number of subjects' figures: names of what it measures
    (``labels``, by figure key), people's distributions (``people``, by figure key; empty before enough people
    answered with consent, or for an instrument people do not take) and anything else its pictures need
    (``extra``, e.g. MoralBench's maxima)."""

    labels: Mapping[str, str] = field(default_factory=dict)
    people: Mapping[str, PeopleFigure] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProfileSection:
    """An instrument's picture on a cross-instrument page: its own partial template and that template's context."""

    template: str
    context: Mapping[str, Any]


@dataclass(frozen=True)
class PublishedRow:
    """A row of a paper's table: a result whose source is the paper, not a run (`load_published_rows` stores it).

    ``key`` names the row within its instrument (its model becomes "paper/<instrument>/<key>"); ``name`` is the
    model as the paper prints it; ``citation`` the paper and table; ``summary`` the printed cells in the shape of the
    instrument's results (so its figures read it); ``cell_notes``: figure key → why the paper's own data contradicts
    that cell (e.g. above the attainable maximum); ``protocol`` the named protocol the paper's figures were made by.
    """

    key: str
    name: str
    citation: str
    summary: Mapping[str, Any]
    cell_notes: Mapping[str, str] = field(default_factory=dict)
    protocol: str = ""


@dataclass(frozen=True)
class PrintedSummary:
    """What a paper prints about its own table, for a leaderboard to check the same rows as computed here.

    ``models``: the slug of each model whose result here reproduces a printed row → that row's name; ``mean`` and
    ``range``: figure key → the mean and the range (highest − lowest) the paper's text prints over those rows;
    ``cells``: model slug → figure key → the printed cell. ``*_decimals``: the places the paper prints them to.
    """

    source: str
    models: Mapping[str, str]
    mean: Mapping[str, float]
    range: Mapping[str, float]
    cells: Mapping[str, Mapping[str, float]]
    mean_decimals: int = 1
    range_decimals: int = 2
    cell_decimals: int = 1


class AnswerRejected(ValueError):
    """A person's answer to a questionnaire item that cannot be stored; the message is shown to them."""


class Questionnaire:
    """How people take an instrument in one study: one item per page, in a sequence drawn once per respondent.

    The shared flow (`surveys.questionnaire`) does consent, sessions, storage exactly once per position, the pages,
    completion and withdrawal; a questionnaire says only what is particular to its instrument. Items and answers are
    JSON-ready mappings: an item says what one page shows (stored with the answer, so the data set says what each
    person saw), an answer is what the instrument read from the page's form.
    """

    # Templates: ``intro_template`` describes the task above the consent text; ``item_template`` renders one item's
    # inputs inside the shared form; ``results_template`` shows a finished (or partial) respondent's results.
    intro_template: ClassVar[str]
    item_template: ClassVar[str]
    results_template: ClassVar[str]
    # The page title, the word for one page ("Choice 3 of 42"), the consent box's label, a stylesheet of its own.
    title: ClassVar[str]
    item_noun: ClassVar[str] = "Question"
    agree_label: ClassVar[str] = "I agree: store my answers anonymously for research."
    stylesheet: ClassVar[str | None] = None
    # About how long one page takes to read and answer, for the time the information sheet announces.
    seconds_per_item: ClassVar[int] = 10

    @property
    def about_url(self) -> str | None:
        """The instrument's public page, linked from the declined and withdrawn pages; None when it has none."""
        return None

    def is_ready(self) -> bool:
        """Whether the items are loaded, so that people can start."""
        return True

    def design_options(self, params: Mapping[str, str]) -> dict[str, Any]:
        """The design a respondent asked for through the link's query string (e.g. a block); raise `AnswerRejected`
        for a value that is not valid. {} when the link chooses nothing."""
        return {}

    def sequence(self, *, seed: int, options: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Return (the items in the order they are asked, the design recorded with the session), drawn from ``seed``."""
        raise NotImplementedError

    def intro_context(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """What ``intro_template`` shows before consent (the design, how long it takes)."""
        return {}

    def item_context(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """What ``item_template`` shows for one item (texts read from the item bank)."""
        return {"item": item}

    def read_answer(self, item: Mapping[str, Any], data: Mapping[str, str]) -> dict[str, Any]:
        """Read the answer to ``item`` from the submitted form ``data``; raise `AnswerRejected` when there is none."""
        raise NotImplementedError

    # The instrument's own columns of its answers' CSV export (`surveys.exports.questionnaire_answers_export`), each
    # (name, meaning) as its codebook states it; `export_values` gives one answer's values in this order.
    export_columns: ClassVar[tuple[tuple[str, str], ...]] = ()

    def export_values(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> list[Any]:
        """The values of `export_columns` for one stored ``item`` and its ``answer``."""
        return []

    def answer_fields(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, str]:
        """The form data that `read_answer` reads as ``answer``, so that a page revisited with Back shows the stored
        answer as chosen. The default, {}, shows the page unanswered."""
        return {}

    def results_context(self, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]) -> dict:
        """What ``results_template`` shows for the answered ``items`` and their ``answers`` (same order)."""
        return {}

    def subject_summary(
        self, items: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]
    ) -> Mapping[str, Any] | None:
        """A respondent's answers as a summary in the shape of the instrument's stored results (what its
        `Instrument.profile_module` reads), for the person's cross-instrument page; None when there is none."""
        return None

    def presented(self, item: Mapping[str, Any], answer: Mapping[str, Any]) -> Presented:
        """Where the presentation is in one stored answer, for the respondent's answer-quality diagnostics
        (`surveys.diagnostics`): ``first_shown`` 1.0 when the option shown first was chosen and 0.0 when another was
        (a choice), or ``ranking`` the display positions in the order the answer ranks them. The default,
        `Presented()`, says the answers have no presentation order, and the respondent gets no position figures.
        """
        return Presented()


class Instrument:
    """Base class of every instrument. Subclasses set ``identity`` and implement the methods that raise."""

    identity: ClassVar[Identity]
    plan_options: ClassVar[tuple[PlanOption, ...]] = ()
    studies: ClassVar[tuple[Study, ...]] = ()
    # Whether a finished run is stored as its model's result at once (fixed designs), or waits to be published.
    publish_on_finish: ClassVar[bool] = False
    # The module of the instrument's part in the cross-instrument pages (its functions figure_context, figures,
    # section, report_url; each optional), imported only when such a page asks: e.g. "instruments.virtuemap.profile".
    profile_module: ClassVar[str | None] = None
    # The module that reads the instrument's paper tables (its function published_rows()), e.g.
    # "instruments.moralbench.papers"; None when the paper publishes no per-model table.
    papers_module: ClassVar[str | None] = None

    @property
    def slug(self) -> str:
        return self.identity.slug

    @property
    def page_url(self) -> str | None:
        """The instrument's public page, linked from the navigation bar of every page: by convention the view named
        "about" in the URL namespace of its slug (``transitivity:about``); None when it has none."""
        from django.urls import NoReverseMatch, reverse

        try:
            return reverse(f"{self.slug}:about")
        except NoReverseMatch:
            return None

    # --- the item bank ---------------------------------------------------------------------------------------

    def item_records(self) -> list[dict[str, Any]]:
        """Every item as JSON-ready data (id first), in the instrument's order: the instruments API and the hash."""
        raise NotImplementedError

    def items_hash(self) -> str:
        """SHA-256 of the item bank as loaded, stored with every run and result so silent edits are visible."""
        text = json.dumps(self.item_records(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def load(self, path: Path | None = None) -> Any:
        """Load the item bank from the instrument's fixture (or ``path``) into its tables, idempotently, and return
        an `instruments.loading.InstrumentLoadReport`; raise ValueError, KeyError or ValidationError for a file that
        is not valid (nothing half-loaded). An instrument whose items are code loads nothing."""
        from instruments.loading import InstrumentLoadReport

        return InstrumentLoadReport()

    def is_loaded(self) -> bool:
        """Whether the item bank is in the database (`load_instrument`); a run cannot start without it."""
        return bool(self.item_records())

    # --- the plan --------------------------------------------------------------------------------------------

    def plan(self, options: Mapping[str, Any], *, model: Any = None) -> dict[str, Any]:
        """Return the complete plan: the declared options with defaults filled in and checked.

        ``model`` is the `llmruns.models.LLMModel` to be asked, for defaults that follow its capabilities. Raises
        `PlanError` naming the option and the limit; unknown options are refused.
        """
        known = {option.name: option for option in self.plan_options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise PlanError(f"{self.slug} has no plan option {', '.join(unknown)}; it has {', '.join(known) or 'none'}")
        plan = {}
        for name, option in known.items():
            value = options.get(name)
            plan[name] = option.default if value is None else _checked(option, value)
        return self.plan_complete(plan, model=model)

    def plan_complete(self, plan: dict[str, Any], *, model: Any = None) -> dict[str, Any]:
        """Fill in model-dependent defaults and check relations between options (e.g. min ≤ max)."""
        return plan

    def judge_required(self, plan: Mapping[str, Any]) -> str | None:
        """None when a run under ``plan`` needs no judge model, else what the judge does (the run is then refused
        without one, instead of failing at its first judge step)."""
        return None

    def request_overrides(self, plan: Mapping[str, Any]) -> dict[str, Any]:
        """Request parameters the instrument fixes whatever the model's settings (e.g. the paper's temperature)."""
        return {}

    def next_trials(self, context: RunContext, trials: Sequence[StoredTrial]) -> list[TrialSpec] | Stop:
        """Return the next batch of trials to create, or `Stop`. Called only when no trial is left to ask."""
        raise NotImplementedError

    def response_mode(self, context: RunContext) -> ResponseMode:
        """How one trial is answered (see `llmruns.modes`)."""
        raise NotImplementedError

    def progress(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        """A JSON-ready record of the run's state for admin, the command line and the API."""
        done = sum(1 for trial in trials if trial.done)
        return {"trials": len(trials), "done": done}

    def progress_text(self, progress: Mapping[str, Any]) -> str:
        """One line of a progress record for admin lists; "" when there is nothing to say beyond the trial counts."""
        return ""

    # --- people in admin -------------------------------------------------------------------------------------

    def respondent_columns(self) -> tuple[RespondentColumn, ...]:
        """Columns this instrument adds to the respondents' admin list (the platform knows nothing of its answers)."""
        return ()

    def respondent_answer_tables(self) -> tuple[RespondentAnswerTable, ...]:
        """Where this instrument keeps respondents' answers outside the shared questionnaire (whose answers the
        platform shows itself), for a respondent's admin page."""
        return ()

    def study_answers(self, study: str) -> StudyAnswers | None:
        """The answers of ``study`` when it has pages of its own (a shared questionnaire's are the platform's), for
        the study dashboard's median time per item and answers per day; None when there are none to count."""
        return None

    def study_dashboard_tables(self, study: str) -> list[DashboardTable]:
        """What the study dashboard shows for ``study`` beyond the platform's figures (VirtueMap: the key candidates
        nearest a decision). Bounded: a few aggregate queries, never one per respondent."""
        return []

    # --- results ---------------------------------------------------------------------------------------------

    def result_summary(self, context: RunContext, trials: Sequence[StoredTrial]) -> dict[str, Any]:
        """The result of a run from its stored answers, JSON-ready (the instrument's scorer in `scoring/`)."""
        raise NotImplementedError

    def summary_lines(self, summary: Mapping[str, Any]) -> list[str]:
        """The summary as lines of text for `show_results --format table`: one "name: value" line per field, a
        nested mapping's fields indented under it. Instruments with a natural table override this."""
        return record_lines(summary)

    def presented(self, context: RunContext, trial: StoredTrial) -> Presented:
        """Where the presentation is in a valid stored answer (`Presented`), for the diagnostics every result carries.

        The default reads an answer mapping's conventional fields: "display_ranking" (display labels "1"…"k", label
        i shown i-th), "first_shown" and "label_mass". An instrument whose answers record the presentation
        otherwise says so here; one whose answers have no presentation order returns `Presented()`.
        """
        answer = trial.answer if isinstance(trial.answer, Mapping) else {}
        labels = answer.get("display_ranking")
        ranking = None
        if labels and all(str(label).isdigit() for label in labels):
            ranking = tuple(int(label) for label in labels)
        first_shown, mass = answer.get("first_shown"), answer.get("label_mass")
        return Presented(
            ranking=ranking,
            first_shown=float(first_shown) if first_shown is not None else None,
            label_mass=float(mass) if mass is not None else None,
        )

    def publishable(self, context: RunContext, trials: Sequence[StoredTrial]) -> str | None:
        """None when a finished run may be published, else the reason it may not."""
        return None

    def result_dependencies(self, language: str = "en") -> dict[str, Any]:
        """What a result in ``language`` computed now depends on besides the answers (e.g. the retained keys that
        score that language's answers); {} for nothing."""
        return {}

    def result_protocol(self, plan: Mapping[str, Any]) -> str:
        """The named protocol a run under ``plan`` asked by, stored with its result: results of different protocols
        are marked not comparable wherever two are compared. The default reads the plan's "protocol" ("" for none)."""
        return str(plan.get("protocol") or "")

    def published_rows(self) -> list[PublishedRow]:
        """The rows of the instrument's paper tables (the papers module's ``published_rows()``); [] without one."""
        if self.papers_module is None:
            return []
        return importlib.import_module(self.papers_module).published_rows()

    def edition_version(self, language: str = "en") -> str:
        """The version of the items a run in ``language`` is asked, stored as the run's and its result's
        ``instrument_version``: the identity's version, unless the instrument versions its editions' texts."""
        return self.identity.version

    def printed_summary(self) -> PrintedSummary | None:
        """What the instrument's paper prints over its table's rows (its means and ranges), which a leaderboard checks
        its computed rows against; None when the paper prints none."""
        return None

    # --- cross-instrument pages ------------------------------------------------------------------------------
    # A model's page, the comparison, the leaderboards and the API read every instrument through these four.

    def _profile_part(self, name: str) -> Callable[..., Any] | None:
        """The function ``name`` of the instrument's `profile_module`, None without one."""
        if self.profile_module is None:
            return None
        return getattr(importlib.import_module(self.profile_module), name, None)

    def figure_context(self) -> FigureContext:
        """What `profile_figures` and `profile_section` need from the database, read once per page (a few queries
        whatever the number of subjects shown): the profile module's ``figure_context()``."""
        read = self._profile_part("figure_context")
        return read() if read else FigureContext()

    def profile_figures(self, summary: Mapping[str, Any], context: FigureContext) -> list[Figure]:
        """The headline numbers of a stored summary, in the instrument's order ([] for none); no database. The
        profile module's ``figures(summary, context)``."""
        figures = self._profile_part("figures")
        return figures(summary, context) if figures else []

    def profile_section(
        self, summaries: Sequence[tuple[str, Mapping[str, Any]]], context: FigureContext
    ) -> ProfileSection | None:
        """The picture of one or more subjects' summaries ((name, summary) pairs, overlaid where there are several)
        with people beside them where ``context`` has them; None when the instrument has no picture; no database.
        The profile module's ``section(summaries, context)``."""
        section = self._profile_part("section")
        return section(summaries, context) if section else None

    def report_url(self, slug: str) -> str | None:
        """The address of the instrument's own full report of model ``slug``: the profile module's
        ``report_url(slug)``, None without one."""
        report = self._profile_part("report_url")
        return report(slug) if report else None

    def person_summary(self, request: Any) -> Mapping[str, Any] | None:
        """This browser's own result summary for the person's cross-instrument page when the instrument keeps it
        somewhere other than the shared questionnaire's stored answers (VirtueMap: the profiling questionnaire's
        signed cookie); None to let the people layer summarise the answers stored by the shared questionnaire
        (`surveys.questionnaire.person_questionnaire_summary`)."""
        return None

    # --- people ----------------------------------------------------------------------------------------------

    def questionnaire(self, study: str) -> Questionnaire | None:
        """The questionnaire people take in ``study`` through the shared one-item-per-page flow, or None when the
        study has its own pages (VirtueMap's adaptive key validation)."""
        return None

    def study_length(
        self, study: str, options: Mapping[str, Any], *, language: str | None = None
    ) -> StudyLength | None:
        """How many pages a respondent of ``study`` answers (under the design ``options`` of their link) and about how
        long that takes, for the information sheet; None when it cannot be said yet (the items are not loaded).
        ``language`` is that of the consent text the respondent reads, when the caller has it (None: this request's
        text). The default counts the questionnaire's sequence at its ``seconds_per_item``."""
        questionnaire = self.questionnaire(study)
        if questionnaire is None or not questionnaire.is_ready():
            return None
        items, _ = questionnaire.sequence(seed=0, options=options)
        return StudyLength(items=len(items), seconds_per_item=questionnaire.seconds_per_item)

    def on_withdraw(self, respondent: Any, *, delete: Callable[[], Any]) -> list[Any]:
        """Withdraw a respondent of one of this instrument's studies: call ``delete`` (which deletes the respondent and
        every row that cascades from it) and do whatever else withdrawal needs; return what it changed beyond that."""
        delete()
        return []


def record_lines(record: Mapping[str, Any], indent: str = "") -> list[str]:
    """A JSON-ready record as "name: value" lines, a nested mapping's fields indented under its name, every float
    (also inside a list) to four significant digits and a long value cut at 100 characters: how `show_results` and
    admin print plans, progress and summaries."""
    lines = []
    for name, value in record.items():
        if isinstance(value, Mapping) and value:
            lines.append(f"{indent}{name}:")
            lines.extend(record_lines(value, indent + "  "))
        else:
            text = _value_text(value)
            lines.append(f"{indent}{name}: {text if len(text) <= 100 else text[:97] + '...'}")
    return lines


def _value_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value_text(each) for each in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{name}: {_value_text(each)}" for name, each in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _checked(option: PlanOption, value: Any) -> Any:
    """``value`` converted to the option's kind and checked against its choices and bounds; PlanError otherwise."""
    try:
        if option.kind == "int":
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            converted: Any = int(value)
        elif option.kind == "float":
            if isinstance(value, bool):
                raise ValueError
            converted = float(value)
        elif option.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError
            converted = value
        elif option.kind == "list":
            items = value.split(",") if isinstance(value, str) else list(value)
            converted = [str(item).strip() for item in items if str(item).strip()]
            if not converted:
                raise PlanError(f"{option.flag}: give at least one value")
        else:
            converted = str(value)
    except (TypeError, ValueError):
        raise PlanError(f"{option.flag}: {value!r} is not a valid {option.kind}") from None
    values = converted if option.kind == "list" else [converted]
    if option.choices is not None:
        allowed = {str(choice) for choice in option.choices}
        bad = [item for item in values if str(item) not in allowed]
        if bad:
            choices = ", ".join(map(str, option.choices))
            raise PlanError(f"{option.flag}: {', '.join(map(str, bad))} is not one of {choices}")
    for item in values if option.kind in ("int", "float") else []:
        if option.minimum is not None and item < option.minimum:
            raise PlanError(f"{option.flag}: {item} is below the minimum {option.minimum:g}")
        if option.maximum is not None and item > option.maximum:
            raise PlanError(f"{option.flag}: {item} is above the maximum {option.maximum:g}")
    return converted
