"""Type stubs of the Rust extension. Results are objects the extension builds: frozen, every field
a read-only attribute, equal when their fields are, pickled by them. Only a cluster shard's
statistics and hits cross as JSON text, between ``docnav.cluster``'s shards."""

import datetime
import os
import pathlib
from typing import Callable, Dict, Iterator, List, Optional, Tuple, Union

from ._types import RankReasons, ReplayDetails, ScoreExplain

__version__: str

class DocnavError(Exception): ...
class WorkspaceError(DocnavError): ...
class ModelError(DocnavError): ...
class CommandError(DocnavError): ...
class ReplayError(DocnavError): ...

class Workspace:
    def __init__(self, path: Union[str, os.PathLike[str]] = ".docnav") -> None: ...
    @property
    def path(self) -> pathlib.Path: ...
    @property
    def traces_dir(self) -> pathlib.Path: ...
    def index(
        self,
        paths: List[str],
        *,
        force: bool = False,
        prune: bool = False,
        jobs: Optional[int] = None,
        progress: Optional[Callable[[int, int, str], None]] = None,
    ) -> IndexReport: ...
    def docs(self) -> List[DocCard]: ...
    def docs_for(self, question: str, k: int = 10) -> List[RankedDoc]: ...
    def tree(self, doc_id: str) -> Node: ...
    def search(
        self,
        query: str,
        k: int = 10,
        doc_ids: Optional[List[str]] = None,
        budget: Optional[int] = None,
    ) -> List[SearchHit]: ...
    def sources(self, doc_ids: List[str]) -> Dict[str, str]: ...
    def exec(self, command: str, cwd: str = "/", budget: Optional[int] = None) -> str: ...
    def session(self, cwd: str = "/", budget: Optional[int] = None) -> Session: ...
    def start_ask(
        self,
        question: str,
        *,
        model: Optional[str] = None,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        timeout: Optional[float] = None,
        retries: Optional[int] = None,
        max_requests: Optional[int] = None,
        json_schema: bool = True,
        doc_ids: Optional[List[str]] = None,
        trace: Union[str, os.PathLike[str], None] = None,
        trace_dir: Union[str, os.PathLike[str], None] = None,
        max_steps: int = 12,
        rounds: int = 3,
        max_cards: int = 50,
        max_docs: int = 4,
        concurrency: int = 4,
        evidence_chars: int = 12_000,
        prompt_cap: int = 12_000,
        output_budget: int = 4_000,
        answer: bool = False,
        no_cache: bool = False,
    ) -> AskHandle: ...

class Session:
    @property
    def cwd(self) -> str: ...
    def exec(self, command: str) -> str: ...
    def evidence(self) -> List[Evidence]: ...
    def clear_evidence(self) -> None: ...

class SearchHit:
    """One ranked section of ``Workspace.search``: frozen, equal when its fields are, pickled by
    them. ``lines``/``pages`` are 1-based inclusive ``(first, last)`` or ``None``; ``score`` is
    BM25, higher is better; ``text`` the section cut to the budget at a line boundary,
    ``text_chars`` its whole length; ``highlights`` the snippet as ``(text, is_query_term)``
    parts; ``source`` the document's file."""

    def __init__(
        self,
        doc_id: str,
        path: str,
        titles: List[str],
        structure: str,
        lines: Optional[Tuple[int, int]],
        pages: Optional[Tuple[int, int]],
        score: float,
        text: str,
        text_chars: int,
        snippet: str,
        highlights: List[Tuple[str, bool]],
        source: str = "",
    ) -> None: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def titles(self) -> List[str]: ...
    @property
    def structure(self) -> str: ...
    @property
    def lines(self) -> Optional[Tuple[int, int]]: ...
    @property
    def pages(self) -> Optional[Tuple[int, int]]: ...
    @property
    def score(self) -> float: ...
    @property
    def text(self) -> str: ...
    @property
    def text_chars(self) -> int: ...
    @property
    def snippet(self) -> str: ...
    @property
    def highlights(self) -> List[Tuple[str, bool]]: ...
    @property
    def source(self) -> str: ...
    @property
    def title_path(self) -> str:
        """``"ripgrep-faq › FAQ › Does ripgrep support …"``: the document id, then ``titles``."""
    @property
    def truncated(self) -> bool:
        """Whether ``text`` is cut (``text_chars`` is more than its length)."""
    @property
    def location(self) -> str:
        """``"lines 40–88"``, ``"pages 3–5"``, ``"page 3"`` or ``""``, as ``Evidence.location``."""

