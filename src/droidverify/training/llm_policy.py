"""SFT, ASL and GRPO for the LLM *generator* policy (``agents.generator`` / ``agents.selfverify``):
token-level, a LoRA adapter (peft) on the policy LLM, shaped like the P^3 trainer (``training.p3``).

What is trained is the model that writes the generator's reply (``... Action: {json}``); every
objective scores the *reply tokens* only (the prompt, with its goal, memory and screen, is context:
label -100, no loss term on it).

- ``sft`` (issue 22 item 1): for each ``VerifierStepRecord`` the generator's prompt is rebuilt from
  the record's goal, memory and screen (:func:`record_messages`: the agent's own ``build_messages``
  on an ``Observation`` of ``record.xml``), and the target reply is the oracle action's canonical
  JSON as the agent accepts it (:func:`target_reply`: ``Action: {...}`` + end of turn). Loss: mean
  cross-entropy over the reply tokens.
- ``asl`` (ASL, paper 004, item 2): per record a reply is sampled from the current model; parsed and
  checked against the screen as the agent does (an unusable reply has reward 0); ``r =
  reward_fn(record, action)`` (a callable handed in by the caller: training never imports
  ``rewards``; default :func:`exact_reward`). Loss per record, as ``training.policy.asl_loss``::

      -r * mean_t log p(sampled_t) + lambda * SFT,   lambda = 1 - (1 - alpha) * min(r, 1),
      alpha = exp(-SFT) (detached),                 SFT = mean_t -log p(target_t)

  Both log-probabilities are *means over reply tokens* (not sums): the two terms keep one scale
  whatever the reply lengths, and ``alpha`` is the target's per-token (geometric-mean) probability,
  in (0, 1] as the paper's ``exp(-SFT)``; with sums, ``alpha`` would be the whole reply's
  probability, ~0 for any reply of a few tokens, and lambda would stay ~``1 - r``. With ``tau`` set,
  the thresholded reward ``r' = 1[exact] + beta * 1[r > tau] * r`` (as ``training.policy``).
- ``grpo`` (item 3): consumes ``training.grpo.RolloutGroup`` files (``droidverify train
  grpo-rollouts``). Every recorded model call (prompt messages + reply text) of every member with a
  nonzero advantage is a sample; per reply token ``t``::

      rho_t = exp(log pi(t) - log pi_old(t))
      L = sum_t [-min(rho_t A, clip(rho_t, 1 - eps, 1 + eps) A) + kl_beta * k3_t] / (reply tokens)
      k3_t = exp(log pi_ref(t) - log pi(t)) - (log pi_ref(t) - log pi(t)) - 1     (TRL's estimator)

  ``pi_old``: the policy's log-probs computed once, before the first update (detached, cached in the
  output directory so a resumed run uses the same ones); ``pi_ref``: the LoRA-disabled base model.
  Log-probs divide the logits by the temperature the reply was sampled at (as TRL does). The mean is
  over every reply token of the optimizer step (token-level normalisation, TRL's ``dapo`` / ``bnpo``
  style): a long reply weighs by its tokens, not as one sequence. The reply's tokens are the reply
  *text* tokenized again (the groups record text, not token ids; a BPE tokenizer may split a sampled
  text differently from how it was sampled, a small approximation) plus the end-of-turn token when
  the call stopped on it (``finish_reason == "stop"``).

Resumable (a checkpoint every ``save_every`` optimizer steps: adapter, optimizer, scheduler, data
position, RNG states; a rerun with other settings or other data is refused), ``log.jsonl``,
``curves.png``, and :meth:`LLMPolicyTrainer.export` writes the adapter (peft format: what
``agents.verifier.trained``'s merge reads) with ``policy.json`` and ``provenance.json``, paths in
them relative to the run directory. :func:`evaluate_replies` measures a model's greedy replies:
the share that parse into an action valid on the screen, and the share equal to the oracle action.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.generator import GeneratorAgent
from droidverify.agents.registry import DTYPES, MEMORIES, SAMPLING_AGENTS
from droidverify.agents.screen import UI_STYLES, needs_completion
from droidverify.agents.selfverify import SelfVerifyingAgent
from droidverify.agents.trained_policy import (
    POLICY_FILE,
    POLICY_FORMAT,
    POLICY_FORMAT_VERSION,
    read_policy_meta,
)
from droidverify.agents.verifier.trained import base_identity
from droidverify.env.records import Observation, TokenUsage
from droidverify.errors import ActionError, CheckpointError, TrainingDataError, TrainingError
from droidverify.llm.base import Messages
from droidverify.training.compact import relative_path
from droidverify.training.grpo import RolloutGroup, read_groups
from droidverify.training.p3 import (
    LORA_TARGETS,
    _layers_to_transform,
    latest_checkpoint,
    prune_checkpoints,
    trim_log,
)
from droidverify.training.records import VerifierStepRecord, read_records

OBJECTIVES = ("sft", "asl", "grpo")
AGENTS = SAMPLING_AGENTS  # the agents whose policy samples its actions (agents.registry)
# (record, the sampled reply's action) -> reward; an unusable reply never reaches it (reward 0)
RewardFn = Callable[[VerifierStepRecord, Action], float]
# Settings a resumed run may change: none of them changes what a step computes.
_FREE_SETTINGS = ("output_dir", "device", "max_minutes", "save_every", "log_every", "keep_checkpoints",
                  "eval_file", "eval_records", "eval_every", "eval_max_tokens", "train_file", "groups_file")


@dataclass
class LLMPolicyConfig:
    """Everything an LLM-policy run needs; saved with every checkpoint and export."""

    output_dir: str
    objective: str = "sft"
    train_file: str | None = None  # VerifierStepRecord JSONL (sft, asl)
    groups_file: str | None = None  # RolloutGroup JSONL (grpo)
    max_records: int | None = None  # the first N records of train_file (None: all)
    model: str | None = None  # None: the bundled SmolLM2-135M-Instruct
    dtype: str = "auto"  # auto | float32 | bfloat16
    device: str = "cpu"
    agent: str = "generator"  # whose prompt the records are rebuilt into: generator | smartsnap
    description: str = "list"  # the agent's screen description style (its default)
    # the working memory the records' memory text was written by (``train data --memory``): recorded in
    # policy.json, so a run plays the policy with that memory (records do not say which it was)
    memory: str = "diff"
    # LoRA; ``lora_layers``: None = every layer, N = the last N (the backward pass then stops there).
    # Dropout 0 by default: GRPO's ratio must be exactly 1 before an update, and small data needs none.
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_targets: tuple[str, ...] = LORA_TARGETS
    lora_layers: int | None = None
    learning_rate: float = 2e-4
    weight_decay: float = 0.0
    warmup_steps: int = 10
    max_grad_norm: float = 1.0
    epochs: int = 1  # passes over the records (sft, asl)
    max_steps: int | None = None  # optimizer steps (None: what epochs / ppo_epochs give)
    batch_size: int = 1  # sequences per forward pass (padded on the right)
    grad_accum: int = 1  # forward passes per optimizer step
    max_seq_tokens: int = 4096  # prompt + reply; longer records / samples are skipped (and counted)
    max_minutes: float | None = None  # stop early (checkpointed) once this much training time is spent
    save_every: int = 50
    log_every: int = 10
    keep_checkpoints: int = 2
    seed: int = 0
    # evaluation (greedy replies on held-out records): before the first step, every eval_every steps
    # (None: never in between) and after the last
    eval_file: str | None = None
    eval_records: int = 30
    eval_every: int | None = None
    eval_max_tokens: int = 96
    # ASL
    reward_name: str = "exact"  # what reward_fn is (recorded; "exact" = exact_reward)
    tau: float | None = None  # thresholded variant: r' = 1[exact] + beta * 1[r > tau] * r
    beta: float = 0.5
    sample_temperature: float = 1.0
    sample_max_tokens: int = 48
    # GRPO (TRL's names: epsilon, beta, num_iterations)
    clip_eps: float = 0.2
    kl_beta: float = 0.0
    ppo_epochs: int = 1
    # a trained policy (an export directory) to start from: merged into the model before the new
    # adapter is added, so it is also GRPO's pi_old and KL reference (GRPO from the SFT start)
    init_policy: str | None = None

    def validate(self) -> None:
        """Raise :class:`TrainingError` naming the first setting that cannot work."""
        if self.objective not in OBJECTIVES:
            raise TrainingError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if self.agent not in AGENTS:
            raise TrainingError(f"agent must be one of {AGENTS}, got {self.agent!r}")
        if self.memory not in MEMORIES:
            raise TrainingError(f"memory must be one of {MEMORIES}, got {self.memory!r}")
        if self.description not in UI_STYLES:
            raise TrainingError(f"description must be one of {UI_STYLES}, got {self.description!r}")
        if self.dtype not in DTYPES:
            raise TrainingError(f"dtype must be one of {DTYPES}, got {self.dtype!r}")
        for name in ("lora_r", "lora_alpha", "epochs", "batch_size", "grad_accum", "max_seq_tokens", "save_every",
                     "log_every", "keep_checkpoints", "eval_max_tokens", "sample_max_tokens", "ppo_epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise TrainingError(f"{name} must be a positive int, got {v!r}")
        for name in ("max_steps", "max_records", "lora_layers", "eval_every"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise TrainingError(f"{name} must be a positive int or None, got {v!r}")
        for name in ("warmup_steps", "eval_records", "seed"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise TrainingError(f"{name} must be an int >= 0, got {v!r}")
        if not self.lora_targets:
            raise TrainingError("lora_targets is empty")
        if not 0 <= self.lora_dropout < 1:
            raise TrainingError(f"lora_dropout must be in [0, 1), got {self.lora_dropout}")
        if not (self.learning_rate > 0 and math.isfinite(self.learning_rate)):
            raise TrainingError(f"learning_rate must be > 0, got {self.learning_rate}")
        if self.weight_decay < 0 or not self.max_grad_norm > 0:
            raise TrainingError("weight_decay must be >= 0 and max_grad_norm > 0")
        if self.max_minutes is not None and not self.max_minutes > 0:
            raise TrainingError(f"max_minutes must be > 0 or None, got {self.max_minutes}")
        if self.tau is not None and not -1.0 <= self.tau <= 1.0:
            raise TrainingError(f"tau is a similarity threshold in [-1, 1], got {self.tau}")
        if self.beta < 0:
            raise TrainingError(f"beta must be >= 0, got {self.beta}")
        if not (self.sample_temperature > 0 and math.isfinite(self.sample_temperature)):
            raise TrainingError(f"sample_temperature must be > 0 (ASL samples its replies), "
                                f"got {self.sample_temperature}")
        if not 0 < self.clip_eps < 1 or self.kl_beta < 0:
            raise TrainingError(f"clip_eps must be in (0, 1) and kl_beta >= 0, got {self.clip_eps}, "
                                f"{self.kl_beta}")
        if not isinstance(self.reward_name, str) or not self.reward_name:
            raise TrainingError(f"reward_name must name the reward, got {self.reward_name!r}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LLMPolicyConfig:
        d = dict(d)
        if "lora_targets" in d:
            d["lora_targets"] = tuple(d["lora_targets"])
        try:
            return cls(**d)
        except TypeError as exc:
            raise CheckpointError(f"config does not fit LLMPolicyConfig: {exc}") from exc

    def checked(self) -> dict[str, Any]:
        """The settings a resumed run must share with the run it resumes."""
        return {k: v for k, v in self.to_dict().items() if k not in _FREE_SETTINGS}


# ---------------------------------------------------------------------------------------------------
# Records as the generator sees them
# ---------------------------------------------------------------------------------------------------
_STEP_LINE = re.compile(r"Step (\d+): (.*)")


class _RecordMemory:
    """The agent's working memory replaced by a record's rendered memory text: the agent renders it
    unchanged (``diff`` memory writes the same text the record holds), and the self-verifying agent
    reads its rounds back from the ``Step n:`` lines."""

    name = "record"

    def __init__(self, text: str, record_id: str) -> None:
        self.text = text
        self.entries: dict[int, str] = {}
        for line in text.splitlines():
            if not line.strip():
                continue
            m = _STEP_LINE.fullmatch(line)
            if m is None:
                raise TrainingDataError(f"record {record_id}: memory line {line[:60]!r} is not 'Step N: ...' "
                                        "(the self-verifying agent numbers its rounds from these lines)")
            self.entries[int(m.group(1)) - 1] = m.group(2)

    def reset(self, goal: str = "") -> None:
        return None

    def update(self, history: Any, observation: Any) -> TokenUsage:
        return TokenUsage()

    def render(self) -> str:
        return self.text


def record_observation(record: VerifierStepRecord) -> Observation:
    """The screen a record was taken on, as the agent received it (its elements parsed from the dump)."""
    if record.xml is None:
        raise TrainingDataError(f"record {record.record_id} has no screen dump (schema "
                                f"{record.schema_version} < 3): collect the data again with "
                                "`droidverify train data`")
    return Observation(xml=record.xml)


class _PlainMemory(_RecordMemory):
    """The record's memory text alone (the generator renders it as given; no rounds to read)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.entries = {}


