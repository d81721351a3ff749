"""``Workspace`` and ``Session``: the Python face of docnav, over the Rust extension
(``docnav._native``). Every method runs the same code as the CLI command named in its docstring;
long work runs with the GIL released."""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import AskHandle, WorkspaceError
from ._types import (
    Answer,
    DocCard,
    Evidence,
    IndexReport,
    Node,
    RankedDoc,
    ReplayReport,
    SearchHit,
)

PathLike = Union[str, "os.PathLike[str]"]
TraceArg = Union[None, bool, PathLike]
Progress = Callable[[int, int, str], None]


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


class Workspace:
    """A docnav workspace: the folder ``docnav index`` writes (default ``.docnav``).

    Opening reads nothing; the first call does. An index run that commits (from this object,
    another ``Workspace`` or a ``docnav index`` in another process) is seen by the next call.
    A ``Workspace`` is shared by threads as it is, pickles as its path (so it crosses to
    spawn-mode ``multiprocessing`` workers, which open it again) and is a context manager:
    ``with Workspace(p) as ws:`` closes it at the end (``close()``); a closed workspace raises
    ``WorkspaceError`` from every method.

    Raises ``WorkspaceError`` from any method when there is no workspace yet (index first), when
    it is damaged, or when it was written by an older docnav (re-index).
    """

    def __init__(self, path: PathLike = ".docnav") -> None:
        self._path = os.fspath(path)
        self._opened: Optional[_native.Workspace] = _native.Workspace(self._path)

    @property
    def _native(self) -> _native.Workspace:
        opened = self._opened
        if opened is None:
            raise WorkspaceError(
                f"workspace `{self._path}` is closed (open it again: docnav.Workspace({self._path!r}))"
            )
        return opened

    @property
    def path(self) -> str:
        """The workspace folder."""
        return self._path

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._opened is None

    def close(self) -> None:
        """Let go of the opened workspace (its catalog, search index and cached documents, once
        no ``Session`` or running ``ask`` of it holds them). Closing twice does nothing."""
        self._opened = None

    def __enter__(self) -> "Workspace":
        self._native  # a closed workspace cannot be entered
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __reduce__(self) -> Tuple[Any, Tuple[str]]:
        # By path: the other side (a process, a deep copy) opens the workspace afresh.
        return (Workspace, (self._path,))

    def __repr__(self) -> str:
        return f"Workspace({self.path!r})"

    def index(
        self,
        paths: Union[PathLike, Iterable[PathLike]],
        *,
        force: bool = False,
        prune: bool = False,
        jobs: Optional[int] = None,
        progress: Optional[Progress] = None,
    ) -> IndexReport:
        """Index files, folders (searched recursively) or globs, as ``docnav index``.

        Unchanged files are skipped (``force=True`` rebuilds them); ``prune=True`` drops
        documents whose source is gone; ``jobs`` threads (default: all cores). ``progress`` is
        called as ``progress(done, total, path)`` from indexing threads after each file (first
        with ``done=0``). A file that fails is one line in ``report.errors`` and the run goes on;
        the workspace is committed atomically at the end. Ctrl-C (``KeyboardInterrupt``) or an
        exception raised by ``progress`` stops the run: the files not begun are skipped, nothing
        is committed (the workspace stays as it was), and the exception is raised once the run
        has stopped. Raises ``WorkspaceError`` when the workspace cannot be created, locked or
        written.
        """
        return self._native.index(
            _paths(paths), force=force, prune=prune, jobs=jobs, progress=progress
        )

    def docs(self) -> List[DocCard]:
        """Every document's DocCard, in catalog order (``docnav docs --json``)."""
        return self._native.docs()

    def docs_for(self, question: str, k: int = 10) -> List[RankedDoc]:
        """The first ``k`` (1–50) DocCards as ``ask``'s Orchestrator ranks them for ``question``
        (``docnav docs --for``): a document the question names first, the one whose period it
        asks about first among them, then section hits and BM25 over the cards; each with
        ``why`` it ranks there. Raises ``ValueError`` for an empty question or ``k`` out of
        range, ``WorkspaceError`` (the CLI's message, naming the file and saying to re-index)
        when the catalog's cards do not decode."""
        return self._native.docs_for(question, k)

    def tree(self, doc_id: str) -> Node:
        """The heading tree of ``doc_id``, root first (``docnav tree --json``). Raises
        ``WorkspaceError`` for an unknown id."""
        return self._native.tree(doc_id)

    def search(
        self,
        query: str,
        k: int = 10,
        doc_ids: Optional[Sequence[str]] = None,
        *,
        budget: Optional[int] = 800,
    ) -> List[SearchHit]:
        """The ``k`` (1–50) best sections for ``query`` by BM25 over the section index, no model
        involved (what ``docnav ask --lexical`` ranks), best score first, optionally only in
        ``doc_ids``; each hit's text cut to ``budget`` chars at a line boundary (``None``: the
        whole section; ``hit.text_chars`` is always the whole length). Raises ``ValueError`` for
        an empty query or a ``k`` out of range, ``WorkspaceError`` for an unknown id in
        ``doc_ids``."""
        return self._native.search(
            query, k, list(doc_ids) if doc_ids is not None else None, budget
        )

    def sources(self, doc_ids: Iterable[str]) -> Dict[str, str]:
        """The source file of each of ``doc_ids`` as ``{doc_id: source}`` (an unknown id is left
        out), reading only those DocCards."""
        return self._native.sources(list(doc_ids))

    def exec(self, command: str, cwd: str = "/", *, budget: Optional[int] = None) -> str:
        """Run one command of the navigation language from ``cwd`` and return its output, as
        ``docnav exec`` (``ls``, ``tree``, ``cat``, ``find``, ``grep``… — ``help`` lists them).
        ``budget`` caps the output in chars (default 4,000). Raises ``CommandError`` with the
        command's message when it reports an error."""
        return self._native.exec(command, cwd, budget)

    def session(self, cwd: str = "/", *, budget: Optional[int] = None) -> "Session":
        """A stateful session at ``cwd``: ``cd`` moves it and ``cat`` collects evidence, as in
        ``docnav shell``. Raises ``CommandError`` when ``cwd`` does not resolve."""
        return Session(self._native.session(cwd, budget))

    def _start_ask(
        self,
        question: str,
        doc_ids: Optional[Sequence[str]],
        trace: TraceArg,
        options: Dict[str, Any],
    ) -> AskHandle:
        trace_file: Optional[str] = None
        trace_dir: Optional[PathLike] = None
        if trace is True:
            trace_dir = self._native.traces_dir
        elif trace is None:
            env_dir = os.environ.get("DOCNAV_TRACE_DIR")
            trace_dir = env_dir or None
        elif trace is not False:
            trace_file = os.fspath(trace)
        return self._native.start_ask(
            question,
            doc_ids=list(doc_ids) if doc_ids else None,
            trace=trace_file,
            trace_dir=trace_dir,
            **options,
        )

    def ask(
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
        doc_ids: Optional[Sequence[str]] = None,
        trace: TraceArg = None,
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
    ) -> Answer:
        """Ask the agent, as ``docnav ask --json``: ranked evidence, the verdict, failed
        Workers, stats.

        The model speaks the OpenAI chat-completions protocol. Its settings are the CLI's flags:
        ``model``, ``base_url`` and ``api_key`` default to ``DOCNAV_MODEL``,
        ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``; ``timeout`` per request in seconds (60),
        ``retries`` on 429/5xx/timeouts (3), ``max_requests`` concurrent requests (4),
        ``json_schema=False`` sends no ``response_format`` (``--no-json-schema``, for servers
        that reject it, such as llama-cpp-python's).
        ``doc_ids`` skips document selection. ``trace``: a file path records the run there;
        ``True`` records a new file in the workspace's ``traces/``; ``None`` uses
        ``DOCNAV_TRACE_DIR`` when set; ``False`` records nothing. The agent's budgets, with the
        CLI's names and defaults: ``max_steps`` commands per Worker (12), ``rounds`` (3),
        ``max_cards`` DocCards shown (50, at most 200), ``max_docs`` Workers per round (4),
        ``evidence_chars`` per Worker (12,000), ``prompt_cap`` estimated tokens per prompt
        (12,000, at least 1,000), and ``answer=True``: one more call writes an answer whose
        citations docnav verifies (``Answer.answer``, as ``docnav ask --answer``); also
        ``concurrency`` Workers at once (4) and ``output_budget`` chars per command (4,000).

        The same question (up to case, spaces and end punctuation) with the same options, asked
        before over documents unchanged since and recorded, is answered from that recording at
        once, without a model call, as ``docnav ask`` does: ``Answer.trace`` is that recording
        (copied to ``trace`` when it is a file path). ``no_cache=True`` asks afresh (``--no-cache``).

        Runs with the GIL released; Ctrl-C (``KeyboardInterrupt``) cancels the run within
        0.1 s and finishes its trace. Raises ``ModelError`` when no model is configured (the
        message says what to set), a setting is invalid or the model fails; ``WorkspaceError``
        for an unknown document or workspace failures; ``TypeError`` for an unknown keyword.
        """
        handle = self._start_ask(
            question, doc_ids, trace, _ask_options(locals())
        )
        try:
            while not handle.wait(0.1):
                pass
        except BaseException:
            handle.cancel()
            handle.wait(5.0)
            raise
        return handle.result()

    async def ask_async(
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
        doc_ids: Optional[Sequence[str]] = None,
        trace: TraceArg = None,
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
    ) -> Answer:
        """``ask`` for asyncio: awaits the run without blocking the event loop; cancelling the
        awaiting task cancels the run (its trace is finished). Same arguments and errors."""
        import asyncio

        handle = self._start_ask(
            question, doc_ids, trace, _ask_options(locals())
        )
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, handle.wait, None)
        except BaseException:
            handle.cancel()
            raise
        return handle.result()