class IndexReport:
    """What ``Workspace.index`` did: frozen, equal when its fields are, pickled by them.
    ``errors`` and ``warnings`` are one line each, naming the input (a failed file keeps its
    previous state; the others are indexed); ``notices`` say what the run did beyond the inputs
    (an older workspace rebuilt, a damaged search index repaired, a duplicate kept as an alias);
    ``duplicates`` counts the sources kept as aliases; ``bytes_built`` bytes of source read and
    built; ``elapsed_ms`` the run's wall time."""

    def __init__(
        self,
        indexed: int,
        unchanged: int,
        failed: int,
        pruned: int,
        duplicates: int,
        errors: List[str],
        warnings: List[str],
        notices: List[str],
        bytes_built: int,
        elapsed_ms: float,
    ) -> None: ...
    @property
    def indexed(self) -> int: ...
    @property
    def unchanged(self) -> int: ...
    @property
    def failed(self) -> int: ...
    @property
    def pruned(self) -> int: ...
    @property
    def duplicates(self) -> int: ...
    @property
    def errors(self) -> List[str]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def notices(self) -> List[str]: ...
    @property
    def bytes_built(self) -> int: ...
    @property
    def elapsed_ms(self) -> float: ...

class Releases:
    """The releases a changelog covers: its newest and oldest version headings as written
    (``"v2.10.0"``, ``"1.0"``) and how many version headings it has."""

    def __init__(self, newest: str, oldest: str, count: int) -> None: ...
    @property
    def newest(self) -> str: ...
    @property
    def oldest(self) -> str: ...
    @property
    def count(self) -> int: ...

class Period:
    """The period a document covers, read from it when it was indexed: ``form`` (``"10-K"``,
    ``"10-Q"``, ``"8-K"``, ``"earnings release"``), ``fiscal_year``, ``quarter`` 1–4, ``end``
    the period's last day, ``report`` an 8-K's or a release's date, ``releases`` a changelog's
    range; each ``None`` when the document does not say."""

    def __init__(
        self,
        form: Optional[str],
        fiscal_year: Optional[int],
        quarter: Optional[int],
        end: Optional[datetime.date],
        report: Optional[datetime.date],
        releases: Optional[Releases],
    ) -> None: ...
    @property
    def form(self) -> Optional[str]: ...
    @property
    def fiscal_year(self) -> Optional[int]: ...
    @property
    def quarter(self) -> Optional[int]: ...
    @property
    def end(self) -> Optional[datetime.date]: ...
    @property
    def report(self) -> Optional[datetime.date]: ...
    @property
    def releases(self) -> Optional[Releases]: ...

class DocCard:
    """The light description of one document the Orchestrator reads (``docnav docs --json``):
    ``format`` (``"markdown"``, ``"pdf"``, ``"text"``, ``"html"``, ``"docx"``, ``"epub"``),
    ``bytes`` the source size, ``node_count`` the tree's nodes with the root, ``outline`` depth
    1–2 headings as ``"2.1 Searching"``, ``fingerprint`` the source's sha256, ``names`` the
    names the document goes by (best first), ``period`` what it covers (``None`` when it names
    no period)."""

    def __init__(
        self,
        doc_id: str,
        title: str,
        source: str,
        format: str,
        bytes: int,
        node_count: int,
        outline: List[str],
        summary: str,
        top_terms: List[str],
        fingerprint: str,
        names: List[str],
        period: Optional[Period],
    ) -> None: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def bytes(self) -> int: ...
    @property
    def node_count(self) -> int: ...
    @property
    def outline(self) -> List[str]: ...
    @property
    def summary(self) -> str: ...
    @property
    def top_terms(self) -> List[str]: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def names(self) -> List[str]: ...
    @property
    def period(self) -> Optional[Period]: ...

