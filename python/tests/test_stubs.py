"""The extension's type stubs (``docnav/_native.pyi``) say what the extension does: the same names,
the same parameters (names, kinds, defaults) as the compiled signatures, and annotations the
extension honours — every value an annotation admits is taken, every value it excludes is refused
with a ``TypeError`` naming the argument, and each call returns what its return annotation says.
The pure-Python layer is its own stub: every public function and method of ``docnav`` is fully
annotated, and the results it returns are frozen."""

from __future__ import annotations

import ast
import collections.abc
import datetime
import inspect
import json
import os
import pathlib
import typing
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import pytest

import docnav
from docnav import _native
from conftest import FIXTURE_DOCS

PACKAGE = Path(docnav.__file__).parent
STUB = ast.parse((PACKAGE / "_native.pyi").read_text())
#: What the stub's annotations are evaluated in.
NAMESPACE: Dict[str, Any] = {
    **{name: getattr(typing, name) for name in typing.__all__},
    "os": os,
    "pathlib": pathlib,
    "datetime": datetime,
    "RankReasons": docnav.RankReasons,
    "ScoreExplain": docnav.ScoreExplain,
    "ReplayDetails": docnav.ReplayDetails,
    **{name: getattr(_native, name) for name in dir(_native) if isinstance(getattr(_native, name), type)},
}


def stub_members() -> Dict[str, ast.FunctionDef]:
    """Every function of the stub by qualified name (``Workspace.index_json``; a class's
    constructor as ``Workspace.__init__``); properties too."""
    found: Dict[str, ast.FunctionDef] = {}
    for node in STUB.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


def is_property(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)


def runtime_of(qualified: str) -> Any:
    owner, _, member = qualified.rpartition(".")
    if not owner:
        return getattr(_native, member)
    cls = getattr(_native, owner)
    return cls if member == "__init__" else inspect.getattr_static(cls, member)


Param = Tuple[str, Any, Any]  # name, kind, default (inspect.Parameter.empty when none)


def stub_params(fn: ast.FunctionDef, method: bool) -> List[Param]:
    a = fn.args
    positional = [(p, inspect.Parameter.POSITIONAL_ONLY) for p in a.posonlyargs]
    positional += [(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in a.args]
    defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults))
    defaults += [ast.literal_eval(d) for d in a.defaults]
    params: List[Param] = [(p.arg, kind, d) for (p, kind), d in zip(positional, defaults)]
    if method:
        params = params[1:]
    if a.vararg:
        params.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.empty))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        default = inspect.Parameter.empty if d is None else ast.literal_eval(d)
        params.append((p.arg, inspect.Parameter.KEYWORD_ONLY, default))
    if a.kwarg:
        params.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty))
    return params


def runtime_params(obj: Any, method: bool) -> List[Param]:
    params = list(inspect.signature(obj).parameters.values())
    if method:
        params = params[1:]
    return [(p.name, p.kind, p.default) for p in params]


def annotation(node: Optional[ast.expr]) -> Any:
    assert node is not None, "every parameter and return of the stub is annotated"
    return eval(ast.unparse(node), NAMESPACE)  # noqa: S307 - the stub's own annotation


