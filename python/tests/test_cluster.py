"""``docnav.cluster`` on a 3-node Ray cluster on this machine, every node on 127.0.0.1: sharded
search gives the hits, order and scores of one workspace holding every document (the bundled
fixtures and a generated 10,000-document corpus), ``docs``/``tree``/``exec`` reach the shard
holding the document, a re-run rebuilds only what changed, a killed shard actor is a
``ShardError`` naming the shard, and ``ask`` (each Worker on its document's shard) gives the
prompts, evidence and verdict of one workspace. Skipped when Ray is not installed, unless
``DOCNAV_REQUIRE_RAY=1`` (``.ci/run``), where that fails instead."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any, Iterator, List, Optional, Sequence, Tuple

import pytest

import docnav

from conftest import FIXTURE_DOCS

if importlib.util.find_spec("ray") is None:
    if os.environ.get("DOCNAV_REQUIRE_RAY") == "1":
        raise AssertionError('DOCNAV_REQUIRE_RAY=1 but ray is not installed (pip install "ray[default]")')
    pytest.skip("ray is not installed (pip install \"docnav[ray]\")", allow_module_level=True)

# Ray announces a node's own network address even when given 127.0.0.1
# (`resolve_ip_for_localhost`), except where it believes clusters unsupported: there it uses the
# loopback address. Set before Ray is imported (its constants read it once).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from docnav import cluster  # noqa: E402

@contextlib.contextmanager
def loopback_cluster(nodes: int = 3) -> Iterator[Cluster]:
    """``nodes`` Ray nodes (one CPU each) on 127.0.0.1, torn down at the end: only the processes
    this cluster started are stopped (``ray stop`` would stop every Ray of the machine)."""
    # Short: Ray's Unix sockets live under it (at most 107 bytes). Ray also writes the address
    # of its "current cluster" into `$RAY_TMPDIR/ray`, by default the machine's shared /tmp/ray.
    temp = tempfile.mkdtemp(prefix="dnray-", dir="/tmp")
    os.environ["RAY_TMPDIR"] = temp
    os.makedirs(os.path.join(temp, "ray"))
    c = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "node_ip_address": "127.0.0.1",
            "include_dashboard": False,
            "temp_dir": os.path.join(temp, "ray"),
        },
    )
    try:
        for _ in range(nodes - 1):
            c.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
        alive = [n for n in ray.nodes() if n["Alive"]]
        assert len(alive) == nodes, alive
        assert all(n["NodeManagerAddress"] == "127.0.0.1" for n in alive), alive
        yield c
    finally:
        ray.shutdown()
        c.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Cluster]:
    # No wall-time bound here: speed is measured in benchmarks (python/tests/bench_cluster.py),
    # and a shared 2-core machine took 412 s for what takes 200 s alone.
    with loopback_cluster() as c:
        yield c


def shown(hits: Sequence[docnav.SearchHit]) -> List[Tuple[str, str, str]]:
    return [(h.doc_id, h.path, h.text) for h in hits]


def assert_same_hits(
    one: Sequence[docnav.SearchHit], sharded: Sequence[docnav.SearchHit], what: str
) -> None:
    assert shown(one) == shown(sharded), what
    for a, b in zip(one, sharded):
        assert abs(a.score - b.score) < 1e-5, (what, a, b)
        assert a.source == b.source and a.highlights == b.highlights, what


FIXTURE_QUERIES = [
    "how do I search compressed files",
    "file name",
    "thread pool",
    "build cache docker",
    "read a file line by line",
    "unicode word boundary regex",
    "table of contents",
    "subcommand",
    "filesystem hierarchy /usr/local",
    "bash parameter expansion",
]


@pytest.fixture(scope="module")
def fixture_shards(ray_cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> List[str]:
    out = tmp_path_factory.mktemp("shards")
    reports = cluster.build_shards([FIXTURE_DOCS], out, shards=3)
    assert [r.shard for r in reports] == [0, 1, 2]
    assert all(r.report.failed == 0 for r in reports), [r.report.errors for r in reports]
    assert sum(r.report.indexed for r in reports) == 15
    return [r.path for r in reports]


def test_sharded_search_equals_one_workspace_on_the_fixtures(
    fixture_shards: List[str], workspace: docnav.Workspace
) -> None:
    with cluster.ShardedWorkspace(fixture_shards, timeout=60) as sharded:
        docs = sharded.docs()
        assert [d.doc_id for d in docs] == [d.doc_id for d in workspace.docs()]
        holders = {cluster.shard_of(d.doc_id, 3) for d in docs}
        assert holders == {0, 1, 2}, "every shard holds documents"
        compared = 0
        for query in FIXTURE_QUERIES:
            for k in (1, 5, 50):
                one = workspace.search(query, k=k)
                assert_same_hits(one, sharded.search(query, k=k), f"{query} k={k}")
                compared += len(one)
        assert compared > 200
        scope = ["ripgrep-guide", "nodejs-doc-fs", "bash-manpage", "notes"]
        for query in FIXTURE_QUERIES[:4]:
            one = workspace.search(query, k=10, doc_ids=scope)
            assert_same_hits(one, sharded.search(query, k=10, doc_ids=scope), query)
        with pytest.raises(ValueError, match="k must be 1 to 50"):
            sharded.search("file", k=0)


def assert_same_ranking(
    one: Sequence[docnav.RankedDoc], sharded: Sequence[docnav.RankedDoc], what: str
) -> None:
    def shown(ranked: Sequence[docnav.RankedDoc]) -> List[Tuple[int, str, str, Any]]:
        return [
            (
                r.rank,
                r.card.doc_id,
                r.why,
                {k: v for k, v in r.reasons.items() if k not in ("section", "card")},
            )
            for r in ranked
        ]

    assert shown(one) == shown(sharded), what
    for a, b in zip(one, sharded):
        for part in ("section", "card"):
            x, y = a.reasons.get(part), b.reasons.get(part)
            assert (x is None) == (y is None), (what, a.reasons, b.reasons)
            if x is not None and y is not None:
                assert x["rank"] == y["rank"], (what, a.reasons, b.reasons)
                assert abs(x["score"] - y["score"]) < 1e-5, (what, a.reasons, b.reasons)
        assert a.card.title == b.card.title and a.card.source == b.card.source, what


def test_sharded_docs_for_equals_one_workspace_on_the_fixtures(
    fixture_shards: List[str], workspace: docnav.Workspace
) -> None:
    with cluster.ShardedWorkspace(fixture_shards, timeout=60) as sharded:
        matched = 0
        for query in FIXTURE_QUERIES:
            for k in (1, 10, 50):
                one = workspace.docs_for(query, k=k)
                assert_same_ranking(one, sharded.docs_for(query, k=k), f"{query} k={k}")
                matched += sum(1 for r in one if "section" in r.reasons or "card" in r.reasons)
        assert matched > 100
        with pytest.raises(ValueError, match="k must be 1 to 50"):
            sharded.docs_for("file", k=0)
        with pytest.raises(ValueError, match="empty"):
            sharded.docs_for("  ")


FILINGS = FIXTURE_DOCS.parent / "filings"


def test_sharded_docs_for_names_companies_and_periods_as_one_workspace(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    one = docnav.Workspace(tmp_path / "one" / ".docnav")
    assert one.index([FILINGS]).failed == 0
    reports = cluster.build_shards([FILINGS], tmp_path / "shards", shards=3)
    assert sum(r.report.indexed for r in reports) == 4
    with cluster.ShardedWorkspace([r.path for r in reports], timeout=60) as sharded:
        for question in [
            "What was AAPL's revenue in fiscal 2019?",
            "What did Costco report in its 8-K of August 2023?",
            "MCD revenue in the second quarter of 2023",
            "McDonald's 10-K for 2022",
        ]:
            ranked = one.docs_for(question, k=4)
            assert "name" in ranked[0].reasons, (question, ranked[0].why)
            assert_same_ranking(ranked, sharded.docs_for(question, k=4), question)
        first = sharded.docs_for("MCD revenue in the second quarter of 2023", k=2)
        assert first[0].card.doc_id == "mcdonalds-2023q2-earnings"
        assert first[0].reasons["period"]["score"] > 0


def test_docs_tree_and_exec_go_to_the_shard_of_the_document(
    fixture_shards: List[str], workspace: docnav.Workspace
) -> None:
    with cluster.ShardedWorkspace(fixture_shards, timeout=60) as sharded:
        for doc_id in ("ripgrep-faq", "nodejs-doc-fs", "fhs-3-0", "r-intro"):
            assert sharded.tree(doc_id) == workspace.tree(doc_id)
            assert sharded.exec(f"cat /{doc_id}/#1") == workspace.exec(f"cat /{doc_id}/#1")
            assert sharded.exec("ls", cwd=f"/{doc_id}") == workspace.exec("ls", cwd=f"/{doc_id}")
            # The shard it hashes to holds it, and only that one.
            holder = cluster.shard_of(doc_id, 3)
            for i, path in enumerate(fixture_shards):
                ids = [d.doc_id for d in docnav.Workspace(path).docs()]
                assert (doc_id in ids) == (i == holder), (doc_id, i)
        assert sharded.exec("find compressed", doc_id="ripgrep-faq") == workspace.exec(
            "find compressed", cwd="/ripgrep-faq"
        ) or "compressed" in sharded.exec("find compressed", cwd="/ripgrep-faq")
        with pytest.raises(docnav.WorkspaceError, match="no-such-doc"):
            sharded.tree("no-such-doc")
        with pytest.raises(docnav.CommandError):
            sharded.exec("cat /ripgrep-faq/#99.99")
        with pytest.raises(ValueError, match="names no document"):
            sharded.exec("ls /")


def test_a_killed_shard_actor_is_a_clear_error_naming_the_shard(
    fixture_shards: List[str],
) -> None:
    sharded = cluster.ShardedWorkspace(fixture_shards, timeout=60)
    try:
        assert sharded.search("compressed files", k=3)
        pid = ray.get(sharded._actors[1].pid.remote())
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(cluster.ShardError, match=r"shard 1 \(`.*shard-01`\)") as raised:
            sharded.search("compressed files", k=3)
        assert raised.value.shard == 1 and raised.value.path == fixture_shards[1]
        assert isinstance(raised.value, docnav.DocnavError)
        assert "no partial answer" in str(raised.value)
    finally:
        sharded.close()


def test_a_rerun_rebuilds_only_the_changed_document(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    shutil.copytree(FIXTURE_DOCS, src, ignore=shutil.ignore_patterns("*.pdf"))
    out = tmp_path / "shards"
    first = cluster.build_shards([src], out, shards=3)
    n = sum(r.report.indexed for r in first)
    assert n == len(list(src.iterdir()))
    again = cluster.build_shards([src], out, shards=3)
    assert sum(r.report.indexed for r in again) == 0
    assert sum(r.report.unchanged for r in again) == n
    changed = src / "notes.txt"
    changed.write_text(changed.read_text() + "\nA zanzibarian addendum.\n")
    third = cluster.build_shards([src], out, shards=3)
    assert [r.report.indexed for r in third] == [
        int(i == cluster.shard_of("notes", 3)) for i in range(3)
    ]
    with cluster.ShardedWorkspace([r.path for r in third], timeout=60) as sharded:
        hits = sharded.search("zanzibarian", k=1)
        assert [h.doc_id for h in hits] == ["notes"]


WORDS = [f"w{i:04d}" for i in range(3000)]


def generate_corpus(root: Path, count: int) -> None:
    """``count`` Markdown documents of 1–4 sections over a Zipf-like vocabulary (seeded)."""
    rng = random.Random(48)
    weights = [1.0 / (i + 1) for i in range(len(WORDS))]
    root.mkdir()
    for n in range(count):
        words = rng.choices(WORDS, weights, k=120)
        lines = [f"# Document {n} {words[0]} {words[1]}", ""]
        for s in range(rng.randint(1, 4)):
            lines += [f"## Part {s} {words[2 + s]}", "", " ".join(words[10 + 25 * s: 35 + 25 * s]), ""]
        (root / f"d{n:05d}.md").write_text("\n".join(lines))


def test_sharded_search_equals_one_workspace_on_10000_documents(
    ray_cluster: Cluster, tmp_path: Path
) -> None:
    src = tmp_path / "corpus"
    generate_corpus(src, 10_000)
    one = docnav.Workspace(tmp_path / "one")
    assert one.index([src]).indexed == 10_000
    reports = cluster.build_shards([src], tmp_path / "shards", shards=3)
    assert sum(r.report.indexed for r in reports) == 10_000
    assert min(r.report.indexed for r in reports) > 3_000
    rng = random.Random(7)
    queries = [" ".join(rng.sample(WORDS[:400], rng.randint(1, 3))) for _ in range(20)]
    queries += ["document part", "w0000 w0001", WORDS[2999]]
    with cluster.ShardedWorkspace([r.path for r in reports], timeout=60) as sharded:
        compared = 0
        for query in queries:
            for k in (10, 50):
                hits = one.search(query, k=k)
                assert_same_hits(hits, sharded.search(query, k=k), f"{query} k={k}")
                compared += len(hits)
        assert compared > 500


# `ask` over the shards: the Orchestrator here, each Worker in its document's shard.

ASK_QUESTION = "How do I search compressed files with ripgrep?"

#: One document of each shard (of 3) and the Worker's command on it.
ASK_TASKS = [
    ("ripgrep-faq", "find how to search compressed files", "cat 1/8"),
    ("bash-manpage", "find what the shell says of compression", "cat 1"),
    ("python-markdown-toc", "find whether the toc covers archives", "cat 1"),
]


def ask_script() -> list:
    import json

    from fake_model import Reply, analysis, command, evaluation, plan

    # Analyze first asks for a catalog search (ranked over every shard), then chooses.
    search = {"intent": "factual", "key_concepts": ["compressed files"], "strategy": "focused",
              "tasks": [], "search": ["search compressed archives", "shell manual"]}
    script = [Reply(json.dumps(search))]
    script += [analysis(["compressed files"], [(d, t) for d, t, _ in ASK_TASKS])]
    for doc, _, line in ASK_TASKS:
        script += [plan(doc, [line], line), command(doc, "done")]
    return script + [evaluation("sufficient")]


def trace_lines(path: Path) -> List[dict]:
    import json

    return [json.loads(line) for line in path.read_text().splitlines()]


def prompts(fake: Any) -> List[str]:
    """Every request's messages, as text, in a stable order (Workers run concurrently)."""
    import json

    return sorted(json.dumps(r["messages"], sort_keys=True) for r in fake.requests)


