"""An OpenAI-compatible server (vLLM, llama.cpp, llama-cpp-python, OpenAI...) as an :class:`LLM`.

Scoring uses the legacy completions endpoint with raw prompts ``prefix + continuation``,
``max_tokens=1`` and ``logprobs=top_k``; the first generated position's top-k log-probabilities give
each target's score. The prefix is sent byte-identical every time. Where the server accepts a list
of prompts (vLLM, llama.cpp's ``llama-server``) all continuations of a call go as ONE batched
request (``batch=True``, the default, probed once per client: a server that refuses a list or
answers with the wrong number of choices, such as llama-cpp-python's, is remembered as not
batching). Otherwise one request per continuation: the first alone, then the rest concurrently, so
a server with a prefix cache (vLLM automatic prefix caching, llama.cpp's slot cache) computes the
prefix once.

A target absent from the returned top-k has a log-probability below the smallest returned one; it
gets ``missing_logprob`` if set, else that smallest top-k value (an upper bound on the true value,
so ranking stays informative). When a server has no completions endpoint (404/405) scoring falls
back to chat completions with ``logprobs``/``top_logprobs``, sending ``prefix + continuation`` as
one user message: the server then wraps it in its own chat template, so scores are approximate.

``render_chat``: the model's template via a local tokenizer (``tokenizer=`` a model directory or
``.gguf`` file) if given, else ChatML. ``count_tokens``: that tokenizer if given, else the server's
tokenize endpoint (llama-cpp-python ``/extras/tokenize``, llama.cpp / vLLM ``/tokenize``), else an
estimate of one token per 4 UTF-8 bytes (rounded up).

Errors: 429, 5xx, timeouts and connection failures are retried ``max_retries`` times with
exponential backoff plus jitter; then a timeout raises :class:`LLMTimeoutError` and anything else
:class:`LLMUnavailableError` (``status`` set when the server answered). Other 4xx fail at once:
400/404/405/413/422 (this request is at fault) as :class:`LLMServerError`, others (401, 403: the
server will refuse every request) as :class:`LLMUnavailableError`. Timeouts and unavailability are
infrastructure failures: the runner stops instead of recording the agent as failed.
"""

from __future__ import annotations

import math
import os
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import openai

