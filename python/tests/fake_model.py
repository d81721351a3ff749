"""A fake OpenAI chat-completions server on 127.0.0.1 with scripted replies — the Python twin of
the Rust tests' ``tests/support/fake_model.rs``, so the package's real HTTP client code runs.

Each ``POST /v1/chat/completions`` is recorded and answered by the first unserved reply whose
``when`` text occurs in the request's messages (a reply without ``when`` matches any request). A
request no reply matches gets HTTP 400 ``fake model: unexpected extra call`` and is counted in
``unexpected``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional


@dataclass
class Reply:
    """One scripted reply: the assistant message ``content``; ``when`` a text the request must
    contain; ``delay`` seconds before answering; ``gate``, when set, an event the answer waits
    for (at most 60 s); ``status`` other than 200 sends an error."""

    content: str
    when: Optional[str] = None
    delay: float = 0.0
    status: int = 200
    gate: Optional[threading.Event] = None


class FakeModel:
    """Start with ``FakeModel(replies)``; ``base_url`` for ``OPENAI_BASE_URL``; ``close()``."""

    def __init__(self, replies: List[Reply]) -> None:
        self.replies = list(replies)
        self.served: List[bool] = [False] * len(self.replies)
        self.requests: List[Dict[str, Any]] = []
        self.unexpected = 0
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
                reply = fake._take(body, text)
                if reply is None:
                    self._send(400, {"error": {"message": "fake model: unexpected extra call"}})
                    return
                if reply.gate is not None:
                    reply.gate.wait(60)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": reply.content}})
                    return
                self._send(
                    200,
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "fake"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply.content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": len(text) // 4 + 1,
                            "completion_tokens": len(reply.content) // 4 + 1,
                            "total_tokens": (len(text) + len(reply.content)) // 4 + 2,
                        },
                    },
                )

            def _send(self, status: int, payload: Dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a cancelled ask)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _take(self, body: Dict[str, Any], text: str) -> Optional[Reply]:
        with self.lock:
            self.requests.append(body)
            for i, reply in enumerate(self.replies):
                if not self.served[i] and (reply.when is None or reply.when in text):
                    self.served[i] = True
                    return reply
            self.unexpected += 1
            return None

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def all_served(self) -> bool:
        """Every scripted reply was used and no request went unanswered."""
        return all(self.served) and self.unexpected == 0

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def worker_tag(doc_id: str) -> str:
    """Text only the prompts of the Worker on ``doc_id`` hold."""
    return f"Task in document `{doc_id}`"


#: Text only the evaluate prompt holds.
EVALUATE_TAG = "Tasks run (round "


def analysis(concepts: List[str], tasks: List[tuple]) -> Reply:
    """Analyze's reply: the understanding and one task per ``(doc_id, task)``."""
    return Reply(
        json.dumps(
            {
                "intent": "factual",
                "key_concepts": concepts,
                "strategy": "focused",
                "tasks": [{"doc_id": d, "task": t} for d, t in tasks],
            }
        )
    )


def understanding(concepts: List[str]) -> Reply:
    """Understand's reply (asks with ``doc_ids`` skip the choice of documents)."""
    return Reply(json.dumps({"intent": "factual", "key_concepts": concepts, "strategy": "focused"}))


def plan(doc_id: str, steps: List[str], first: str, delay: float = 0.0) -> Reply:
    """A Worker's plan and first command."""
    return Reply(
        json.dumps({"plan": steps, "reason": f"first: {first}", "command": first}),
        when=worker_tag(doc_id),
        delay=delay,
    )


def command(doc_id: str, line: str) -> Reply:
    """A Worker's next command."""
    return Reply(json.dumps({"reason": f"next: {line}", "command": line}), when=worker_tag(doc_id))


def evaluation(verdict: str, missing: str = "") -> Reply:
    """Evaluate's verdict, no further tasks."""
    return Reply(
        json.dumps({"verdict": verdict, "missing": missing, "tasks": []}), when=EVALUATE_TAG
    )