def _agent_for(record: VerifierStepRecord, agent: str, description: str) -> GeneratorAgent:
    """The inference agent set to the record's state (goal, memory, round); it never calls a model."""
    a: GeneratorAgent
    if agent == "generator":
        a = GeneratorAgent(None, description=description,  # type: ignore[arg-type]
                           memory=_PlainMemory(record.memory))
    elif agent == "smartsnap":
        sv = SelfVerifyingAgent(None, description=description,  # type: ignore[arg-type]
                                memory=_RecordMemory(record.memory, record.record_id))
        sv._round = record.step  # the round number its prompt shows (act() sets it from the history)
        a = sv
    else:
        raise TrainingError(f"agent must be one of {AGENTS}, got {agent!r}")
    a.goal = record.goal
    return a


def record_messages(record: VerifierStepRecord, *, agent: str = "generator",
                    description: str = "list") -> Messages:
    """The prompt messages the agent would send on the record's step (``build_messages`` of
    :class:`GeneratorAgent` or :class:`SelfVerifyingAgent`, on :func:`record_observation`)."""
    return _agent_for(record, agent, description).build_messages(record_observation(record), record.memory)


def oracle_action(record: VerifierStepRecord) -> Action:
    """The annotator's action of a record, with its concrete values (an app name, the text typed)."""
    return Action.model_validate_json(record.oracle_action)


def target_reply(record: VerifierStepRecord) -> str:
    """The reply SFT teaches: the action line the generator's format asks for, the oracle action's
    canonical JSON (``Action: {"action_type":"click","index":5}``); the agent parses it to exactly
    the oracle action."""
    return f"Action: {oracle_action(record).to_json()}"


