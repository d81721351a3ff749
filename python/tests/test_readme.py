"""The README's Python section runs as written: its code blocks, in order, in a fresh folder
holding the bundled documents, with the model settings pointing at the loopback fake model."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURE_DOCS, REPO
from fake_model import analysis, command, evaluation, plan


def python_section_blocks() -> list:
    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_readme_python_example_runs_as_written(tmp_path: Path, fake_model) -> None:
    blocks = python_section_blocks()
    assert len(blocks) == 2, "the README's Python section should hold two python blocks"
    (tmp_path / "fixtures").mkdir()
    os.symlink(FIXTURE_DOCS, tmp_path / "fixtures" / "docs")
    fake = fake_model(
        [
            # The first block's ask.
            analysis(["compressed files"], [("ripgrep-faq", "how to search compressed files")]),
            plan("ripgrep-faq", ["cat 1/8"], "cat 1/8"),
            command("ripgrep-faq", "done"),
            evaluation("sufficient"),
            # The retrievers' mode="ask".
            analysis(["compressed files"], [("ripgrep-faq", "how to search compressed files")]),
            plan("ripgrep-faq", ["cat 1/8"], "cat 1/8"),
            command("ripgrep-faq", "done"),
            evaluation("sufficient"),
        ]
    )
    env = dict(os.environ, DOCNAV_MODEL="fake-model", OPENAI_BASE_URL=fake.base_url)
    script = tmp_path / "readme_example.py"
    script.write_text("\n".join(blocks))
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "15 documents; 15 DocCards" in out
    assert "ripgrep-faq › FAQ › How do I search compressed files?  lines 163–176" in out
    assert "search-zip" in out
    assert "['lines 163–176']" in out
    assert "sufficient 4 model calls" in out
    assert "replay identical: " in out
    assert fake.all_served()
    assert (tmp_path / ".docnav" / "traces").is_dir()