def test_sharded_ask_gives_the_evidence_and_verdict_of_one_workspace(
    fixture_shards: List[str], own_workspace: docnav.Workspace, fake_model, tmp_path: Path
) -> None:
    import json

    assert [cluster.shard_of(d, 3) for d, _, _ in ASK_TASKS] == [0, 1, 2]
    one_fake = fake_model(ask_script())
    one = own_workspace.ask(
        ASK_QUESTION, model="fake", base_url=one_fake.base_url, trace=tmp_path / "one.jsonl",
        no_cache=True,
    )
    assert one_fake.all_served()
    sharded_fake = fake_model(ask_script())
    sharded_trace = tmp_path / "sharded.jsonl"
    with cluster.ShardedWorkspace(fixture_shards, timeout=120) as sharded:
        answer = sharded.ask(
            ASK_QUESTION, model="fake", base_url=sharded_fake.base_url, trace=sharded_trace
        )
    assert sharded_fake.all_served()
    # Every prompt, the Orchestrator's and each Worker's, is the one the workspace sent: the
    # pre-rank and the catalog search over the shards listed the cards one workspace lists.
    assert prompts(sharded_fake) == prompts(one_fake)
    assert "document(s) found" in json.dumps(sharded_fake.requests[1]["messages"])

    def evidence(a: docnav.Answer) -> List[tuple]:
        return [(e.doc_id, e.structure, e.lines, e.text, e.score) for e in a.evidence]

    assert len(answer.evidence) == 3 and answer.evidence[0].doc_id == "ripgrep-faq"
    assert evidence(answer) == evidence(one)
    assert answer.verdict == one.verdict == docnav.Verdict("sufficient", "", "evaluate")
    assert answer.worker_errors == [] and one.worker_errors == []
    assert answer.stats.workers == one.stats.workers and answer.stats.llm_calls == 9
    assert answer.trace == str(sharded_trace)

    # The trace records the layout: the shards in its header, each Worker's shard at its start.
    records = trace_lines(sharded_trace)
    assert records[0]["shards"] == fixture_shards
    started = {r["actor"]: r for r in records[1:] if r["type"] == "worker_started"}
    assert {r["doc_id"]: r["shard"] for r in started.values()} == {
        d: i for i, (d, _, _) in enumerate(ASK_TASKS)
    }
    # … and a one-workspace trace has neither.
    one_records = trace_lines(tmp_path / "one.jsonl")
    assert "shards" not in one_records[0]
    assert all("shard" not in r for r in one_records[1:] if r["type"] == "worker_started")
    # The sharded run replays identically against one workspace holding the same documents.
    report = docnav.replay(sharded_trace, own_workspace)
    assert report.identical, report.message
    # … and against the shards, as the one-workspace run does.
    with cluster.ShardedWorkspace(fixture_shards, timeout=120) as sharded:
        for recorded in (sharded_trace, tmp_path / "one.jsonl"):
            report = sharded.replay(recorded)
            assert report.identical, (recorded, report.message)
            assert report.details["model_replies"] == 9


