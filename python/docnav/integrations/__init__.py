"""Retrievers for RAG frameworks, each in its own module so importing ``docnav`` never imports a
framework: ``docnav.integrations.langchain`` (needs ``langchain-core``) and
``docnav.integrations.llama_index`` (needs ``llama-index-core``).

Both retrieve in one of two modes: ``"search"`` (BM25 over the section index, no model; fast) or
``"ask"`` (the agent navigates with a model; the ranked evidence). Each result carries the
passage's verbatim text and its metadata: ``doc_id``, ``title_path``, ``structure``, ``lines``,
``pages``, ``score``, ``source`` (the document's file).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .._types import Evidence, SearchHit
from .._workspace import Workspace

Passage = Tuple[str, Dict[str, Any]]


def passages(
    workspace: Workspace,
    query: str,
    *,
    mode: str = "search",
    k: int = 4,
    doc_ids: Optional[Sequence[str]] = None,
    ask_options: Optional[Dict[str, Any]] = None,
) -> List[Passage]:
    """``(text, metadata)`` of the best ``k`` passages for ``query``: by ``Workspace.search``
    (``mode="search"``) or ``Workspace.ask`` (``mode="ask"``, its ranked evidence cut to ``k``).
    Raises ``ValueError`` for another mode, and what those methods raise."""
    sources = {c.doc_id: c.source for c in workspace.docs()}
    found: List[Union[SearchHit, Evidence]]
    if mode == "search":
        found = list(workspace.search(query, k=k, doc_ids=doc_ids))
    elif mode == "ask":
        answer = workspace.ask(query, doc_ids=doc_ids, **(ask_options or {}))
        found = list(answer.evidence[:k])
    else:
        raise ValueError(f"mode must be 'search' or 'ask', not {mode!r}")
    return [(item.text, _metadata(item, sources)) for item in found]


def _metadata(item: Union[SearchHit, Evidence], sources: Dict[str, str]) -> Dict[str, Any]:
    return {
        "doc_id": item.doc_id,
        "title_path": item.title_path,
        "structure": item.structure,
        "lines": list(item.lines) if item.lines else None,
        "pages": list(item.pages) if item.pages else None,
        "score": item.score,
        "source": sources.get(item.doc_id, ""),
    }


def workspace_of(value: Union[str, Workspace, Any]) -> Workspace:
    """A ``Workspace`` for a workspace or its path."""
    return value if isinstance(value, Workspace) else Workspace(value)
