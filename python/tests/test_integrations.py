"""The LangChain and LlamaIndex retrievers against the real frameworks (``.ci/run`` installs
both; elsewhere a missing framework skips its tests unless ``DOCNAV_REQUIRE_FRAMEWORKS=1``), in
both modes: the model-free search and the agent over the loopback fake model."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

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


def test_importing_docnav_imports_no_framework() -> None:
    code = (
        "import sys, docnav, docnav.integrations; "
        "print(any(m.startswith(('langchain', 'llama_index')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_langchain_retriever_searches_and_asks(workspace: docnav.Workspace, fake_model) -> None:
    framework("langchain_core")
    from langchain_core.documents import Document

    from docnav.integrations.langchain import DocnavRetriever

    docs = DocnavRetriever(workspace=workspace.path, k=3).invoke("search compressed files")
    assert len(docs) == 3 and all(isinstance(d, Document) for d in docs)
    best = docs[0]
    assert "--search-zip" in best.page_content
    assert best.metadata["doc_id"] == "ripgrep-faq" and best.metadata["structure"] == "1.8"
    assert best.metadata["lines"] == [163, 176] and best.metadata["pages"] is None
    assert best.metadata["source"].endswith("ripgrep__FAQ.md")
    assert best.metadata["score"] >= docs[1].metadata["score"]

    fake = fake_model(agent_script())
    agentic = DocnavRetriever(
        workspace=workspace,
        mode="ask",
        ask_options={"model": "fake", "base_url": fake.base_url, "trace": False},
    )
    [evidence] = agentic.invoke(QUESTION)
    assert fake.all_served()
    assert evidence.metadata["title_path"] == "ripgrep-faq › FAQ › How do I search compressed files?"


def test_llama_index_retriever_searches_and_asks(workspace: docnav.Workspace, fake_model) -> None:
    framework("llama_index.core")
    from llama_index.core.schema import NodeWithScore

    from docnav.integrations.llama_index import DocnavRetriever

    nodes = DocnavRetriever(workspace.path, k=2, doc_ids=["r-intro"]).retrieve("compressed files")
    assert len(nodes) == 2 and all(isinstance(n, NodeWithScore) for n in nodes)
    assert {n.node.metadata["doc_id"] for n in nodes} == {"r-intro"}
    assert nodes[0].node.metadata["pages"] is not None and nodes[0].score == nodes[0].node.metadata["score"]
    assert "compress" in nodes[0].node.get_content().lower()

    fake = fake_model(agent_script())
    agentic = DocnavRetriever(
        workspace, mode="ask", ask_options={"model": "fake", "base_url": fake.base_url, "trace": False}
    )
    [found] = agentic.retrieve(QUESTION)
    assert fake.all_served()
    assert found.node.metadata["lines"] == [163, 176]


def test_an_unknown_mode_is_refused(workspace: docnav.Workspace) -> None:
    from docnav.integrations import passages

    with pytest.raises(ValueError, match="mode must be"):
        passages(workspace, "zip", mode="vector")
