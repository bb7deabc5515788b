"""The local backend on the real bundled SmolLM2-135M (float32). Few tests, one shared model."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import torch

from droidverify.errors import LLMInputError, LLMOutputError
from droidverify.llm.base import LLM

pytestmark = pytest.mark.model

SYSTEM = "You check whether an action helps an agent that operates an Android phone."
SCREEN = "\n".join(f'<button id="{i}">{name}</button>' for i, name in enumerate(
    ["Wi-Fi", "Bluetooth", "Airplane mode", "Battery", "Display", "Sound", "Apps", "Storage",
     "Location", "Security", "Accounts", "System", "About phone"]))


def _prefix(llm) -> str:
    msgs = [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Goal: turn on Wi-Fi.\nScreen:\n{SCREEN}"},
            {"role": "assistant", "content": "Ready."}]
    return llm.render_chat(msgs, add_generation_prompt=False)


def _question(action: str) -> str:
    return (f"<|im_start|>user\nIs {action} helpful for the goal? Answer Yes or No.<|im_end|>\n"
            "<|im_start|>assistant\n")


@pytest.mark.slow
def test_cached_scoring_equals_naive_scoring(llm_fp32) -> None:
    llm = llm_fp32
    prefix = _prefix(llm)
    assert prefix.endswith("\n")
    actions = [f"click(index={i})" for i in range(13)] + [f"long_press(index={i})" for i in range(8)]
    actions += ["scroll(down)", "scroll(up)", "navigate_back()", "navigate_home()", "wait()",
                "open_app('Settings')", "input_text(index=1, text='hello world')", "answer('done')"]
    conts = [_question(a) for a in actions] + [""]  # empty: score the prefix's own next token
    assert len(conts) == 30
    cached = llm.score(prefix, conts)
    naive = llm.naive_score(prefix, conts)
    diffs = [abs(c[t] - n[t]) for c, n in zip(cached.logprobs, naive.logprobs) for t in ("Yes", "No")]
    assert max(diffs) < 1e-4
    assert cached.logits.shape == (30, llm.model.config.vocab_size)
    torch.testing.assert_close(torch.log_softmax(cached.logits, -1), torch.log_softmax(naive.logits, -1),
                               atol=1e-4, rtol=0)
    # Different candidates really get different scores (the cache is not shared wrongly).
    assert len({round(d["Yes"], 4) for d in cached.logprobs}) > 10
    # Usage: same logical prompt tokens; the prefix (minus the token the empty candidate needs) reused.
    n_prefix = llm.count_tokens(prefix)
    assert cached.usage.prompt_tokens == naive.usage.prompt_tokens
    assert cached.usage.cached_tokens == (n_prefix - 1) * 29
    assert naive.usage.cached_tokens == 0
    # Neither the batch size nor the way a batch is laid out (packed / padded rows) changes anything.
    assert llm.score_mode == "packed"
    for mode, batch in (("packed", 3), ("batched", 4), ("batched", 16)):
        llm.max_batch, llm.score_mode = batch, mode
        try:
            again = llm.score(prefix, conts)
        finally:
            llm.max_batch, llm.score_mode = 8, "packed"
        assert max(abs(a[t] - b[t]) for a, b in zip(again.logprobs, naive.logprobs) for t in a) < 1e-4


def test_token_merge_at_the_boundary_is_handled(llm_fp32) -> None:
    """A prefix ending in a space: BPE merges it into the next word; results still match naive."""
    llm = llm_fp32
    prefix = _prefix(llm) + "<|im_start|>user\nIs the next action helpful? Action: "
    conts = ["click(3)", " wait()", "scroll down", "navigate_back()"]
    assert llm.tokenize(prefix + conts[0])[:llm.count_tokens(prefix)] != llm.tokenize(prefix)
    cached = llm.score(prefix, conts)
    naive = llm.naive_score(prefix, conts)
    assert max(abs(c["Yes"] - n["Yes"]) for c, n in zip(cached.logprobs, naive.logprobs)) < 1e-4
    assert cached.usage.cached_tokens == (llm.count_tokens(prefix) - 1) * 3


def test_targets_must_be_single_tokens_and_inputs_are_checked(llm_fp32) -> None:
    llm = llm_fp32
    with pytest.raises(LLMOutputError, match="single tokens"):
        llm.score("Question: ", ["x"], targets=("Yes", "Absolutely not"))
    with pytest.raises(LLMInputError):
        llm.score("Question: ", ["x"], targets=("Yes", "Yes"))
    with pytest.raises(LLMInputError):
        llm.score("Question: ", "not a list")  # type: ignore[arg-type]
    with pytest.raises(LLMInputError, match="empty"):
        llm.score("", [""])
    with pytest.raises(LLMInputError, match="context"):
        llm.score("word " * 9000, ["x"])
    with pytest.raises(LLMInputError, match=r"messages\[0\].role"):
        llm.generate([{"role": "wizard", "content": "hi"}])
    assert llm.score("x", []).logprobs == []
    assert isinstance(llm, LLM)


def test_chat_template_is_smollm2s(llm_fp32) -> None:
    llm = llm_fp32
    # The GGUF carries SmolLM2's template: a default system turn is added when none is given.
    out = llm.render_chat([{"role": "user", "content": "Hi"}])
    assert out == ("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face"
                   "<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    out = llm.render_chat([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}],
                          add_generation_prompt=False)
    assert out == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n"
    # Special markers are single special tokens, not spelled out.
    assert llm.tokenize("<|im_start|>user\n")[0] == llm.tokenizer.convert_tokens_to_ids("<|im_start|>")


def test_generate_is_deterministic_and_honours_stop(llm_fp32) -> None:
    llm = llm_fp32
    msgs = [{"role": "user", "content": "List three colours, one per line."}]
    g1 = llm.generate(msgs, max_tokens=24)
    g2 = llm.generate(msgs, max_tokens=24)
    assert g1.text == g2.text and g1.text.strip()
    assert g1.usage.prompt_tokens == llm.count_tokens(llm.render_chat(msgs))
    assert 0 < g1.usage.completion_tokens <= 24
    s1 = llm.generate(msgs, max_tokens=16, temperature=1.0, seed=7)
    s2 = llm.generate(msgs, max_tokens=16, temperature=1.0, seed=7)
    s3 = llm.generate(msgs, max_tokens=16, temperature=1.0, seed=8)
    assert s1.text == s2.text
    assert s3.text != s1.text
    # A stop string taken from the middle of the greedy answer cuts the text right before it.
    words = g1.text.split()
    stop = words[len(words) // 2]
    g3 = llm.generate(msgs, max_tokens=24, stop=[stop])
    assert g3.finish_reason == "stop"
    assert stop not in g3.text and g1.text.startswith(g3.text)


def test_converted_weights_are_cached_and_reused(llm_fp32, model_cache_dir: Path) -> None:
    from droidverify.llm.local import LocalLLM

    entries = list((model_cache_dir / "models").iterdir())
    assert len(entries) == 1 and (entries[0] / "model.safetensors").is_file()
    assert not [p for p in (model_cache_dir / "models").iterdir() if ".tmp" in p.name]
    mtime = (entries[0] / "model.safetensors").stat().st_mtime_ns
    old = os.environ.get("DROIDVERIFY_CACHE")
    os.environ["DROIDVERIFY_CACHE"] = str(model_cache_dir)
    try:
        t = time.perf_counter()
        again = LocalLLM(dtype="float32")
        second = time.perf_counter() - t
    finally:
        if old is None:
            os.environ.pop("DROIDVERIFY_CACHE", None)
        else:
            os.environ["DROIDVERIFY_CACHE"] = old
    assert (entries[0] / "model.safetensors").stat().st_mtime_ns == mtime  # not rewritten
    assert second < llm_fp32.first_load_seconds / 3, (second, llm_fp32.first_load_seconds)
    prefix = _prefix(llm_fp32)
    a = llm_fp32.score(prefix, [_question("wait()")])
    b = again.score(prefix, [_question("wait()")])
    assert torch.equal(a.logits, b.logits)
    # The converted directory is an ordinary transformers model directory, loadable by path.
    by_dir = LocalLLM(entries[0], dtype="float32")
    assert by_dir.name == entries[0].name
    assert torch.equal(by_dir.score(prefix, [_question("wait()")]).logits, a.logits)


def test_bfloat16_body_keeps_a_float32_output_head(llm_fp32, model_cache_dir: Path) -> None:
    """bf16 logits would land on a coarse grid (ties between candidates); the head runs in fp32."""
    from droidverify.llm.local import LocalLLM

    old = os.environ.get("DROIDVERIFY_CACHE")
    os.environ["DROIDVERIFY_CACHE"] = str(model_cache_dir)
    try:
        bf = LocalLLM(dtype="bfloat16", max_batch=8)
    finally:
        if old is None:
            os.environ.pop("DROIDVERIFY_CACHE", None)
        else:
            os.environ["DROIDVERIFY_CACHE"] = old
    assert bf.model.get_output_embeddings().weight.dtype == torch.float32
    assert bf.model.get_input_embeddings().weight.dtype == torch.bfloat16
    prefix = _prefix(bf)
    conts = [_question(f"click(index={i})") for i in range(10)]
    res = bf.score(prefix, conts)
    assert not torch.equal(res.logits.bfloat16().float(), res.logits)  # finer than the bf16 grid
    assert len({round(p, 6) for p in res.p("Yes")}) == len(conts)  # no ties among 10 candidates
    # Close to float32 (bf16 body), and the same path as naive scoring in bf16.
    ref = llm_fp32.score(prefix, conts)
    assert max(abs(a["Yes"] - b["Yes"]) for a, b in zip(res.logprobs, ref.logprobs)) < 0.5
    assert bf.generate([{"role": "user", "content": "Say hi"}], max_tokens=4).text
