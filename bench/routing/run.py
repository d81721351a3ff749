#!/usr/bin/env python3
"""Routing by name and period: for each question of questions.jsonl, rank the DocCards with
`docnav docs --for QUESTION --json` (the Orchestrator's pre-rank) and report where the named
filing ("gold") lands.

Usage: bench/routing/run.py DOCNAV WORKSPACE [QUESTIONS]

WORKSPACE holds ../shared/corpus/filings, md and pdf indexed (69 documents):
  docnav --workspace WS index ../shared/corpus/filings ../shared/corpus/md ../shared/corpus/pdf
Prints one line per question that missed first place, then the totals; exits 1 when a gold
document is not in the first 3.
"""

import json
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    docnav, workspace = sys.argv[1], sys.argv[2]
    path = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(__file__).with_name("questions.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    first = top3 = 0
    ranks = []
    started = time.monotonic()
    for row in rows:
        out = subprocess.run(
            [docnav, "--workspace", workspace, "docs", "--for", row["question"], "-k", "10", "--json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        ranked = [r["card"]["doc_id"] for r in json.loads(out)]
        rank = ranked.index(row["gold"]) + 1 if row["gold"] in ranked else None
        ranks.append(rank)
        first += rank == 1
        top3 += rank is not None and rank <= 3
        if rank != 1:
            print(f"rank {rank}: {row['question']!r} gold {row['gold']} got {ranked[:3]}")
    n = len(rows)
    took = time.monotonic() - started
    print(
        f"{n} questions: named filing first {first}/{n} ({100 * first / n:.1f}%), "
        f"in first 3 {top3}/{n} ({100 * top3 / n:.1f}%); {took:.1f} s "
        f"({1000 * took / n:.0f} ms per question, process start included)"
    )
    return 0 if top3 == n else 1


if __name__ == "__main__":
    sys.exit(main())
