"""Batched scoring over HTTP (issue 10, item 22): one completions request per scoring call where the
server takes a list of prompts, per-prompt requests where it does not, same scores either way.

The server here is a loopback HTTP server speaking the completions protocol's list-prompt form (as
vLLM and llama.cpp's llama-server do), with a deterministic "model": P(Yes) grows with the number
of 'y' characters in the prompt. ``refuse_lists`` makes it answer a list like llama-cpp-python does
(an error for more than one prompt).
"""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from droidverify.llm.openai_backend import OpenAICompatLLM


def _choice(prompt: str, index: int) -> dict[str, Any]:
    yes = -1.0 / (1 + prompt.count("y"))
    return {"index": index, "text": "Yes", "finish_reason": "length",
            "logprobs": {"tokens": ["Yes"], "token_logprobs": [yes],
                         "top_logprobs": [{"Yes": yes, "No": -1.0}], "text_offset": [0]}}


class _Server:
    def __init__(self, *, refuse_lists: bool) -> None:
        self.requests: list[Any] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
                outer.requests.append(body["prompt"])
                if refuse_lists and len(prompts) > 1:
                    self.send_response(500)
                    data = b'{"error": {"message": "AssertionError"}}'
                else:
                    self.send_response(200)
                    data = json.dumps({
                        "id": "x", "object": "text_completion", "created": 0, "model": "m",
                        "choices": [_choice(p, i) for i, p in enumerate(prompts)],
                        "usage": {"prompt_tokens": 10 * len(prompts), "completion_tokens": len(prompts),
                                  "total_tokens": 11 * len(prompts)}}).encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(params=[False, True], ids=["batching", "refuses-lists"])
def server(request: pytest.FixtureRequest):
    s = _Server(refuse_lists=request.param)
    yield s
    s.close()


PREFIX = "<|im_start|>system\nverifier prefix<|im_end|>\n"
CONTS = ["a", "yy", "y", "yyyy", "b"]


def test_one_request_per_call_where_the_server_batches(server: _Server) -> None:
    llm = OpenAICompatLLM(server.url, model="m", max_retries=0)
    first = llm.score(PREFIX, CONTS)
    second = llm.score(PREFIX, CONTS)
    expect = [-1.0 / (1 + (PREFIX + c).count("y")) for c in CONTS]
    for res in (first, second):
        assert [round(d["Yes"], 9) for d in res.logprobs] == [round(e, 9) for e in expect]
        assert all(math.isclose(d["No"], -1.0) for d in res.logprobs)
    refused = any(isinstance(r, list) and len(r) > 1 for r in server.requests) and \
        len(server.requests) > 2
    if not refused:  # batching: exactly one request per score() call, prompts byte-identical
        assert server.requests == [[PREFIX + c for c in CONTS]] * 2
        assert first.usage.prompt_tokens == 50
    else:  # probed once, then one request per continuation; never probed again
        lists = [r for r in server.requests if isinstance(r, list) and len(r) > 1]
        assert len(lists) == 1 and len(server.requests) == 1 + 2 * len(CONTS)
        assert all(r.startswith(PREFIX) for r in server.requests if isinstance(r, str))


def test_batching_can_be_switched_off(server: _Server) -> None:
    llm = OpenAICompatLLM(server.url, model="m", batch=False)
    llm.score(PREFIX, CONTS)
    assert len(server.requests) == len(CONTS) and all(isinstance(r, str) for r in server.requests)