def test_a_worker_whose_shard_actor_dies_fails_naming_the_shard(
    fixture_shards: List[str], fake_model
) -> None:
    import threading
    import time

    from fake_model import Reply, analysis, evaluation, worker_tag

    gate = threading.Event()
    doc = "bash-manpage"  # on shard 1
    fake = fake_model(
        [
            analysis(["compression"], [(doc, "find what the shell says of compression")]),
            # The Worker's first request waits until its shard's actor is dead.
            Reply('{"plan": ["cat 1"], "reason": "r", "command": "cat 1"}', when=worker_tag(doc),
                  gate=gate),
            evaluation("insufficient", "the shell manual was not read"),
        ]
    )
    sharded = cluster.ShardedWorkspace(fixture_shards, timeout=120)
    killed: List[int] = []

    def kill_when_the_worker_asks(pid: int) -> None:
        try:
            while not any(worker_tag(doc) in str(r["messages"]) for r in fake.requests):
                time.sleep(0.02)
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        finally:
            gate.set()

    try:
        pid = ray.get(sharded._actors[1].pid.remote())
        killer = threading.Thread(target=kill_when_the_worker_asks, args=(pid,))
        killer.start()
        answer = sharded.ask(ASK_QUESTION, model="fake", base_url=fake.base_url, rounds=1)
        killer.join()
    finally:
        gate.set()
        sharded.close()
    assert killed, "the shard's actor was killed"
    [failure] = answer.worker_errors
    assert failure.doc_id == doc
    assert "ShardError" in failure.error and "shard 1 (`" in failure.error
    assert fixture_shards[1] in failure.error and "no partial answer" in failure.error
    assert answer.evidence == []
    assert answer.verdict == docnav.Verdict(
        "insufficient", "the shell manual was not read", "evaluate"
    )
    assert fake.all_served()


