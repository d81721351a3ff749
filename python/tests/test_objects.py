"""``Workspace`` and ``Session`` as ordinary Python objects: a workspace pickles by its path and
opens again (in a spawn-mode ``multiprocessing`` worker too), closes (``with`` or ``close()``),
and one ``Session`` serves many threads, which see only ``DocnavError``s."""

from __future__ import annotations

import copy
import datetime
import multiprocessing
import pickle
import threading
from pathlib import Path
from typing import List, Tuple

import pytest

import docnav


def first_hit(job: Tuple[docnav.Workspace, str]) -> Tuple[str, str]:
    """Run in a spawned worker: the pickled workspace's best hit for a query."""
    workspace, query = job
    hit = workspace.search(query, k=1)[0]
    return hit.doc_id, hit.structure


def test_a_workspace_pickles_by_path_and_opens_again(workspace: docnav.Workspace) -> None:
    clone = pickle.loads(pickle.dumps(workspace))
    assert isinstance(clone, docnav.Workspace) and clone is not workspace
    assert clone.path == workspace.path
    assert [h.path for h in clone.search("compressed files", k=3)] == [
        h.path for h in workspace.search("compressed files", k=3)
    ]
    assert copy.deepcopy(workspace).path == workspace.path


def test_a_spawned_process_pool_searches_a_pickled_workspace(workspace: docnav.Workspace) -> None:
    queries = ["search compressed files", "memory map", "regular expression syntax"]
    expected = [first_hit((workspace, q)) for q in queries]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert pool.map(first_hit, [(workspace, q) for q in queries]) == expected
    assert expected[0] == ("ripgrep-faq", "1.8")


def test_a_closed_workspace_raises_a_workspace_error(indexed: Path) -> None:
    with docnav.Workspace(indexed) as ws:
        assert ws.search("compressed", k=1) and not ws.closed
    assert ws.closed
    with pytest.raises(docnav.WorkspaceError, match="is closed"):
        ws.search("compressed")
    with pytest.raises(docnav.WorkspaceError, match="is closed"):
        ws.docs()
    ws.close()  # twice: nothing
    other = docnav.Workspace(indexed)
    other.close()
    with pytest.raises(docnav.WorkspaceError, match="is closed"):
        with other:
            pass
    assert pickle.loads(pickle.dumps(ws)).search("compressed", k=1)


def test_one_session_serves_four_threads_with_only_docnav_errors(
    workspace: docnav.Workspace,
) -> None:
    session = workspace.session("/ripgrep-faq")
    others: List[BaseException] = []
    docnav_errors: List[docnav.DocnavError] = []
    outputs: List[str] = []
    lock = threading.Lock()
    commands = ["cd 1", "ls", "cd /ripgrep-faq", "cat 1/8", "cd no-such-section", "pwd"]

    def work(n: int) -> None:
        for i in range(100):
            try:
                out = session.exec(commands[(n + i) % len(commands)])
                _ = session.cwd
                with lock:
                    outputs.append(out)
            except docnav.DocnavError as e:
                with lock:
                    docnav_errors.append(e)
            except BaseException as e:  # noqa: BLE001 - counting what is not a DocnavError
                with lock:
                    others.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert others == []
    assert len(outputs) + len(docnav_errors) == 400
    # Only the unknown section failed, as a CommandError; the reads went through.
    assert docnav_errors and all(isinstance(e, docnav.CommandError) for e in docnav_errors)
    assert any("--search-zip" in out for out in outputs)
    assert session.evidence() and session.cwd.startswith("/ripgrep-faq")


def test_a_search_hit_is_a_frozen_value_that_pickles_copies_and_compares(
    workspace: docnav.Workspace,
) -> None:
    hits = workspace.search("search compressed files", k=3)
    best = hits[0]
    # The same search twice gives equal (not identical) hits; different hits differ.
    again = workspace.search("search compressed files", k=3)
    assert again == hits and again[0] is not best and best != hits[1]
    assert best != (best.doc_id, best.path)
    # Pickled, deep-copied and rebuilt from its fields it is the same value, derived
    # attributes included.
    for clone in (pickle.loads(pickle.dumps(best)), copy.deepcopy(best), copy.copy(best)):
        assert type(clone) is docnav.SearchHit and clone == best
        assert (clone.location, clone.title_path, clone.truncated) == (
            best.location, best.title_path, best.truncated)
    fields = ("doc_id", "path", "titles", "structure", "lines", "pages", "score", "text",
              "text_chars", "snippet", "highlights", "source")
    rebuilt = docnav.SearchHit(*(getattr(best, f) for f in fields))
    assert rebuilt == best
    assert docnav.SearchHit(**{f: getattr(best, f) for f in fields[:-1]}).source == ""
    # What the fields hold, from the real search.
    assert best.path == "/ripgrep-faq/#1.8" and best.lines == (163, 176) and best.pages is None
    assert best.title_path == "ripgrep-faq › " + " › ".join(best.titles)
    assert best.snippet == "".join(text for text, _ in best.highlights)
    assert isinstance(best.score, float) and best.score > 0
    assert repr(best).startswith("SearchHit(doc_id='ripgrep-faq', path='/ripgrep-faq/#1.8', ")
    assert f"score={best.score!r}" in repr(best)
    with pytest.raises(TypeError, match="unhashable"):
        hash(best)
    # A page-range location, as Evidence words it.
    pdf = docnav.SearchHit(*(getattr(best, f) for f in fields[:4]), None, (3, 5),
                           *(getattr(best, f) for f in fields[6:]))
    assert pdf.location == "pages 3–5"


