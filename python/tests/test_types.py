"""``mypy --strict`` finds nothing to say about the Python blocks of the README, the package's
README and the guide's Python page (each block checked as its own module, with the installed
package's types), nor about the retrievers. Skipped where mypy is not installed, unless
``DOCNAV_REQUIRE_FRAMEWORKS=1`` (as under ``cargo test``)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from conftest import REPO

PAGES = [REPO / "README.md", REPO / "python" / "README.md", REPO / "docs" / "src" / "python.md"]


def python_blocks() -> List[str]:
    blocks: List[str] = []
    for page in PAGES:
        blocks += re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    return blocks


def mypy_strict(targets: List[str], cwd: Path) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("DOCNAV_REQUIRE_FRAMEWORKS") == "1":
            raise AssertionError("mypy is not installed (pip install mypy)")
        pytest.skip("mypy is not installed")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull,
         *targets],
        cwd=cwd, capture_output=True, text=True,
    )


def test_the_python_examples_pass_mypy_strict(tmp_path: Path) -> None:
    blocks = python_blocks()
    assert len(blocks) >= 4, "the README and the guide's Python page show python blocks"
    files = []
    for n, block in enumerate(blocks):
        path = tmp_path / f"example_{n}.py"
        path.write_text(block)
        files.append(path)
    run = mypy_strict([str(f) for f in files], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout


def test_the_retrievers_pass_mypy_strict(tmp_path: Path) -> None:
    # As a package (the installed one, found by its py.typed), not as files: a file path inside
    # site-packages would make mypy take site-packages for the user's code.
    run = mypy_strict(["-p", "docnav.integrations"], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found in 3 source files" in run.stdout
