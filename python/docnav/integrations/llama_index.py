"""A LlamaIndex retriever over a docnav workspace (needs ``llama-index-core``)::

    from docnav.integrations.llama_index import DocnavRetriever
    retriever = DocnavRetriever(".docnav", k=4)                       # model-free search
    nodes = retriever.retrieve("How do I search compressed files?")  # list[NodeWithScore]

Each ``NodeWithScore`` holds a ``TextNode`` with a passage's verbatim text and the score; the
node's metadata: ``doc_id``, ``title_path``, ``structure``, ``lines``, ``pages``, ``score``,
``source``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as e:  # pragma: no cover - exercised only without the framework
    raise ImportError(
        "docnav.integrations.llama_index needs llama-index-core: pip install llama-index-core"
    ) from e

from . import passages, workspace_of


class DocnavRetriever(BaseRetriever):
    """Retrieves passages from a docnav workspace: ``mode="search"`` (BM25, no model) or
    ``mode="ask"`` (the agent; model settings from ``ask_options`` or the environment, as
    ``Workspace.ask``). ``k`` passages at most; ``doc_ids`` restricts the documents."""

    def __init__(
        self,
        workspace: Any = ".docnav",
        *,
        mode: str = "search",
        k: int = 4,
        doc_ids: Optional[Sequence[str]] = None,
        ask_options: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._workspace = workspace_of(workspace)
        self._mode = mode
        self._k = k
        self._doc_ids = list(doc_ids) if doc_ids else None
        self._ask_options = dict(ask_options or {})

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        found = passages(
            self._workspace,
            query_bundle.query_str,
            mode=self._mode,
            k=self._k,
            doc_ids=self._doc_ids,
            ask_options=self._ask_options,
        )
        nodes = []
        for text, meta in found:
            node = TextNode(
                text=text,
                id_=f"{meta['doc_id']}#{meta['structure']}",
                metadata=meta,
            )
            nodes.append(NodeWithScore(node=node, score=meta["score"]))
        return nodes
