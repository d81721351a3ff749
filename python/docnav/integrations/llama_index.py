"""A LlamaIndex retriever over a docnav workspace (needs ``llama-index-core``)::

    from docnav.integrations.llama_index import DocnavLlamaIndexRetriever
    retriever = DocnavLlamaIndexRetriever(".docnav", k=4)             # model-free search
    nodes = retriever.retrieve("How do I search compressed files?")  # list[NodeWithScore]

Each ``NodeWithScore`` holds a ``TextNode`` (id ``doc_id#structure``) with a passage's verbatim
text (the whole section unless ``budget`` cuts it) and the score; the node's metadata:
``doc_id``, ``title_path``, ``structure``, ``location``, ``lines``, ``pages``, ``score``,
``source``, ``chars``, ``truncated`` — of which only ``doc_id``, ``title_path``, ``location``
and ``source`` reach the text the LLM and the embedder see. ``aretrieve`` never blocks the
event loop.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as e:  # pragma: no cover - exercised only without the framework
    raise ImportError(
        "docnav.integrations.llama_index needs llama-index-core: pip install llama-index-core"
    ) from e

from .._workspace import PathLike, Workspace
from . import NOT_FOR_THE_MODEL, AskOptions, Passage, apassages, passages, workspace_of


class DocnavLlamaIndexRetriever(BaseRetriever):
    """Retrieves passages from a docnav workspace (a ``Workspace`` or its path):
    ``mode="search"`` (BM25, no model) or ``mode="ask"`` (the agent; model settings and budgets
    from ``ask_options``, the keyword arguments of ``Workspace.ask``, or the environment).
    ``k`` passages at most; ``doc_ids`` restricts the documents; ``budget`` cuts each passage to
    that many chars (``None``: whole sections)."""

    def __init__(
        self,
        workspace: Union[PathLike, Workspace] = ".docnav",
        *,
        mode: str = "search",
        k: int = 4,
        doc_ids: Optional[Sequence[str]] = None,
        budget: Optional[int] = None,
        ask_options: Optional[AskOptions] = None,
        **kwargs: Any,
    ) -> None:
        # The base's own signature has an unparameterised `Dict` (`object_map`), which pyright's
        # strict mode reports at every call.
        super().__init__(**kwargs)  # pyright: ignore[reportUnknownMemberType]
        self.workspace: Workspace = workspace_of(workspace)
        self.mode = mode
        self.k = k
        self.doc_ids: Optional[List[str]] = list(doc_ids) if doc_ids else None
        self.budget = budget
        self.ask_options: AskOptions = ask_options.copy() if ask_options else {}

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        found = passages(
            self.workspace,
            query_bundle.query_str,
            mode=self.mode,
            k=self.k,
            doc_ids=self.doc_ids,
            budget=self.budget,
            ask_options=self.ask_options,
        )
        return _nodes(found)

    async def _aretrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        found = await apassages(
            self.workspace,
            query_bundle.query_str,
            mode=self.mode,
            k=self.k,
            doc_ids=self.doc_ids,
            budget=self.budget,
            ask_options=self.ask_options,
        )
        return _nodes(found)


def _nodes(found: List[Passage]) -> List[NodeWithScore]:
    nodes: List[NodeWithScore] = []
    for text, meta in found:
        node = TextNode(
            text=text,
            id_=f"{meta['doc_id']}#{meta['structure']}",
            metadata=dict(meta),
            excluded_llm_metadata_keys=list(NOT_FOR_THE_MODEL),
            excluded_embed_metadata_keys=list(NOT_FOR_THE_MODEL),
        )
        nodes.append(NodeWithScore(node=node, score=meta["score"]))
    return nodes


#: The name this retriever had before the LangChain one got a name of its own.
DocnavRetriever = DocnavLlamaIndexRetriever
