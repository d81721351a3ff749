"""docnav: vectorless, reasoning-based retrieval. Documents become heading trees that an LLM agent
navigates like a filesystem; what comes back is the documents' own text with exact locations.

    >>> import docnav
    >>> ws = docnav.Workspace(".docnav")
    >>> ws.index(["docs/"])                      # IndexReport
    >>> ws.search("compressed files", k=3)       # list[SearchHit], no model
    >>> ws.ask("How do I search compressed files?")  # Answer (needs a model)

Errors are ``DocnavError`` subclasses: ``WorkspaceError``, ``ModelError``, ``CommandError``,
``ReplayError``; each message is the CLI's, naming the input and what to do.
"""

from ._native import (
    CommandError,
    DocnavError,
    ModelError,
    ReplayError,
    WorkspaceError,
    __version__,
)
from ._types import (
    Answer,
    AnswerSentence,
    AskStats,
    DocCard,
    Evidence,
    IndexReport,
    Node,
    Period,
    PeriodMatch,
    RankedDoc,
    RankReasons,
    Releases,
    ReplayDetails,
    ReplayReport,
    Scored,
    ScoreExplain,
    SearchHit,
    TermContribution,
    Verdict,
    WorkerFailure,
    WorkerStats,
    WrittenAnswer,
)
from ._workspace import Session, Workspace, replay

__all__ = [
    "Answer",
    "AnswerSentence",
    "AskStats",
    "CommandError",
    "DocCard",
    "DocnavError",
    "Evidence",
    "IndexReport",
    "ModelError",
    "Node",
    "Period",
    "PeriodMatch",
    "RankReasons",
    "RankedDoc",
    "Releases",
    "ReplayDetails",
    "ReplayError",
    "ReplayReport",
    "ScoreExplain",
    "Scored",
    "SearchHit",
    "Session",
    "TermContribution",
    "Verdict",
    "WorkerFailure",
    "WorkerStats",
    "Workspace",
    "WorkspaceError",
    "WrittenAnswer",
    "__version__",
    "replay",
]
