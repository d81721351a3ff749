"""The "Past one machine" figures of BENCHMARKS.md: a generated 10,000-document corpus (the one
``test_cluster.py`` compares) indexed into one workspace and into 3 shards on a 3-node Ray
cluster on 127.0.0.1, and search latency through the shard actors vs directly.
Run: ``python python/tests/bench_cluster.py`` (from the repository root, in a venv with the
``ray`` extra)."""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, List

import test_cluster  # sets Ray's environment (loopback) before importing it
from test_cluster import WORDS, generate_corpus

import docnav
from docnav import cluster


def latencies(run: Callable[[str], Any], queries: List[str]) -> List[float]:
    out = []
    for q in queries:
        start = time.perf_counter()
        run(q)
        out.append((time.perf_counter() - start) * 1000)
    return sorted(out)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate_corpus(root / "corpus", 10_000)
        with test_cluster.loopback_cluster():
            start = time.perf_counter()
            docnav.Workspace(root / "one").index([root / "corpus"])
            one_s = time.perf_counter() - start
            start = time.perf_counter()
            reports = cluster.build_shards([root / "corpus"], root / "shards", shards=3)
            shards_s = time.perf_counter() - start
            rng = random.Random(11)
            queries = [" ".join(rng.sample(WORDS[:600], rng.randint(1, 3))) for _ in range(200)]
            one = docnav.Workspace(root / "one")
            with cluster.ShardedWorkspace([r.path for r in reports]) as sharded:
                for q in queries[:10]:  # warm both
                    one.search(q)
                    sharded.search(q)
                direct = latencies(lambda q: one.search(q, k=10), queries)
                through = latencies(lambda q: sharded.search(q, k=10), queries)

    def pct(xs: List[float], p: float) -> float:
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    print(f"docnav index (one workspace): {one_s:.1f} s; build_shards (3 shards): {shards_s:.1f} s")
    print(f"direct search p50 {statistics.median(direct):.1f} ms p99 {pct(direct, 0.99):.1f} ms")
    print(f"sharded search p50 {statistics.median(through):.1f} ms p99 {pct(through, 0.99):.1f} ms")


if __name__ == "__main__":
    main()