class RankedDoc:
    """A DocCard as ranked for a question (``Workspace.docs_for``, ``docnav docs --for``):
    ``rank`` 1-based, ``why`` the one-line reason the CLI prints, ``reasons`` its parts as
    ``docnav docs --for --json`` gives them (each only when it applies)."""

    def __init__(self, rank: int, why: str, reasons: RankReasons, card: DocCard) -> None: ...
    @property
    def rank(self) -> int: ...
    @property
    def why(self) -> str: ...
    @property
    def reasons(self) -> RankReasons: ...
    @property
    def card(self) -> DocCard: ...

class Node:
    """A node of a document's heading tree (``docnav tree --json``): ``structure`` the dotted
    number (``"2.1"``; ``""`` for the root), ``lines``/``pages``/``paragraphs`` the node's own
    text (not its children's), ``token_count`` its estimated tokens, ``references`` the
    structure numbers of the sections it refers to."""

    def __init__(
        self,
        structure: str,
        title: str,
        lines: Optional[Tuple[int, int]],
        pages: Optional[Tuple[int, int]],
        token_count: int,
        references: List[str],
        children: List[Node] = [],
        paragraphs: Optional[Tuple[int, int]] = None,
    ) -> None: ...
    @property
    def structure(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def lines(self) -> Optional[Tuple[int, int]]: ...
    @property
    def pages(self) -> Optional[Tuple[int, int]]: ...
    @property
    def token_count(self) -> int: ...
    @property
    def references(self) -> List[str]: ...
    @property
    def children(self) -> List[Node]: ...
    @property
    def paragraphs(self) -> Optional[Tuple[int, int]]: ...
    def walk(self) -> Iterator[Node]:
        """This node and every node below it, in reading order."""
    def find(self, structure: str) -> Optional[Node]:
        """The node numbered ``structure`` (``"2.1"``) in this subtree, or ``None``."""

class Evidence:
    """One passage of evidence, verbatim, with its exact location: ``path`` the titles from the
    first level below the root down to the section (empty for a whole document), ``score`` the
    BM25 rerank score (0 for evidence a ``Session`` collected), ``explain`` the score's terms
    when computed."""

    def __init__(
        self,
        doc_id: str,
        path: List[str],
        structure: str,
        lines: Optional[Tuple[int, int]],
        pages: Optional[Tuple[int, int]],
        text: str,
        score: float,
        explain: Optional[ScoreExplain] = None,
        paragraphs: Optional[Tuple[int, int]] = None,
    ) -> None: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def path(self) -> List[str]: ...
    @property
    def structure(self) -> str: ...
    @property
    def lines(self) -> Optional[Tuple[int, int]]: ...
    @property
    def pages(self) -> Optional[Tuple[int, int]]: ...
    @property
    def text(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def explain(self) -> Optional[ScoreExplain]: ...
    @property
    def paragraphs(self) -> Optional[Tuple[int, int]]: ...
    @property
    def title_path(self) -> str:
        """``doc_id › title › … › section``."""
    @property
    def location(self) -> str:
        """``"lines 40–88"``, ``"pages 3–5"``, ``"page 3"``, ``"paragraphs 2–4"`` or ``""``."""

class Verdict:
    """Whether the evidence answers the question: ``verdict`` is ``"sufficient"``,
    ``"insufficient"`` (``missing`` says what) or ``"absent"``; ``judged_by`` is
    ``"evaluate"``, ``"check <worker>"`` or ``"analyze"``."""

    def __init__(self, verdict: str, missing: str, judged_by: str) -> None: ...
    @property
    def verdict(self) -> str: ...
    @property
    def missing(self) -> str: ...
    @property
    def judged_by(self) -> str: ...

class WorkerFailure:
    """A Worker that failed (its document and task, and the error); the others' evidence stands."""

    def __init__(self, worker: str, doc_id: str, task: str, error: str) -> None: ...
    @property
    def worker(self) -> str: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def error(self) -> str: ...

class WorkerStats:
    """Commands (``steps``) and evidence items one Worker collected in its document."""

    def __init__(self, doc_id: str, steps: int, evidence: int) -> None: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def steps(self) -> int: ...
    @property
    def evidence(self) -> int: ...

class AskStats:
    """What a run cost: model calls, prompt and completion tokens (as the server reported them),
    wall time in ms, dispatch rounds, and one entry per Worker."""

    def __init__(
        self,
        llm_calls: int,
        prompt_tokens: int,
        completion_tokens: int,
        wall_ms: int,
        rounds: int,
        workers: List[WorkerStats],
    ) -> None: ...
    @property
    def llm_calls(self) -> int: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def wall_ms(self) -> int: ...
    @property
    def rounds(self) -> int: ...
    @property
    def workers(self) -> List[WorkerStats]: ...

class AnswerSentence:
    """One sentence of a written answer: the evidence numbers it cites (1-based ranks of
    ``Answer.evidence``), whether every citation holds, and why not."""

    def __init__(
        self, text: str, citations: List[int], supported: bool, problem: Optional[str] = None
    ) -> None: ...
    @property
    def text(self) -> str: ...
    @property
    def citations(self) -> List[int]: ...
    @property
    def supported(self) -> bool: ...
    @property
    def problem(self) -> Optional[str]: ...

class WrittenAnswer:
    """The answer ``ask(..., answer=True)`` writes and docnav verifies: ``text`` as people read
    it, the verified ``sentences``, and ``missing`` when the verdict is not sufficient."""

    def __init__(
        self, text: str, sentences: List[AnswerSentence], missing: Optional[str] = None
    ) -> None: ...
    @property
    def text(self) -> str: ...
    @property
    def sentences(self) -> List[AnswerSentence]: ...
    @property
    def missing(self) -> Optional[str]: ...
    @property
    def supported(self) -> bool:
        """Whether every sentence's citations hold."""

class Answer:
    """The answer to a question: ranked evidence (best first), the final verdict, Workers that
    failed, the run's stats, the written answer (``answer=True``) and the trace file when one
    was recorded."""

    def __init__(
        self,
        question: str,
        evidence: List[Evidence],
        verdict: Optional[Verdict],
        worker_errors: List[WorkerFailure],
        stats: AskStats,
        trace: Optional[str] = None,
        answer: Optional[WrittenAnswer] = None,
    ) -> None: ...
    @property
    def question(self) -> str: ...
    @property
    def evidence(self) -> List[Evidence]: ...
    @property
    def verdict(self) -> Optional[Verdict]: ...
    @property
    def worker_errors(self) -> List[WorkerFailure]: ...
    @property
    def stats(self) -> AskStats: ...
    @property
    def trace(self) -> Optional[str]: ...
    @property
    def answer(self) -> Optional[WrittenAnswer]: ...

class AskHandle:
    def wait(self, timeout: Optional[float] = None) -> bool: ...
    def cancel(self) -> None: ...
    def done(self) -> bool: ...
    def result(self) -> Answer: ...

class ReplayReport:
    """The end of ``docnav.replay``: ``identical`` when every recorded event was reproduced (a
    trace cut by a crash counts up to its cut, a failed run when it fails the same way);
    ``status`` is ``identical``, ``identical_to_cut``, ``failed_the_same_way``, ``diverged`` or
    ``failed``; ``details`` the rest of the verdict (for ``diverged``: ``actor``, ``seq``,
    ``step``, ``expected``, ``actual``, ``diff``, ``message``); ``notes`` what changed in the
    documents."""

    def __init__(
        self, trace: str, identical: bool, status: str, details: ReplayDetails, notes: List[str]
    ) -> None: ...
    @property
    def trace(self) -> str: ...
    @property
    def identical(self) -> bool: ...
    @property
    def status(self) -> str: ...
    @property
    def details(self) -> ReplayDetails: ...
    @property
    def notes(self) -> List[str]: ...
    @property
    def message(self) -> str:
        """The one-paragraph report, as ``docnav replay`` prints it."""

def replay(
    trace_path: Union[str, os.PathLike[str]], workspace: Union[str, os.PathLike[str]]
) -> ReplayReport: ...

# docnav.cluster: shard keys, a query's statistics, a search scored with merged statistics and
# the merge of the shards' hits (a shard's hits cross as JSON text; the merge gives SearchHits).
def shard_key_of_id(doc_id: str) -> str: ...
def shard_key_of_source(path: str) -> str: ...
def collect_sources(args: List[str]) -> Tuple[List[str], List[str]]: ...
def query_statistics_json(
    workspace: Workspace, query: str, doc_ids: Optional[List[str]] = None
) -> str: ...
def merge_statistics_json(parts: List[str]) -> str: ...
def search_shard_json(
    workspace: Workspace,
    query: str,
    stats: str,
    k: int,
    doc_ids: Optional[List[str]] = None,
    budget: Optional[int] = None,
) -> str: ...
def merge_search(
    query: str, shards: List[str], k: int, doc_ids: Optional[List[str]] = None
) -> List[SearchHit]: ...

# docnav.cluster: the ranking of docs_for in two rounds (statistics, then each shard's part
# scored with their sums; both cross as JSON text; the merge gives RankedDocs).
def rank_statistics_json(workspace: Workspace, question: str) -> str: ...
def merge_rank_statistics_json(parts: List[str]) -> str: ...
def rank_shard_json(workspace: Workspace, question: str, stats: str, k: int) -> str: ...
def merge_docs_for(stats: str, parts: List[str], k: int) -> List[RankedDoc]: ...

# docnav.cluster: ShardedWorkspace.ask. The Orchestrator runs in the driver over every shard's
# catalog (catalog_json: {"cards": [DocCard as JSON], "aliases": [[alias, doc_id]]}); `rank`
# (question -> (merged RankStatistics JSON, [each shard's ShardRanking JSON])) ranks the catalog
# over every shard; `run_worker` (doc_id, WorkerRequest JSON -> (shard, WorkerReply JSON)) runs
# a Worker in its document's shard, where run_worker_json runs it (a failed Worker is a reply
# whose outcome has `error` set; an exception raised by `run_worker` is the Worker's error).
def catalog_json(workspace: Workspace) -> str: ...
def catalog_version(workspace: Workspace) -> str: ...
class ShardCards:
    """Every shard's catalog_json parsed once; ValueError for one that does not parse."""
    def __init__(self, catalogs: List[str]) -> None: ...

def run_worker_json(
    workspace: Workspace,
    request: str,
    *,
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    timeout: Optional[float] = None,
    retries: Optional[int] = None,
    max_requests: Optional[int] = None,
    json_schema: bool = True,
) -> str: ...
def start_sharded_ask(
    cards: ShardCards,
    shard_paths: List[str],
    question: str,
    rank: Callable[[str], Tuple[str, List[str]]],
    run_worker: Callable[[str, str], Tuple[int, str]],
    *,
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    timeout: Optional[float] = None,
    retries: Optional[int] = None,
    max_requests: Optional[int] = None,
    json_schema: bool = True,
    doc_ids: Optional[List[str]] = None,
    trace: Union[str, os.PathLike[str], None] = None,
    trace_dir: Union[str, os.PathLike[str], None] = None,
    max_steps: int = 12,
    rounds: int = 3,
    max_cards: int = 50,
    max_docs: int = 4,
    concurrency: int = 4,
    evidence_chars: int = 12_000,
    prompt_cap: int = 12_000,
    output_budget: int = 4_000,
    answer: bool = False,
) -> AskHandle: ...
def replay_worker_json(workspace: Workspace, request: str, recorded: str) -> str: ...
def replay_sharded(
    trace_path: Union[str, os.PathLike[str]],
    cards: ShardCards,
    rank: Callable[[str], Tuple[str, List[str]]],
    run_worker: Callable[[str, str, str], Tuple[int, str]],
) -> ReplayReport: ...