def check_reply(record: VerifierStepRecord, text: str, *, agent: str = "generator",
                description: str = "list") -> Action:
    """The action the agent would take from reply ``text`` on the record's screen: parsed and
    validated exactly as the agent's ``_check`` does (the self-verifying agent also refuses ``status
    complete``); an unusable reply raises the agent's :class:`ActionError`."""
    a = _agent_for(record, agent, description)
    return a._check(text, record_observation(record), record.step)


def correct_actions(record: VerifierStepRecord) -> set[str]:
    """Canonical JSON of every right answer: the oracle action, the record's positive candidate and
    its equivalents (the simulator's semantics: the launcher icon for ``open_app``, the on-screen Back
    button for ``navigate_back``), placeholders left out."""
    cands = (Action.model_validate_json(record.candidates[i]) for i in record.correct)
    # a placeholder candidate (``<app to be completed>``) is not an action anyone should be paid for
    return {oracle_action(record).to_json(), *(c.to_json() for c in cands if not needs_completion(c))}


def exact_reward(record: VerifierStepRecord, action: Action) -> float:
    """ASL's default reward: 1 when ``action`` is the oracle action or one of the record's equivalent
    candidates (:func:`correct_actions`), else 0."""
    return 1.0 if action.to_json() in correct_actions(record) else 0.0


# ---------------------------------------------------------------------------------------------------
# Losses (pure functions of per-token log-probabilities; the trainer and the tests share them)
# ---------------------------------------------------------------------------------------------------
def _masked_mean(x: Any, mask: Any) -> Any:
    """Per row: the mean of ``x`` over its masked-in positions."""
    m = mask.to(x.dtype)
    return (x * m).sum(-1) / m.sum(-1).clamp(min=1.0)


def sft_token_loss(target_logps: Any, target_mask: Any) -> Any:
    """Per row, the mean negative log-probability of the target reply's tokens ``[B]``."""
    return -_masked_mean(target_logps, target_mask)


def asl_token_loss(target_logps: Any, target_mask: Any, sample_logps: Any, sample_mask: Any,
                   reward: Any) -> Any:
    """ASL's loss averaged over a batch (the module docstring), token-level.

    ``target_logps`` / ``sample_logps`` ``[B, L]``: log-probabilities of the target's / the sampled
    reply's tokens (masks: which positions are tokens); ``reward`` ``[B]``. Per row:
    ``-r * mean_t log p(sampled_t) + lambda * SFT``, ``lambda = 1 - (1 - alpha) * min(r, 1)``,
    ``alpha = exp(-SFT)`` detached, ``SFT`` the mean target cross-entropy.
    """
    import torch

    sft = sft_token_loss(target_logps, target_mask)
    alpha = torch.exp(-sft).detach()
    r = torch.as_tensor(reward, dtype=sft.dtype, device=sft.device)
    lam = 1.0 - (1.0 - alpha) * r.clamp(max=1.0)
    pg = -r * _masked_mean(sample_logps, sample_mask)
    return (pg + lam * sft).mean()


def grpo_token_loss(logps: Any, old_logps: Any, advantages: Any, mask: Any, *, clip_eps: float,
                    kl_beta: float = 0.0, ref_logps: Any = None, n_tokens: float | None = None
                    ) -> tuple[Any, dict[str, float]]:
    """GRPO's clipped objective per reply token (the module docstring), summed over the masked-in
    tokens and divided by ``n_tokens`` (default: their count).

    ``logps`` ``[B, L]`` (with gradient), ``old_logps`` / ``ref_logps`` the same shape (detached),
    ``advantages`` ``[B]``. Returns the loss and statistics (clipped share, mean ratio, mean k3 KL).
    """
    import torch

    m = mask.to(logps.dtype)
    n = float(m.sum()) if n_tokens is None else float(n_tokens)
    if n <= 0:
        raise TrainingError("grpo_token_loss: no reply tokens to score")
    adv = torch.as_tensor(advantages, dtype=logps.dtype, device=logps.device)[:, None]
    ratio = torch.exp(logps - old_logps.detach())
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * adv
    per_token = -torch.minimum(unclipped, clipped)
    kl = None
    if kl_beta > 0:
        if ref_logps is None:
            raise TrainingError("grpo_token_loss: kl_beta > 0 needs the reference log-probabilities")
        d = ref_logps.detach() - logps
        kl = torch.exp(d) - d - 1.0
        per_token = per_token + kl_beta * kl
    loss = (per_token * m).sum() / n
    with torch.no_grad():
        cnt = float(m.sum())
        stats = {"clip_frac": float(((clipped < unclipped).to(m.dtype) * m).sum()) / max(cnt, 1.0),
                 "ratio": float((ratio * m).sum()) / max(cnt, 1.0),
                 "kl": float((kl * m).sum()) / max(cnt, 1.0) if kl is not None else 0.0}
    return loss, stats


# ---------------------------------------------------------------------------------------------------
# Samples and state
# ---------------------------------------------------------------------------------------------------
@dataclass
class SeqPair:
    """One training sequence: prompt token ids (context, no loss) and reply token ids (scored)."""

    prompt: list[int]
    reply: list[int]

    @property
    def labels(self) -> list[int]:
        """Causal-LM labels of ``prompt + reply``: -100 on every prompt token, the reply's ids after."""
        return [-100] * len(self.prompt) + list(self.reply)


@dataclass
class GRPOSample:
    """One recorded model call of a member with a nonzero advantage."""

    seq: SeqPair
    advantage: float
    temperature: float  # the logits are divided by it (the reply was sampled at it; 1.0 for greedy)
    key: str  # group key, member, call index


@dataclass
class StepMetrics:
    loss: float
    tokens: int
    sft_loss: float | None = None
    reward: float | None = None
    valid_sample: float | None = None
    clip_frac: float | None = None
    ratio: float | None = None
    kl: float | None = None


@dataclass
class _State:
    step: int = 0  # optimizer steps done
    seen: int = 0  # records / samples consumed (pass * n + position)
    skipped: int = 0  # too long for max_seq_tokens
    bad_targets: int = 0  # records whose oracle action is not a reply the agent accepts
    bad_examples: list[str] = field(default_factory=list)


def _fingerprint(items: Sequence[str]) -> str:
    h = hashlib.sha256()
    for x in items:
        h.update(x.encode() + b"\0")
    return h.hexdigest()[:16]


def grpo_samples_from_groups(groups: Sequence[RolloutGroup], tokenize: Callable[[Messages, str, bool], SeqPair]
                             ) -> tuple[list[GRPOSample], dict[str, int]]:
    """The GRPO samples of ``groups``: every recorded call of every member whose advantage is set
    and nonzero (an excluded member, judge failed, has none; a group without preference gives 0).
    ``tokenize(messages, reply text, stopped)`` -> the sequence. Returns the samples and counts."""
    out: list[GRPOSample] = []
    counts = {"groups": len(groups), "members": 0, "members_used": 0, "calls": 0, "members_without_calls": 0}
    for g in groups:
        for m in g.members:
            counts["members"] += 1
            if m.advantage is None or m.advantage == 0:
                continue
            gens = m.generations()
            if not gens:
                counts["members_without_calls"] += 1
                continue
            counts["members_used"] += 1
            for k, gen in enumerate(gens):
                msgs, text = gen.get("messages"), gen.get("text")
                if not isinstance(msgs, list) or not isinstance(text, str):
                    raise TrainingDataError(f"group {g.key} member {m.member}: call {k} has no messages/text")
                t = gen.get("temperature")
                temp = float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0 else 1.0
                seq = tokenize(msgs, text, gen.get("finish_reason") == "stop")
                if not seq.reply:
                    continue  # an empty reply cut by the length limit: no token to score
                out.append(GRPOSample(seq=seq, advantage=float(m.advantage), temperature=temp,
                                      key=f"{g.key}:g{m.member}:c{k}"))
                counts["calls"] += 1
    return out, counts


