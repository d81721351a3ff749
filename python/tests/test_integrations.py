"""The LangChain and LlamaIndex retrievers against the real frameworks (``.ci/run`` installs
both; elsewhere a missing framework skips its tests unless ``DOCNAV_REQUIRE_FRAMEWORKS=1``), in
both modes: the model-free search and the agent over the loopback fake model."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import docnav

from fake_model import analysis, command, evaluation, plan

QUESTION = "How do I search compressed files with ripgrep?"


def framework(module: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("DOCNAV_REQUIRE_FRAMEWORKS") == "1":
            raise
        pytest.skip(f"{module} is not installed")


def agent_script() -> list:
    return [
        analysis(["compressed files"], [("ripgrep-faq", "find how to search compressed files")]),
        plan("ripgrep-faq", ["cat 1/8"], "cat 1/8"),
        command("ripgrep-faq", "done"),
        evaluation("sufficient"),
    ]


def test_importing_docnav_imports_no_framework(tmp_path: Path) -> None:
    code = (
        "import sys, docnav, docnav.integrations; "
        "print(any(m.startswith(('langchain', 'llama_index')) for m in sys.modules))"
    )
    # Run elsewhere: `-c` puts the working directory first on sys.path, and in `python/` that is
    # the source folder, not the installed package.
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_langchain_retriever_searches_and_asks(workspace: docnav.Workspace, fake_model) -> None:
    framework("langchain_core")
    from langchain_core.documents import Document

    from docnav.integrations.langchain import DocnavLangChainRetriever, DocnavRetriever

    assert DocnavRetriever is DocnavLangChainRetriever
    retriever = DocnavLangChainRetriever(workspace=workspace.path, k=3)
    docs = retriever.invoke("search compressed files")
    assert len(docs) == 3 and all(isinstance(d, Document) for d in docs)
    best = docs[0]
    assert "--search-zip" in best.page_content and best.id == "ripgrep-faq#1.8"
    assert best.metadata["doc_id"] == "ripgrep-faq" and best.metadata["structure"] == "1.8"
    assert best.metadata["lines"] == [163, 176] and best.metadata["pages"] is None
    assert best.metadata["location"] == "lines 163–176"
    assert best.metadata["source"].endswith("ripgrep__FAQ.md")
    scores = [d.metadata["score"] for d in docs]
    assert scores == sorted(scores, reverse=True)
    # Whole sections by default; a budget cuts and says so.
    whole = workspace.search("search compressed files", k=3, budget=None)
    assert [d.page_content for d in docs] == [h.text for h in whole]
    assert all(d.metadata["chars"] == len(d.page_content) for d in docs)
    assert not any(d.metadata["truncated"] for d in docs)
    longest = max(docs, key=lambda d: len(d.page_content))
    budget = len(longest.page_content) // 2
    cut = DocnavLangChainRetriever(workspace=workspace, k=3, budget=budget).invoke(
        "search compressed files"
    )
    [cut_doc] = [d for d in cut if d.id == longest.id]
    assert cut_doc.metadata["truncated"] is True and cut_doc.metadata["chars"] == len(longest.page_content)
    assert len(cut_doc.page_content) <= budget and longest.page_content.startswith(cut_doc.page_content)
    # The retriever (and its opened workspace) copies and pickles.
    import copy
    import pickle

    assert [d.id for d in copy.deepcopy(retriever).invoke("search compressed files")] == [d.id for d in docs]
    assert pickle.loads(pickle.dumps(retriever)).workspace.path == workspace.path

    fake = fake_model(agent_script())
    agentic = DocnavLangChainRetriever(
        workspace=workspace,
        mode="ask",
        ask_options={"model": "fake", "base_url": fake.base_url, "trace": False},
    )
    [evidence] = agentic.invoke(QUESTION)
    assert fake.all_served()
    assert evidence.metadata["title_path"] == "ripgrep-faq › FAQ › How do I search compressed files?"
    assert evidence.metadata["source"].endswith("ripgrep__FAQ.md") and evidence.id == "ripgrep-faq#1.8"


def test_llama_index_retriever_searches_and_asks(workspace: docnav.Workspace, fake_model) -> None:
    framework("llama_index.core")
    from llama_index.core.schema import MetadataMode, NodeWithScore

    from docnav.integrations.llama_index import DocnavLlamaIndexRetriever, DocnavRetriever

    assert DocnavRetriever is DocnavLlamaIndexRetriever
    nodes = DocnavLlamaIndexRetriever(workspace.path, k=2, doc_ids=["r-intro"]).retrieve("compressed files")
    assert len(nodes) == 2 and all(isinstance(n, NodeWithScore) for n in nodes)
    assert {n.node.metadata["doc_id"] for n in nodes} == {"r-intro"}
    assert nodes[0].node.metadata["pages"] is not None and nodes[0].score == nodes[0].node.metadata["score"]
    assert nodes[0].score is not None and nodes[1].score is not None and nodes[0].score >= nodes[1].score
    assert "compress" in nodes[0].node.get_content().lower()
    # What the LLM reads: the text with where it comes from, not the ranking's numbers.
    for_llm = nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert "title_path" in for_llm and "source" in for_llm
    assert "score" not in for_llm and "pages" not in for_llm and "truncated" not in for_llm

    fake = fake_model(agent_script())
    agentic = DocnavLlamaIndexRetriever(
        workspace, mode="ask", ask_options={"model": "fake", "base_url": fake.base_url, "trace": False}
    )
    [found] = agentic.retrieve(QUESTION)
    assert fake.all_served()
    assert found.node.metadata["lines"] == [163, 176]


def test_async_retrieval_does_not_block_the_event_loop(workspace: docnav.Workspace, fake_model) -> None:
    framework("langchain_core")
    framework("llama_index.core")
    import asyncio
    import time

    from fake_model import plan

    from docnav.integrations.langchain import DocnavLangChainRetriever
    from docnav.integrations.llama_index import DocnavLlamaIndexRetriever

    script = agent_script()
    script[1] = plan("ripgrep-faq", ["cat 1/8"], "cat 1/8", delay=1.0)
    fake = fake_model(script)
    options = {"model": "fake", "base_url": fake.base_url, "trace": False}
    llama = DocnavLlamaIndexRetriever(workspace, mode="ask", ask_options=options)
    chain = DocnavLangChainRetriever(workspace=workspace, k=2)

    async def main() -> tuple:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.05)
                ticks += 1

        tick = asyncio.ensure_future(ticker())
        started = time.monotonic()
        asked, searched = await asyncio.gather(llama.aretrieve(QUESTION), chain.ainvoke("compressed files"))
        elapsed = time.monotonic() - started
        tick.cancel()
        return asked, searched, ticks, elapsed

    asked, searched, ticks, elapsed = asyncio.run(main())
    assert fake.all_served() and len(asked) == 1 and len(searched) == 2
    # The loop kept ticking through the model's 1 s delay (a blocking call would freeze it).
    assert elapsed >= 1.0 and ticks >= 10


def test_an_unknown_mode_is_refused(workspace: docnav.Workspace) -> None:
    from docnav.integrations import passages

    with pytest.raises(ValueError, match="mode must be"):
        passages(workspace, "zip", mode="vector")
