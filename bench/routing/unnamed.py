#!/usr/bin/env python3
"""Questions that name no document keep their ranking: for each question of fixtures/qa.jsonl,
where `docnav docs --for` (the Orchestrator's pre-rank) puts the gold document — first, among
the first 4 — to compare with the agent bench's "documents by their best section" figures
(BENCHMARKS.md, issue 4: 40 / 45 over fixtures/docs, 34 / 41 over the corpus).

Usage: bench/routing/unnamed.py DOCNAV WORKSPACE [QA]
The gold document is found by its file name (`docs/ripgrep__FAQ.md` → the card whose source
ends in `/ripgrep__FAQ.md`); questions whose file the workspace lacks are skipped.
"""

import json
import subprocess
import sys
from pathlib import Path


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    docnav, workspace = sys.argv[1], sys.argv[2]
    qa = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(__file__).parents[2] / "fixtures/qa.jsonl"
    cards = json.loads(
        subprocess.run([docnav, "--workspace", workspace, "docs", "--json"], check=True,
                       capture_output=True, text=True).stdout
    )
    by_file = {Path(c["source"]).name: c["doc_id"] for c in cards}
    first = top4 = n = 0
    for line in qa.read_text().splitlines():
        row = json.loads(line)
        gold = by_file.get(Path(row.get("doc", "")).name)
        if gold is None:
            continue
        n += 1
        out = subprocess.run(
            [docnav, "--workspace", workspace, "docs", "--for", row["question"], "-k", "4", "--json"],
            check=True, capture_output=True, text=True,
        ).stdout
        ranked = [r["card"]["doc_id"] for r in json.loads(out)]
        first += ranked[:1] == [gold]
        top4 += gold in ranked
        if ranked[:1] != [gold]:
            print(f"{'top4' if gold in ranked else 'MISS'}: {row['question']!r} gold {gold} got {ranked}")
    print(f"{n} questions: gold document first {first}, among the first 4 {top4}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
