"""The model-free API over the repository's bundled documents: index, docs, tree, search, exec,
sessions, and the errors each raises."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import List

import pytest

import docnav

from conftest import FIXTURE_DOCS, REPO

# The CLI to compare with: the binary `cargo test` built (it sets DOCNAV_BIN), else a local build.
CLI = Path(os.environ.get("DOCNAV_BIN", REPO / "target" / "debug" / "docnav"))


def test_index_reports_and_skips_unchanged_files(tmp_path: Path) -> None:
    ws = docnav.Workspace(tmp_path / ".docnav")
    calls = []
    first = ws.index(FIXTURE_DOCS, progress=lambda done, total, path: calls.append((done, total)))
    assert (first.indexed, first.unchanged, first.failed) == (15, 0, 0)
    assert first.bytes_built > 1_000_000 and first.elapsed_ms > 0
    assert calls[0] == (0, 15) and calls[-1] == (15, 15)
    again = ws.index([FIXTURE_DOCS])
    assert (again.indexed, again.unchanged) == (0, 15)


def test_a_bad_file_is_one_error_line_and_the_others_are_indexed(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Title\n\nSome text about zebras.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\n garbage, not a PDF \x00\x01")
    report = docnav.Workspace(tmp_path / ".docnav").index([docs])
    assert (report.indexed, report.failed) == (1, 1)
    assert len(report.errors) == 1 and "broken.pdf" in report.errors[0]


def test_a_copy_is_counted_as_a_duplicate_and_its_name_opens_the_document(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "# Zebras\n\nStripes, herds and savannas.\n"
    (docs / "zebras.md").write_text(text)
    (docs / "zebras-copy.md").write_text(text)
    ws = docnav.Workspace(tmp_path / ".docnav")
    report = ws.index([docs])
    assert (report.indexed, report.duplicates, report.failed) == (1, 1, 0)
    assert report.notices == [
        f"`{docs.resolve() / 'zebras.md'}` has the same text as `zebras-copy` (kept once; `zebras` is an alias)"
    ]
    assert [card.doc_id for card in ws.docs()] == ["zebras-copy"]
    assert ws.tree("zebras").title == ws.tree("zebras-copy").title == "Zebras"


def many_documents(folder: Path, count: int) -> Path:
    """``count`` distinct Markdown documents (each bundled one with a line of its own)."""
    sources = sorted(FIXTURE_DOCS.glob("*.md"))
    folder.mkdir()
    for n in range(count):
        source = sources[n % len(sources)]
        (folder / f"{n:04d}-{source.name}").write_text(source.read_text() + f"\n\nCopy {n}.\n")
    return folder


def test_a_progress_callback_that_raises_stops_the_run_and_commits_nothing(tmp_path: Path) -> None:
    ws = docnav.Workspace(tmp_path / ".docnav")
    ws.index([FIXTURE_DOCS / "ripgrep__FAQ.md"])
    corpus = many_documents(tmp_path / "many", 120)
    calls: List[int] = []
    raised_at: List[float] = []

    def progress(done: int, total: int, path: str) -> None:
        calls.append(done)
        if done == 10:
            raised_at.append(time.monotonic())
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        ws.index([corpus], progress=progress)
    assert time.monotonic() - raised_at[0] < 5.0
    # Stopped at the 10th file (the callback is not called again), nothing committed.
    assert max(calls) == 10 and len(calls) == 11
    assert [c.doc_id for c in ws.docs()] == ["ripgrep-faq"]
    assert {h.doc_id for h in ws.search("search compressed files", k=50)} == {"ripgrep-faq"}
    # The next run indexes everything, and clears what the stopped one left.
    report = ws.index([corpus])
    assert report.indexed == 120 and report.failed == 0


def small_documents(folder: Path, count: int) -> Path:
    """``count`` small Markdown documents (three sections each)."""
    folder.mkdir()
    for n in range(count):
        (folder / f"doc{n:04d}.md").write_text(
            f"# Document {n}\n\nAbout widgets, copy {n}.\n\n## Usage\n\nRun `tool --flag {n}`.\n\n"
            f"## Notes\n\nNote {n}: gadgets.\n"
        )
    return folder


def test_ctrl_c_stops_a_2000_file_index_run_within_half_a_second_and_commits_nothing(
    tmp_path: Path,
) -> None:
    import _thread
    import signal

    ws = docnav.Workspace(tmp_path / ".docnav")
    ws.index([FIXTURE_DOCS / "ripgrep__FAQ.md"])  # the generation the run must leave as it is
    corpus = small_documents(tmp_path / "many", 2000)
    done: List[int] = []
    interrupted_at: List[float] = []

    def progress(d: int, total: int, path: str) -> None:
        done.append(d)
        # Ctrl-C at the 100th file, from an indexing thread, as the terminal's SIGINT reaches
        # Python: on its main thread, which waits for the run.
        if d == 100:
            interrupted_at.append(time.monotonic())
            _thread.interrupt_main()

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            ws.index([corpus], progress=progress)
        stopped = time.monotonic()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert interrupted_at and max(done) < 2000
    # Measured 26–67 ms with a debug build under a load of 7 on 2 cores.
    assert stopped - interrupted_at[0] < 0.5
    assert [c.doc_id for c in ws.docs()] == ["ripgrep-faq"]
    assert {h.doc_id for h in ws.search("widgets gadgets", k=50)} <= {"ripgrep-faq"}


def test_docs_are_the_cli_cards(workspace: docnav.Workspace, indexed: Path) -> None:
    cards = workspace.docs()
    assert len(cards) == 15
    faq = next(c for c in cards if c.doc_id == "ripgrep-faq")
    assert faq.format == "markdown" and faq.source.endswith("ripgrep__FAQ.md")
    assert faq.bytes == (FIXTURE_DOCS / "ripgrep__FAQ.md").stat().st_size
    assert faq.outline[0] == "1 FAQ"


def test_tree_holds_every_heading_with_its_lines(workspace: docnav.Workspace) -> None:
    root = workspace.tree("ripgrep-faq")
    assert root.structure == "" and root.children[0].title == "FAQ"
    compressed = root.find("1.8")
    assert compressed is not None
    assert compressed.title == "How do I search compressed files?"
    source = (FIXTURE_DOCS / "ripgrep__FAQ.md").read_text().splitlines()
    first, last = compressed.lines
    # The FAQ writes its headings as HTML: `<h3 name="compressed">`, the title on the next line.
    assert source[first - 1] == '<h3 name="compressed">' and source[first] == compressed.title
    pdf = workspace.tree("bash-manpage")
    assert pdf.children[0].pages is not None and pdf.children[0].lines is None


def test_search_ranks_the_section_that_answers(workspace: docnav.Workspace) -> None:
    hits = workspace.search("search compressed files", k=3)
    assert len(hits) == 3
    best = hits[0]
    assert (best.doc_id, best.structure) == ("ripgrep-faq", "1.8")
    assert best.titles[-1] == "How do I search compressed files?"
    assert best.score >= hits[1].score >= hits[2].score
    assert any(part for part, hit in best.highlights if hit and part.lower() == "compressed")
    assert "--search-zip" in best.text
    only = workspace.search("compressed", k=5, doc_ids=["r-intro"])
    assert {h.doc_id for h in only} == {"r-intro"} and only[0].pages is not None


def test_search_hits_come_best_score_first_with_source_and_location(
    workspace: docnav.Workspace,
) -> None:
    queries = ["search compressed files", "install", "configuration options", "data frame",
               "error handling", "regular expression", "performance memory", "file"]
    for query in queries:
        hits = workspace.search(query, k=50)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True), query
    [pdf] = workspace.search("compressed", k=1, doc_ids=["r-intro"])
    assert pdf.location.startswith("page") and pdf.source.endswith(".pdf")
    [md] = workspace.search("search compressed files", k=1)
    assert md.location == "lines 163–176" and md.source.endswith("ripgrep__FAQ.md")
    cut = workspace.search("search compressed files", k=1, budget=100)[0]
    whole = workspace.search("search compressed files", k=1, budget=None)[0]
    assert cut.truncated and not whole.truncated
    assert len(whole.text) == whole.text_chars == cut.text_chars > len(cut.text)


def test_docs_for_ranks_as_the_cli_does(workspace: docnav.Workspace, indexed: Path) -> None:
    question = "How do I search compressed files with ripgrep?"
    ranked = workspace.docs_for(question, k=3)
    assert [r.rank for r in ranked] == [1, 2, 3]
    assert ranked[0].card.doc_id.startswith("ripgrep") and ranked[0].why
    if CLI.exists():
        cli = subprocess.run(
            [str(CLI), "--workspace", str(indexed), "docs", "--for", question, "-k", "3", "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        expected = [(r["rank"], r["card"]["doc_id"], r["why"]) for r in json.loads(cli)]
        assert [(r.rank, r.card.doc_id, r.reasons) for r in ranked] == expected
    with pytest.raises(ValueError, match="empty"):
        workspace.docs_for("  ")
    with pytest.raises(ValueError, match="k must be"):
        workspace.docs_for("zip", k=51)


def test_docs_for_over_a_catalog_whose_cards_do_not_decode_raises_the_clis_error(
    indexed: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / ".docnav"
    shutil.copytree(indexed, damaged)
    with contextlib.closing(sqlite3.connect(damaged / "catalog.db")) as db, db:
        db.execute("UPDATE cards SET card = X'DEADBEEF'")
    with pytest.raises(docnav.WorkspaceError) as raised:
        docnav.Workspace(damaged).docs_for("search compressed files", k=3)
    message = str(raised.value)
    assert "catalog.db` is damaged: a card does not decode" in message
    assert message.endswith("(hint: re-index with `docnav index --force`)")
    if CLI.exists():
        cli = subprocess.run(
            [str(CLI), "--workspace", str(damaged), "docs", "--for", "search compressed files"],
            capture_output=True,
            text=True,
        )
        assert cli.returncode == 1
        assert cli.stderr.strip() == f"error: {message}"


def test_a_card_names_its_document_and_its_period(workspace: docnav.Workspace) -> None:
    cards = {c.doc_id: c for c in workspace.docs()}
    assert cards["ripgrep-faq"].names == ["ripgrep"]
    assert cards["ripgrep-faq"].period is None
    changelog = cards["regex-changelog"].period
    assert changelog is not None and changelog.releases is not None
    assert (changelog.releases.newest, changelog.releases.oldest) == ("1.13.1", "0.1.66")
    assert changelog.releases.count >= 100 and changelog.fiscal_year is None
    # A question naming the package and a version ranks the changelog that holds it first.
    first = workspace.docs_for("What did regex version 1.9 change?", k=1)[0]
    assert first.card.doc_id == "regex-changelog"
    assert first.reasons["period"]["label"] == "releases 0.1.66–1.13.1"
    assert set(first.reasons) <= docnav.RankReasons.__optional_keys__
    assert set(first.reasons["period"]) == docnav.PeriodMatch.__required_keys__


def test_search_refuses_bad_arguments(workspace: docnav.Workspace) -> None:
    with pytest.raises(ValueError, match="empty"):
        workspace.search("  ")
    with pytest.raises(ValueError, match="k must be"):
        workspace.search("zip", k=0)
    with pytest.raises(docnav.WorkspaceError, match="not found"):
        workspace.search("zip", doc_ids=["no-such-doc"])


def test_exec_prints_what_docnav_exec_prints(workspace: docnav.Workspace, indexed: Path) -> None:
    binary = CLI
    out = workspace.exec("grep -i 'search-zip' /ripgrep-faq")
    assert "search-zip" in out
    if binary.exists():
        cli = subprocess.run(
            [str(binary), "--workspace", str(indexed), "exec", "grep -i 'search-zip' /ripgrep-faq"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert cli.rstrip("\n") == out.rstrip("\n")
    assert workspace.exec("ls", cwd="/ripgrep-faq").startswith("1. FAQ")
    with pytest.raises(docnav.CommandError, match="no-such"):
        workspace.exec("cd /no-such")


def test_a_session_moves_and_collects_evidence(workspace: docnav.Workspace) -> None:
    session = workspace.session("/ripgrep-faq")
    assert session.cwd == "/ripgrep-faq"
    session.exec("cd 1/8")
    assert session.cwd.startswith("/ripgrep-faq/")
    text = session.exec("cat")
    assert "--search-zip" in text
    [evidence] = session.evidence()
    assert evidence.doc_id == "ripgrep-faq" and evidence.structure == "1.8"
    assert evidence.location == "lines 163–176"
    source = (FIXTURE_DOCS / "ripgrep__FAQ.md").read_text().splitlines()
    assert "\n".join(source[166:176]).strip() in evidence.text
    with pytest.raises(docnav.CommandError):
        session.exec("cd /nowhere")
    assert session.cwd.startswith("/ripgrep-faq/")
    session.clear_evidence()
    assert session.evidence() == []


def test_errors_name_the_workspace_and_what_to_do(tmp_path: Path) -> None:
    missing = docnav.Workspace(tmp_path / "none")
    with pytest.raises(docnav.WorkspaceError, match="no workspace at .*docnav index"):
        missing.docs()
    assert issubclass(docnav.WorkspaceError, docnav.DocnavError)
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "catalog.bin").write_bytes(b"\x00not a catalog")
    with pytest.raises(docnav.WorkspaceError):
        docnav.Workspace(damaged).docs()


def test_json_shapes_match_the_cli(workspace: docnav.Workspace, indexed: Path) -> None:
    binary = CLI
    if not binary.exists():
        pytest.skip("the CLI is not built (cargo build)")
    cli = json.loads(
        subprocess.run(
            [str(binary), "--workspace", str(indexed), "docs", "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert [c["doc_id"] for c in cli] == [c.doc_id for c in workspace.docs()]


def test_word_documents_are_located_by_paragraphs(tmp_path: Path) -> None:
    ws = docnav.Workspace(tmp_path / ".docnav")
    report = ws.index([REPO / "fixtures" / "docx" / "ripgrep__GUIDE.docx"])
    assert report.indexed == 1, report.errors
    [card] = ws.docs()
    assert card.format == "docx"
    section = ws.tree(card.doc_id).children[0]
    assert section.lines is None and section.paragraphs is not None
    session = ws.session(f"/{card.doc_id}")
    session.exec("cat 1")
    [evidence] = session.evidence()
    assert evidence.lines is None and evidence.location.startswith("paragraphs ")
