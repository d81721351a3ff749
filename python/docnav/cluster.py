"""``docnav.cluster``: a corpus past one machine, on Ray (the ``ray`` extra:
``pip install "docnav[ray]"``).

``build_shards`` splits the sources into N ordinary workspaces (``out/shard-00``, ``shard-01``…)
indexed by Ray tasks wherever the cluster has room; ``ShardedWorkspace`` holds one Ray actor per
shard and searches them as one workspace holding every document: each shard first reports the
query's statistics (sections, their length, the document frequency of each term), the sums are
sent back, each shard scores with them (tantivy's ``Bm25StatisticsProvider``, as Elasticsearch's
"DFS query then fetch"), and the hits are merged in the order one workspace gives — the same hits
and scores. ``docs``, ``tree`` and ``exec`` go to the shard that holds the document.

A document goes to the shard given by the sha256 of its id's shard key (its id without the
``-2``, ``-3``… suffixes that make ids unique), so documents whose ids could collide share a
shard and ids are unique across shards. The Rust core does the statistics, the scoring and the
merge; this module only moves them between Ray workers. A shard whose actor or task dies raises
``ShardError`` naming it: never a partial answer.

``ShardedWorkspace.ask`` runs the Orchestrator in this process over the cards of every shard
(gathered on the first ``ask``, then again only from a shard whose catalog changed), its pre-rank and catalog searches ranked over every shard (as ``docs_for``), and each Worker in
the actor of the shard holding its document, with a model client of its own (the same
settings); the Worker's outcome, events and the trees it read come back to the Orchestrator.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import threading
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import DocnavError
from ._types import Answer, DocCard, IndexReport, Node, RankedDoc, ReplayReport, SearchHit
from ._workspace import PathLike, TraceArg, Workspace, _paths

__all__ = [
    "ShardError",
    "ShardReport",
    "ShardedWorkspace",
    "build_shards",
    "shard_of",
    "shard_paths",
]


class ShardError(DocnavError):
    """A shard's Ray actor or task died, could not be reached in time or failed; ``shard`` is
    its number and ``path`` its workspace. The call gives no partial answer."""

    def __init__(self, message: str, shard: int = -1, path: str = "") -> None:
        super().__init__(message)
        self.shard = shard
        self.path = path

    def __reduce__(self) -> Tuple[Any, Tuple[str, int, str]]:
        return (ShardError, (str(self), self.shard, self.path))


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise DocnavError(
            'docnav.cluster needs Ray: pip install "docnav[ray]" (or "ray[default]>=2.9")'
        ) from e
    return ray


def _bucket(key: str, shards: int) -> int:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shards


def shard_of(doc_id: str, shards: int) -> int:
    """The shard (0 to ``shards`` − 1) that holds document ``doc_id``: the first 8 bytes of the
    sha256 of its shard key, big-endian, modulo ``shards`` — the same on every machine and run
    (unlike Python's ``hash``). Raises ``ValueError`` for ``shards`` < 1."""
    if shards < 1:
        raise ValueError(f"shards must be at least 1, not {shards}")
    return _bucket(_native.shard_key_of_id(doc_id), shards)


def _shard_of_source(path: str, shards: int) -> int:
    return _bucket(_native.shard_key_of_source(path), shards)


def shard_paths(out: PathLike, shards: int) -> List[str]:
    """The workspaces ``build_shards(…, out, shards)`` writes: ``out/shard-00`` onwards."""
    return [os.path.join(os.fspath(out), f"shard-{i:02d}") for i in range(shards)]


@dataclass(frozen=True)
class ShardReport:
    """What ``build_shards`` did in one shard: its number, workspace and index report."""

    shard: int
    path: str
    report: IndexReport


def _index_shard(
    path: str, files: List[str], force: bool, prune: bool, jobs: Optional[int]
) -> IndexReport:
    """One shard's index run (a Ray task): ``docnav index`` of ``files`` into ``path``."""
    with Workspace(path) as ws:
        return ws._native.index(files, force=force, prune=prune, jobs=jobs)


def build_shards(
    sources: Union[PathLike, Iterable[PathLike]],
    out: PathLike,
    shards: int = 4,
    *,
    force: bool = False,
    prune: bool = False,
    jobs: Optional[int] = None,
    num_cpus: float = 1,
    timeout: Optional[float] = None,
) -> List[ShardReport]:
    """Index ``sources`` (files, folders, globs, as ``docnav index``) into ``shards`` workspaces
    ``out/shard-00``… (``shard_paths``), one Ray task per shard, each needing ``num_cpus`` and
    running ``jobs`` threads (default: the node's cores). Every node must be able to write
    ``out`` (one machine, or a shared path; each workspace is ordinary, on local disk, not a
    network filesystem).

    Running it again updates only what changed, as ``docnav index`` does in each shard (a
    document keeps its shard: its id decides it); ``force`` rebuilds, ``prune`` drops documents
    whose source is gone. Sources are assigned in ``docnav index``'s order, so ids are those one
    workspace indexing the same sources gives. Two sources with the same text in different
    shards stay two documents (one workspace keeps the second as an alias).

    Returns one ``ShardReport`` per shard, in shard order. Raises ``ValueError`` for
    ``shards`` < 1, ``DocnavError`` when a source matches nothing, ``ShardError`` naming the
    shard whose task failed or died (the other shards' runs are committed)."""
    if shards < 1:
        raise ValueError(f"shards must be at least 1, not {shards}")
    files, errors = _native.collect_sources(_paths(sources))
    if errors:
        raise DocnavError(errors[0])
    groups: List[List[str]] = [[] for _ in range(shards)]
    for f in files:
        groups[_shard_of_source(f, shards)].append(f)
    ray = _ray()
    task = ray.remote(_index_shard).options(num_cpus=num_cpus, max_retries=0)
    paths = shard_paths(out, shards)
    os.makedirs(os.fspath(out), exist_ok=True)
    refs = [task.remote(paths[i], groups[i], force, prune, jobs) for i in range(shards)]
    raw = _gather(ray, [(i, paths[i], r) for i, r in enumerate(refs)], timeout, "index")
    return [ShardReport(i, paths[i], r) for i, r in enumerate(raw)]


def _gather(
    ray: Any, refs: Sequence[Tuple[int, str, Any]], timeout: Optional[float], what: str
) -> List[Any]:
    """The results of ``refs`` (shard, path, ObjectRef) in order; a docnav error or
    ``ValueError`` raised in a shard is raised as it is, anything else (a dead actor or worker,
    a timeout) as ``ShardError`` naming the shard."""
    out: List[Any] = []
    for shard, path, ref in refs:
        try:
            out.append(ray.get(ref, timeout=timeout))
        except ray.exceptions.RayTaskError as e:
            cause = getattr(e, "cause", None)
            if isinstance(cause, (DocnavError, ValueError)):
                raise cause from None
            raise ShardError(
                f"shard {shard} (`{path}`): its {what} failed: {cause or e}", shard, path
            ) from e
        except ray.exceptions.GetTimeoutError as e:
            raise ShardError(
                f"shard {shard} (`{path}`): no answer to {what} within {timeout} s; "
                "no partial answer is given",
                shard,
                path,
            ) from e
        except ray.exceptions.RayError as e:
            raise ShardError(
                f"shard {shard} (`{path}`): its actor is gone ({type(e).__name__}) during "
                f"{what}; no partial answer is given (open the ShardedWorkspace again)",
                shard,
                path,
            ) from e
    return out


class _Shard:
    """One shard's Ray actor: a ``Workspace`` and the calls ``ShardedWorkspace`` makes of it."""

    def __init__(self, path: str) -> None:
        self.ws = Workspace(path)

    def pid(self) -> int:
        return os.getpid()

    def statistics(self, query: str, doc_ids: Optional[List[str]]) -> str:
        return _native.query_statistics_json(self.ws._native, query, doc_ids)

    def search(
        self,
        query: str,
        stats: str,
        k: int,
        doc_ids: Optional[List[str]],
        budget: Optional[int],
    ) -> str:
        return _native.search_shard_json(self.ws._native, query, stats, k, doc_ids, budget)

    def rank_statistics(self, question: str) -> str:
        return _native.rank_statistics_json(self.ws._native, question)

    def rank(self, question: str, stats: str, k: int) -> str:
        return _native.rank_shard_json(self.ws._native, question, stats, k)

    def docs(self) -> List[DocCard]:
        return self.ws.docs()

    def tree(self, doc_id: str) -> Node:
        return self.ws.tree(doc_id)

    def exec(self, command: str, cwd: str, budget: Optional[int]) -> str:
        return self.ws._native.exec(command, cwd, budget)

    def catalog(self, known: Optional[str]) -> Optional[Tuple[str, str]]:
        """``None`` while the catalog is still the version ``known``, else its version and JSON."""
        version = _native.catalog_version(self.ws._native)
        if version == known:
            return None
        return version, _native.catalog_json(self.ws._native)

    def run_worker(self, request: str, model: Dict[str, Any]) -> str:
        return _native.run_worker_json(self.ws._native, request, **model)

    def replay_worker(self, request: str, recorded: str) -> str:
        return _native.replay_worker_json(self.ws._native, request, recorded)


#: Calls one shard's actor serves at once (``ask``'s Workers on its documents among them).
_SHARD_CALLS = 8


def _doc_of_path(path: str) -> Optional[str]:
    """The document a navigation path names (``/doc_id/#2.1`` → ``doc_id``), if any."""
    if not path.startswith("/"):
        return None
    head = path[1:].split("/", 1)[0]
    return head or None


class ShardedWorkspace:
    """The shard workspaces ``shard_paths`` (as ``build_shards`` wrote them, in shard order)
    searched and asked as one workspace, through one Ray actor per shard (spread over the
    cluster's nodes, each needing ``num_cpus``, serving a few calls at once: ``ask``'s Workers
    on its documents run concurrently). Each call waits at most ``timeout`` seconds per shard.

    Connects to Ray as ``ray.init()`` does when it is not connected yet. Shards must be given in
    the order ``build_shards`` numbered them: a document is looked for in the shard its id
    hashes to. ``close()`` (or ``with``) ends the actors. Raises ``ValueError`` for no shards.
    """

    def __init__(
        self,
        shard_paths: Sequence[PathLike],
        *,
        num_cpus: float = 0,
        timeout: Optional[float] = 120.0,
    ) -> None:
        if not shard_paths:
            raise ValueError("a ShardedWorkspace needs at least one shard workspace")
        ray = _ray()
        self._paths = [os.fspath(p) for p in shard_paths]
        self._timeout = timeout
        # Threaded actors: the Workers of one shard run at once, as in one workspace (each
        # native call releases the GIL).
        actor = ray.remote(_Shard).options(
            num_cpus=num_cpus,
            max_restarts=0,
            scheduling_strategy="SPREAD",
            max_concurrency=_SHARD_CALLS,
        )
        self._actors: List[Any] = [actor.remote(p) for p in self._paths]
        # Every shard's catalog as last gathered (version, JSON) and parsed, for ``ask``.
        self._catalog_lock = threading.Lock()
        self._catalog_versions: List[Optional[str]] = [None] * len(self._paths)
        self._catalog_parts: List[str] = [""] * len(self._paths)
        self._cards: Any = None

    @property
    def shard_paths(self) -> List[str]:
        """The shard workspaces, in shard order."""
        return list(self._paths)

    def _all(self, call: str, *args: Any, shards: Optional[Dict[int, Any]] = None) -> List[Any]:
        ray = _ray()
        targets = range(len(self._actors)) if shards is None else sorted(shards)
        refs = []
        for i in targets:
            extra = () if shards is None else (shards[i],)
            method = getattr(self._actors[i], call)
            refs.append((i, self._paths[i], method.remote(*args, *extra)))
        return _gather(ray, refs, self._timeout, call)

    def _shard_cards(self) -> Any:
        """Every shard's DocCards and aliases parsed here (``_native.ShardCards``), gathered
        again only from the shards whose catalog changed since the last call (one small round
        to every shard asks). Raises ``ShardError`` naming a shard that fails."""
        with self._catalog_lock:
            replies = self._all("catalog", shards=dict(enumerate(self._catalog_versions)))
            changed = False
            for i, reply in enumerate(replies):
                if reply is not None:
                    self._catalog_versions[i], self._catalog_parts[i] = reply
                    changed = True
            if changed or self._cards is None:
                self._cards = _native.ShardCards(self._catalog_parts)
            return self._cards

    def _one(self, doc_id: str, call: str, *args: Any) -> Any:
        i = shard_of(doc_id, len(self._actors))
        ray = _ray()
        ref = getattr(self._actors[i], call).remote(*args)
        return _gather(ray, [(i, self._paths[i], ref)], self._timeout, call)[0]

    def search(
        self,
        query: str,
        k: int = 10,
        doc_ids: Optional[Sequence[str]] = None,
        *,
        budget: Optional[int] = 800,
    ) -> List[SearchHit]:
        """``Workspace.search`` over every shard: the ``k`` (1–50) best sections for ``query``,
        the same hits, order and scores as one workspace holding all the documents. Two rounds
        to the shards that can hold a hit (those of ``doc_ids``, or all): the query's
        statistics, then the search scored with their sums. Ids of ``doc_ids`` no shard holds
        are passed over. Raises ``ValueError`` for an empty query or ``k`` out of range,
        ``ShardError`` naming a shard whose actor died or did not answer in time."""
        if not query.strip():
            raise ValueError("the query is empty (give keywords or a question)")
        if not 1 <= k <= 50:
            raise ValueError(f"k must be 1 to 50, not {k}")
        ids = list(doc_ids) if doc_ids is not None else None
        shards: Optional[Dict[int, Any]] = None
        if ids is not None:
            shards = {}
            for doc_id in ids:
                shards.setdefault(shard_of(doc_id, len(self._actors)), []).append(doc_id)
            if not shards:
                return []
        if shards is None:
            parts = self._all("statistics", query, None)
        else:
            parts = self._all("statistics", query, shards=shards)
        stats = _native.merge_statistics_json(parts)
        if shards is None:
            found = self._all("search", query, stats, k, None, budget)
        else:
            ray = _ray()
            refs = [
                (i, self._paths[i], self._actors[i].search.remote(query, stats, k, sub, budget))
                for i, sub in sorted(shards.items())
            ]
            found = _gather(ray, refs, self._timeout, "search")
        return _native.merge_search(query, found, k, ids)

    def docs_for(self, question: str, k: int = 10) -> List[RankedDoc]:
        """``Workspace.docs_for`` over every shard: the first ``k`` (1–50) DocCards as the
        Orchestrator ranks them for ``question``, each with why, the same documents, order,
        reasons and scores as one workspace holding all the documents (scores to float
        rounding: two documents scoring alike to the last bit may trade places). Two rounds to
        every shard: the question's statistics (sections, cards, the documents it names), then
        each shard's part of the ranking scored with their sums. Raises ``ValueError`` for an empty
        question or ``k`` out of range, ``WorkspaceError`` as ``Workspace.docs_for``,
        ``ShardError`` naming a shard whose actor died or did not answer in time."""
        if not question.strip():
            raise ValueError("the question is empty")
        if not 1 <= k <= 50:
            raise ValueError(f"k must be 1 to 50, not {k}")
        stats = _native.merge_rank_statistics_json(self._all("rank_statistics", question))
        parts = self._all("rank", question, stats, k)
        ranked: List[RankedDoc] = _native.merge_docs_for(stats, parts, k)
        return ranked

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
        """``Workspace.ask`` over every shard: the same arguments and ``Answer``, and with the
        same model replies the same evidence (ids, texts, scores, order) and verdict as one
        workspace holding every document.

        The Orchestrator runs here over the cards of every shard; its pre-rank and catalog
        searches are ranked over every shard (two rounds to each, as ``docs_for``); each Worker
        runs in the actor of the shard holding its document, with a model client of its own
        built from the same settings (``model``, ``base_url`` and ``api_key`` default to
        ``DOCNAV_MODEL``, ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` of *this* process, sent to
        the shards). A Worker sees only its shard: its searches in its document are those of one
        workspace (a document's own statistics), but a command over every document (``find``
        or ``grep`` at ``/``) covers only its shard, and another shard's document cannot be
        opened from it.

        ``trace``: a file path records the run there; ``True`` a new file in the first shard's
        ``traces/``; ``None`` uses ``DOCNAV_TRACE_DIR`` when set; ``False`` records nothing. The
        trace header lists the shard workspaces (``shards``) and each Worker's
        ``worker_started`` event names its shard (``shard``). No answer is reused or kept
        (``no_cache`` is accepted for ``Workspace.ask``'s signature): the shards have no one
        place to keep answers.

        A Worker whose shard actor dies or does not answer within the timeout fails as a Worker
        fails in one workspace: its error, ``ShardError``'s message naming the shard and its
        workspace, is in ``Answer.worker_errors`` (and the trace), and the verdict is judged
        without its evidence — never a silent partial answer. A shard that fails while the
        catalog is gathered or ranked raises ``ShardError``. Raises as ``Workspace.ask``
        otherwise (``ModelError``, ``WorkspaceError``, ``ValueError``)."""
        del no_cache  # nothing is cached over shards
        ray = _ray()
        cards = self._shard_cards()
        knobs: Dict[str, Any] = {
            "model": model or os.environ.get("DOCNAV_MODEL") or None,
            "base_url": base_url or os.environ.get("OPENAI_BASE_URL") or None,
            "api_key": api_key or os.environ.get("OPENAI_API_KEY") or None,
            "timeout": timeout,
            "retries": retries,
            "max_requests": max_requests,
            "json_schema": json_schema,
        }

        def run_worker(doc_id: str, request: str) -> Tuple[int, str]:
            i = shard_of(doc_id, len(self._actors))
            ref = self._actors[i].run_worker.remote(request, knobs)
            reply: str = _gather(ray, [(i, self._paths[i], ref)], self._timeout, "worker")[0]
            return i, reply

        trace_file: Optional[str] = None
        trace_dir: Optional[str] = None
        if trace is True:
            trace_dir = os.path.join(self._paths[0], "traces")
        elif trace is None:
            trace_dir = os.environ.get("DOCNAV_TRACE_DIR") or None
        elif trace is not False:
            trace_file = os.fspath(trace)
        handle = _native.start_sharded_ask(
            cards,
            list(self._paths),
            question,
            self._rank,
            run_worker,
            doc_ids=list(doc_ids) if doc_ids else None,
            trace=trace_file,
            trace_dir=trace_dir,
            max_steps=max_steps,
            rounds=rounds,
            max_cards=max_cards,
            max_docs=max_docs,
            concurrency=concurrency,
            evidence_chars=evidence_chars,
            prompt_cap=prompt_cap,
            output_budget=output_budget,
            answer=answer,
            **knobs,
        )
        try:
            while not handle.wait(0.1):
                pass
        except BaseException:
            handle.cancel()
            handle.wait(5.0)
            raise
        result: Answer = handle.result()
        return result

    def _rank(self, question: str) -> Tuple[str, List[str]]:
        """The ranking of every document for ``question`` over the shards: the merged
        statistics and each shard's part (JSON), as the Orchestrator's pre-rank needs them."""
        stats = _native.merge_rank_statistics_json(self._all("rank_statistics", question))
        return stats, self._all("rank", question, stats, 0)

    def replay(self, trace_path: PathLike) -> ReplayReport:
        """``docnav.replay`` over the shards: re-run the trace at ``trace_path`` (recorded by
        ``ask`` over these shards, or over one workspace holding the same documents) with the
        recorded model replies — the Orchestrator here, its pre-rank and catalog searches over
        every shard, each Worker in its document's shard — and report whether it is identical.
        Raises ``ReplayError`` for a trace that cannot be read, one of an older format, or one
        whose documents no shard holds; ``ShardError`` naming a shard that fails while the
        catalog is gathered or ranked (a shard failing under a Worker makes the replay
        diverge there)."""
        ray = _ray()
        cards = self._shard_cards()

        def replay_worker(doc_id: str, request: str, recorded: str) -> Tuple[int, str]:
            i = shard_of(doc_id, len(self._actors))
            ref = self._actors[i].replay_worker.remote(request, recorded)
            reply: str = _gather(ray, [(i, self._paths[i], ref)], self._timeout, "worker")[0]
            return i, reply

        report: ReplayReport = _native.replay_sharded(
            os.fspath(trace_path), cards, self._rank, replay_worker
        )
        return report

    def docs(self) -> List[DocCard]:
        """Every shard's DocCards, in catalog order (by id), as one workspace lists them."""
        cards: List[DocCard] = [c for part in self._all("docs") for c in part]
        return sorted(cards, key=lambda c: c.doc_id)

    def tree(self, doc_id: str) -> Node:
        """``Workspace.tree`` of ``doc_id``, from its shard. Raises ``WorkspaceError`` for an
        unknown id."""
        tree: Node = self._one(doc_id, "tree", doc_id)
        return tree

    def exec(
        self,
        command: str,
        cwd: str = "/",
        *,
        budget: Optional[int] = None,
        doc_id: Optional[str] = None,
    ) -> str:
        """``Workspace.exec`` in the shard of the document: ``doc_id``, else the one ``cwd`` is
        in (``/doc_id/…``), else the first path of ``command`` naming one (``cat /doc_id/#2``).
        Raises ``ValueError`` when none names a document (a command over every document, such
        as ``ls /``, has no one shard), ``CommandError`` as ``Workspace.exec``."""
        target = doc_id or _doc_of_path(cwd)
        if target is None:
            try:
                words = shlex.split(command)
            except ValueError:
                words = command.split()
            target = next((d for d in map(_doc_of_path, words) if d), None)
        if target is None:
            raise ValueError(
                f"`{command}` names no document: give cwd='/doc_id' or doc_id= "
                "(a command over every document has no one shard)"
            )
        result: str = self._one(target, "exec", command, cwd, budget)
        return result

    def close(self) -> None:
        """End the shards' actors. Closing twice does nothing."""
        if self._actors:
            ray = _ray()
            for a in self._actors:
                ray.kill(a)
            self._actors = []

    def __enter__(self) -> "ShardedWorkspace":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ShardedWorkspace({self._paths!r})"
