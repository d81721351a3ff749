"""Type stubs of the Rust extension. Search hits and index reports are objects the extension builds;
the other structured results are JSON text in the shapes of the CLI's ``--json`` output, which
``docnav.Workspace`` parses into the dataclasses of ``docnav._types``."""

import os
import pathlib
from typing import Callable, Dict, List, Optional, Tuple, Union

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
    def docs_json(self) -> str: ...
    def docs_for_json(self, question: str, k: int = 10) -> str: ...
    def tree_json(self, doc_id: str) -> str: ...
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
    def evidence_json(self) -> str: ...
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

class AskHandle:
    def wait(self, timeout: Optional[float] = None) -> bool: ...
    def cancel(self) -> None: ...
    def done(self) -> bool: ...
    def result(self) -> str: ...

def replay_json(
    trace_path: Union[str, os.PathLike[str]], workspace: Union[str, os.PathLike[str]]
) -> str: ...

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