def admits(tp: Any, value: Any) -> bool:
    """Whether ``value`` is of type ``tp`` (PEP 484: an int is a float, a bool an int)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is None or tp is type(None):
        return value is None
    if tp is Any:
        return True
    if origin is Union:
        return any(admits(t, value) for t in args)
    if origin is collections.abc.Iterator:
        return isinstance(value, collections.abc.Iterator)
    if typing.is_typeddict(tp):
        hints = typing.get_type_hints(tp)
        return isinstance(value, dict) and all(
            k in hints and admits(hints[k], v) for k, v in value.items()
        ) and all(k in value for k in tp.__required_keys__)
    if tp is float:
        return isinstance(value, (int, float))
    if origin in (list, List):
        return isinstance(value, list) and all(admits(args[0], v) for v in value)
    if origin in (dict, Dict):
        return isinstance(value, dict) and all(
            admits(args[0], k) and admits(args[1], v) for k, v in value.items()
        )
    if origin in (tuple, Tuple):
        return (
            isinstance(value, tuple)
            and len(value) == len(args)
            and all(admits(t, v) for t, v in zip(args, value))
        )
    if origin is os.PathLike:
        return isinstance(value, os.PathLike)
    if origin is not None and callable(origin) and origin.__name__ == "Callable":
        return callable(value)
    if isinstance(tp, type):
        return isinstance(value, tp)
    raise AssertionError(f"the test does not know the annotation {tp!r}")


#: Values to offer a parameter: those its annotation admits must be taken, the others refused.
CANDIDATES: List[Any] = ["x", 3, 1.5, True, None, ["x"], [], b"x", Path("x"), lambda *a: None]


def fake_url() -> str:
    return "http://127.0.0.1:9/v1"  # nothing listens on the discard port: a run fails at once


class Instances:
    """One good call per stub function: the object to call and the arguments it needs."""

    def __init__(self, ws_dir: Path, doc: Path) -> None:
        self.ws_dir = ws_dir
        self.workspace = _native.Workspace(ws_dir)
        self.doc = doc
        self.handles: List[Any] = []
        stats = _native.query_statistics_json(self.workspace, "compressed")
        self.stats = _native.merge_statistics_json([stats])
        self.shard = _native.search_shard_json(self.workspace, "compressed", self.stats, 3)
        rank_stats = _native.rank_statistics_json(self.workspace, "compressed files")
        self.rank_stats = _native.merge_rank_statistics_json([rank_stats])
        self.ranking = _native.rank_shard_json(
            self.workspace, "compressed files", self.rank_stats, 3)
        self.catalog = _native.catalog_json(self.workspace)
        self.cards = _native.ShardCards([self.catalog])
        self.worker_request = json.dumps({
            "worker_id": "r1-w1-ripgrep-faq",
            "task": {"doc_id": "ripgrep-faq", "task": "find the flags"},
            "options": {}, "question": "q", "key_concepts": []})

    def rank(self, question: str) -> Tuple[str, List[str]]:
        stats = _native.merge_rank_statistics_json(
            [_native.rank_statistics_json(self.workspace, question)])
        return stats, [_native.rank_shard_json(self.workspace, question, stats, 0)]

    def run_worker(self, doc_id: str, request: str) -> Tuple[int, str]:
        return 0, _native.run_worker_json(
            self.workspace, request, model="m", base_url=fake_url(), retries=0)

    def start_sharded(self, **kwargs: Any) -> Any:
        handle = _native.start_sharded_ask(**kwargs)
        self.handles.append(handle)
        return handle

    def start(self, **kwargs: Any) -> Any:
        handle = self.workspace.start_ask(**kwargs)
        self.handles.append(handle)
        return handle

    def good_call(self, qualified: str) -> Tuple[Callable[..., Any], Dict[str, Any]]:
        ws, ask = self.workspace, dict(question="q", model="m", base_url=fake_url(), retries=0)
        session = ws.session()
        handle = self.start(**ask)
        table: Dict[str, Tuple[Callable[..., Any], Dict[str, Any]]] = {
            "Workspace.__init__": (_native.Workspace, dict(path=str(self.ws_dir))),
            "Workspace.index": (ws.index, dict(paths=[str(self.doc)])),
            "Workspace.docs": (ws.docs, {}),
            "Workspace.docs_for": (ws.docs_for, dict(question="zip files")),
            "Workspace.tree": (ws.tree, dict(doc_id="ripgrep-faq")),
            "Workspace.search": (ws.search, dict(query="compressed")),
            "Workspace.sources": (ws.sources, dict(doc_ids=["ripgrep-faq"])),
            "Workspace.exec": (ws.exec, dict(command="ls")),
            "Workspace.session": (ws.session, {}),
            "Workspace.start_ask": (self.start, ask),
            "Session.exec": (session.exec, dict(command="ls")),
            "Session.evidence": (session.evidence, {}),
            "Session.clear_evidence": (session.clear_evidence, {}),
            "AskHandle.wait": (handle.wait, dict(timeout=0.01)),
            "AskHandle.cancel": (handle.cancel, {}),
            "AskHandle.done": (handle.done, {}),
            "AskHandle.result": (handle.result, {}),
            "replay": (_native.replay, dict(trace_path="none.jsonl", workspace=str(self.ws_dir))),
            "ReplayReport.__init__": (_native.ReplayReport, dict(
                trace="t.jsonl", identical=True, status="identical",
                details={"events": 3, "model_replies": 2, "evidence": 1}, notes=[])),
            "shard_key_of_id": (_native.shard_key_of_id, dict(doc_id="guide-2")),
            "shard_key_of_source": (_native.shard_key_of_source, dict(path="docs/guide.md")),
            "collect_sources": (_native.collect_sources, dict(args=[str(self.doc)])),
            "query_statistics_json": (
                _native.query_statistics_json, dict(workspace=ws, query="compressed")),
            "merge_statistics_json": (_native.merge_statistics_json, dict(parts=[self.stats])),
            "search_shard_json": (
                _native.search_shard_json,
                dict(workspace=ws, query="compressed", stats=self.stats, k=3),
            ),
            "merge_search": (
                _native.merge_search, dict(query="compressed", shards=[self.shard], k=3)),
            "rank_statistics_json": (
                _native.rank_statistics_json, dict(workspace=ws, question="compressed files")),
            "merge_rank_statistics_json": (
                _native.merge_rank_statistics_json, dict(parts=[self.rank_stats])),
            "rank_shard_json": (
                _native.rank_shard_json,
                dict(workspace=ws, question="compressed files", stats=self.rank_stats, k=3),
            ),
            "merge_docs_for": (
                _native.merge_docs_for, dict(stats=self.rank_stats, parts=[self.ranking], k=3)),
            "catalog_json": (_native.catalog_json, dict(workspace=ws)),
            "catalog_version": (_native.catalog_version, dict(workspace=ws)),
            "ShardCards.__init__": (_native.ShardCards, dict(catalogs=[self.catalog])),
            "run_worker_json": (_native.run_worker_json, dict(
                workspace=ws, request=self.worker_request, model="m", base_url=fake_url(),
                retries=0)),
            "replay_worker_json": (_native.replay_worker_json, dict(
                workspace=ws, request=self.worker_request,
                recorded=json.dumps({"model": "m", "events": []}))),
            "replay_sharded": (_native.replay_sharded, dict(
                trace_path="none.jsonl", cards=self.cards, rank=self.rank,
                run_worker=self.run_worker)),
            "start_sharded_ask": (self.start_sharded, dict(
                cards=self.cards, shard_paths=[str(self.ws_dir)], question="q",
                rank=self.rank, run_worker=self.run_worker, model="m", base_url=fake_url(),
                retries=0)),
            "SearchHit.__init__": (_native.SearchHit, dict(
                doc_id="d", path="/d/#1", titles=["T"], structure="1", lines=(1, 2), pages=None,
                score=1.5, text="t", text_chars=1, snippet="t", highlights=[("t", True)])),
            "IndexReport.__init__": (_native.IndexReport, dict(
                indexed=1, unchanged=2, failed=0, pruned=0, duplicates=0, errors=[],
                warnings=["w"], notices=[], bytes_built=10, elapsed_ms=1.5)),
            "Releases.__init__": (_native.Releases, dict(newest="v2", oldest="v1", count=3)),
            "Period.__init__": (_native.Period, dict(
                form="10-K", fiscal_year=2019, quarter=None, end=datetime.date(2019, 9, 28),
                report=None, releases=_native.Releases("v2", "v1", 3))),
            "DocCard.__init__": (_native.DocCard, dict(self.card_fields())),
            "RankedDoc.__init__": (_native.RankedDoc, dict(
                rank=1, why="card BM25 #1 (1.00)", reasons={"card": {"rank": 1, "score": 1.0}},
                card=self.instance_of("DocCard"))),
            "Node.__init__": (_native.Node, dict(
                structure="1", title="T", lines=(1, 2), pages=None, token_count=3,
                references=["2"], children=[], paragraphs=None)),
            "Node.walk": (self.instance_of("Node").walk, {}),
            "Node.find": (self.instance_of("Node").find, dict(structure="1")),
            "Evidence.__init__": (_native.Evidence, dict(
                doc_id="d", path=["T"], structure="1", lines=(1, 2), pages=None, text="t",
                score=1.5, explain=None, paragraphs=None)),
            "Verdict.__init__": (_native.Verdict, dict(
                verdict="sufficient", missing="", judged_by="evaluate")),
            "WorkerFailure.__init__": (_native.WorkerFailure, dict(
                worker="r1-w1-d", doc_id="d", task="t", error="e")),
            "WorkerStats.__init__": (_native.WorkerStats, dict(doc_id="d", steps=2, evidence=1)),
            "AskStats.__init__": (_native.AskStats, dict(
                llm_calls=1, prompt_tokens=2, completion_tokens=3, wall_ms=4, rounds=1,
                workers=[_native.WorkerStats("d", 2, 1)])),
            "AnswerSentence.__init__": (_native.AnswerSentence, dict(
                text="t", citations=[1], supported=True, problem=None)),
            "WrittenAnswer.__init__": (_native.WrittenAnswer, dict(
                text="t", sentences=[_native.AnswerSentence("t", [1], True)], missing=None)),
            "Answer.__init__": (_native.Answer, dict(
                question="q", evidence=[], verdict=None, worker_errors=[],
                stats=_native.AskStats(0, 0, 0, 0, 0, []), trace=None, answer=None)),
        }
        return table[qualified]

    def card_fields(self) -> Dict[str, Any]:
        card = self.workspace.docs()[0]
        names = ("doc_id", "title", "source", "format", "bytes", "node_count", "outline",
                 "summary", "top_terms", "fingerprint", "names", "period")
        return {n: getattr(card, n) for n in names}

    def instance_of(self, cls: str) -> Any:
        if cls == "Workspace":
            return self.workspace
        if cls == "Session":
            return self.workspace.session()
        if cls == "SearchHit":
            return self.workspace.search("compressed", k=1)[0]
        if cls == "IndexReport":
            return self.workspace.index([str(self.doc)])
        if cls == "DocCard":
            return self.workspace.docs()[0]
        if cls == "RankedDoc":
            return self.workspace.docs_for("compressed files")[0]
        if cls == "Node":
            return self.workspace.tree("ripgrep-faq").children[0]
        if cls in VALUES:
            return VALUES[cls]()
        return self.start(question="q", model="m", base_url=fake_url(), retries=0)

    def close(self) -> None:
        for handle in self.handles:
            handle.cancel()
        for handle in self.handles:
            handle.wait(5.0)


#: Results no fixture document gives (a period, an answer): built from their fields.
VALUES: Dict[str, Callable[[], Any]] = {
    "Releases": lambda: _native.Releases("v2", "v1", 3),
    "Period": lambda: _native.Period("10-Q", 2024, 1, datetime.date(2023, 4, 30), None,
                                     _native.Releases("v2", "v1", 3)),
    "Evidence": lambda: _native.Evidence(
        "d", ["T"], "1", None, (3, 3), "t", 1.5,
        {"units": 2, "length": 3.0, "average_length": 2.5,
         "terms": [{"term": "t", "tf": 1.0, "df": 1, "idf": 0.5, "contribution": 1.5}]}),
    "Verdict": lambda: _native.Verdict("insufficient", "the year", "evaluate"),
    "WorkerFailure": lambda: _native.WorkerFailure("r1-w1-d", "d", "t", "e"),
    "WorkerStats": lambda: _native.WorkerStats("d", 2, 1),
    "AskStats": lambda: _native.AskStats(1, 2, 3, 4, 1, [_native.WorkerStats("d", 2, 1)]),
    "AnswerSentence": lambda: _native.AnswerSentence("t", [1], False, "no [2]"),
    "WrittenAnswer": lambda: _native.WrittenAnswer(
        "t", [_native.AnswerSentence("t", [1], True)], "the year"),
    "ReplayReport": lambda: _native.ReplayReport(
        "t.jsonl", False, "diverged",
        {"actor": "orchestrator", "seq": 3, "step": 0, "expected": "a", "actual": "b",
         "diff": ["-a", "+b"], "message": "replay diverged at orchestrator #3"}, ["changed"]),
    "Answer": lambda: _native.Answer(
        "q", [VALUES["Evidence"]()], VALUES["Verdict"](), [VALUES["WorkerFailure"]()],
        VALUES["AskStats"](), "trace.jsonl", VALUES["WrittenAnswer"]()),
}

#: Good calls that raise (a result not ready, a trace that is not there): their parameters are
#: still probed, their return type is checked elsewhere (test_ask, test_workspace).
RAISES = {
    "AskHandle.result": docnav.DocnavError,
    "replay": docnav.ReplayError,
    "replay_sharded": docnav.ReplayError,
}


@pytest.fixture
def instances(own_workspace: docnav.Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              no_model_env: None) -> Any:
    monkeypatch.chdir(tmp_path)  # a probed `trace="x"` records there
    # A probed `base_url=None` falls back on this: nothing leaves loopback.
    monkeypatch.setenv("OPENAI_BASE_URL", fake_url())
    made = Instances(Path(own_workspace.path), FIXTURE_DOCS / "ripgrep__FAQ.md")
    yield made
    made.close()


def test_the_stub_names_exactly_what_the_extension_exports() -> None:
    names = {n.name for n in STUB.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    names |= {n.target.id for n in STUB.body
              if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    assert names == {n for n in dir(_native) if not n.startswith("_") or n == "__version__"}
    for node in STUB.body:
        if isinstance(node, ast.ClassDef):
            declared = {f.name for f in node.body if isinstance(f, ast.FunctionDef)} - {"__init__"}
            actual = {m for m in vars(getattr(_native, node.name)) if not m.startswith("_")}
            assert declared == actual, node.name


def test_the_stub_signatures_are_the_compiled_ones() -> None:
    for qualified, fn in stub_members().items():
        runtime = runtime_of(qualified)
        if is_property(fn):
            # A field holding a Python object is a (read-only) member descriptor.
            assert inspect.isgetsetdescriptor(runtime) or inspect.ismemberdescriptor(runtime), \
                f"{qualified} is a property"
            continue
        method = "." in qualified and not qualified.endswith(".__init__")
        expected = stub_params(fn, method=method or qualified.endswith(".__init__"))
        actual = runtime_params(runtime, method=method)
        # A default PyO3 cannot print (a Rust expression) shows as `...`: its value is checked
        # by behaviour below.
        actual = [(n, k, expected[i][2] if d is Ellipsis and i < len(expected) else d)
                  for i, (n, k, d) in enumerate(actual)]
        assert actual == expected, qualified
    assert os.fspath(_native.Workspace().path) == ".docnav"


def test_the_extension_takes_what_the_stub_admits_and_refuses_the_rest(instances: Instances) -> None:
    for qualified, fn in stub_members().items():
        if is_property(fn):
            cls, _, name = qualified.partition(".")
            value = getattr(instances.instance_of(cls), name)
            assert admits(annotation(fn.returns), value), f"{qualified} -> {value!r}"
            continue
        target, good = instances.good_call(qualified)
        expected_error = RAISES.get(qualified)
        if expected_error:
            with pytest.raises(expected_error):
                target(**good)
        else:
            result = target(**good)
            returns = annotation(fn.returns) if not qualified.endswith(".__init__") else type(result)
            assert admits(returns, result), f"{qualified} returned {result!r}"
        method = "." in qualified
        for name, _, _ in stub_params(fn, method=method):
            arg = next(a for a in fn.args.args + fn.args.kwonlyargs if a.arg == name)
            tp = annotation(arg.annotation)
            for value in CANDIDATES:
                try:
                    target(**{**good, name: value})
                except TypeError as e:
                    assert not admits(tp, value), f"{qualified}({name}={value!r}) refused: {e}"
                    is_callable = typing.get_origin(tp) is not None and "Callable" in repr(tp)
                    assert is_callable or f"'{name}'" in str(e), (qualified, name, str(e))
                except Exception:
                    pass  # taken, then refused for what it says (an unknown id, no model)
                else:
                    assert admits(tp, value), f"{qualified}({name}={value!r}) taken, annotated {tp}"


def public_callables() -> List[Tuple[str, Any]]:
    found: List[Tuple[str, Any]] = []
    for name in docnav.__all__:
        obj = getattr(docnav, name)
        if inspect.isfunction(obj):
            found.append((name, obj))
        elif inspect.isclass(obj) and obj.__module__.startswith("docnav.") and \
                obj.__module__ != "docnav._native" and not typing.is_typeddict(obj):
            for member, value in vars(obj).items():
                if member.startswith("_") and member not in ("__init__", "__enter__", "__exit__"):
                    continue
                if isinstance(value, property):
                    value = value.fget
                if inspect.isfunction(value):
                    found.append((f"{name}.{member}", value))
    return found


def test_the_python_layer_is_fully_annotated() -> None:
    callables = public_callables()
    assert any(name == "Workspace.search" for name, _ in callables)
    for name, fn in callables:
        hints = typing.get_type_hints(fn)  # resolves every annotation
        for p in list(inspect.signature(fn).parameters.values())[1 if "." in name else 0:]:
            assert p.name in hints, f"{name}: {p.name} is not annotated"
        assert "return" in hints, f"{name}: its return is not annotated"


def test_results_are_frozen(workspace: docnav.Workspace) -> None:
    # Built by the extension (frozen pyclasses): no attribute can be set or added.
    for name, make in VALUES.items():
        value = make()
        assert type(value).__module__ == "docnav._native", name
        first = next(a for a in vars(type(value)) if not a.startswith("_"))
        with pytest.raises(AttributeError):
            setattr(value, first, getattr(value, first))
        with pytest.raises(AttributeError):
            value.extra = 1
    # Built by the extension (a frozen pyclass): every attribute is read-only.
    hit = workspace.search("compressed", k=1)[0]
    assert type(hit) is docnav.SearchHit and type(hit).__module__ == "docnav._native"
    for name in ("score", "text", "doc_id", "highlights", "source"):
        with pytest.raises(AttributeError):
            setattr(hit, name, getattr(hit, name))
    with pytest.raises(AttributeError):
        hit.extra = 1  # type: ignore[attr-defined]
    report = docnav.IndexReport(1, 0, 0, 0, 0, [], [], [], 10, 1.5)
    assert type(report) is docnav.IndexReport and type(report).__module__ == "docnav._native"
    for name in ("indexed", "errors", "elapsed_ms"):
        with pytest.raises(AttributeError):
            setattr(report, name, getattr(report, name))


def test_the_package_is_typed() -> None:
    assert (PACKAGE / "py.typed").exists()
    assert docnav.__version__ == "0.1.0"