# ---------------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------------
def evaluate_replies(llm: Any, records: Sequence[VerifierStepRecord], *, agent: str = "generator",
                     description: str = "list", max_tokens: int = 96) -> dict[str, Any]:
    """Greedy replies of ``llm`` on ``records``' prompts (one call each, no retry), as shares:
    ``valid`` (the reply parses into an action valid on the record's screen, as the agent checks it),
    ``oracle_match`` (that action is the oracle action), ``correct`` (the oracle action or an
    equivalent candidate: :func:`exact_reward`). ``finished`` counts replies that ended before
    ``max_tokens``."""
    if not records:
        raise TrainingError("evaluate_replies: no records")
    n = valid = match = correct = finished = 0
    examples: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for rec in records:
        gen = llm.generate(record_messages(rec, agent=agent, description=description), max_tokens=max_tokens,
                           temperature=0.0)
        n += 1
        finished += gen.finish_reason == "stop"
        try:
            action = check_reply(rec, gen.text, agent=agent, description=description)
        except ActionError as exc:
            if len(examples) < 3:
                examples.append({"record": rec.record_id, "reply": gen.text[:200], "error": str(exc)[:160]})
            continue
        valid += 1
        match += action.to_json() == oracle_action(rec).to_json()
        correct += exact_reward(rec, action) > 0
    return {"n": n, "valid": valid / n, "oracle_match": match / n, "correct": correct / n,
            "finished": finished / n, "max_tokens": max_tokens, "seconds": round(time.perf_counter() - t0, 1),
            "invalid_examples": examples}


