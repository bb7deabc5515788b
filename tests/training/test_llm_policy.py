"""SFT / ASL / GRPO of the LLM generator policy on a tiny random Llama: the prompt the agent sends,
reply-only labels, the losses against hand computations, what gets gradient, resume, bad input."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import torch

from droidverify.actions.model import Action
from droidverify.agents.generator import GeneratorAgent
from droidverify.agents.screen import needs_completion
from droidverify.agents.selfverify import SelfVerifyingAgent
from droidverify.env.records import Observation, Step, Trajectory
from droidverify.errors import TrainingDataError, TrainingError
from droidverify.llm.base import Generation
from droidverify.training.grpo import GRPOMember, RolloutGroup, write_groups
from droidverify.training.llm_policy import (
    LLMPolicyConfig,
    LLMPolicyTrainer,
    SeqPair,
    check_reply,
    evaluate_replies,
    exact_reward,
    grpo_token_loss,
    oracle_action,
    record_messages,
    target_reply,
)


def _llm(tiny_model_dir: Path):
    from droidverify.llm.local import LocalLLM

    return LocalLLM(tiny_model_dir, dtype="float32")


def _trainer(tiny_model_dir: Path, out: Path, *, records=None, groups=None, reward_fn=None,
             **kw) -> LLMPolicyTrainer:
    values = {"lora_r": 4, "lora_alpha": 8, "learning_rate": 5e-3, "warmup_steps": 1, "max_steps": 50,
              "save_every": 2, "log_every": 1, "max_seq_tokens": 8192, "sample_max_tokens": 8, **kw}
    cfg = LLMPolicyConfig(output_dir=str(out), dtype="float32", **values)
    return LLMPolicyTrainer(cfg, llm=_llm(tiny_model_dir), records=records, groups=groups, reward_fn=reward_fn)


@pytest.fixture(scope="module")
def short_records(oracle_records) -> list:
    """The records with the shortest screens (the tiny model's byte-level tokens make long ones slow)."""
    return sorted(oracle_records, key=lambda r: len(r.xml or "") + len(r.memory))[:6]


def _episode(records) -> list:
    first = records[0]
    eps = [r for r in records if (r.task_id, r.seed) == (first.task_id, first.seed)]
    return sorted(eps, key=lambda r: r.step)


class _Capture:
    """An LLM that records the messages it is sent and replies with one fixed text."""

    name = "capture"

    def __init__(self, reply: str = 'Action: {"action_type":"wait"}') -> None:
        self.reply = reply
        self.sent: list = []

    def render_chat(self, messages, *, add_generation_prompt: bool = True) -> str:
        return "".join(f"{m['role']}: {m['content']}\n" for m in messages)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(self, messages, **kw) -> Generation:
        self.sent.append([dict(m) for m in messages])
        return Generation(text=self.reply, finish_reason="stop")


# ---------------------------------------------------------------------------------------------------
# data: the agent's prompt, the target reply, reply-only labels
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("agent_name", ["generator", "smartsnap"])
def test_record_prompt_is_the_prompt_the_agent_sends(agent_name: str, oracle_records) -> None:
    episode = _episode(oracle_records)
    assert len(episode) >= 3
    k = 2  # a step with a working memory of two earlier steps

    def seen(rec) -> Observation:  # what the simulator handed the agent: the dump and the foreground app
        return Observation(xml=rec.xml, package=re.search(r'package="([^"]+)"', rec.xml).group(1))

    history = [Step(index=j, observation=seen(episode[j]), action=oracle_action(episode[j])) for j in range(k)]
    llm = _Capture()
    agent = GeneratorAgent(llm) if agent_name == "generator" else SelfVerifyingAgent(llm)
    agent.reset(episode[k].goal)
    agent.act(seen(episode[k]), history)
    assert episode[k].memory  # the memory part is really exercised
    assert llm.sent[0] == record_messages(episode[k], agent=agent_name)


def test_target_is_a_reply_the_agent_parses_to_the_oracle_action(oracle_records) -> None:
    for rec in oracle_records:
        text = target_reply(rec)
        assert text == f"Action: {oracle_action(rec).to_json()}"
        assert check_reply(rec, text) == oracle_action(rec)
        agent = GeneratorAgent(_Capture(text))
        agent.reset(rec.goal)
        out = agent.act(Observation(xml=rec.xml), [Step(index=j, observation=Observation(xml=rec.xml), action=None)
                                                    for j in range(rec.step)])
        assert out.action == oracle_action(rec) and out.error is None


def test_only_reply_tokens_carry_labels(tiny_model_dir: Path, short_records, tmp_path: Path) -> None:
    tr = _trainer(tiny_model_dir, tmp_path / "t", records=short_records[:2], objective="sft")
    rec = short_records[1]
    seq = tr.sft_example(rec)
    llm = tr.llm
    assert seq.prompt == llm.tokenize(llm.render_chat(record_messages(rec)))
    assert seq.reply[-1] == tr.eos_id and seq.reply[:-1] == llm.tokenize(target_reply(rec))
    labels = seq.labels
    assert len(labels) == len(seq.prompt) + len(seq.reply)
    assert labels[:len(seq.prompt)] == [-100] * len(seq.prompt)
    assert labels[len(seq.prompt):] == seq.reply
    # the SFT loss is the cross-entropy of exactly those labels (the causal-LM convention)
    ids = torch.tensor([seq.prompt + seq.reply])
    with torch.no_grad():
        hf = torch.nn.functional.cross_entropy(tr.model(input_ids=ids).logits[0, :-1], torch.tensor(labels[1:]),
                                               ignore_index=-100)
        mine = tr.sft_loss([seq])
    assert float(mine) == pytest.approx(float(hf), rel=1e-5)


def test_sft_loss_decreases_on_a_fixed_batch(tiny_model_dir: Path, short_records, tmp_path: Path) -> None:
    llm = _llm(tiny_model_dir)
    # the random model's frozen output head is tiny (logits within ~0.5 of each other): scaled up, the
    # adapter's changes reach the logits and a fixed batch can be fitted in a few steps
    with torch.no_grad():
        llm.model.get_output_embeddings().weight.mul_(10.0)
    cfg = LLMPolicyConfig(output_dir=str(tmp_path / "t"), dtype="float32", objective="sft", batch_size=2,
                          lora_r=4, lora_alpha=8, learning_rate=3e-2, warmup_steps=1, max_steps=50,
                          max_seq_tokens=8192)
    tr = LLMPolicyTrainer(cfg, llm=llm, records=short_records[:2])
    losses = [tr.train_step().loss for _ in range(20)]
    assert losses[-1] < losses[0] * 0.6, losses
    assert sum(losses[-5:]) < sum(losses[5:10]) < sum(losses[:5]), losses


# ---------------------------------------------------------------------------------------------------
# ASL
# ---------------------------------------------------------------------------------------------------
def _hand_logps(tr: LLMPolicyTrainer, prompt: list[int], reply: list[int],
                temperature: float = 1.0) -> list[float]:
    """Log-probabilities of ``reply`` after ``prompt`` from the plain causal-LM forward (float64)."""
    with torch.no_grad():
        logits = tr.model(input_ids=torch.tensor([prompt + reply])).logits[0].double() / temperature
    lp = torch.log_softmax(logits, -1)
    return [float(lp[len(prompt) - 1 + j, t]) for j, t in enumerate(reply)]


def test_asl_loss_equals_a_hand_computation_and_trains_only_the_adapter(tiny_model_dir: Path, short_records,
                                                                        tmp_path: Path) -> None:
    recs = short_records[:3]
    tr = _trainer(tiny_model_dir, tmp_path / "t", records=recs, objective="asl")
    torch.manual_seed(1)
    with torch.no_grad():  # an adapter away from zero, so both LoRA matrices get gradient
        for p in tr.lora_params:
            p.add_(0.05 * torch.randn_like(p))
    seqs = [tr.sft_example(r) for r in recs]
    tok = tr.llm.tokenize
    samples = [tok("blah"), tok('Action: {"action_type":"navigate_back"}') + [tr.eos_id], tok("Action: {")]
    rewards = [0.0, 0.4, 1.25]  # a thresholded reward can pass 1: lambda uses min(r, 1)
    tr.model.train()
    loss = tr.asl_loss(seqs, samples, rewards)
    expected = 0.0
    for seq, sample, r in zip(seqs, samples, rewards, strict=True):
        target = _hand_logps(tr, seq.prompt, seq.reply)
        sft = -sum(target) / len(target)
        lam = 1.0 - (1.0 - math.exp(-sft)) * min(r, 1.0)
        pg = -r * sum(_hand_logps(tr, seq.prompt, sample)) / len(sample) if r else 0.0
        expected += pg + lam * sft
    assert float(loss.detach()) == pytest.approx(expected / 3, rel=1e-5)

    loss.backward()
    grads = {n: p.grad for n, p in tr.model.named_parameters()}
    assert all(g is None for n, g in grads.items() if "lora_" not in n)  # the base model gets none
    assert {n.split(".lora_")[1][0] for n, g in grads.items() if g is not None and g.abs().sum() > 0} == {"A", "B"}

    # alpha is detached: the gradient is that of -r log p(sample) + lambda * SFT with lambda a constant
    tr.optimizer.zero_grad(set_to_none=True)
    lp_t, m_t = tr.reply_logps(seqs)
    lp_s, m_s = tr.reply_logps([SeqPair(s.prompt, x) for s, x in zip(seqs, samples, strict=True)])
    sft_rows = -(lp_t * m_t).sum(1) / m_t.sum(1)
    lam = 1 - (1 - torch.exp(-sft_rows).detach()) * torch.tensor(rewards).clamp(max=1)
    pg = -torch.tensor(rewards) * (lp_s * m_s).sum(1) / m_s.sum(1)
    (pg + lam * sft_rows).mean().backward()
    ref = [p.grad.clone() for p in tr.lora_params]
    tr.optimizer.zero_grad(set_to_none=True)
    tr.asl_loss(seqs, samples, rewards).backward()
    for p, g in zip(tr.lora_params, ref, strict=True):
        assert torch.allclose(p.grad, g, atol=1e-6)


def test_asl_rewards_parsed_samples(tiny_model_dir: Path, short_records, tmp_path: Path) -> None:
    def others(r) -> list[Action]:  # right answers other than the oracle action itself
        return [Action.model_validate_json(r.candidates[i]) for i in sorted(r.correct)
                if r.candidates[i] != r.oracle_action]

    rec = next(r for r in short_records if any(not needs_completion(a) for a in others(r))
               and any(needs_completion(a) for a in others(r)))
    equivalent = next(a for a in others(rec) if not needs_completion(a))  # the launcher icon for open_app
    placeholder = next(a for a in others(rec) if needs_completion(a))  # open_app "<app to be completed>"
    wrong = next(Action.model_validate_json(c) for i, c in enumerate(rec.candidates) if i not in rec.correct)
    tr = _trainer(tiny_model_dir, tmp_path / "t", records=[rec], objective="asl")
    tok = tr.llm.tokenize

    def reply(text: str) -> list[int]:
        return tok(text) + [tr.eos_id]

    assert tr.sampled_reward(rec, reply(target_reply(rec))) == (1.0, True)
    assert tr.sampled_reward(rec, reply(f"Tap it.\nAction: {equivalent.to_json()}")) == (1.0, True)
    assert tr.sampled_reward(rec, reply(f"Action: {wrong.to_json()}")) == (0.0, True)
    assert tr.sampled_reward(rec, reply("no idea")) == (0.0, False)
    assert tr.sampled_reward(rec, reply('Action: {"action_type":"click","index":999}')) == (0.0, False)
    assert exact_reward(rec, equivalent) == 1.0 and exact_reward(rec, wrong) == 0.0
    assert exact_reward(rec, placeholder) == 0.0  # a placeholder is no action to pay for

    # a caller's reward function, plain and thresholded (r' = 1[exact] + beta * 1[r > tau] * r)
    def semantic(record, action) -> float:
        return 1.0 if exact_reward(record, action) else 0.3

    plain = _trainer(tiny_model_dir, tmp_path / "p", records=[rec], objective="asl", reward_fn=semantic,
                     reward_name="semantic")
    assert plain.sampled_reward(rec, reply(f"Action: {wrong.to_json()}"))[0] == pytest.approx(0.3)
    low = _trainer(tiny_model_dir, tmp_path / "l", records=[rec], objective="asl", reward_fn=semantic,
                   reward_name="semantic", tau=0.2, beta=0.5)
    assert low.sampled_reward(rec, reply(f"Action: {wrong.to_json()}"))[0] == pytest.approx(0.15)
    assert low.sampled_reward(rec, reply(target_reply(rec)))[0] == pytest.approx(1.5)
    high = _trainer(tiny_model_dir, tmp_path / "h", records=[rec], objective="asl", reward_fn=semantic,
                    reward_name="semantic", tau=0.5)
    assert high.sampled_reward(rec, reply(f"Action: {wrong.to_json()}"))[0] == 0.0

    # sampling repeats for a seed and differs across seeds
    prompt = tr.sft_example(rec).prompt
    a, b = tr.sample_reply(prompt, 7), tr.sample_reply(prompt, 7)
    assert a == b and 1 <= len(a) <= 8
    assert any(tr.sample_reply(prompt, s) != a for s in range(8, 12))
    m = tr.train_step()
    assert m.reward is not None and m.valid_sample is not None and m.sft_loss is not None


# ---------------------------------------------------------------------------------------------------
# GRPO
# ---------------------------------------------------------------------------------------------------
def _groups(records) -> list[RolloutGroup]:
    """One group of three members, each one recorded model call on a record's prompt; rewards 1, 0, 0."""
    out = []
    for g, rec in enumerate(records[:2]):
        msgs = record_messages(rec)
        calls = [(f"Open it.\nAction: {oracle_action(rec).to_json()}", 1.0, "stop", 1.0),
                 ('Action: {"action_type":"navigate_back"}', 0.7, "stop", 0.0),
                 ("I am not sure what", 1.0, "length", 0.0)]
        members = []
        for k, (text, temp, finish, reward) in enumerate(calls):
            step = Step(index=0, observation=Observation(xml=rec.xml), action=None,
                        agent_info={"generations": [{"messages": msgs, "text": text, "temperature": temp,
                                                     "seed": k, "finish_reason": finish}]})
            traj = Trajectory(task_id=rec.task_id, goal=rec.goal, seed=g, agent="generator", steps=[step])
            members.append(GRPOMember(member=k, sample_seed=k, trajectory=traj, reward=reward,
                                      outcome="success" if reward else "failure"))
        group = RolloutGroup(task_id=rec.task_id, task_seed=g, goal=rec.goal, members=members)
        group.compute_advantages()
        out.append(group)
    return out


def test_grpo_objective_matches_a_hand_computation(tiny_model_dir: Path, short_records, tmp_path: Path) -> None:
    groups = _groups(short_records)
    tr = _trainer(tiny_model_dir, tmp_path / "t", groups=groups, objective="grpo", kl_beta=0.1, clip_eps=0.2,
                  batch_size=8)
    assert len(tr.samples) == 6 and tr.data_counts["members_used"] == 6
    assert [s.temperature for s in tr.samples[:3]] == [1.0, 0.7, 1.0]
    assert tr.samples[0].seq.reply[-1] == tr.eos_id and tr.samples[2].seq.reply[-1] != tr.eos_id  # cut: no end
    torch.manual_seed(2)
    with torch.no_grad():  # the policy away from the base model: the KL term is not 0
        for p in tr.lora_params:
            p.add_(0.1 * torch.randn_like(p))
    tr._ensure_reference()
    assert tr._old is not None and tr._ref is not None
    # pi_old is the policy before the update: ratio 1 everywhere, nothing clipped
    idx = list(range(len(tr.samples)))
    n_tokens = sum(len(s.seq.reply) for s in tr.samples)
    _, st = tr.grpo_loss(idx, n_tokens)
    assert st["ratio"] == pytest.approx(1.0, abs=1e-5) and st["clip_frac"] == 0.0 and st["kl"] > 0
    # old log-probs moved so that ratios fall inside and outside the clip range
    tr._old = [o + torch.linspace(-0.5, 0.5, len(o)) for o in tr._old]
    tr.model.train()
    loss, st = tr.grpo_loss(idx, n_tokens)
    expected = 0.0
    for s, old in zip(tr.samples, tr._old, strict=True):
        lp = _hand_logps(tr, s.seq.prompt, s.seq.reply, s.temperature)
        with tr.peft_model.disable_adapter():
            ref = _hand_logps(tr, s.seq.prompt, s.seq.reply, s.temperature)
        for j in range(len(s.seq.reply)):
            ratio = math.exp(lp[j] - float(old[j]))
            clipped = min(max(ratio, 0.8), 1.2)
            d = ref[j] - lp[j]
            expected += -min(ratio * s.advantage, clipped * s.advantage) + 0.1 * (math.exp(d) - d - 1)
    assert float(loss.detach()) == pytest.approx(expected / n_tokens, rel=1e-5)
    assert 0 < st["clip_frac"] < 1


def test_grpo_prompt_tokens_get_no_gradient(tiny_model_dir: Path, short_records, tmp_path: Path) -> None:
    tr = _trainer(tiny_model_dir, tmp_path / "t", groups=_groups(short_records), objective="grpo")
    tr._ensure_reference()
    batch = tr.samples[:3]
    hidden, pos, tgt, mask = tr._hidden([s.seq for s in batch])
    hidden.retain_grad()
    logps = tr._select_logps(hidden, pos, tgt, [s.temperature for s in batch])
    old = torch.zeros_like(logps)
    for b in range(3):
        old[b, :len(tr._old[b])] = tr._old[b]
    loss, _ = grpo_token_loss(logps, old, [s.advantage for s in batch], mask, clip_eps=0.2)
    loss.backward()
    for b, s in enumerate(batch):
        p, r = len(s.seq.prompt), len(s.seq.reply)
        g = hidden.grad[b].abs().sum(-1)
        # a position's hidden state predicts the next token: p - 1 .. p + r - 2 predict the reply
        assert torch.all(g[:p - 1] == 0), "a prompt token is a training target"
        assert torch.all(g[p - 1:p - 1 + r] > 0)
        assert torch.all(g[p - 1 + r:] == 0)  # padding
    # the member whose advantage is 0 would add nothing: it is not a sample at all
    flat = _groups(short_records)
    for m in flat[0].members:
        m.advantage = 0.0
    only_second = _trainer(tiny_model_dir, tmp_path / "z", groups=flat, objective="grpo")
    assert len(only_second.samples) == 3 and all(s.key.startswith(flat[1].key) for s in only_second.samples)


# ---------------------------------------------------------------------------------------------------
# resume, export, evaluation, bad input
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("objective", ["sft", "asl", "grpo"])
def test_resumed_run_matches_an_uninterrupted_one(objective: str, tiny_model_dir: Path, short_records,
                                                  tmp_path: Path) -> None:
    data = {"records": short_records[:4]} if objective != "grpo" else {"groups": _groups(short_records)}
    kw = {"objective": objective, "max_steps": 4, "lora_dropout": 0.1 if objective != "grpo" else 0.0,
          "batch_size": 1 if objective != "grpo" else 2, "ppo_epochs": 2, **data}
    full = _trainer(tiny_model_dir, tmp_path / "full", **kw)
    full.train()

    part = _trainer(tiny_model_dir, tmp_path / "part", **kw)
    part.train_step()
    part.train_step()
    part.save_checkpoint()
    del part
    # lines a crashed process logged after its last checkpoint must not survive the resume
    (tmp_path / "part" / "log.jsonl").write_text('{"type": "train", "step": 3, "loss": 99.0}\n{"step": 3, "tor')
    torch.manual_seed(123)  # resuming restores the RNG state, whatever the process did before
    resumed = _trainer(tiny_model_dir, tmp_path / "part", **kw)
    resumed.train()
    assert resumed.state.step == 4 and resumed.state.seen == full.state.seen
    full_log = [json.loads(x) for x in (tmp_path / "full" / "log.jsonl").read_text().splitlines()]
    part_log = [json.loads(x) for x in (tmp_path / "part" / "log.jsonl").read_text().splitlines()]
    assert [x["step"] for x in part_log] == [3, 4]
    assert [x["loss"] for x in full_log[2:]] == pytest.approx([x["loss"] for x in part_log], abs=1e-6)
    for a, b in zip(full.lora_params, resumed.lora_params, strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    assert (tmp_path / "full" / "curves.png").stat().st_size > 1000


def test_export_writes_a_mergeable_adapter_with_relative_paths(tiny_model_dir: Path, short_records,
                                                               tmp_path: Path) -> None:
    from droidverify.agents.verifier.trained import _merge_lora
    from droidverify.training.records import write_records

    data = tmp_path / "data" / "train.jsonl"
    write_records(data, short_records[:3])
    cfg = LLMPolicyConfig(output_dir=str(tmp_path / "run"), train_file=str(data), dtype="float32", lora_r=4,
                          lora_alpha=8, learning_rate=1e-2, warmup_steps=1, max_steps=3, max_seq_tokens=8192)
    tr = LLMPolicyTrainer(cfg, llm=_llm(tiny_model_dir))
    result = tr.train()
    assert result["step"] == 3 and result["data"] == {"records": 3}
    dest = tr.export(tmp_path / "policy", provenance={"train_file": str(data)})
    meta = json.loads((dest / "policy.json").read_text())
    assert meta["format"] == "droidverify-llm-policy" and meta["agent"] == "generator"
    assert meta["train_config"]["train_file"] == "../data/train.jsonl"
    assert meta["train_config"]["output_dir"] == "."
    assert json.loads((dest / "provenance.json").read_text())["train_file"] == "../data/train.jsonl"
    assert not Path(json.loads((dest / "adapter" / "adapter_config.json").read_text())
                    ["base_model_name_or_path"]).is_absolute()
    # the exported adapter merged into a fresh base model gives the trained policy's log-probs
    seq = tr.sft_example(short_records[0])
    tr.model.eval()
    with torch.no_grad():
        trained = tr.reply_logps([seq])[0]
    fresh = _llm(tiny_model_dir)
    _merge_lora(fresh.model, dest / "adapter")
    with torch.no_grad():
        merged = fresh.model(input_ids=torch.tensor([seq.prompt + seq.reply])).logits[0]
    lp = torch.log_softmax(merged, -1)[len(seq.prompt) - 1:-1].gather(-1, torch.tensor(seq.reply)[:, None])[:, 0]
    assert torch.allclose(lp, trained[0], atol=1e-4)
    with torch.no_grad():
        base = fresh.model.__class__.from_pretrained(tiny_model_dir)(
            input_ids=torch.tensor([seq.prompt + seq.reply])).logits[0]
    assert not torch.allclose(base, merged, atol=1e-4)  # the adapter really changed the model


def test_evaluation_counts_valid_and_oracle_replies(short_records) -> None:
    recs = short_records[:4]
    wrong = next(c for i, c in enumerate(recs[1].candidates) if i not in recs[1].correct)
    replies = iter([target_reply(recs[0]), f"Action: {wrong}", "I would tap something", 'click(index=999)'])

    class Scripted(_Capture):
        def generate(self, messages, **kw) -> Generation:
            assert kw["temperature"] == 0.0 and kw["max_tokens"] == 32
            return Generation(text=next(replies), finish_reason="stop")

    ev = evaluate_replies(Scripted(), recs, max_tokens=32)
    assert (ev["n"], ev["valid"], ev["oracle_match"], ev["correct"]) == (4, 0.5, 0.25, 0.25)
    assert len(ev["invalid_examples"]) == 2
    with pytest.raises(TrainingError, match="no records"):
        evaluate_replies(Scripted(), [])


def test_bad_config_and_input_raise_typed_errors(tiny_model_dir: Path, short_records, tmp_path: Path) -> None:
    for field, value in (("objective", "ppo"), ("batch_size", 0), ("tau", 2.0), ("clip_eps", 1.5),
                         ("agent", "verifier"), ("sample_temperature", 0.0), ("lora_dropout", 1.0),
                         ("max_steps", 0), ("dtype", "float16")):
        with pytest.raises(TrainingError, match=field):
            LLMPolicyConfig(output_dir="x", **{field: value}).validate()
    with pytest.raises(TrainingError, match="reward_fn"):  # refused before any model loads
        LLMPolicyTrainer(LLMPolicyConfig(output_dir=str(tmp_path / "a"), objective="asl", reward_name="see"),
                         records=short_records[:1])
    with pytest.raises(TrainingError, match="rollout groups"):
        LLMPolicyTrainer(LLMPolicyConfig(output_dir=str(tmp_path / "b"), objective="grpo"))
    with pytest.raises(TrainingDataError, match="no screen dump"):
        LLMPolicyTrainer(LLMPolicyConfig(output_dir=str(tmp_path / "c")),
                         records=[short_records[0].model_copy(update={"xml": None})])
    flat = _groups(short_records)
    for g in flat:
        for m in g.members:
            m.advantage = 0.0
    path = tmp_path / "flat.jsonl"
    write_groups(path, flat)
    with pytest.raises(TrainingError, match="nonzero advantage"):
        LLMPolicyTrainer(LLMPolicyConfig(output_dir=str(tmp_path / "d"), objective="grpo", groups_file=str(path),
                                         dtype="float32"), llm=_llm(tiny_model_dir))
    # a rerun with other settings, or other data, is refused
    _trainer(tiny_model_dir, tmp_path / "r", records=short_records[:2], max_steps=1).train()
    with pytest.raises(TrainingError, match=r"other settings \(learning_rate\)"):
        _trainer(tiny_model_dir, tmp_path / "r", records=short_records[:2], max_steps=1,
                 learning_rate=1e-3).train()
    with pytest.raises(TrainingError, match="other data"):
        _trainer(tiny_model_dir, tmp_path / "r", records=short_records[1:3], max_steps=1).train()


def test_cli_trains_and_exports(tiny_model_dir: Path, short_records, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from droidverify.cli import app
    from droidverify.training.records import write_records

    data = tmp_path / "train.jsonl"
    write_records(data, short_records[:3])
    runner = CliRunner()
    res = runner.invoke(app, ["train", "llm-policy", "--objective", "sft", "--train", str(data), "--out",
                              str(tmp_path / "run"), "--model", str(tiny_model_dir), "--dtype", "float32",
                              "--max-steps", "2", "--eval", str(data), "--eval-records", "2",
                              "--eval-max-tokens", "4", "--max-seq-tokens", "8192", "--lora-r", "4"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["step"] == 2 and out["eval_before"]["n"] == 2 and out["eval"]["n"] == 2
    assert (tmp_path / "run" / "policy" / "adapter" / "adapter_model.safetensors").is_file()
    groups = tmp_path / "groups.jsonl"
    write_groups(groups, _groups(short_records))
    res = runner.invoke(app, ["train", "llm-policy", "--objective", "grpo", "--groups", str(groups), "--out",
                              str(tmp_path / "grpo"), "--model", str(tiny_model_dir), "--dtype", "float32",
                              "--batch-size", "3", "--kl-beta", "0.04", "--max-seq-tokens", "8192",
                              "--lora-r", "4"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.strip().splitlines()[-1])["step"] == 2  # 6 calls, 3 per step, one pass
    assert json.loads((tmp_path / "grpo" / "policy" / "policy.json").read_text())["objective"] == "grpo"
    bad = runner.invoke(app, ["train", "llm-policy", "--objective", "grpo", "--out", str(tmp_path / "g")])
    assert bad.exit_code == 2 and "--groups" in bad.output
    bad = runner.invoke(app, ["train", "llm-policy", "--objective", "asl", "--train", str(data), "--out",
                              str(tmp_path / "x"), "--reward", "magic"])
    assert bad.exit_code == 2 and "unknown ASL reward" in bad.output
