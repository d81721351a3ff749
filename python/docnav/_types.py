"""The typed results of docnav's Python API: plain frozen dataclasses built from the JSON shapes
the CLI prints with ``--json`` (``docs``, ``tree``, ``ask``), so a script and a shell pipeline see
the same fields; ``SearchHit`` and ``IndexReport`` are built by the extension itself
(``docnav._native``), frozen and compared by their fields like the dataclasses.

Units: ``lines``, ``pages`` and ``paragraphs`` are 1-based inclusive ``(first, last)`` pairs
(Markdown, text and HTML documents have lines, PDF documents pages, Word documents paragraphs;
the others are ``None``; EPUB chapters have none); sizes are bytes; text lengths
are chars (Unicode code points); tokens are estimated as chars / 4; times are milliseconds.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple, TypedDict, cast

from ._native import IndexReport as IndexReport
from ._native import SearchHit as SearchHit

Span = Optional[Tuple[int, int]]


def _span(value: Any) -> Span:
    return (int(value[0]), int(value[1])) if value else None


def _location(lines: Span, pages: Span, paragraphs: Span) -> str:
    if pages:
        a, b = pages
        return f"page {a}" if a == b else f"pages {a}–{b}"
    if lines:
        return f"lines {lines[0]}–{lines[1]}"
    if paragraphs:
        return f"paragraphs {paragraphs[0]}–{paragraphs[1]}"
    return ""


def _date(value: Any) -> Optional[datetime.date]:
    return datetime.date(int(value[0]), int(value[1]), int(value[2])) if value else None


@dataclass(frozen=True)
class Releases:
    """The releases a changelog covers: its newest and oldest version headings as written
    (``"v2.10.0"``, ``"1.0"``) and how many version headings it has."""

    newest: str
    oldest: str
    count: int


@dataclass(frozen=True)
class Period:
    """The period a document covers, read from it when it was indexed (what routing matches a
    question's ``FY2019``, ``Q2 2023``, ``version 4.x`` on).

    ``form`` is ``"10-K"``, ``"10-Q"``, ``"8-K"`` or ``"earnings release"`` when the first page
    says; ``fiscal_year`` the year the document calls its fiscal year; ``quarter`` 1–4 for a
    quarterly report; ``end`` the period's last day; ``report`` an 8-K's or a release's date;
    ``releases`` a changelog's range. Each is ``None`` when the document does not say.
    """

    form: Optional[str]
    fiscal_year: Optional[int]
    quarter: Optional[int]
    end: Optional[datetime.date]
    report: Optional[datetime.date]
    releases: Optional[Releases]

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Period":
        releases = d.get("releases")
        return cls(
            form=d.get("form"),
            fiscal_year=d.get("fiscal_year"),
            quarter=d.get("quarter"),
            end=_date(d.get("end")),
            report=_date(d.get("report")),
            releases=Releases(**releases) if releases else None,
        )


@dataclass(frozen=True)
class DocCard:
    """The light description of one document the Orchestrator reads (``docnav docs --json``).

    ``outline`` holds depth 1–2 headings as ``"2.1 Searching"``; ``bytes`` is the source size;
    ``node_count`` counts the tree's nodes, root included; ``fingerprint`` is the source's sha256;
    ``names`` the names the document goes by, best first (the entity its title names, tickers,
    its file's name, aliases it defines); ``period`` what it covers, ``None`` when it names no
    period.
    """

    doc_id: str
    title: str
    source: str
    format: str
    bytes: int
    node_count: int
    outline: List[str]
    summary: str
    top_terms: List[str]
    fingerprint: str
    names: List[str]
    period: Optional[Period]

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "DocCard":
        fields = {k: d[k] for k in cls.__dataclass_fields__ if k != "period"}
        period = d.get("period")
        return cls(**fields, period=Period._from(period) if period else None)


class PeriodMatch(TypedDict):
    """A named document's period (``label``, as ``Period`` reads) and how well it answers the
    question's period, ``score`` 0–9."""

    label: str
    score: int


class Scored(TypedDict):
    """A 1-based ``rank`` and its BM25 ``score``."""

    rank: int
    score: float


class RankReasons(TypedDict, total=False):
    """Why a DocCard ranks where it does (``docnav docs --for --json``'s ``why``); each key only
    when it applies: ``name`` the name the question used for the document, ``period`` its period
    match, ``section`` the rank and score of its best section among the workspace's best, ``card``
    the rank and score of its card among the cards."""

    name: str
    period: PeriodMatch
    section: Scored
    card: Scored


@dataclass(frozen=True)
class RankedDoc:
    """A DocCard as ranked for a question (``Workspace.docs_for``, ``docnav docs --for``).

    ``rank`` is 1-based; ``why`` the one-line reason the CLI prints (``name "Apple Inc." ·
    period … · section hit #1 (28.5) · card BM25 #1 (10.78)``); ``reasons`` its parts as
    ``docnav docs --for --json`` gives them (``name``, ``period``, ``section``, ``card``, each
    only when it applies).
    """

    rank: int
    why: str
    reasons: RankReasons
    card: DocCard

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "RankedDoc":
        return cls(rank=d["rank"], why=d["why"], reasons=d["reasons"], card=DocCard._from(d["card"]))


@dataclass(frozen=True)
class Node:
    """A node of a document's heading tree (``docnav tree --json``).

    ``structure`` is the dotted number (``"2.1"``; ``""`` for the root), ``lines``/``pages`` the
    node's own text (not its children's), ``token_count`` its estimated tokens, ``references`` the
    structure numbers of the sections it refers to.
    """

    structure: str
    title: str
    lines: Span
    pages: Span
    token_count: int
    references: List[str]
    children: List["Node"] = field(default_factory=list["Node"])
    paragraphs: Span = None

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Node":
        return cls(
            structure=d["structure"],
            title=d["title"],
            lines=_span(d.get("lines")),
            pages=_span(d.get("pages")),
            token_count=d["token_count"],
            references=list(d.get("references", [])),
            children=[cls._from(c) for c in d.get("children", [])],
            paragraphs=_span(d.get("paragraphs")),
        )

    def walk(self) -> Iterator["Node"]:
        """This node and every node below it, in reading order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def find(self, structure: str) -> Optional["Node"]:
        """The node numbered ``structure`` (``"2.1"``) in this subtree, or ``None``."""
        return next((n for n in self.walk() if n.structure == structure), None)


class TermContribution(TypedDict):
    """One query term's part of a BM25 score: ``tf`` its (weighted) occurrences in the unit,
    ``df`` the units holding it, ``idf`` Lucene's ``ln(1 + (N - df + 0.5) / (df + 0.5))``,
    ``contribution`` its part of the score."""

    term: str
    tf: float
    df: int
    idf: float
    contribution: float


class ScoreExplain(TypedDict):
    """How a BM25 score was computed (``ask --json``'s ``"explain"``): ``units`` (N) in the
    statistics, this unit's ``length`` and the ``average_length`` in (weighted) terms, and the
    query ``terms`` that occur in it, in query order."""

    units: int
    length: float
    average_length: float
    terms: List[TermContribution]


@dataclass(frozen=True)
class Evidence:
    """One passage of evidence, verbatim, with its exact location.

    ``path`` holds the titles from the first level below the root down to the section (empty for
    a whole document); ``score`` is the BM25 rerank score (0 for evidence a ``Session``
    collected); ``explain`` the score's terms when computed.
    """

    doc_id: str
    path: List[str]
    structure: str
    lines: Span
    pages: Span
    text: str
    score: float
    explain: Optional[ScoreExplain] = None
    paragraphs: Span = None

    @property
    def title_path(self) -> str:
        """``doc_id › title › … › section``."""
        return " › ".join([self.doc_id] + self.path)

    @property
    def location(self) -> str:
        """``"lines 40–88"``, ``"pages 3–5"``, ``"page 3"`` or ``""``."""
        return _location(self.lines, self.pages, self.paragraphs)

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Evidence":
        return cls(
            doc_id=d["doc_id"],
            path=list(d["path"]),
            structure=d["structure"],
            lines=_span(d.get("lines")),
            pages=_span(d.get("pages")),
            text=d["text"],
            score=float(d["score"]),
            explain=d.get("explain"),
            paragraphs=_span(d.get("paragraphs")),
        )


@dataclass(frozen=True)
class Verdict:
    """Whether the evidence answers the question: ``verdict`` is ``"sufficient"``,
    ``"insufficient"`` (``missing`` says what) or ``"absent"`` (the documents do not cover it);
    ``judged_by`` is ``"evaluate"``, ``"check <worker>"`` or ``"analyze"``."""

    verdict: str
    missing: str
    judged_by: str


@dataclass(frozen=True)
class WorkerFailure:
    """A Worker that failed (its document and task, and the error); the others' evidence stands."""

    worker: str
    doc_id: str
    task: str
    error: str


@dataclass(frozen=True)
class WorkerStats:
    """Commands (``steps``) and evidence items one Worker collected in its document."""

    doc_id: str
    steps: int
    evidence: int


@dataclass(frozen=True)
class AskStats:
    """What a run cost: model calls, prompt and completion tokens (as the server reported them),
    wall time in ms, dispatch rounds, and one entry per Worker."""

    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    wall_ms: int
    rounds: int
    workers: List[WorkerStats]


@dataclass(frozen=True)
class AnswerSentence:
    """One sentence of a written answer: the evidence numbers it cites (1-based ranks of
    ``Answer.evidence``), whether every citation holds (the numbers exist, quoted and backticked
    spans occur verbatim in the cited text), and why not."""

    text: str
    citations: List[int]
    supported: bool
    problem: Optional[str] = None


@dataclass(frozen=True)
class WrittenAnswer:
    """The answer ``ask(..., answer=True)`` writes and docnav verifies: ``text`` as people read it
    (sentences with ``[n]`` citations, unsupported ones marked, then ``Missing: …``), the verified
    ``sentences``, and ``missing`` when the verdict is not sufficient."""

    text: str
    sentences: List[AnswerSentence]
    missing: Optional[str] = None

    @property
    def supported(self) -> bool:
        """Whether every sentence's citations hold."""
        return all(s.supported for s in self.sentences)


@dataclass(frozen=True)
class Answer:
    """The answer to a question: ranked evidence (best first), the final verdict, Workers that
    failed, the run's stats, the written answer (``answer=True``) and the trace file when one was
    recorded."""

    question: str
    evidence: List[Evidence]
    verdict: Optional[Verdict]
    worker_errors: List[WorkerFailure]
    stats: AskStats
    trace: Optional[str] = None
    answer: Optional[WrittenAnswer] = None

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Answer":
        s = d["stats"]
        v = d.get("verdict")
        return cls(
            question=d["question"],
            evidence=[Evidence._from(e) for e in d["evidence"]],
            verdict=Verdict(**v) if v else None,
            worker_errors=[WorkerFailure(**w) for w in d.get("worker_errors", [])],
            stats=AskStats(
                llm_calls=s["llm_calls"],
                prompt_tokens=s["prompt_tokens"],
                completion_tokens=s["completion_tokens"],
                wall_ms=s["wall_ms"],
                rounds=s["rounds"],
                workers=[WorkerStats(**w) for w in s.get("workers", [])],
            ),
            trace=d.get("trace"),
            answer=_written(d.get("answer")),
        )


def _written(d: Optional[Dict[str, Any]]) -> Optional[WrittenAnswer]:
    if not d:
        return None
    return WrittenAnswer(
        text=d["text"],
        sentences=[
            AnswerSentence(
                text=s["text"],
                citations=list(s["citations"]),
                supported=bool(s["supported"]),
                problem=s.get("problem"),
            )
            for s in d.get("sentences", [])
        ],
        missing=d.get("missing"),
    )


class ReplayDetails(TypedDict, total=False):
    """The parts of a replay's verdict besides its status; which are there depends on it:
    ``identical`` has ``events``, ``model_replies`` and ``evidence``; ``identical_to_cut`` and
    ``failed_the_same_way`` ``events`` and ``error``; ``diverged`` ``actor`` (``orchestrator`` or
    a Worker), ``seq`` (the actor's event number), ``step`` (the Worker's, 0 before its first),
    ``expected`` and ``actual`` (the events, summarised), ``diff`` (lines) and ``message`` (the
    whole report); ``failed`` ``error``."""

    events: int
    model_replies: int
    evidence: int
    error: str
    actor: str
    seq: int
    step: int
    expected: str
    actual: str
    diff: List[str]
    message: str


@dataclass(frozen=True)
class ReplayReport:
    """The end of ``docnav.replay``: ``identical`` when every recorded event was reproduced (a
    trace cut by a crash counts up to its cut, a failed run when it fails the same way);
    ``status`` is ``identical``, ``identical_to_cut``, ``failed_the_same_way``, ``diverged`` or
    ``failed``; ``details`` the rest of the verdict (for ``diverged``: ``actor``, ``seq``,
    ``expected``, ``actual``, ``diff``, ``message``); ``notes`` what changed in the documents."""

    trace: str
    identical: bool
    status: str
    details: ReplayDetails
    notes: List[str]

    @property
    def message(self) -> str:
        """The one-paragraph report, as ``docnav replay`` prints it."""
        d = self.details
        if self.status == "identical":
            return (
                f"replay identical: {d.get('events')} events, {d.get('model_replies')} model "
                f"replies from the trace, {d.get('evidence')} evidence"
            )
        if self.status == "identical_to_cut":
            return f"replayed up to the cut: {d.get('events')} events identical ({d.get('error')})"
        if self.status == "failed_the_same_way":
            return f"replay identical: {d.get('events')} events; the recorded run failed the same way: {d.get('error')}"
        if self.status == "diverged":
            return str(d.get("message", "diverged"))
        return f"replay failed: {d.get('error')}"

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "ReplayReport":
        verdict = dict(d["verdict"])
        status = verdict.pop("status")
        return cls(
            trace=d["trace"],
            identical=bool(d["identical"]),
            status=status,
            details=cast(ReplayDetails, verdict),
            notes=list(d.get("notes", [])),
        )
