"""``Workspace.ask`` and ``ask_async`` against the loopback fake model: the answer, the trace and
its replay, model settings from the environment, a missing or failing model, cancellation by
Ctrl-C and by asyncio."""

from __future__ import annotations

import _thread
import asyncio
import json
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import docnav

from fake_model import Reply, analysis, command, evaluation, plan, understanding

QUESTION = "How do I search compressed files with ripgrep?"


def script(first_delay: float = 0.0) -> list:
    return [
        analysis(["compressed files"], [("ripgrep-faq", "find how to search compressed files")]),
        plan("ripgrep-faq", ["cat 1/8"], "cat 1/8", delay=first_delay),
        command("ripgrep-faq", "done"),
        evaluation("sufficient"),
    ]


def test_ask_returns_the_evidence_the_agent_read_and_its_trace_replays(
    own_workspace: docnav.Workspace, fake_model, tmp_path: Path
) -> None:
    fake = fake_model(script())
    trace = tmp_path / "run.jsonl"
    answer = own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, trace=trace)
    assert fake.all_served()
    assert answer.question == QUESTION
    assert answer.verdict == docnav.Verdict("sufficient", "", "evaluate")
    [evidence] = answer.evidence
    assert (evidence.doc_id, evidence.structure, evidence.lines) == ("ripgrep-faq", "1.8", (163, 176))
    assert "--search-zip" in evidence.text and evidence.score > 0
    assert answer.stats.llm_calls == 4 and answer.stats.prompt_tokens > 1000
    assert [(w.doc_id, w.evidence) for w in answer.stats.workers] == [("ripgrep-faq", 1)]
    assert answer.worker_errors == [] and answer.trace == str(trace)
    # Every request carried the model name and JSON-schema replies, as the CLI sends them.
    assert {r["model"] for r in fake.requests} == {"fake"}
    report = docnav.replay(trace, own_workspace)
    assert report.identical and report.status == "identical"
    assert report.details["model_replies"] == 4
    assert report.message.startswith("replay identical: ")
    # The typed shapes are the JSON's: the score's explanation and the verdict's details.
    explain = evidence.explain
    assert explain is not None and set(explain) == docnav.ScoreExplain.__required_keys__
    assert explain["terms"] and all(
        set(t) == docnav.TermContribution.__required_keys__ for t in explain["terms"]
    )
    assert set(report.details) == {"events", "model_replies", "evidence"}
    assert set(report.details) <= docnav.ReplayDetails.__optional_keys__


def test_a_repeated_question_is_answered_from_its_recording_without_a_model_call(
    own_workspace: docnav.Workspace, fake_model, tmp_path: Path
) -> None:
    fake = fake_model(script())
    first = own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, trace=True)
    assert fake.all_served() and first.stats.llm_calls == 4 and first.trace
    asked = len(fake.requests)
    # The same question up to case, spaces and end punctuation: no request reaches the model.
    again = own_workspace.ask(
        "  how do I search compressed files with RIPGREP ", model="fake", base_url=fake.base_url
    )
    assert len(fake.requests) == asked
    assert again.stats.llm_calls == 0 and again.evidence == first.evidence
    assert again.verdict == first.verdict and again.trace == first.trace
    # With a trace file, the recording is copied there.
    copy = tmp_path / "copy.jsonl"
    own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, trace=copy)
    assert len(fake.requests) == asked and copy.read_text() == Path(first.trace).read_text()
    # no_cache=True asks afresh, as --no-cache.
    fresh = fake_model(script())
    answer = own_workspace.ask(QUESTION, model="fake", base_url=fresh.base_url, no_cache=True)
    assert fresh.all_served() and answer.stats.llm_calls == 4


