"""``mypy --strict`` and ``pyright`` in strict mode find nothing to say about the Python blocks of
the README, the package's README and the guide's Python page (each block checked as its own
module, with the installed package's types), nor about the retrievers. Each is skipped where the
checker is not installed, unless ``DOCNAV_REQUIRE_FRAMEWORKS=1`` (as under ``cargo test``)."""

from __future__ import annotations

import importlib.util
import json
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


def require(checker: str) -> None:
    if importlib.util.find_spec(checker) is None:
        if os.environ.get("DOCNAV_REQUIRE_FRAMEWORKS") == "1":
            raise AssertionError(f"{checker} is not installed (pip install {checker})")
        pytest.skip(f"{checker} is not installed (pip install {checker})")


def write_blocks(folder: Path) -> List[Path]:
    blocks = python_blocks()
    assert len(blocks) >= 4, "the README and the guide's Python page show python blocks"
    files = []
    for n, block in enumerate(blocks):
        path = folder / f"example_{n}.py"
        path.write_text(block)
        files.append(path)
    return files


def mypy_strict(targets: List[str], cwd: Path) -> subprocess.CompletedProcess:
    require("mypy")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull,
         *targets],
        cwd=cwd, capture_output=True, text=True,
    )


def test_the_python_examples_pass_mypy_strict(tmp_path: Path) -> None:
    files = write_blocks(tmp_path)
    run = mypy_strict([str(f) for f in files], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout


def test_the_retrievers_pass_mypy_strict(tmp_path: Path) -> None:
    # As a package (the installed one, found by its py.typed), not as files: a file path inside
    # site-packages would make mypy take site-packages for the user's code.
    run = mypy_strict(["-p", "docnav.integrations"], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found in 3 source files" in run.stdout


def pyright_strict(targets: List[str], cwd: Path) -> dict:
    """pyright's JSON report of ``targets`` in strict mode, with this interpreter's packages (the
    installed docnav and frameworks). pip's ``pyright`` fetches Node.js on its first run."""
    require("pyright")
    config = cwd / "pyrightconfig.json"
    config.write_text(json.dumps({"typeCheckingMode": "strict"}))
    run = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--project", str(config),
         "--pythonpath", sys.executable, *targets],
        cwd=cwd, capture_output=True, text=True,
    )
    assert run.stdout.strip(), run.stderr
    report = json.loads(run.stdout)
    problems = [
        f"{d['file']}:{d['range']['start']['line'] + 1}: {d['severity']}: {d['message']}"
        for d in report["generalDiagnostics"]
    ]
    assert not problems, "\n".join(problems)
    assert run.returncode == 0, run.stdout + run.stderr
    return report


def test_the_python_examples_pass_pyright_strict(tmp_path: Path) -> None:
    files = write_blocks(tmp_path)
    report = pyright_strict([str(f) for f in files], tmp_path)
    assert report["summary"]["filesAnalyzed"] == len(files)


def test_the_retrievers_pass_pyright_strict(tmp_path: Path) -> None:
    import docnav.integrations

    package = Path(docnav.integrations.__file__).parent
    report = pyright_strict([str(package)], tmp_path)
    assert report["summary"]["filesAnalyzed"] == 3
