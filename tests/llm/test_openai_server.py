"""The OpenAI-compatible backend against a real llama-cpp-python server on loopback.

Failure modes go through a loopback proxy (conftest.FaultProxy) in front of that server, or a
server process of the test's own that it kills.
"""

from __future__ import annotations

import threading
import time

import pytest

from droidverify.errors import LLMInputError, LLMServerError, LLMTimeoutError
from droidverify.llm.base import LLM
from droidverify.llm.openai_backend import OpenAICompatLLM
from droidverify.llm.registry import load_llm

pytestmark = pytest.mark.server

MSGS = [{"role": "user", "content": "Name one fruit. Answer with one word."}]
PREFIX = ("<|im_start|>system\nYou answer questions with Yes or No.<|im_end|>\n")
QUESTIONS = [
    "<|im_start|>user\nIs the sky blue? Answer Yes or No.<|im_end|>\n<|im_start|>assistant\n",
    "<|im_start|>user\nIs fire cold? Answer Yes or No.<|im_end|>\n<|im_start|>assistant\n",
    "<|im_start|>user\nIs Paris in France? Answer Yes or No.<|im_end|>\n<|im_start|>assistant\n",
]


def test_generate_and_count_tokens(llama_server: str) -> None:
    llm = load_llm(f"openai:{llama_server}")
    assert isinstance(llm, OpenAICompatLLM) and isinstance(llm, LLM)
    assert llm.model  # taken from /v1/models
    g1 = llm.generate(MSGS, max_tokens=8)
    g2 = llm.generate(MSGS, max_tokens=8)
    assert g1.text.strip() and g1.text == g2.text  # greedy
    assert g1.usage.prompt_tokens > 5 and 0 < g1.usage.completion_tokens <= 8
    assert llm.usage.prompt_tokens == g1.usage.prompt_tokens + g2.usage.prompt_tokens
    # Counted by the server's tokenize endpoint (llama-cpp-python: /extras/tokenize), not estimated.
    n = llm.count_tokens("hello world, this is a fairly ordinary sentence")
    assert llm._tokenize_route == "extras" and 5 <= n <= 14
    # Remote render_chat without a tokenizer is ChatML.
    assert llm.render_chat(MSGS).endswith("<|im_end|>\n<|im_start|>assistant\n")


def test_score_agrees_with_the_local_model(llama_server: str, llm_fp32) -> None:
    remote = OpenAICompatLLM(llama_server, concurrency=2)
    got = remote.score(PREFIX, QUESTIONS)
    ref = llm_fp32.score(PREFIX, QUESTIONS)
    assert len(got.logprobs) == 3 and got.usage.prompt_tokens > 0
    for r, l in zip(got.logprobs, ref.logprobs):
        # Same weights, but llama.cpp computes in Q4_1 x Q8: agree on the ranking where the local
        # model is clear, and roughly on the values.
        if abs(l["Yes"] - l["No"]) > 0.5:
            assert (r["Yes"] > r["No"]) == (l["Yes"] > l["No"]), (r, l)
        assert abs(r["Yes"] - l["Yes"]) < 1.0 and abs(r["No"] - l["No"]) < 1.0, (r, l)
    # A target missing from the top-k gets the smallest top-k logprob, or the configured floor.
    odd = remote.score(PREFIX, QUESTIONS[:1], targets=("Yes", "xylophone"))
    assert odd.logprobs[0]["xylophone"] <= odd.logprobs[0]["Yes"]
    floor = OpenAICompatLLM(llama_server, missing_logprob=-99.0).score(PREFIX, QUESTIONS[:1],
                                                                       targets=("xylophone",))
    assert floor.logprobs[0]["xylophone"] == -99.0


def test_rate_limit_and_server_error_are_retried(fault_proxy) -> None:
    llm = OpenAICompatLLM(fault_proxy.url, model="m", max_retries=3, backoff_base=0.01)
    fault_proxy.fail_with = [429, 500]
    g = llm.generate(MSGS, max_tokens=4)
    assert g.text.strip()
    assert llm.stats["retries"] == 2 and fault_proxy.seen == 3
    # Out of retries: the last status is reported.
    fault_proxy.fail_with = [503, 503]
    few = OpenAICompatLLM(fault_proxy.url, model="m", max_retries=1, backoff_base=0.01)
    with pytest.raises(LLMServerError) as err:
        few.score(PREFIX, QUESTIONS[:1])
    assert err.value.status == 503
    # A client error is not retried.
    fault_proxy.fail_with = [400]
    seen = fault_proxy.seen
    with pytest.raises(LLMServerError) as err:
        few.generate(MSGS)
    assert err.value.status == 400 and fault_proxy.seen == seen + 1


def test_slow_server_times_out_after_retries(fault_proxy) -> None:
    fault_proxy.delay = 1.5
    llm = OpenAICompatLLM(fault_proxy.url, model="m", timeout=0.3, max_retries=2, backoff_base=0.01)
    t = time.monotonic()
    with pytest.raises(LLMTimeoutError, match="0.3s"):
        llm.generate(MSGS, max_tokens=4)
    assert time.monotonic() - t < 5
    assert llm.stats["retries"] == 2 and llm.stats["requests"] == 3


def test_server_killed_mid_run_raises_instead_of_hanging(spawn_llama_server) -> None:
    proc, url = spawn_llama_server()
    llm = OpenAICompatLLM(url, timeout=20, max_retries=2, backoff_base=0.05, concurrency=2)
    assert llm.score(PREFIX, QUESTIONS[:1]).logprobs
    killer = threading.Timer(0.5, proc.kill)
    killer.start()
    t = time.monotonic()
    with pytest.raises((LLMServerError, LLMTimeoutError)):
        llm.score(PREFIX, QUESTIONS * 30)
    assert time.monotonic() - t < 30
    killer.join()


def test_bad_configuration_is_rejected(unused_url: str) -> None:
    with pytest.raises(LLMInputError):
        OpenAICompatLLM("ftp://example", model="m")
    with pytest.raises(LLMInputError):
        OpenAICompatLLM(unused_url, model="m", concurrency=0)
    # Nothing listens there: connection failures end in a typed error, quickly.
    llm = OpenAICompatLLM(unused_url, model="m", max_retries=1, backoff_base=0.01)
    with pytest.raises(LLMServerError, match="could not connect") as err:
        llm.generate(MSGS)
    assert err.value.status is None
