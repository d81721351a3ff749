"""A LangChain retriever over a docnav workspace (needs ``langchain-core``)::

    from docnav.integrations.langchain import DocnavRetriever
    retriever = DocnavRetriever(workspace=".docnav", k=4)              # model-free search
    docs = retriever.invoke("How do I search compressed files?")     # list[Document]
    agentic = DocnavRetriever(workspace=".docnav", mode="ask")        # the agent (a model)

Each ``Document`` holds a passage's verbatim text; its metadata: ``doc_id``, ``title_path``,
``structure``, ``lines``, ``pages``, ``score``, ``source``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as e:  # pragma: no cover - exercised only without the framework
    raise ImportError(
        "docnav.integrations.langchain needs langchain-core: pip install langchain-core"
    ) from e

from . import passages, workspace_of


class DocnavRetriever(BaseRetriever):
    """Retrieves passages from a docnav workspace: ``mode="search"`` (BM25, no model) or
    ``mode="ask"`` (the agent; model settings from ``ask_options`` or the environment, as
    ``Workspace.ask``). ``k`` passages at most; ``doc_ids`` restricts the documents."""

    workspace: Any = ".docnav"
    mode: str = "search"
    k: int = 4
    doc_ids: Optional[List[str]] = None
    ask_options: Dict[str, Any] = {}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> List[Document]:
        found = passages(
            workspace_of(self.workspace),
            query,
            mode=self.mode,
            k=self.k,
            doc_ids=self.doc_ids,
            ask_options=self.ask_options,
        )
        return [Document(page_content=text, metadata=meta) for text, meta in found]
