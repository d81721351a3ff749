"""A LangChain retriever over a docnav workspace (needs ``langchain-core``)::

    from docnav.integrations.langchain import DocnavLangChainRetriever
    retriever = DocnavLangChainRetriever(workspace=".docnav", k=4)   # model-free search
    docs = retriever.invoke("How do I search compressed files?")     # list[Document]
    agentic = DocnavLangChainRetriever(workspace=".docnav", mode="ask")  # the agent (a model)

Each ``Document`` holds a passage's verbatim text (the whole section unless ``budget`` cuts it),
its ``id`` (``doc_id#structure``) and metadata: ``doc_id``, ``title_path``, ``structure``,
``location``, ``lines``, ``pages``, ``score``, ``source``, ``chars``, ``truncated``.
``ainvoke`` never blocks the event loop.
"""

from __future__ import annotations

from typing import Any, List, Optional, Union

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import field_validator
except ImportError as e:  # pragma: no cover - exercised only without the framework
    raise ImportError(
        "docnav.integrations.langchain needs langchain-core: pip install langchain-core"
    ) from e

from .._workspace import Workspace
from . import AskOptions, Passage, apassages, passages, workspace_of


class DocnavLangChainRetriever(BaseRetriever):
    """Retrieves passages from a docnav workspace (a ``Workspace`` or its path):
    ``mode="search"`` (BM25, no model) or ``mode="ask"`` (the agent; model settings and budgets
    from ``ask_options``, the keyword arguments of ``Workspace.ask``, or the environment).
    ``k`` passages at most; ``doc_ids`` restricts the documents; ``budget`` cuts each passage to
    that many chars (``None``: whole sections)."""

    workspace: Union[str, Workspace] = ".docnav"
    mode: str = "search"
    k: int = 4
    doc_ids: Optional[List[str]] = None
    budget: Optional[int] = None
    ask_options: AskOptions = {}

    @field_validator("workspace", mode="before")
    @classmethod
    def _open(cls, value: Any) -> Workspace:
        # Opened once: a path given per call would reopen the workspace on every retrieval.
        return workspace_of(value)

    def _workspace(self) -> Workspace:
        return workspace_of(self.workspace)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> List[Document]:
        found = passages(
            self._workspace(),
            query,
            mode=self.mode,
            k=self.k,
            doc_ids=self.doc_ids,
            budget=self.budget,
            ask_options=self.ask_options,
        )
        return _documents(found)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> List[Document]:
        found = await apassages(
            self._workspace(),
            query,
            mode=self.mode,
            k=self.k,
            doc_ids=self.doc_ids,
            budget=self.budget,
            ask_options=self.ask_options,
        )
        return _documents(found)


def _documents(found: List[Passage]) -> List[Document]:
    return [
        Document(
            id=f"{meta['doc_id']}#{meta['structure']}", page_content=text, metadata=dict(meta)
        )
        for text, meta in found
    ]


#: The name this retriever had before the LlamaIndex one got a name of its own.
DocnavRetriever = DocnavLangChainRetriever
