"""A local transformers model (default: the bundled SmolLM2-135M-Instruct) with prefix-cached scoring.

Scoring (V-Droid's verifier step): the shared prefix is run once; its KV cache is then shared by
every continuation, run ``max_batch`` at a time (packed into one masked sequence, or as padded
rows). A step costs one prefix prefill plus the continuation tokens, instead of one full prefill
per candidate.

Tokenization at the boundary. Results are defined on the tokenization of each full string
``prefix + continuation`` (exactly what :meth:`LocalLLM.naive_score` runs). BPE can merge tokens
across the join (e.g. a prefix ending in a space), so the cached part is the longest run of tokens
that every full tokenization starts with; the rest of each full tokenization is that
candidate's continuation. With a prefix ending in a newline (as rendered chat prompts do) the whole
prefix is cached. The cached run also extends past the prefix over tokens every continuation
starts with (a verifier's continuations all open with the same question words). Either way the ids
run are identical to the naive ones.

Targets are scored exactly as given (``"Yes"``, not ``" Yes"``): the verifier prompt ends with the
chat template's ``<|im_start|>assistant\\n``, after which a reply's first token carries no leading
space. Each target must be a single token, else :class:`LLMOutputError`.

Usage accounting (same as an OpenAI server with a prefix cache): ``prompt_tokens`` counts every
full prompt as if sent separately; ``cached_tokens`` the shared tokens reused instead of recomputed;
``prompt_tokens - cached_tokens`` is what was actually computed.
"""

from __future__ import annotations

import copy
import os
import threading
import time
from pathlib import Path

import torch

from droidverify.core.records import TokenUsage
from droidverify.errors import LLMInputError, LLMOutputError, ModelLoadError
from droidverify.llm.base import Generation, Messages, ScoreResult
from droidverify.llm.chat import (
    cut_at_stop,
    render_chatml,
    validate_continuations,
    validate_messages,
    validate_targets,
)
from droidverify.llm.modelcache import (
    load_model_and_tokenizer,
    materialize,
    remember_dtype,
    remembered_dtype,
)

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
# Candidates per packed pass. Measured on a 2-core AVX512-BF16 CPU, SmolLM2-135M, 50 candidates on a
# 985-token prefix (benchmarks/verifier_latency.py --tune 8,16,25,50): fp32 5.4/5.2/5.1/5.5 s, bf16
# 2.7/2.8/2.9/3.4 s. Bigger packs waste attention on masked-out pairs; smaller ones copy the prefix
# KV more often.
DEFAULT_MAX_BATCH = 8


