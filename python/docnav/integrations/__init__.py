"""Retrievers for RAG frameworks, each in its own module so importing ``docnav`` never imports a
framework: ``docnav.integrations.langchain`` (``DocnavLangChainRetriever``, needs
``langchain-core``) and ``docnav.integrations.llama_index`` (``DocnavLlamaIndexRetriever``, needs
``llama-index-core``).

Both retrieve in one of two modes: ``"search"`` (BM25 over the section index, no model; one
``Workspace.search`` call) or ``"ask"`` (the agent navigates with a model; its ranked evidence).
Each result carries the passage's verbatim text — the whole section unless ``budget`` (chars)
cuts it — and its metadata: ``doc_id``, ``title_path``, ``structure``, ``location``
(``"lines 163–176"``, ``"pages 3–5"``), ``lines``, ``pages``, ``score``, ``source`` (the
document's file), ``chars`` (the whole passage's length) and ``truncated`` (whether ``budget``
cut it).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import List, Optional, Sequence, Tuple, Union

if sys.version_info >= (3, 12):
    from typing import TypedDict
else:  # pydantic (the models of both frameworks) takes only typing_extensions' before 3.12
    from typing_extensions import TypedDict

from .._types import Evidence, SearchHit
from .._workspace import PathLike, Workspace


class PassageMetadata(TypedDict):
    """A passage's metadata: ``doc_id``; ``title_path`` (``doc_id › title › … › section``);
    ``structure`` (``"2.1"``); ``location`` (``"lines 163–176"``, ``"pages 3–5"``, ``""``);
    ``lines`` and ``pages`` as 1-based inclusive ``[first, last]`` or ``None``; ``score`` (BM25,
    higher is better); ``source`` (the document's file, ``""`` when unknown); ``chars`` (the whole
    passage's length) and ``truncated`` (whether ``budget`` cut the text)."""

    doc_id: str
    title_path: str
    structure: str
    location: str
    lines: Optional[List[int]]
    pages: Optional[List[int]]
    score: float
    source: str
    chars: int
    truncated: bool


class AskOptions(TypedDict, total=False):
    """The keyword arguments of ``Workspace.ask`` a retriever in ``mode="ask"`` passes on (its
    model settings and the agent's budgets; see there for units and defaults)."""

    model: Optional[str]
    base_url: Optional[str]
    api_key: Optional[str]
    timeout: Optional[float]
    retries: Optional[int]
    max_requests: Optional[int]
    json_schema: bool
    trace: Union[None, bool, str, "os.PathLike[str]"]
    max_steps: int
    rounds: int
    max_cards: int
    max_docs: int
    concurrency: int
    evidence_chars: int
    prompt_cap: int
    output_budget: int
    answer: bool
    no_cache: bool


#: A passage: its text and its metadata.
Passage = Tuple[str, PassageMetadata]

#: Metadata keys a framework should keep out of the text it shows the model (ranking and
#: location numbers, which the model has no use for and may quote as if they were content).
NOT_FOR_THE_MODEL = ("score", "lines", "pages", "chars", "truncated", "structure")


def passages(
    workspace: Workspace,
    query: str,
    *,
    mode: str = "search",
    k: int = 4,
    doc_ids: Optional[Sequence[str]] = None,
    budget: Optional[int] = None,
    ask_options: Optional[AskOptions] = None,
) -> List[Passage]:
    """``(text, metadata)`` of the best ``k`` passages for ``query``, best first: by
    ``Workspace.search`` (``mode="search"``, one call) or ``Workspace.ask`` (``mode="ask"``, its
    ranked evidence cut to ``k``); each text whole, or cut to ``budget`` chars. Raises
    ``ValueError`` for another mode, and what those methods raise."""
    _check_mode(mode)
    if mode == "search":
        hits = workspace.search(query, k=k, doc_ids=doc_ids, budget=budget)
        return [_from_hit(hit) for hit in hits]
    answer = workspace.ask(query, doc_ids=doc_ids, **(ask_options or {}))
    return _from_evidence(workspace, answer.evidence[:k], budget)


async def apassages(
    workspace: Workspace,
    query: str,
    *,
    mode: str = "search",
    k: int = 4,
    doc_ids: Optional[Sequence[str]] = None,
    budget: Optional[int] = None,
    ask_options: Optional[AskOptions] = None,
) -> List[Passage]:
    """``passages`` for asyncio, never blocking the event loop: the search runs in a worker
    thread (it releases the GIL), the agent through ``Workspace.ask_async`` (cancelling the task
    cancels the run). Same arguments and errors."""
    _check_mode(mode)
    if mode == "search":
        return await asyncio.to_thread(
            passages, workspace, query, mode=mode, k=k, doc_ids=doc_ids, budget=budget
        )
    answer = await workspace.ask_async(query, doc_ids=doc_ids, **(ask_options or {}))
    evidence = answer.evidence[:k]
    return await asyncio.to_thread(_from_evidence, workspace, evidence, budget)


def _check_mode(mode: str) -> None:
    if mode not in ("search", "ask"):
        raise ValueError(f"mode must be 'search' or 'ask', not {mode!r}")


def _from_hit(hit: SearchHit) -> Passage:
    return hit.text, {
        "doc_id": hit.doc_id,
        "title_path": hit.title_path,
        "structure": hit.structure,
        "location": hit.location,
        "lines": list(hit.lines) if hit.lines else None,
        "pages": list(hit.pages) if hit.pages else None,
        "score": hit.score,
        "source": hit.source,
        "chars": hit.text_chars,
        "truncated": hit.truncated,
    }


def _from_evidence(
    workspace: Workspace, evidence: Sequence[Evidence], budget: Optional[int]
) -> List[Passage]:
    sources = workspace.sources({e.doc_id for e in evidence})
    found: List[Passage] = []
    for e in evidence:
        text = e.text if budget is None else e.text[: max(budget, 1)]
        found.append(
            (
                text,
                {
                    "doc_id": e.doc_id,
                    "title_path": e.title_path,
                    "structure": e.structure,
                    "location": e.location,
                    "lines": list(e.lines) if e.lines else None,
                    "pages": list(e.pages) if e.pages else None,
                    "score": e.score,
                    "source": sources.get(e.doc_id, ""),
                    "chars": len(e.text),
                    "truncated": len(text) < len(e.text),
                },
            )
        )
    return found


def workspace_of(value: Union[PathLike, Workspace]) -> Workspace:
    """A ``Workspace`` for a workspace or its path."""
    return value if isinstance(value, Workspace) else Workspace(value)