from droidverify.core.records import TokenUsage
from droidverify.errors import (
    LLMInputError,
    LLMOutputError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from droidverify.llm.base import Generation, Messages, ScoreResult
from droidverify.llm.chat import (
    cut_at_stop,
    render_chatml,
    validate_continuations,
    validate_messages,
    validate_targets,
)

T = TypeVar("T")
_RETRYABLE_STATUS = {408, 409, 429}
# 4xx answers that blame this one request; any other refusal will repeat for every request.
_REQUEST_FAULT_STATUS = {400, 404, 405, 413, 422}


def _usage_of(resp: Any) -> TokenUsage:
    u = getattr(resp, "usage", None)
    if u is None:
        return TokenUsage()
    details = getattr(u, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return TokenUsage(prompt_tokens=u.prompt_tokens or 0, completion_tokens=u.completion_tokens or 0,
                      cached_tokens=cached or 0)


class OpenAICompatLLM:
    """Client of an OpenAI-compatible server. ``model=None`` takes the first model the server lists."""

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 *, timeout: float = 60.0, max_retries: int = 3, concurrency: int = 4,
                 top_logprobs: int = 20, missing_logprob: float | None = None,
                 backoff_base: float = 0.5, backoff_max: float = 8.0,
                 tokenizer: str | Path | None = None, batch: bool = True) -> None:
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        if not base_url.startswith(("http://", "https://")):
            raise LLMInputError(f"base_url must be an http(s) URL, got {base_url!r}")
        for name, v in (("timeout", timeout), ("backoff_base", backoff_base), ("backoff_max", backoff_max)):
            if not isinstance(v, (int, float)) or v < 0:
                raise LLMInputError(f"{name} must be a non-negative number, got {v!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise LLMInputError(f"max_retries must be an int >= 0, got {max_retries!r}")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise LLMInputError(f"concurrency must be an int >= 1, got {concurrency!r}")
        if not isinstance(top_logprobs, int) or top_logprobs < 1:
            raise LLMInputError(f"top_logprobs must be an int >= 1, got {top_logprobs!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout, self.max_retries, self.concurrency = float(timeout), max_retries, concurrency
        self.top_logprobs, self.missing_logprob = top_logprobs, missing_logprob
        self.backoff_base, self.backoff_max = float(backoff_base), float(backoff_max)
        # Retries are ours (counted, typed errors), so the client's own are off.
        self.client = openai.OpenAI(base_url=self.base_url,
                                    api_key=api_key or os.environ.get("OPENAI_API_KEY") or "none",
                                    timeout=self.timeout, max_retries=0)
        self.stats = {"requests": 0, "retries": 0}
        self.usage = TokenUsage()  # running total over this client's life
        self._lock = threading.Lock()
        self._score_mode = "completions"
        # None: not yet known whether the server takes a list of prompts; probed on first use.
        self._batch: bool | None = None if batch else False
        self._tokenize_route: str | None = None
        self._tokenizer = self._load_tokenizer(tokenizer) if tokenizer is not None else None
        self.model = model or self._first_model()
        self.name = f"openai:{self.model}"

    # ------------------------------------------------------------------ plumbing
    @staticmethod
    def _load_tokenizer(path: str | Path) -> Any:
        from transformers import AutoTokenizer

        from droidverify.errors import ModelLoadError

        p = Path(path).expanduser()
        if not p.exists():
            raise ModelLoadError(f"tokenizer path does not exist: {p}")
        try:
            if p.is_file():
                return AutoTokenizer.from_pretrained(p.parent, gguf_file=p.name, local_files_only=True)
            return AutoTokenizer.from_pretrained(p, local_files_only=True)
        except Exception as e:
            raise ModelLoadError(f"could not load tokenizer from {p}: {type(e).__name__}: {e}") from e

    def _first_model(self) -> str:
        models = self._call(lambda: self.client.models.list(), "list models")
        data = list(getattr(models, "data", None) or [])
        if not data:
            raise LLMUnavailableError(f"{self.base_url} lists no models; pass model=")
        return data[0].id

    def _sleep_before_retry(self, attempt: int) -> None:
        delay = min(self.backoff_max, self.backoff_base * (2 ** attempt))
        time.sleep(delay * (0.5 + random.random() / 2))  # jitter: spread out retrying clients

    def _call(self, fn: Callable[[], T], what: str) -> T:
        """Run one request with retries; translate failures into droidverify errors."""
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                with self._lock:
                    self.stats["retries"] += 1
                self._sleep_before_retry(attempt - 1)
            with self._lock:
                self.stats["requests"] += 1
            try:
                return fn()
            except openai.APITimeoutError as e:
                last = e
            except openai.APIConnectionError as e:
                last = e
            except openai.APIStatusError as e:
                if e.status_code >= 500 or e.status_code in _RETRYABLE_STATUS:
                    last = e
                    continue
                cls = LLMServerError if e.status_code in _REQUEST_FAULT_STATUS else LLMUnavailableError
                raise cls(f"{what}: {self.base_url} answered {e.status_code}: {e.message}",
                          status=e.status_code) from e
        tries = self.max_retries + 1
        if isinstance(last, openai.APITimeoutError):
            raise LLMTimeoutError(f"{what}: {self.base_url} did not answer within {self.timeout:g}s "
                                  f"({tries} tries)") from last
        if isinstance(last, openai.APIStatusError):
            raise LLMUnavailableError(f"{what}: {self.base_url} answered {last.status_code} ({tries} "
                                      f"tries): {last.message}", status=last.status_code) from last
        raise LLMUnavailableError(f"{what}: could not connect to {self.base_url} ({tries} tries): {last}") from last

    def _add_usage(self, u: TokenUsage) -> None:
        with self._lock:
            self.usage = self.usage + u

    # ------------------------------------------------------------------ LLM protocol
    def render_chat(self, messages: Messages, *, add_generation_prompt: bool = True) -> str:
        validate_messages(messages)
        if self._tokenizer is not None and getattr(self._tokenizer, "chat_template", None):
            return self._tokenizer.apply_chat_template(messages, tokenize=False,
                                                       add_generation_prompt=add_generation_prompt)
        return render_chatml(messages, add_generation_prompt)

    def count_tokens(self, text: str) -> int:
        if not isinstance(text, str):
            raise LLMInputError(f"text must be a string, got {type(text).__name__}")
        if self._tokenizer is not None:
            return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])
        n = self._server_count(text)
        return n if n is not None else math.ceil(len(text.encode()) / 4)

    def _server_count(self, text: str) -> int | None:
        root = self.base_url.removesuffix("/v1")
        routes = {"extras": (f"{root}/extras/tokenize", {"input": text, "model": self.model}),
                  "vllm": (f"{root}/tokenize", {"prompt": text, "model": self.model}),
                  "llamacpp": (f"{root}/tokenize", {"content": text})}
        order = [self._tokenize_route] if self._tokenize_route else list(routes)
        for key in order:
            if key == "none":
                return None
            url, body = routes[key]
            try:
                r = httpx.post(url, json=body, timeout=min(self.timeout, 10.0))
                if r.status_code == 200 and isinstance(r.json().get("tokens"), list):
                    self._tokenize_route = key
                    return len(r.json()["tokens"])
            except (httpx.HTTPError, ValueError, AttributeError):
                pass
        self._tokenize_route = "none"
        return None

    def generate(self, messages: Messages, *, max_tokens: int = 256, temperature: float = 0.0,
                 stop: list[str] | None = None, seed: int | None = None) -> Generation:
        t0 = time.perf_counter()
        validate_messages(messages)
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise LLMInputError(f"max_tokens must be a positive int, got {max_tokens!r}")
        if not isinstance(temperature, (int, float)) or temperature < 0:
            raise LLMInputError(f"temperature must be >= 0, got {temperature!r}")
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": max_tokens,
                                  "temperature": temperature}
        if stop:
            kwargs["stop"] = list(stop)
        if seed is not None:
            kwargs["seed"] = seed
        resp = self._call(lambda: self.client.chat.completions.create(**kwargs), "chat completion")
        if not getattr(resp, "choices", None):
            raise LLMOutputError(f"{self.base_url} returned no choices for a chat completion")
        choice = resp.choices[0]
        text = choice.message.content or ""
        text, _ = cut_at_stop(text, stop)  # servers differ on whether stop text is echoed
        usage = _usage_of(resp)
        self._add_usage(usage)
        return Generation(text=text, usage=usage, finish_reason=choice.finish_reason,
                          seconds=time.perf_counter() - t0)

    def score(self, prefix: str, continuations: list[str],
              targets: tuple[str, ...] = ("Yes", "No")) -> ScoreResult:
        t0 = time.perf_counter()
        conts = validate_continuations(continuations)
        targets = validate_targets(targets)
        if not isinstance(prefix, str):
            raise LLMInputError(f"prefix must be a string, got {type(prefix).__name__}")
        if not conts:
            return ScoreResult(logprobs=[], seconds=time.perf_counter() - t0)
        if len(conts) > 1 and self._batch is not False and self._score_mode == "completions":
            batched = self._score_batch([prefix + c for c in conts], targets)
            if batched is not None:
                logprobs, usage = batched
                return ScoreResult(logprobs=logprobs, usage=usage, seconds=time.perf_counter() - t0)
        results: list[tuple[dict[str, float], TokenUsage] | None] = [None] * len(conts)
        # The first request alone warms the server's prefix cache; the rest then share it.
        results[0] = self._score_one(prefix + conts[0], targets)
        if len(conts) > 1:
            pool = ThreadPoolExecutor(max_workers=self.concurrency)
            try:
                futs = {i: pool.submit(self._score_one, prefix + conts[i], targets)
                        for i in range(1, len(conts))}
                for i, f in futs.items():
                    results[i] = f.result()
            finally:
                # On a failure, drop the queued requests instead of retrying each against a dead server.
                pool.shutdown(wait=True, cancel_futures=True)
        usage = TokenUsage()
        for r in results:
            assert r is not None
            usage = usage + r[1]
        return ScoreResult(logprobs=[r[0] for r in results if r is not None], usage=usage,
                           seconds=time.perf_counter() - t0)

    def _score_batch(self, prompts: list[str],
                     targets: tuple[str, ...]) -> tuple[list[dict[str, float]], TokenUsage] | None:
        """All prompts in one completions request; None when this server does not batch."""
        def create() -> Any:
            return self.client.completions.create(model=self.model, prompt=prompts, max_tokens=1,
                                                  temperature=0.0, logprobs=self.top_logprobs, echo=False)

        if self._batch is None:  # the probe: no retries, a refusal just means "one at a time"
            with self._lock:
                self.stats["requests"] += 1
            try:
                resp = create()
            except openai.APIStatusError:
                self._batch = False
                return None
            except (openai.APITimeoutError, openai.APIConnectionError):
                resp = self._call(create, "completion (batched score)")
        else:
            resp = self._call(create, "completion (batched score)")
        choices = list(getattr(resp, "choices", None) or [])
        indices = sorted(getattr(c, "index", -1) for c in choices)
        if indices != list(range(len(prompts))):
            if self._batch is None:
                self._batch = False
                return None
            raise LLMOutputError(f"{self.base_url} answered a batch of {len(prompts)} prompts with "
                                 f"choices {indices[:8]}")
        self._batch = True
        out: list[dict[str, float]] = []
        for choice in sorted(choices, key=lambda c: c.index):
            top = self._top_from_choice(choice)
            if not top:
                raise LLMOutputError(f"{self.base_url} returned no top logprobs for the first token")
            floor = self.missing_logprob if self.missing_logprob is not None else min(top.values())
            out.append({t: top.get(t, floor) for t in targets})
        usage = _usage_of(resp)
        self._add_usage(usage)
        return out, usage

    def _score_one(self, prompt: str, targets: tuple[str, ...]) -> tuple[dict[str, float], TokenUsage]:
        if self._score_mode == "completions":
            try:
                resp = self._call(lambda: self.client.completions.create(
                    model=self.model, prompt=prompt, max_tokens=1, temperature=0.0,
                    logprobs=self.top_logprobs, echo=False), "completion (score)")
                top = self._top_from_completion(resp)
            except LLMServerError as e:
                if e.status not in (404, 405):
                    raise
                self._score_mode = "chat"
        if self._score_mode == "chat":
            resp = self._call(lambda: self.client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": prompt}], max_tokens=1,
                temperature=0.0, logprobs=True, top_logprobs=min(self.top_logprobs, 20)),
                "chat completion (score)")
            top = self._top_from_chat(resp)
        usage = _usage_of(resp)
        self._add_usage(usage)
        if not top:
            raise LLMOutputError(f"{self.base_url} returned no top logprobs for the first token")
        floor = self.missing_logprob if self.missing_logprob is not None else min(top.values())
        return {t: top.get(t, floor) for t in targets}, usage

    def _top_from_completion(self, resp: Any) -> dict[str, float]:
        choices = getattr(resp, "choices", None)
        if not choices:
            raise LLMOutputError(f"{self.base_url} completion has no choices")
        return self._top_from_choice(choices[0])

    def _top_from_choice(self, choice: Any) -> dict[str, float]:
        try:
            top = choice.logprobs.top_logprobs[0]
            return {str(k): float(v) for k, v in dict(top).items()}
        except (AttributeError, IndexError, TypeError, ValueError) as e:
            raise LLMOutputError(f"{self.base_url} completion has no usable logprobs "
                                 f"(does the server enable them?): {e}") from e

    def _top_from_chat(self, resp: Any) -> dict[str, float]:
        try:
            first = resp.choices[0].logprobs.content[0]
            return {str(t.token): float(t.logprob) for t in first.top_logprobs}
        except (AttributeError, IndexError, TypeError, ValueError) as e:
            raise LLMOutputError(f"{self.base_url} chat completion has no usable logprobs: {e}") from e

    def __repr__(self) -> str:
        return f"OpenAICompatLLM({self.base_url!r}, model={self.model!r})"