def test_ask_over_a_dead_shard_raises_naming_it(fixture_shards: List[str], fake_model) -> None:
    fake = fake_model([])
    sharded = cluster.ShardedWorkspace(fixture_shards, timeout=120)
    try:
        os.kill(ray.get(sharded._actors[2].pid.remote()), signal.SIGKILL)
        with pytest.raises(cluster.ShardError, match=r"shard 2 \(`.*shard-02`\)") as raised:
            sharded.ask(ASK_QUESTION, model="fake", base_url=fake.base_url)
        assert raised.value.shard == 2 and "no partial answer" in str(raised.value)
        assert fake.requests == []
    finally:
        sharded.close()


def test_a_shard_that_dies_during_a_catalog_search_fails_the_ask_naming_it(
    fixture_shards: List[str], fake_model
) -> None:
    import json
    import threading
    import time

    from fake_model import Reply

    gate = threading.Event()
    search = {"intent": "factual", "key_concepts": ["compressed files"], "strategy": "focused",
              "tasks": [], "search": ["search compressed archives"]}
    # Analyze's reply (asking for a catalog search) waits until shard 0's actor is dead.
    fake = fake_model([Reply(json.dumps(search), gate=gate)])
    sharded = cluster.ShardedWorkspace(fixture_shards, timeout=120)

    def kill_when_analyze_asks(pid: int) -> None:
        try:
            while not fake.requests:
                time.sleep(0.02)
            os.kill(pid, signal.SIGKILL)
        finally:
            gate.set()

    try:
        pid = ray.get(sharded._actors[0].pid.remote())
        killer = threading.Thread(target=kill_when_analyze_asks, args=(pid,))
        killer.start()
        with pytest.raises(cluster.ShardError, match=r"shard 0 \(`.*shard-00`\)") as raised:
            sharded.ask(ASK_QUESTION, model="fake", base_url=fake.base_url)
        killer.join()
    finally:
        gate.set()
        sharded.close()
    assert raised.value.shard == 0 and "no partial answer" in str(raised.value)
    # The run stopped at the failed search: no model call after it.
    assert len(fake.requests) == 1