def test_model_settings_come_from_the_cli_environment(
    own_workspace: docnav.Workspace, fake_model, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_model(
        [
            understanding(["compressed files"]),
            plan("ripgrep-faq", ["cat 1/8"], "cat 1/8"),
            command("ripgrep-faq", "done"),
            evaluation("sufficient"),
        ]
    )
    monkeypatch.setenv("DOCNAV_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    answer = own_workspace.ask(QUESTION, doc_ids=["ripgrep-faq"], trace=True, rounds=1)
    assert fake.all_served() and {r["model"] for r in fake.requests} == {"env-model"}
    assert answer.trace is not None
    assert Path(answer.trace).parent == Path(own_workspace.path) / "traces"
    header = json.loads(Path(answer.trace).read_text().splitlines()[0])
    assert header["question"] == QUESTION


def test_without_a_model_ask_says_what_to_set(workspace: docnav.Workspace, no_model_env) -> None:
    with pytest.raises(docnav.ModelError, match="DOCNAV_MODEL") as caught:
        workspace.ask(QUESTION)
    # The hint names the keyword argument, not the CLI's flag.
    assert "`model=`" in str(caught.value) and "--model" not in str(caught.value)


def test_a_model_that_fails_is_a_model_error_and_the_trace_is_kept(
    own_workspace: docnav.Workspace, fake_model, tmp_path: Path
) -> None:
    fake = fake_model([Reply("overloaded", status=400)])
    trace = tmp_path / "failed.jsonl"
    with pytest.raises(docnav.ModelError, match="HTTP 400") as caught:
        own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, trace=trace)
    assert str(trace) in str(caught.value)
    assert json.loads(trace.read_text().splitlines()[0])["type"] == "header"
    # The server may reject json_schema: the hint names the keyword argument, not the CLI's flag.
    assert "`json_schema=False`" in str(caught.value)
    assert "--no-json-schema" not in str(caught.value)


def test_ask_takes_every_model_and_agent_option_of_the_cli_with_its_defaults() -> None:
    import inspect
    import os
    import re

    from conftest import REPO

    cli = os.environ.get("DOCNAV_BIN", str(REPO / "target" / "debug" / "docnav"))
    help_text = subprocess.run([cli, "ask", "--help"], capture_output=True, text=True, check=True).stdout
    params = inspect.signature(docnav.Workspace.ask).parameters
    for flag in ("timeout", "retries", "max-requests", "max-steps", "rounds", "max-cards",
                 "max-docs", "evidence-chars", "prompt-cap", "answer", "model", "base-url",
                 "no-cache"):
        assert flag in help_text, flag
        name = flag.replace("-", "_")
        assert name in params, name
        [block] = [b for b in re.split(r"\n\s+(?=-)", help_text) if re.match(rf"(-\w, )?--{flag}\b", b)]
        default = re.search(r"\[default:\s+([0-9_]+)\]", block)
        if flag in ("timeout", "retries", "max-requests"):  # the model client's, resolved late
            assert default and params[name].default is None, flag
        elif default:
            assert params[name].default == int(default.group(1)), flag
    assert "--no-json-schema" in help_text and params["json_schema"].default is True
    assert params["answer"].default is False and params["no_cache"].default is False
    # ask_async takes the same.
    assert list(inspect.signature(docnav.Workspace.ask_async).parameters) == list(params)


def test_json_schema_false_sends_no_response_format(own_workspace: docnav.Workspace, fake_model) -> None:
    on = fake_model(script())
    own_workspace.ask(QUESTION, model="fake", base_url=on.base_url, trace=False)
    assert on.all_served() and all("response_format" in r for r in on.requests)
    off = fake_model(script())
    answer = own_workspace.ask(
        QUESTION, model="fake", base_url=off.base_url, trace=False, json_schema=False
    )
    assert off.all_served() and len(answer.evidence) == 1
    assert not any("response_format" in r for r in off.requests)


def test_retries_and_timeout_reach_the_model_client(own_workspace: docnav.Workspace, fake_model) -> None:
    failing = [Reply("overloaded", status=500), Reply("overloaded", status=500)]
    once = fake_model(list(failing))
    with pytest.raises(docnav.ModelError, match="500"):
        own_workspace.ask(QUESTION, model="fake", base_url=once.base_url, trace=False, retries=0)
    assert len(once.requests) == 1
    twice = fake_model(list(failing))
    with pytest.raises(docnav.ModelError, match="500"):
        own_workspace.ask(QUESTION, model="fake", base_url=twice.base_url, trace=False, retries=1)
    assert len(twice.requests) == 2
    slow = fake_model([Reply("{}", delay=5.0)])
    started = time.monotonic()
    with pytest.raises(docnav.ModelError):
        own_workspace.ask(
            QUESTION, model="fake", base_url=slow.base_url, trace=False, retries=0, timeout=0.3
        )
    assert time.monotonic() - started < 3.0
    with pytest.raises(docnav.ModelError, match="timeout"):
        own_workspace.ask(QUESTION, model="fake", base_url=slow.base_url, timeout=-1.0)


def test_unknown_agent_options_and_documents_are_refused(
    own_workspace: docnav.Workspace, fake_model
) -> None:
    fake = fake_model([])
    with pytest.raises(TypeError, match="max_stepz"):
        own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, max_stepz=3)
    with pytest.raises(docnav.WorkspaceError, match="not found"):
        own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, doc_ids=["nope"])