#: The keyword arguments of ``ask`` passed to the extension as they are.
_ASK_OPTIONS = (
    "model",
    "base_url",
    "api_key",
    "timeout",
    "retries",
    "max_requests",
    "json_schema",
    "max_steps",
    "rounds",
    "max_cards",
    "max_docs",
    "concurrency",
    "evidence_chars",
    "prompt_cap",
    "output_budget",
    "answer",
    "no_cache",
)


def _ask_options(arguments: Dict[str, Any]) -> Dict[str, Any]:
    return {name: arguments[name] for name in _ASK_OPTIONS}


class Session:
    """A navigation session (``Workspace.session``): the shell's language with a cursor and the
    evidence ``cat`` collected, over the workspace as it was when the session started."""

    def __init__(self, native: _native.Session) -> None:
        self._native = native

    @property
    def cwd(self) -> str:
        """Where the session is (``/`` or ``/doc_id/#2.1``)."""
        return self._native.cwd

    def exec(self, command: str) -> str:
        """Run one command line and return its output. Raises ``CommandError`` when the command
        reports an error (the session is unchanged)."""
        return self._native.exec(command)

    def __call__(self, command: str) -> str:
        return self.exec(command)

    def evidence(self) -> List[Evidence]:
        """What ``cat`` collected so far, in reading order, with exact locations."""
        return self._native.evidence()

    def clear_evidence(self) -> None:
        """Forget the collected evidence."""
        self._native.clear_evidence()


def replay(trace_path: PathLike, workspace: Union[PathLike, Workspace] = ".docnav") -> ReplayReport:
    """Re-run the trace at ``trace_path`` over ``workspace`` with the recorded model replies and
    report whether it is identical, as ``docnav replay``. Raises ``ReplayError`` for a trace
    that cannot be read, one of an older format, or one whose documents are no longer indexed;
    ``WorkspaceError`` for the workspace."""
    ws = workspace.path if isinstance(workspace, Workspace) else os.fspath(workspace)
    return _native.replay(os.fspath(trace_path), ws)