def _default_threads() -> int:
    """``OMP_NUM_THREADS`` when set (several processes sharing few cores run far faster with one
    thread each than oversubscribed), else every core this process may use."""
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _common_prefix_len(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class LocalLLM:
    """A causal LM run with transformers on CPU (or ``device``).

    ``model``: ``None`` for the bundled SmolLM2-135M-Instruct GGUF, else a transformers model
    directory or a ``.gguf`` file. ``dtype``: ``"float32"``, ``"bfloat16"`` or ``"auto"`` (time one
    forward pass in each and keep the faster; the choice is remembered per model and machine).
    Numerical equivalence checks should use ``"float32"``: in bfloat16 the same log-probability
    computed in two layouts (cached vs naive) differs by up to ~0.2 nats on SmolLM2.

    ``score_mode``: ``"packed"`` (default, faster on CPU) runs up to ``max_batch`` continuations
    as one sequence after the prefix with a block-diagonal causal mask; ``"batched"`` runs them as
    right-padded rows, each on a (view-expanded) copy of the prefix KV cache. Both give the naive
    result; ``"batched"`` is for attention kernels that take no custom 4D mask.
    """

    def __init__(self, model: str | Path | None = None, *, dtype: str = "auto", device: str = "cpu",
                 seed: int = 0, max_batch: int = DEFAULT_MAX_BATCH, score_mode: str = "packed",
                 num_threads: int | None = None) -> None:
        if dtype not in (*_DTYPES, "auto"):
            raise LLMInputError(f"dtype must be 'float32', 'bfloat16' or 'auto', got {dtype!r}")
        if score_mode not in ("packed", "batched"):
            raise LLMInputError(f"score_mode must be 'packed' or 'batched', got {score_mode!r}")
        self.score_mode = score_mode
        if not isinstance(max_batch, int) or max_batch < 1:
            raise LLMInputError(f"max_batch must be a positive int, got {max_batch!r}")
        torch.set_num_threads(num_threads or _default_threads())
        t0 = time.perf_counter()
        self.source = model  # what was asked for (None: the bundled model), for provenance
        directory, self.name = materialize(model)
        self.model_dir = directory
        self.model, self.tokenizer = load_model_and_tokenizer(directory, torch.float32)
        try:
            self.model.to(device)
        except Exception as e:
            raise ModelLoadError(f"could not move model to device {device!r}: {e}") from e
        self.device = torch.device(device)
        self.dtype_name = self._choose_dtype() if dtype == "auto" else dtype
        self.model.to(_DTYPES[self.dtype_name])
        if self.dtype_name != "float32":
            self._float32_output_head()
        self.load_seconds = time.perf_counter() - t0
        self.seed = seed
        self.max_batch = max_batch
        self._lock = threading.Lock()
        cfg = self.model.config
        self.max_positions: int | None = getattr(cfg, "max_position_embeddings", None)
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id if self.tokenizer.eos_token_id is not None else 0
        self._pad_id = int(pad)
        self._eos_ids = self._collect_eos_ids()

    # ------------------------------------------------------------------ setup
    def _collect_eos_ids(self) -> set[int]:
        ids: set[int] = set()
        for src in (getattr(self.model, "generation_config", None), self.model.config, self.tokenizer):
            v = getattr(src, "eos_token_id", None)
            if isinstance(v, int):
                ids.add(v)
            elif isinstance(v, (list, tuple)):
                ids.update(int(x) for x in v)
        return ids

    def _choose_dtype(self) -> str:
        """Time a 256-token forward in fp32 and bf16 (on CPU) and keep the faster; cached on disk."""
        if self.device.type != "cpu":
            return "bfloat16"
        key = f"{self.model_dir.resolve()}|torch={torch.__version__}|threads={torch.get_num_threads()}"
        known = remembered_dtype(key, tuple(_DTYPES))
        if known is not None:
            return known
        ids = torch.arange(256, device=self.device).unsqueeze(0) % 1000 + 100
        timings: dict[str, float] = {}
        with torch.inference_mode():
            for name, dt in _DTYPES.items():
                m = self.model if dt == torch.float32 else copy.deepcopy(self.model).to(dt)
                m(input_ids=ids, logits_to_keep=1)  # warm-up
                t = time.perf_counter()
                for _ in range(2):
                    m(input_ids=ids, logits_to_keep=1)
                timings[name] = time.perf_counter() - t
                if m is not self.model:
                    del m
        choice = min(timings, key=timings.__getitem__)
        remember_dtype(key, choice)
        return choice

    # ------------------------------------------------------------------ text
    def tokenize(self, text: str) -> list[int]:
        """Raw text to ids, no special tokens added (rendered chat text already carries them)."""
        if not isinstance(text, str):
            raise LLMInputError(f"text must be a string, got {type(text).__name__}")
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    def render_chat(self, messages: Messages, *, add_generation_prompt: bool = True) -> str:
        """The model's own chat template; ChatML (see ``chat.CHATML_TEMPLATE``) if it has none."""
        validate_messages(messages)
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                      add_generation_prompt=add_generation_prompt)
        return render_chatml(messages, add_generation_prompt)

    def target_ids(self, targets: tuple[str, ...]) -> list[int]:
        targets = validate_targets(targets)
        ids = []
        for t in targets:
            tid = self.tokenize(t)
            if len(tid) != 1:
                raise LLMOutputError(f"scoring target {t!r} is {len(tid)} tokens {tid} for {self.name}; "
                                     "targets must be single tokens")
            ids.append(tid[0])
        return ids

    def _check_length(self, n: int, what: str) -> None:
        if self.max_positions is not None and n > self.max_positions:
            raise LLMInputError(f"{what} is {n} tokens, longer than {self.name}'s context "
                                f"({self.max_positions})")

    def _float32_output_head(self) -> None:
        """Run the output projection in float32 while the body stays in bfloat16.

        bfloat16 keeps 8 mantissa bits, so logits near 20 come out in steps of ~0.1 and P("Yes")
        across candidates collapses onto a coarse grid (ties everywhere). The projection only runs
        on the positions whose logits are needed, so float32 there costs little. Every path
        (score, naive_score, generate) goes through the same head, so they stay comparable.
        """
        old = self.model.get_output_embeddings()
        head = torch.nn.Linear(old.in_features, old.out_features, bias=old.bias is not None,
                               dtype=torch.float32, device=old.weight.device)
        with torch.no_grad():
            head.weight.copy_(old.weight.float())  # untied copy: the input embeddings stay bf16
            if old.bias is not None:
                head.bias.copy_(old.bias.float())
        head.register_forward_pre_hook(lambda _m, args: (args[0].float(), *args[1:]))
        self.model.set_output_embeddings(head)
        self.model.config.tie_word_embeddings = False

    # ------------------------------------------------------------------ forward helpers
    def _head(self, hidden: torch.Tensor) -> torch.Tensor:
        """Final-position hidden states -> next-token logits (fp32), as the CausalLM forward does."""
        logits = self.model.get_output_embeddings()(hidden).float()
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if cap:
            logits = torch.tanh(logits / cap) * cap
        return logits

    def _result(self, logits: torch.Tensor, tids: list[int], targets: tuple[str, ...],
                usage: TokenUsage, seconds: float) -> ScoreResult:
        lp = torch.log_softmax(logits, dim=-1)[:, tids].tolist()
        return ScoreResult(logprobs=[dict(zip(targets, row)) for row in lp], usage=usage,
                           seconds=seconds, logits=logits)

    # ------------------------------------------------------------------ scoring
    def score(self, prefix: str, continuations: list[str],
              targets: tuple[str, ...] = ("Yes", "No")) -> ScoreResult:
        """log P(target | prefix + continuation) for each continuation, prefix computed once."""
        t0 = time.perf_counter()
        conts = validate_continuations(continuations)
        tids = self.target_ids(targets)
        if not isinstance(prefix, str):
            raise LLMInputError(f"prefix must be a string, got {type(prefix).__name__}")
        if not conts:
            return ScoreResult(logprobs=[], seconds=time.perf_counter() - t0,
                               logits=torch.empty(0, self.model.config.vocab_size))
        fulls, k = self.split_shared(prefix, conts)
        with self._lock, torch.inference_mode():
            out = self._head(self.candidate_hidden(fulls, k)).cpu()
        n_full = sum(len(f) for f in fulls)
        usage = TokenUsage(prompt_tokens=n_full, cached_tokens=k * (len(conts) - 1))
        return self._result(out, tids, validate_targets(targets), usage, time.perf_counter() - t0)

    def split_shared(self, prefix: str, conts: list[str]) -> tuple[list[list[int]], int]:
        """Tokenize every ``prefix + continuation``; return (full ids, k) where the first k ids are
        shared by all of them and computed once (each keeps >= 1 token of its own)."""
        # One batched call (the fast tokenizer's Rust batch) gives the same ids as one call each.
        fulls = [list(ids) for ids in
                 self.tokenizer([prefix + c for c in conts], add_special_tokens=False)["input_ids"]]
        # The cached part is every token all full prompts share: the prefix, and also the opening
        # tokens all continuations have in common (e.g. "Is the action ["), which are computed once.
        k = len(fulls[0])
        for i, f in enumerate(fulls):
            if not f:
                raise LLMInputError(f"prefix + continuations[{i}] is empty: nothing to score")
            self._check_length(len(f), f"prefix + continuations[{i}]")
            # Keep >= 1 own token per continuation: its last token's logits are the answer.
            k = min(k, _common_prefix_len(fulls[0], f), len(f) - 1)
        return fulls, k

    def candidate_hidden(self, fulls: list[list[int]], k: int, *, model: torch.nn.Module | None = None,
                         max_batch: int | None = None) -> torch.Tensor:
        """Final hidden state of every full prompt's last token, ``[n, hidden]``, in input order.

        The shared ``fulls[i][:k]`` is run once; its KV cache serves every tail. This is the one
        implementation of the verifier's forward pass: :meth:`score` runs it under inference mode,
        the P^3 trainer with gradients (``model``: the same network with adapters), so trained
        and deployed scores come from identical computation.
        """
        net = self.model if model is None else model
        base = net.base_model if model is None else net.get_decoder()
        dev = self.device
        tails = [f[k:] for f in fulls]
        kv: list[tuple[torch.Tensor, torch.Tensor]] = []
        if k:
            pre = base(input_ids=torch.tensor([fulls[0][:k]], device=dev), use_cache=True)
            kv = [(layer.keys, layer.values) for layer in pre.past_key_values.layers]
        # Longest first, so each batch pads little.
        order = sorted(range(len(tails)), key=lambda i: -len(tails[i]))
        parts: list[torch.Tensor] = []
        step = max_batch or self.max_batch
        for s in range(0, len(order), step):
            idx = order[s:s + step]
            run = self._score_packed if self.score_mode == "packed" else self._score_batch
            parts.append(run([tails[i] for i in idx], k, kv, base))
        hidden = torch.cat(parts, 0)
        inverse = torch.empty(len(order), dtype=torch.long)
        inverse[torch.tensor(order)] = torch.arange(len(order))
        return hidden[inverse.to(hidden.device)]

    def _score_batch(self, tails: list[list[int]], k: int,
                     kv: list[tuple[torch.Tensor, torch.Tensor]], base: torch.nn.Module) -> torch.Tensor:
        from transformers import DynamicCache

        dev = self.device
        b, width = len(tails), max(len(t) for t in tails)
        ids = torch.full((b, width), self._pad_id, dtype=torch.long, device=dev)
        mask = torch.zeros((b, k + width), dtype=torch.long, device=dev)
        mask[:, :k] = 1
        lens = torch.tensor([len(t) for t in tails], device=dev)
        for r, t in enumerate(tails):
            ids[r, :len(t)] = torch.tensor(t, device=dev)
            mask[r, k:k + len(t)] = 1
        # Right padding: real tokens sit at positions k.., pads after them are never attended to by
        # real tokens (causal), so every row's last real token sees exactly prefix + its own tokens.
        pos = (torch.arange(width, device=dev) + k).unsqueeze(0).expand(b, -1)
        cache = None
        if k:
            # expand() is a view: the shared prefix KV is not copied until the cache appends to it.
            cache = DynamicCache(ddp_cache_data=[(kk.expand(b, -1, -1, -1), vv.expand(b, -1, -1, -1))
                                                 for kk, vv in kv])
        hidden = base(input_ids=ids, attention_mask=mask, position_ids=pos,
                      past_key_values=cache, use_cache=k > 0).last_hidden_state
        return hidden[torch.arange(b, device=dev), lens - 1]

    def _score_packed(self, tails: list[list[int]], k: int,
                      kv: list[tuple[torch.Tensor, torch.Tensor]], base: torch.nn.Module) -> torch.Tensor:
        """All tails in ONE row after the prefix, kept apart by a block-diagonal causal mask.

        Versus a padded batch this copies the prefix KV once per pass (not once per row) and runs
        no pad tokens. Each tail's token i has position k + i and attends to the prefix and to
        tail tokens 0..i of its own tail only, exactly as in its own full-prompt run.
        """
        from transformers import DynamicCache

        dev = self.device
        lens = [len(t) for t in tails]
        q = sum(lens)
        ids = torch.tensor([[tok for t in tails for tok in t]], device=dev)
        pos = torch.cat([torch.arange(n, device=dev) for n in lens]).add_(k).unsqueeze(0)
        seg = torch.repeat_interleave(torch.arange(len(tails), device=dev), torch.tensor(lens, device=dev))
        idx = torch.arange(q, device=dev)
        allowed = torch.ones((q, k + q), dtype=torch.bool, device=dev)
        allowed[:, k:] = (seg[:, None] == seg[None, :]) & (idx[None, :] <= idx[:, None])
        dtype = next(base.parameters()).dtype
        mask = torch.zeros((1, 1, q, k + q), dtype=dtype, device=dev)
        mask.masked_fill_(~allowed, torch.finfo(dtype).min)  # additive form: valid for sdpa and eager
        cache = DynamicCache(ddp_cache_data=kv) if k else None
        hidden = base(input_ids=ids, attention_mask=mask, position_ids=pos,
                      past_key_values=cache, use_cache=k > 0).last_hidden_state
        ends = torch.tensor(lens, device=dev).cumsum(0) - 1
        return hidden[0, ends]

    def naive_score(self, prefix: str, continuations: list[str],
                    targets: tuple[str, ...] = ("Yes", "No")) -> ScoreResult:
        """The baseline: every ``prefix + continuation`` run on its own, no cache, no batching."""
        t0 = time.perf_counter()
        conts = validate_continuations(continuations)
        tids = self.target_ids(targets)
        if not isinstance(prefix, str):
            raise LLMInputError(f"prefix must be a string, got {type(prefix).__name__}")
        rows = []
        n = 0
        with self._lock, torch.inference_mode():
            for i, c in enumerate(conts):
                ids = self.tokenize(prefix + c)
                if not ids:
                    raise LLMInputError(f"prefix + continuations[{i}] is empty: nothing to score")
                self._check_length(len(ids), f"prefix + continuations[{i}]")
                n += len(ids)
                logits = self.model(input_ids=torch.tensor([ids], device=self.device),
                                    logits_to_keep=1).logits[0, -1]
                rows.append(logits.float().cpu())
        out = torch.stack(rows) if rows else torch.empty(0, self.model.config.vocab_size)
        return self._result(out, tids, validate_targets(targets), TokenUsage(prompt_tokens=n),
                            time.perf_counter() - t0)

    # ------------------------------------------------------------------ generation
    def generate(self, messages: Messages, *, max_tokens: int = 256, temperature: float = 0.0,
                 stop: list[str] | None = None, seed: int | None = None) -> Generation:
        """Greedy when ``temperature == 0``, else plain temperature sampling with a private RNG
        seeded by ``seed`` (default: the instance seed), so results repeat exactly."""
        t0 = time.perf_counter()
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise LLMInputError(f"max_tokens must be a positive int, got {max_tokens!r}")
        if not isinstance(temperature, (int, float)) or temperature < 0:
            raise LLMInputError(f"temperature must be >= 0, got {temperature!r}")
        if stop is not None and (isinstance(stop, str) or not all(isinstance(s, str) for s in stop)):
            raise LLMInputError(f"stop must be a list of strings, got {stop!r}")
        prompt_ids = self.tokenize(self.render_chat(messages))
        self._check_length(len(prompt_ids) + max_tokens, "prompt + max_tokens")
        gen = torch.Generator(device="cpu").manual_seed(self.seed if seed is None else seed)
        from transformers import DynamicCache

        out_ids: list[int] = []
        finish = "length"
        text = ""
        with self._lock, torch.inference_mode():
            cache = DynamicCache()
            step_ids = torch.tensor([prompt_ids], device=self.device)
            for _ in range(max_tokens):
                res = self.model(input_ids=step_ids, past_key_values=cache, use_cache=True,
                                 logits_to_keep=1)
                cache = res.past_key_values
                logits = res.logits[0, -1].float().cpu()
                if temperature == 0:
                    nxt = int(torch.argmax(logits))
                else:
                    probs = torch.softmax(logits / float(temperature), dim=-1)
                    nxt = int(torch.multinomial(probs, 1, generator=gen))
                if nxt in self._eos_ids:
                    finish = "stop"
                    break
                out_ids.append(nxt)
                text = self.tokenizer.decode(out_ids, skip_special_tokens=True)
                text, hit = cut_at_stop(text, stop)
                if hit:
                    finish = "stop"
                    break
                step_ids = torch.tensor([[nxt]], device=self.device)
        return Generation(text=text, usage=TokenUsage(prompt_tokens=len(prompt_ids),
                                                      completion_tokens=len(out_ids)),
                          finish_reason=finish, seconds=time.perf_counter() - t0)

    def __repr__(self) -> str:
        return f"LocalLLM({self.name!r}, dtype={self.dtype_name}, device={self.device})"