def test_ctrl_c_cancels_the_run_and_finishes_its_trace(
    own_workspace: docnav.Workspace, fake_model, tmp_path: Path
) -> None:
    fake = fake_model(script(first_delay=30.0))
    trace = tmp_path / "cancelled.jsonl"
    # A process started in the background inherits SIGINT ignored, and Python then installs no
    # KeyboardInterrupt handler, so `interrupt_main` would do nothing (a CI started with `&` failed
    # so): Ctrl-C is Python's here whatever the test was started from.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, trace=trace)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 5.0
    lines = trace.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "header" and len(lines) > 1
    for line in lines:
        json.loads(line)  # every line whole: a valid prefix
    report = docnav.replay(trace, own_workspace)
    assert report.identical and report.status == "identical_to_cut"


def test_ask_async_answers_and_cancels(own_workspace: docnav.Workspace, fake_model) -> None:
    fake = fake_model(script())
    answer = asyncio.run(own_workspace.ask_async(QUESTION, model="fake", base_url=fake.base_url))
    assert [e.structure for e in answer.evidence] == ["1.8"]

    slow = fake_model(script(first_delay=30.0))

    async def cancel_soon() -> float:
        task = asyncio.ensure_future(
            own_workspace.ask_async(QUESTION, model="fake", base_url=slow.base_url)
        )
        await asyncio.sleep(0.3)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    assert asyncio.run(cancel_soon()) < 2.0


def test_the_gil_is_released_while_asking(own_workspace: docnav.Workspace, fake_model) -> None:
    fake = fake_model(script(first_delay=1.0))
    ticks = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, trace=False)
    finally:
        stop.set()
        ticker.join()
    # Python ran alongside the one-second model call.
    assert len(ticks) > 30


def test_answer_true_writes_a_verified_answer(own_workspace: docnav.Workspace, fake_model) -> None:
    written = Reply(
        json.dumps(
            {
                "sentences": [
                    {"text": "Pass `-z/--search-zip`.", "citations": [1]},
                    {"text": "It also reads `.zip` archives.", "citations": [1]},
                ]
            }
        ),
        when="You write the answer to a question from numbered evidence",
    )
    fake = fake_model(script() + [written])
    answer = own_workspace.ask(QUESTION, model="fake", base_url=fake.base_url, answer=True)
    assert fake.all_served() and answer.stats.llm_calls == 5
    assert answer.answer is not None and not answer.answer.supported
    first, second = answer.answer.sentences
    assert (first.supported, first.citations) == (True, [1])
    assert second.supported is False and "does not contain" in (second.problem or "")
    assert answer.answer.text.startswith("Pass `-z/--search-zip`. [1]\n")
