"""``Workspace`` and ``Session`` as ordinary Python objects: a workspace pickles by its path and
opens again (in a spawn-mode ``multiprocessing`` worker too), closes (``with`` or ``close()``),
and one ``Session`` serves many threads, which see only ``DocnavError``s."""

from __future__ import annotations

import copy
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