def test_ask_gathers_the_catalog_again_only_after_a_shard_changed(
    ray_cluster: Cluster, fake_model, tmp_path: Path
) -> None:
    from fake_model import command, evaluation, plan, understanding

    src = tmp_path / "docs"
    src.mkdir()
    for name in ("ripgrep__FAQ.md", "notes.txt"):
        shutil.copy(FIXTURE_DOCS / name, src / name)
    reports = cluster.build_shards([src], tmp_path / "shards", shards=2)
    with cluster.ShardedWorkspace([r.path for r in reports], timeout=120) as sharded:
        first = sharded._shard_cards()
        # No shard changed: the cards are neither gathered nor parsed again.
        assert sharded._shard_cards() is first
        # A new document in one shard: the next ask knows it.
        (src / "extra.md").write_text("# Extra\n\nCompressed archives are searched with -z.\n")
        cluster.build_shards([src], tmp_path / "shards", shards=2)
        fake = fake_model([
            understanding(["archives"]),
            plan("extra", ["cat ."], "cat ."),
            command("extra", "done"),
            evaluation("sufficient"),
        ])
        answer = sharded.ask(
            "How are archives searched?", model="fake", base_url=fake.base_url,
            doc_ids=["extra"], trace=False,
        )
        assert fake.all_served()
        assert [e.doc_id for e in answer.evidence] == ["extra"]
        assert sharded._shard_cards() is not first
