"""The typed results of docnav's Python API. The extension (``docnav._native``) builds them as
frozen objects whose fields are read-only attributes, equal when their fields are and pickled by
them, declared once in Rust and in its stub (``docnav/_native.pyi``); the fields are those of the
CLI's ``--json`` output (``docs``, ``tree``, ``ask``), so a script and a shell pipeline see the
same. The dictionaries some of them carry (``RankedDoc.reasons``, ``Evidence.explain``,
``ReplayReport.details``) are typed here.

Units: ``lines``, ``pages`` and ``paragraphs`` are 1-based inclusive ``(first, last)`` pairs
(Markdown, text and HTML documents have lines, PDF documents pages, Word documents paragraphs;
the others are ``None``; EPUB chapters have none); sizes are bytes; text lengths
are chars (Unicode code points); tokens are estimated as chars / 4; times are milliseconds.
"""

from __future__ import annotations

from typing import List, TypedDict

from ._native import Answer as Answer
from ._native import AnswerSentence as AnswerSentence
from ._native import AskStats as AskStats
from ._native import DocCard as DocCard
from ._native import Evidence as Evidence
from ._native import IndexReport as IndexReport
from ._native import Node as Node
from ._native import Period as Period
from ._native import RankedDoc as RankedDoc
from ._native import Releases as Releases
from ._native import ReplayReport as ReplayReport
from ._native import SearchHit as SearchHit
from ._native import Verdict as Verdict
from ._native import WorkerFailure as WorkerFailure
from ._native import WorkerStats as WorkerStats
from ._native import WrittenAnswer as WrittenAnswer


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