def test_an_index_report_is_a_frozen_value_that_pickles_and_compares(tmp_path: Path) -> None:
    doc = tmp_path / "zebras.md"
    doc.write_text("# Zebras\n\nStriped horses of Africa.\n")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n garbage, not a PDF \x00\x01")
    with docnav.Workspace(tmp_path / ".docnav") as ws:
        report = ws.index([doc, broken])
    assert (report.indexed, report.unchanged, report.failed, report.pruned) == (1, 0, 1, 0)
    assert len(report.errors) == 1 and "broken.pdf" in report.errors[0]
    assert report.bytes_built > 0 and report.elapsed_ms > 0
    fields = ("indexed", "unchanged", "failed", "pruned", "duplicates", "errors", "warnings",
              "notices", "bytes_built", "elapsed_ms")
    for clone in (pickle.loads(pickle.dumps(report)), copy.deepcopy(report),
                  docnav.IndexReport(*(getattr(report, f) for f in fields))):
        assert type(clone) is docnav.IndexReport and clone == report
    assert report != docnav.IndexReport(**{**{f: getattr(report, f) for f in fields}, "failed": 0})
    assert repr(report).startswith("IndexReport(indexed=1, unchanged=0, failed=1, pruned=0, ")


def test_documents_trees_and_evidence_are_frozen_values_that_pickle_and_compare(
    workspace: docnav.Workspace,
) -> None:
    card = next(c for c in workspace.docs() if c.doc_id == "ripgrep-faq")
    tree = workspace.tree("ripgrep-faq")
    ranked = workspace.docs_for("search compressed files", k=2)
    session = workspace.session()
    session.exec("cat /ripgrep-faq/#1.8")
    evidence = session.evidence()
    assert evidence and evidence[0].doc_id == "ripgrep-faq" and evidence[0].lines == (163, 176)
    for value in (card, tree, ranked[0], evidence[0]):
        for clone in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value)):
            assert type(clone) is type(value) and clone == value, type(value).__name__
        assert repr(value).startswith(f"{type(value).__name__}(")
    # Fields as the CLI's JSON gives them.
    assert card.format == "markdown" and card.bytes > 0 and card.outline and card.period is None
    assert tree.structure == "" and tree.find("1.8") is not None
    assert [n.structure for n in tree.walk()][:2] == ["", tree.children[0].structure]
    # A subtree's nodes are the same objects however they are reached.
    node = tree.find("1.8")
    assert node is not None and node in list(tree.walk())
    assert tree.children[0] is tree.children[0]
    assert ranked[0].rank == 1 and ranked[0].why and ranked[0].card.doc_id
    assert isinstance(ranked[0].reasons, dict)
    assert evidence[0].location == "lines 163–176"
    assert evidence[0].title_path.startswith("ripgrep-faq › ")
    # Values differ by any field; a different class never equals.
    other = docnav.Node(tree.structure, "another title", tree.lines, tree.pages, tree.token_count,
                        tree.references, tree.children, tree.paragraphs)
    assert other != tree and tree != (tree.structure,)
    # A period's dates are dates; a Word document's evidence is located by paragraphs.
    period = docnav.Period("10-K", 2019, None, datetime.date(2019, 9, 28), None, None)
    assert pickle.loads(pickle.dumps(period)) == period and period.end == datetime.date(2019, 9, 28)
    word = docnav.Evidence("d", [], "", None, None, "t", 0.0, None, (2, 4))
    assert word.location == "paragraphs 2–4"
    answer = docnav.Answer(
        "q", [word], docnav.Verdict("sufficient", "", "evaluate"), [],
        docnav.AskStats(1, 2, 3, 4, 1, [docnav.WorkerStats("d", 2, 1)]), None,
        docnav.WrittenAnswer("t [1]", [docnav.AnswerSentence("t", [1], False, "no quote")]))
    assert pickle.loads(pickle.dumps(answer)) == answer
    assert answer.answer is not None and not answer.answer.supported
    with pytest.raises(AttributeError):
        answer.question = "other"  # type: ignore[misc]
