"""The "Past one machine" figures of BENCHMARKS.md: a generated corpus (``test_cluster.py``'s
``generate_corpus``) indexed by ``docnav index`` into one workspace and by ``build_shards`` into
N shards on an N-node Ray cluster on 127.0.0.1 (one CPU per node), with wall time and peak
memory (the ``docnav index`` process; each Ray node: its raylet and the worker processes under
it, sampled every 0.2 s), then search latency through the shard actors against one workspace,
and the wall time of an ``ask`` against a scripted model on 127.0.0.1 that answers at once
(analyze, one Worker's plan and ``done``, evaluate: docnav's own time, the model's is nil).

Run (from the repository root, in a venv with the ``ray`` extra; a release build of the
extension and of ``docnav`` for figures worth keeping):
``python python/tests/bench_cluster.py --docs 100000 --shards 4 --docnav target/release/docnav``.
Defaults: 10,000 documents, 3 shards, ``docnav`` from PATH."""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

import test_cluster  # sets Ray's environment (loopback) before importing it
from fake_model import FakeModel, Reply, analysis, command, evaluation, plan
from test_cluster import WORDS, generate_corpus

import psutil  # Ray's own dependency (ray[default])

import docnav
from docnav import cluster

MIB = 1024 * 1024


def latencies(run: Callable[[str], Any], queries: List[str]) -> List[float]:
    """Milliseconds of ``run(q)`` for each query, sorted."""
    out = []
    for q in queries:
        start = time.perf_counter()
        run(q)
        out.append((time.perf_counter() - start) * 1000)
    return sorted(out)


def pct(xs: List[float], p: float) -> float:
    return xs[min(len(xs) - 1, int(p * len(xs)))]


class NodeMemory:
    """Peak resident memory (bytes) of each Ray node on this machine: a raylet process plus
    every process below it (Ray starts a node's workers as the raylet's children), summed at
    each sample, the largest sum kept per raylet pid; ``idle`` holds each node's first sample."""

    def __init__(self) -> None:
        self.peaks: Dict[int, int] = {}
        self.idle: Dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        for p in psutil.process_iter(["name", "cmdline"]):
            try:
                cmd = " ".join(p.info["cmdline"] or [])
                if "raylet" not in (p.info["name"] or "") or "/raylet" not in cmd:
                    continue
                total = p.memory_info().rss
                for child in p.children(recursive=True):
                    total += child.memory_info().rss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            self.idle.setdefault(p.pid, total)
            self.peaks[p.pid] = max(self.peaks.get(p.pid, 0), total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(0.2)

    def __enter__(self) -> "NodeMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def index_one_workspace(docnav_bin: str, ws: Path, corpus: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of ``docnav index corpus`` into ``ws``."""
    start = time.perf_counter()
    out = subprocess.run(
        ["/usr/bin/time", "-f", "maxrss %M", docnav_bin, "--workspace", str(ws), "index", str(corpus)],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    kib = next(int(line.split()[1]) for line in out.stderr.splitlines() if line.startswith("maxrss "))
    return wall, kib * 1024


ASK_DOC = "d00042"


def ask_script(asks: int) -> List[Reply]:
    """``asks`` runs of: analyze picks ``ASK_DOC``, its Worker reads section 1 and is done,
    evaluate finds it sufficient."""
    one = [
        analysis(["document"], [(ASK_DOC, "read the document")]),
        plan(ASK_DOC, ["cat 1"], "cat 1"),
        command(ASK_DOC, "done"),
        evaluation("sufficient"),
    ]
    return one * asks


def ask_seconds(ask: Callable[..., Any], asks: int) -> List[float]:
    """Wall seconds of each of ``asks`` asks of the same question (no answer reused), in order."""
    fake = FakeModel(ask_script(asks))
    out = []
    try:
        for _ in range(asks):
            start = time.perf_counter()
            answer = ask("What does document 42 say?", model="fake", base_url=fake.base_url,
                         trace=False, no_cache=True)
            out.append(time.perf_counter() - start)
            assert answer.evidence and answer.evidence[0].doc_id == ASK_DOC, answer
        assert fake.all_served()
    finally:
        fake.close()
    return out


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--docs", type=int, default=10_000, help="generated documents (default 10,000)")
    args.add_argument("--shards", type=int, default=3, help="shards, one Ray node each (default 3)")
    args.add_argument("--docnav", default=shutil.which("docnav") or "docnav", help="the docnav binary")
    args.add_argument("--queries", type=int, default=200, help="search queries timed (default 200)")
    args.add_argument("--asks", type=int, default=6, help="asks timed, at least 2 (default 6)")
    opts = args.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate_corpus(root / "corpus", opts.docs)
        one_s, one_rss = index_one_workspace(opts.docnav, root / "one", root / "corpus")
        with test_cluster.loopback_cluster(nodes=opts.shards):
            with NodeMemory() as memory:
                start = time.perf_counter()
                # One indexing thread per shard: each node has one CPU.
                reports = cluster.build_shards(
                    [root / "corpus"], root / "shards", shards=opts.shards, jobs=1
                )
                shards_s = time.perf_counter() - start
            rng = random.Random(11)
            queries = [" ".join(rng.sample(WORDS[:600], rng.randint(1, 3))) for _ in range(opts.queries)]
            one = docnav.Workspace(root / "one")
            with cluster.ShardedWorkspace([r.path for r in reports]) as sharded:
                for q in queries[:10]:  # warm both
                    one.search(q)
                    sharded.search(q)
                direct = latencies(lambda q: one.search(q, k=10), queries)
                through = latencies(lambda q: sharded.search(q, k=10), queries)
                ask_one = ask_seconds(one.ask, opts.asks)
                ask_sharded = ask_seconds(sharded.ask, opts.asks)

    sizes = ", ".join(str(r.report.indexed) for r in reports)
    peaks = ", ".join(
        f"{memory.peaks[pid] / MIB:.0f} ({memory.idle[pid] / MIB:.0f} idle)"
        for pid in sorted(memory.peaks, key=memory.peaks.__getitem__, reverse=True)
    )
    print(f"{opts.docs} documents, {opts.shards} shards on {opts.shards} Ray nodes (1 CPU each)")
    print(f"docnav index (one workspace): {one_s:.1f} s, peak {one_rss / MIB:.0f} MiB")
    print(f"build_shards: {shards_s:.1f} s; documents per shard {sizes}; peak MiB per node {peaks}")
    print(f"direct search p50 {statistics.median(direct):.1f} ms p99 {pct(direct, 0.99):.1f} ms")
    print(f"sharded search p50 {statistics.median(through):.1f} ms p99 {pct(through, 0.99):.1f} ms")
    print(f"ask, first / median of the {opts.asks - 1} after: one workspace {ask_one[0]:.3f} / "
          f"{statistics.median(ask_one[1:]):.3f} s, sharded {ask_sharded[0]:.3f} / "
          f"{statistics.median(ask_sharded[1:]):.3f} s")


if __name__ == "__main__":
    main()