# ---------------------------------------------------------------------------------------------------
# The trainer
# ---------------------------------------------------------------------------------------------------
class LLMPolicyTrainer:
    """SFT, ASL or GRPO (``config.objective``) on a LoRA adapter of the generator's LLM.

    ``llm``: a :class:`~droidverify.llm.local.LocalLLM` (loaded from the config when None; the
    adapter is injected into its model in place, so ``llm.generate`` then runs the trained policy).
    ``records`` (sft, asl) / ``groups`` (grpo): the data, else read from ``train_file`` /
    ``groups_file``. ``reward_fn`` (asl): ``(record, action) -> r`` (default :func:`exact_reward`;
    ``config.reward_name`` says what it is). ``train()`` resumes from the newest checkpoint.
    """

    def __init__(self, config: LLMPolicyConfig, *, llm: Any = None,
                 records: Sequence[VerifierStepRecord] | None = None,
                 groups: Sequence[RolloutGroup] | None = None,
                 eval_records: Sequence[VerifierStepRecord] | None = None,
                 reward_fn: RewardFn | None = None, log: Callable[[str], None] | None = None) -> None:
        import torch
        from peft import LoraConfig, get_peft_model

        config.validate()
        cfg = config
        if reward_fn is None and cfg.reward_name != "exact":
            raise TrainingError(f"reward {cfg.reward_name!r} needs its reward function (reward_fn)")
        self.config = cfg
        self.out = Path(cfg.output_dir)
        self.say = log or (lambda msg: None)
        self.reward_fn: RewardFn = reward_fn or exact_reward
        # the data first: a bad file fails before minutes of model loading
        self.records: list[VerifierStepRecord] = []
        self.groups: list[RolloutGroup] = []
        if cfg.objective == "grpo":
            if groups is None:
                if not cfg.groups_file:
                    raise TrainingError("objective grpo needs rollout groups (groups_file: `droidverify train "
                                        "grpo-rollouts --out FILE`)")
                groups = read_groups(cfg.groups_file)
            self.groups = list(groups)
            if not self.groups:
                raise TrainingError(f"no rollout groups in {cfg.groups_file}")
        else:
            if records is None:
                if not cfg.train_file:
                    raise TrainingError(f"objective {cfg.objective} needs training records (train_file: "
                                        "`droidverify train data`)")
                records = read_records(cfg.train_file)
            self.records = list(records)[:cfg.max_records] if cfg.max_records else list(records)
            if not self.records:
                raise TrainingError(f"no training records in {cfg.train_file}")
            no_xml = [r.record_id for r in self.records if r.xml is None]
            if no_xml:
                raise TrainingDataError(f"{len(no_xml)} records have no screen dump (schema < 3), e.g. "
                                        f"{no_xml[0]}: collect the data again with `droidverify train data`")
        if eval_records is None and cfg.eval_file:
            eval_records = read_records(cfg.eval_file)
        ev = list(eval_records or [])
        random.Random(cfg.seed).shuffle(ev)
        self.eval_records = ev[:cfg.eval_records]

        if llm is None:
            from droidverify.llm.local import LocalLLM

            llm = LocalLLM(cfg.model, dtype=cfg.dtype, device=cfg.device, seed=cfg.seed)
        self.llm = llm
        self.device = llm.device
        self.init_digest = self._start_from_policy(llm) if cfg.init_policy else None
        if cfg.objective == "grpo":
            self._check_groups_policy()
        torch.manual_seed(cfg.seed)
        model = llm.model
        lcfg = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                          target_modules=list(cfg.lora_targets), bias="none",
                          layers_to_transform=_layers_to_transform(model.config.num_hidden_layers,
                                                                   cfg.lora_layers))
        for p in model.parameters():
            p.requires_grad_(False)
        self.peft_model = get_peft_model(model, lcfg)  # injects the LoRA layers into llm.model in place
        self.model = model
        self.lora_params = [p for n, p in model.named_parameters() if "lora_" in n]
        if not self.lora_params:
            raise TrainingError(f"no LoRA layer was added: none of {cfg.lora_targets} is a module of {llm.name}")
        for p in self.lora_params:
            p.requires_grad_(True)
        self.optimizer = torch.optim.AdamW(self.lora_params, lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
        self.eos_id = self._eos_id()

        self.samples: list[GRPOSample] = []
        self.data_counts: dict[str, Any] = {}
        if cfg.objective == "grpo":
            self.samples, self.data_counts = grpo_samples_from_groups(self.groups, self._tokenize_call)
            if not self.samples:
                raise TrainingError(f"the {len(self.groups)} groups hold no model call of a member with a nonzero "
                                    f"advantage ({self.data_counts}): every group without preference, or no "
                                    "recorded generations (collect with the generator agents)")
            keys = [f"{s.key}:{s.advantage:.6g}:{len(s.seq.reply)}" for s in self.samples]
        else:
            self.data_counts = {"records": len(self.records)}
            keys = [f"{r.record_id}:{r.oracle_action}" for r in self.records]
        self.fingerprint = _fingerprint(keys)
        self.total_steps = self._planned_steps()
        warm = max(1, cfg.warmup_steps)
        total = self.total_steps

        def schedule(step: int) -> float:  # linear warm-up, then cosine to 10%
            if step < warm:
                return (step + 1) / warm
            frac = min(1.0, (step - warm) / max(1, total - warm))
            return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac))

        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, schedule)
        self.state = _State()
        self._old: list[Any] | None = None  # grpo: pi_old log-probs per sample
        self._ref: list[Any] | None = None  # grpo: the starting model's log-probs per sample (kl_beta > 0)

    # ------------------------------------------------------------------ setup helpers
    def _start_from_policy(self, llm: Any) -> str:
        """Merge ``init_policy`` into ``llm`` (it must have been trained on this agent's prompt and
        screen style); returns its digest."""
        from droidverify.agents.trained_policy import apply_policy, check_policy, policy_digest

        cfg = self.config
        init = Path(cfg.init_policy)  # type: ignore[arg-type]
        check_policy(init, agent=cfg.agent, memory=cfg.memory, ui_style=cfg.description)
        apply_policy(llm, init)
        return policy_digest(init)

    def _check_groups_policy(self) -> None:
        """GRPO's ratios compare with the policy that sampled the groups: train from that policy."""
        played = {g.config.get("policy") for g in self.groups}
        if played != {self.init_digest}:
            def name(d: str | None) -> str:
                return "the untrained model" if d is None else f"policy {d[:12]}"
            raise TrainingError(f"the rollout groups were played by {', '.join(sorted(map(name, played)))}, but "
                                f"this run starts from {name(self.init_digest)}: pass the policy that played "
                                "them as --init (GRPO's importance ratios compare with the sampling policy)")

    def _eos_id(self) -> int:
        """The end-of-turn token the agent's generation stops on (what a finished reply ends with)."""
        eos = getattr(self.llm, "_eos_ids", None) or set()
        tid = self.llm.tokenizer.eos_token_id
        if tid is not None and (not eos or tid in eos):
            return int(tid)
        if eos:
            return int(min(eos))
        raise TrainingError(f"{self.llm.name} has no end-of-sequence token: a reply's end cannot be taught")

    def _per_step(self) -> int:
        return self.config.batch_size * self.config.grad_accum

    def _planned_steps(self) -> int:
        cfg = self.config
        n = len(self.samples) if cfg.objective == "grpo" else len(self.records)
        passes = cfg.ppo_epochs if cfg.objective == "grpo" else cfg.epochs
        planned = max(1, math.ceil(passes * n / self._per_step()))
        return min(planned, cfg.max_steps) if cfg.max_steps is not None else planned

    def _prompt_ids(self, messages: Messages) -> list[int]:
        return self.llm.tokenize(self.llm.render_chat(messages))

    def _tokenize_call(self, messages: Messages, text: str, stopped: bool) -> SeqPair:
        """A recorded call as a sequence: the rendered prompt (as ``LocalLLM.generate`` tokenizes it)
        and the reply text's tokens, plus the end-of-turn token when the call stopped on it."""
        return SeqPair(self._prompt_ids(messages), self.llm.tokenize(text) + ([self.eos_id] if stopped else []))

    def sft_example(self, record: VerifierStepRecord) -> SeqPair:
        """The record's prompt (the agent's messages, rendered with the chat template) and the
        target reply (:func:`target_reply`) followed by the end-of-turn token."""
        msgs = record_messages(record, agent=self.config.agent, description=self.config.description)
        return SeqPair(self._prompt_ids(msgs), self.llm.tokenize(target_reply(record)) + [self.eos_id])

    # ------------------------------------------------------------------ forward
    def _hidden(self, seqs: Sequence[SeqPair]) -> tuple[Any, Any, Any, Any]:
        """One right-padded forward of the decoder: (hidden ``[B, T, H]``, positions ``[B, L]`` whose
        hidden state predicts each reply token, reply ids ``[B, L]``, reply mask ``[B, L]``)."""
        import torch

        dev = self.device
        width = max(len(s.prompt) + len(s.reply) for s in seqs)
        span = max(len(s.reply) for s in seqs)
        ids = torch.full((len(seqs), width), self.llm._pad_id, dtype=torch.long)
        attn = torch.zeros((len(seqs), width), dtype=torch.long)
        pos = torch.zeros((len(seqs), span), dtype=torch.long)
        tgt = torch.zeros((len(seqs), span), dtype=torch.long)
        mask = torch.zeros((len(seqs), span), dtype=torch.bool)
        for b, s in enumerate(seqs):
            full = s.prompt + s.reply
            ids[b, :len(full)] = torch.tensor(full)
            attn[b, :len(full)] = 1
            r = len(s.reply)
            # token prompt+j is predicted by the hidden state one position before it
            pos[b, :r] = torch.arange(len(s.prompt) - 1, len(s.prompt) - 1 + r)
            tgt[b, :r] = torch.tensor(s.reply)
            mask[b, :r] = True
        hidden = self.model.get_decoder()(input_ids=ids.to(dev), attention_mask=attn.to(dev)).last_hidden_state
        return hidden, pos.to(dev), tgt.to(dev), mask.to(dev)

    def _select_logps(self, hidden: Any, pos: Any, tgt: Any, temperatures: Sequence[float] | None = None) -> Any:
        """Log-probabilities ``[B, L]`` of the reply tokens, from the hidden states that predict them
        only: the output head never runs on a prompt position, so no prompt token is a target."""
        import torch

        rows = torch.arange(hidden.shape[0], device=hidden.device)[:, None]
        logits = self.llm._head(hidden[rows, pos])  # [B, L, V] in float32
        if temperatures is not None:
            temps = torch.tensor(list(temperatures), dtype=logits.dtype, device=logits.device)
            logits = logits / temps[:, None, None]
        return torch.log_softmax(logits, -1).gather(-1, tgt[..., None]).squeeze(-1)

    def reply_logps(self, seqs: Sequence[SeqPair], temperatures: Sequence[float] | None = None) -> tuple[Any, Any]:
        """(log-probabilities ``[B, L]`` of each sequence's reply tokens, mask ``[B, L]``)."""
        hidden, pos, tgt, mask = self._hidden(seqs)
        return self._select_logps(hidden, pos, tgt, temperatures), mask

    def _fits(self, seq: SeqPair) -> bool:
        n = len(seq.prompt) + len(seq.reply)
        limit = getattr(self.llm, "max_positions", None)
        return n <= self.config.max_seq_tokens and (limit is None or n <= limit)

    # ------------------------------------------------------------------ ASL sampling
    def sample_reply(self, prompt: list[int], seed: int) -> list[int]:
        """A reply sampled from the current policy (eval mode, no dropout) at ``sample_temperature``,
        up to ``sample_max_tokens``; ends with the end-of-turn token when the model chose it. The same
        loop as ``LocalLLM.generate``, keeping the token ids (the loss needs their log-probs)."""
        import torch
        from transformers import DynamicCache

        cfg = self.config
        gen = torch.Generator(device="cpu").manual_seed(seed)
        eos = getattr(self.llm, "_eos_ids", None) or {self.eos_id}
        was_training = self.model.training
        self.model.eval()
        out: list[int] = []
        try:
            with torch.inference_mode():
                cache = DynamicCache()
                step_ids = torch.tensor([prompt], device=self.device)
                for _ in range(cfg.sample_max_tokens):
                    res = self.model(input_ids=step_ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
                    cache = res.past_key_values
                    probs = torch.softmax(res.logits[0, -1].float().cpu() / cfg.sample_temperature, -1)
                    nxt = int(torch.multinomial(probs, 1, generator=gen))
                    out.append(nxt)
                    if nxt in eos:
                        break
                    step_ids = torch.tensor([[nxt]], device=self.device)
        finally:
            self.model.train(was_training)
        return out

    def _sample_seed(self, seen: int) -> int:
        """The sampling seed of the record consumed at position ``seen``: the same sample whether or
        not the run was interrupted."""
        return random.Random(f"llm-asl:{self.config.seed}:{seen}").getrandbits(31)

    def sampled_reward(self, record: VerifierStepRecord, reply: list[int]) -> tuple[float, bool]:
        """(reward of a sampled reply, whether it is a usable action): 0 for an unusable reply, else
        ``reward_fn`` (thresholded with ``tau``: ``1[exact] + beta * 1[r > tau] * r``)."""
        text = self.llm.tokenizer.decode([t for t in reply if t != self.eos_id], skip_special_tokens=True)
        try:
            action = check_reply(record, text, agent=self.config.agent, description=self.config.description)
        except ActionError:
            return 0.0, False
        r = float(self.reward_fn(record, action))
        if not math.isfinite(r):
            raise TrainingError(f"reward {self.config.reward_name!r} gave {r} for record {record.record_id}")
        tau = self.config.tau
        if tau is not None:
            r = exact_reward(record, action) + self.config.beta * (r if r > tau else 0.0)
        return r, True

    # ------------------------------------------------------------------ losses
    def sft_loss(self, seqs: Sequence[SeqPair]) -> Any:
        """Mean over the sequences of each one's mean reply-token cross-entropy."""
        logps, mask = self.reply_logps(seqs)
        return sft_token_loss(logps, mask).mean()

    def asl_loss(self, seqs: Sequence[SeqPair], samples: Sequence[list[int]], rewards: Sequence[float]) -> Any:
        """ASL's loss (:func:`asl_token_loss`) of target sequences ``seqs``, the replies sampled on their
        prompts and those replies' rewards; a sampled reply with reward 0 adds no forward pass."""
        return self._asl_parts(seqs, samples, rewards)[0]

    def _asl_parts(self, seqs: Sequence[SeqPair], samples: Sequence[list[int]],
                   rewards: Sequence[float]) -> tuple[Any, float]:
        """(ASL's loss, its SFT term's batch mean for the log)."""
        import torch

        if len(samples) != len(seqs) or len(rewards) != len(seqs):
            raise TrainingError(f"asl_loss: {len(seqs)} targets, {len(samples)} samples, {len(rewards)} rewards")
        scored = [i for i, r in enumerate(rewards) if r != 0]
        if any(not samples[i] for i in scored):
            raise TrainingError("asl_loss: a sampled reply with a nonzero reward has no tokens")
        runs = list(seqs) + [SeqPair(seqs[i].prompt, list(samples[i])) for i in scored]
        logps, mask = self.reply_logps(runs)
        b = len(seqs)
        rows = torch.full((b,), -1, dtype=torch.long)
        for k, i in enumerate(scored):
            rows[i] = b + k
        # a reply that scores 0 gets a masked-off row: its term vanishes, as -0 * log p would
        take = rows.clamp(min=0).to(logps.device)
        keep = (rows >= 0).to(logps.device)[:, None]
        s_logps = torch.where(keep, logps[take], torch.zeros_like(logps[:b]))
        s_mask = mask[take] & keep
        t_logps, t_mask = logps[:b], mask[:b]
        loss = asl_token_loss(t_logps, t_mask, s_logps, s_mask, torch.tensor([float(r) for r in rewards]))
        return loss, float(sft_token_loss(t_logps.detach(), t_mask).mean())

    def grpo_loss(self, idx: Sequence[int], n_tokens: float) -> tuple[Any, dict[str, float]]:
        """The clipped objective of samples ``idx`` (their token sum divided by ``n_tokens``, the
        optimizer step's reply tokens)."""
        import torch

        self._ensure_reference()
        assert self._old is not None
        batch = [self.samples[i] for i in idx]
        logps, mask = self.reply_logps([s.seq for s in batch], [s.temperature for s in batch])

        def padded(rows: list[Any]) -> Any:
            out = torch.zeros_like(logps)
            for b, row in enumerate(rows):
                out[b, :row.shape[0]] = row.to(out.device)
            return out

        old = padded([self._old[i] for i in idx])
        ref = padded([self._ref[i] for i in idx]) if self._ref is not None else None
        return grpo_token_loss(logps, old, [s.advantage for s in batch], mask, clip_eps=self.config.clip_eps,
                               kl_beta=self.config.kl_beta, ref_logps=ref, n_tokens=n_tokens)

    def _ensure_reference(self) -> None:
        """pi_old (the policy before any update) and, with kl_beta, the base model's log-probs of every
        sample: computed once, in eval mode, and kept in the run directory for a resumed run."""
        import torch

        if self._old is not None:
            return
        path = self.out / "grpo_logps.pt"
        if path.is_file():
            data = torch.load(path, weights_only=False)
            with_ref = data.get("ref") is not None
            if data.get("fingerprint") != self.fingerprint or (self.config.kl_beta > 0) != with_ref:
                raise TrainingError(f"{path} was computed for other samples or settings: use another output "
                                    "directory")
            self._old, self._ref = data["old"], data.get("ref")
            return
        if self.state.step > 0:
            raise CheckpointError(f"{path} is missing: the policy's old log-probs cannot be recomputed after "
                                  "an update (start the run again in a new output directory)")
        self.say(f"computing the old{' and reference' if self.config.kl_beta > 0 else ''} log-probs of "
                 f"{len(self.samples)} samples")
        was = self.model.training
        self.model.eval()
        old: list[Any] = []
        ref: list[Any] | None = [] if self.config.kl_beta > 0 else None
        bs = self.config.batch_size
        try:
            with torch.no_grad():
                for s in range(0, len(self.samples), bs):
                    part = self.samples[s:s + bs]
                    seqs, temps = [x.seq for x in part], [x.temperature for x in part]
                    lp, _ = self.reply_logps(seqs, temps)
                    old += [lp[b, :len(x.seq.reply)].float().cpu() for b, x in enumerate(part)]
                    if ref is not None:
                        with self.peft_model.disable_adapter():
                            lr, _ = self.reply_logps(seqs, temps)
                        ref += [lr[b, :len(x.seq.reply)].float().cpu() for b, x in enumerate(part)]
        finally:
            self.model.train(was)
        self._old, self._ref = old, ref
        self.out.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save({"fingerprint": self.fingerprint, "old": old, "ref": ref}, tmp)
        os.replace(tmp, path)

    # ------------------------------------------------------------------ data order
    def _order(self, seen: int, n: int) -> int:
        """Index of the item consumed at position ``seen``: one seeded permutation per pass."""
        epoch, pos = divmod(seen, n)
        if getattr(self, "_perm_epoch", None) != epoch:
            perm = list(range(n))
            random.Random(f"{self.config.seed}:epoch{epoch}").shuffle(perm)
            self._perm, self._perm_epoch = perm, epoch
        return self._perm[pos]

    def _next_records(self, k: int) -> list[tuple[int, VerifierStepRecord, SeqPair]]:
        """The next ``k`` usable records (position consumed, record, its SFT sequence); records too
        long for ``max_seq_tokens`` or whose oracle action the agent would not accept are skipped and
        counted."""
        out = []
        tries = 0
        while len(out) < k:
            tries += 1
            if tries > 2 * len(self.records) + k:
                raise TrainingError(f"no usable record among {len(self.records)}: {self.state.skipped} longer "
                                    f"than max_seq_tokens {self.config.max_seq_tokens}, {self.state.bad_targets} "
                                    f"with an oracle action the {self.config.agent} agent refuses")
            seen = self.state.seen
            rec = self.records[self._order(seen, len(self.records))]
            self.state.seen += 1
            try:
                check_reply(rec, target_reply(rec), agent=self.config.agent, description=self.config.description)
            except ActionError as exc:
                self.state.bad_targets += 1
                if len(self.state.bad_examples) < 5:
                    self.state.bad_examples.append(f"{rec.record_id}: {exc}")
                continue
            seq = self.sft_example(rec)
            room = self.config.sample_max_tokens if self.config.objective == "asl" else 0
            if not self._fits(seq) or not self._fits(SeqPair(seq.prompt, [0] * room)):
                self.state.skipped += 1
                continue
            out.append((seen, rec, seq))
        return out

    def _next_samples(self, k: int) -> list[int]:
        out = []
        tries = 0
        while len(out) < k:
            tries += 1
            if tries > 2 * len(self.samples) + k:
                raise TrainingError("every GRPO sample is longer than max_seq_tokens "
                                    f"{self.config.max_seq_tokens}")
            i = self._order(self.state.seen, len(self.samples))
            self.state.seen += 1
            if not self._fits(self.samples[i].seq):
                self.state.skipped += 1
                continue
            out.append(i)
        return out

    # ------------------------------------------------------------------ training
    def train_step(self) -> StepMetrics:
        """One optimizer step over ``grad_accum`` forward passes of ``batch_size`` sequences."""
        import torch

        cfg = self.config
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        losses: list[float] = []
        tokens = 0
        extra: dict[str, list[float]] = {}
        if cfg.objective == "grpo":
            micro = [self._next_samples(cfg.batch_size) for _ in range(cfg.grad_accum)]
            n_tokens = sum(len(self.samples[i].seq.reply) for m in micro for i in m)
            total = 0.0
            for idx in micro:
                loss, st = self.grpo_loss(idx, n_tokens)
                loss.backward()
                total += float(loss.detach())
                for k, v in st.items():
                    extra.setdefault(k, []).append(v)
            losses, tokens = [total], n_tokens
        else:
            for _ in range(cfg.grad_accum):
                part = self._next_records(cfg.batch_size)
                seqs = [s for _, _, s in part]
                tokens += sum(len(s.reply) for s in seqs)
                if cfg.objective == "sft":
                    loss = self.sft_loss(seqs)
                else:
                    samples, rewards = [], []
                    for seen, rec, seq in part:
                        reply = self.sample_reply(seq.prompt, self._sample_seed(seen))
                        r, ok = self.sampled_reward(rec, reply)
                        samples.append(reply)
                        rewards.append(r)
                        extra.setdefault("reward", []).append(r)
                        extra.setdefault("valid_sample", []).append(float(ok))
                    loss, sft = self._asl_parts(seqs, samples, rewards)
                    extra.setdefault("sft", []).append(sft)
                (loss / cfg.grad_accum).backward()
                losses.append(float(loss.detach()))
        torch.nn.utils.clip_grad_norm_(self.lora_params, cfg.max_grad_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.state.step += 1

        def mean(key: str) -> float | None:
            xs = [x for x in extra.get(key, []) if not math.isnan(x)]
            return sum(xs) / len(xs) if xs else None

        return StepMetrics(loss=sum(losses) / len(losses), tokens=tokens,
                           sft_loss=sum(losses) / len(losses) if cfg.objective == "sft" else mean("sft"),
                           reward=mean("reward"), valid_sample=mean("valid_sample"), clip_frac=mean("clip_frac"),
                           ratio=mean("ratio"), kl=mean("kl"))

    def evaluate(self, records: Sequence[VerifierStepRecord] | None = None) -> dict[str, Any]:
        """:func:`evaluate_replies` of the current policy (eval mode) on ``records`` (default: the
        held-out ones)."""
        recs = self.eval_records if records is None else list(records)
        was = self.model.training
        self.model.eval()
        try:
            return evaluate_replies(self.llm, recs, agent=self.config.agent, description=self.config.description,
                                    max_tokens=self.config.eval_max_tokens)
        finally:
            self.model.train(was)

    def train(self, *, resume: bool = True) -> dict[str, Any]:
        """Run to the planned steps (or ``max_minutes``), logging to ``log.jsonl``, checkpointing every
        ``save_every`` steps; held-out evaluation before the first step and after the last."""
        cfg = self.config
        self.out.mkdir(parents=True, exist_ok=True)
        ckpt = self.latest_checkpoint() if resume else None
        if ckpt is not None:
            self.load_checkpoint(ckpt)
            self.say(f"resumed from {ckpt.name}")
        (self.out / "config.json").write_text(json.dumps(cfg.to_dict(), indent=1))
        self._trim_log(self.state.step)
        logged = self._logged_evals()
        t_start = time.perf_counter()
        before: dict[str, Any] | None = None
        last_eval: dict[str, Any] | None = None
        stopped = "max_steps"
        with open(self.out / "log.jsonl", "a", encoding="utf-8") as log:
            if self.eval_records and self.state.step == 0 and 0 not in logged:
                before = self.evaluate()
                self.say(f"before training: valid {before['valid']:.3f} oracle match {before['oracle_match']:.3f} "
                         f"({before['n']} records)")
                log.write(json.dumps({"type": "eval", "step": 0, **before}) + "\n")
                log.flush()
            if cfg.objective == "grpo":
                self._ensure_reference()
            t_loop = time.perf_counter()  # the time budget counts training, not the evaluation before it
            while self.state.step < self.total_steps:
                if cfg.max_minutes is not None and time.perf_counter() - t_loop > 60 * cfg.max_minutes:
                    stopped = "time budget"
                    break
                t0 = time.perf_counter()
                m = self.train_step()
                entry = {"type": "train", "step": self.state.step, **{k: v for k, v in asdict(m).items()
                                                                     if v is not None},
                         "lr": self.scheduler.get_last_lr()[0], "seconds": round(time.perf_counter() - t0, 3),
                         "seen": self.state.seen}
                log.write(json.dumps(entry) + "\n")
                if self.state.step % cfg.log_every == 0 or self.state.step == self.total_steps:
                    log.flush()
                    self.say(f"step {self.state.step}/{self.total_steps} loss {m.loss:.4f}"
                             + (f" reward {m.reward:.2f}" if m.reward is not None else "")
                             + (f" clip {m.clip_frac:.2f}" if m.clip_frac is not None else ""))
                if (cfg.eval_every and self.eval_records and self.state.step % cfg.eval_every == 0
                        and self.state.step != self.total_steps):
                    last_eval = self.evaluate()
                    log.write(json.dumps({"type": "eval", "step": self.state.step, **last_eval}) + "\n")
                    log.flush()
                if self.state.step % cfg.save_every == 0:
                    self.save_checkpoint()
            self.save_checkpoint()
            if self.eval_records and self.state.step not in self._logged_evals(log):
                last_eval = self.evaluate()
                self.say(f"after {self.state.step} steps: valid {last_eval['valid']:.3f} oracle match "
                         f"{last_eval['oracle_match']:.3f}")
                log.write(json.dumps({"type": "eval", "step": self.state.step, **last_eval}) + "\n")
        plot_llm_policy_curves(self.out / "log.jsonl", self.out / "curves.png")
        return {"objective": cfg.objective, "step": self.state.step, "planned_steps": self.total_steps,
                "seen": self.state.seen, "skipped_too_long": self.state.skipped,
                "bad_targets": self.state.bad_targets, "bad_target_examples": self.state.bad_examples,
                "stopped": stopped, "seconds": round(time.perf_counter() - t_start, 1), "data": self.data_counts,
                "eval_before": before if before is not None else self._eval_at(0),
                "eval": last_eval if last_eval is not None else self._eval_at(self.state.step)}

    def _logged_evals(self, log: Any = None) -> set[int]:
        if log is not None:
            log.flush()
        path = self.out / "log.jsonl"
        if not path.exists():
            return set()
        out = set()
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if d.get("type") == "eval":
                out.add(int(d.get("step", -1)))
        return out

    def _eval_at(self, step: int) -> dict[str, Any] | None:
        path = self.out / "log.jsonl"
        if not path.exists():
            return None
        found = None
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if d.get("type") == "eval" and d.get("step") == step:
                found = {k: v for k, v in d.items() if k not in ("type", "step")}
        return found

    def _trim_log(self, step: int) -> None:
        """Keep only log lines up to ``step`` (what the resumed state has seen): a resumed or restarted
        run never shows a step twice."""
        trim_log(self.out / "log.jsonl", step)

    # ------------------------------------------------------------------ checkpoints
    def latest_checkpoint(self) -> Path | None:
        return latest_checkpoint(self.out)

    def save_checkpoint(self) -> Path:
        """Adapter, optimizer, scheduler, data position and RNG states, written atomically."""
        import torch
        from peft import get_peft_model_state_dict
        from safetensors.torch import save_file

        final = self.out / f"checkpoint-{self.state.step}"
        tmp = self.out / f".checkpoint-{self.state.step}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_file({k: v.detach().contiguous() for k, v in get_peft_model_state_dict(self.peft_model).items()},
                  str(tmp / "adapter.safetensors"))
        torch.save({"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                    "torch_rng": torch.get_rng_state(), "python_rng": random.getstate()}, tmp / "trainer_state.pt")
        (tmp / "state.json").write_text(json.dumps({**asdict(self.state), "fingerprint": self.fingerprint,
                                                    "settings": self.config.checked()}, indent=1))
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        prune_checkpoints(self.out, self.config.keep_checkpoints)
        return final

    def load_checkpoint(self, path: str | Path) -> None:
        """Resume from ``path``; a checkpoint of other settings or other data is refused."""
        import torch
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        path = Path(path)
        try:
            st = json.loads((path / "state.json").read_text())
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"cannot resume from {path}: {type(exc).__name__}: {exc}") from exc
        mine = self.config.checked()
        saved = st.get("settings", {})
        diff = sorted(k for k in set(saved) | set(mine) if saved.get(k) != mine.get(k))
        if diff:
            raise TrainingError(f"{path} was written with other settings ({', '.join(diff)}): use another output "
                                "directory or the same settings")
        if st.get("fingerprint") != self.fingerprint:
            raise TrainingError(f"{path} was trained on other data (fingerprint {st.get('fingerprint')}, this "
                                f"data {self.fingerprint}): use another output directory")
        try:
            set_peft_model_state_dict(self.peft_model, load_file(str(path / "adapter.safetensors")))
            ts = torch.load(path / "trainer_state.pt", weights_only=False)
            self.optimizer.load_state_dict(ts["optimizer"])
            self.scheduler.load_state_dict(ts["scheduler"])
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise CheckpointError(f"cannot resume from {path}: {type(exc).__name__}: {exc}") from exc
        torch.set_rng_state(ts["torch_rng"])
        random.setstate(ts["python_rng"])
        self.state = _State(step=st["step"], seen=st["seen"], skipped=st["skipped"], bad_targets=st["bad_targets"],
                            bad_examples=list(st.get("bad_examples", [])))

    # ------------------------------------------------------------------ export
    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        """Write the trained policy: ``adapter/`` (peft LoRA: adapter_config.json and
        adapter_model.safetensors, float32), ``policy.json`` (format, base model, agent, prompt
        settings, objective, training config) and ``provenance.json``; paths relative to the run
        directory. Written under a temporary name and renamed: a crash leaves no half directory."""
        directory = Path(directory)
        tmp = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        self.peft_model.save_pretrained(str(tmp / "adapter"))
        init_meta = None
        if self.config.init_policy:  # the policy this one was trained from travels with it, whole
            shutil.copytree(self.config.init_policy, tmp / "init")
            init_meta = {"digest": self.init_digest, "objective": read_policy_meta(tmp / "init").get("objective")}
        acfg_path = tmp / "adapter" / "adapter_config.json"
        acfg = json.loads(acfg_path.read_text())
        acfg["base_model_name_or_path"] = self.llm.name  # a name, not this machine's cache path
        acfg_path.write_text(json.dumps(acfg, indent=2))
        cfg = self.config.to_dict()
        for key in ("output_dir", "train_file", "groups_file", "eval_file", "init_policy"):
            if cfg.get(key):
                cfg[key] = relative_path(cfg[key], self.out)
        meta = {"format": POLICY_FORMAT, "version": POLICY_FORMAT_VERSION, "base_model": base_identity(self.llm),
                "agent": self.config.agent, "ui_style": self.config.description, "memory": self.config.memory,
                "objective": self.config.objective, "reply": "Action: {canonical action JSON}",
                "train_config": cfg}
        if init_meta is not None:
            meta["init"] = init_meta
        (tmp / POLICY_FILE).write_text(json.dumps(meta, indent=1))
        prov = dict(provenance or {})
        for key in ("train_file", "groups_file", "eval_file", "output_dir"):
            if isinstance(prov.get(key), str):
                prov[key] = relative_path(prov[key], self.out)
        (tmp / "provenance.json").write_text(json.dumps(prov, indent=1, default=str))
        if directory.exists():
            shutil.rmtree(directory)
        tmp.rename(directory)
        return directory


def plot_llm_policy_curves(log_file: str | Path, png: str | Path) -> None:
    """Training loss (and ASL's sampled reward / GRPO's clip share) and the held-out valid-action and
    oracle-match rates against steps, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train, ev = [], []
    for line in Path(log_file).read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        (train if d.get("type") == "train" else ev).append(d)
    if not train and not ev:
        return

    def smooth(xs: list[float], w: int = 10) -> list[float]:
        out, acc = [], []
        for x in xs:
            acc = [*acc, x][-w:]
            out.append(sum(acc) / len(acc))
        return out

    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    steps = [d["step"] for d in train]
    if train:
        ax[0].plot(steps, smooth([d["loss"] for d in train]), label="train loss (smoothed)")
        for key, label in (("reward", "sampled reward"), ("clip_frac", "clipped share")):
            pts = [(d["step"], d[key]) for d in train if d.get(key) is not None]
            if pts:
                ax[0].plot([p[0] for p in pts], smooth([p[1] for p in pts]), label=f"{label} (smoothed)")
    ax[0].set_xlabel("optimizer step")
    ax[0].legend()
    if ev:
        ax[1].plot([d["step"] for d in ev], [d["valid"] for d in ev], "o-", label="held-out valid action")
        ax[1].plot([d["step"] for d in ev], [d["oracle_match"] for d in ev], "s-", label="held-out oracle match")
        ax[1].legend(loc="lower right")
    ax[1].set_ylim(0, 1)
    ax[1].set_xlabel("optimizer step")
    fig.tight_layout()
    tmp = Path(png).with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, png)
