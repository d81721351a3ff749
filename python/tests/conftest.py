"""Shared fixtures: the repository's bundled documents indexed once per session into a temporary
workspace, and the scripted fake model."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

# The tests are of the installed package. `python -m pytest` run inside `python/` puts that folder
# first on sys.path, where the source `docnav/` (without its compiled `_native`) would shadow it.
_SOURCE = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != _SOURCE]

import docnav  # noqa: E402

from fake_model import FakeModel, Reply

REPO = Path(__file__).resolve().parents[2]
FIXTURE_DOCS = REPO / "fixtures" / "docs"


@pytest.fixture(scope="session")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace holding ``fixtures/docs`` (15 documents); tests must not change it."""
    ws_dir = tmp_path_factory.mktemp("ws") / ".docnav"
    report = docnav.Workspace(ws_dir).index([FIXTURE_DOCS])
    assert report.failed == 0, report.errors
    return ws_dir


@pytest.fixture
def workspace(indexed: Path) -> docnav.Workspace:
    return docnav.Workspace(indexed)


@pytest.fixture
def own_workspace(indexed: Path, tmp_path: Path) -> docnav.Workspace:
    """A copy of the indexed workspace this test may change (record traces into, re-index)."""
    copy = tmp_path / ".docnav"
    shutil.copytree(indexed, copy)
    return docnav.Workspace(copy)


@pytest.fixture
def no_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DOCNAV_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "DOCNAV_TRACE_DIR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_model(no_model_env: None) -> Iterator[callable]:
    """``fake_model(replies)`` starts a fake server; all are closed after the test."""
    started: List[FakeModel] = []

    def start(replies: List[Reply]) -> FakeModel:
        fake = FakeModel(replies)
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.close()
