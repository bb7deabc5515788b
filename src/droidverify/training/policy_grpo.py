"""GRPO on the compact policy (SmartSnap's recipe on a ranking policy): config + trainer, as TRL splits them.

Each iteration: ``tasks_per_iteration`` train tasks at fresh seeds, ``group_size`` (G) episodes each,
played by the current policy sampling from ``softmax(scores / temperature)`` over its candidates
(``agents.verifier.VerifierAgent`` with a compact scorer; a self-verifying policy ends with
``submit``); each episode rewarded by a judge (the trained compact evidence judge with SmartSnap's
3C composite by default, the rule checker as the oracle upper bound: chosen by the caller's player);
group-normalised advantages (``training.grpo.group_advantages``: sample std as TRL; a member whose
judge failed leaves its group); then ``ppo_epochs`` passes of the clipped policy-gradient objective
over every step of every member, with the episode's advantage::

    L = -mean_steps min(rho A, clip(rho, 1 - eps, 1 + eps) A) + kl_beta * KL(pi || pi_start)
    rho = pi(a_t | s_t) / pi_old(a_t | s_t)

No critic. ``pi_old`` is the policy that played (its scores are in each step's ``agent_info``);
the KL to the start policy is exact (a step's candidates are enumerable). Rollouts go through the
runner's backends: the caller hands in ``rollout(policy_dir, tasks, iteration) -> groups`` (the
runner's ``CompactPolicyPlayer`` with ``training.grpo.rollout_groups``; training imports neither).

Resumable (a checkpoint per iteration; a rerun with other settings is refused), a JSONL log per
iteration (reward, judged and checker success, their agreement, evidences per submit, excluded
members, loss, KL, clip fraction), curves as a PNG.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from droidverify.actions.model import Action
from droidverify.agents.verifier.compact.features import FEATURE_VERSION, StepView, step_view
from droidverify.agents.verifier.record import VerifierStepInfo
from droidverify.env.records import Trajectory, is_success
from droidverify.errors import TrainingError
from droidverify.tasks.base import Task
from droidverify.training.grpo import RolloutGroup

# (policy directory to play, tasks, iteration) -> one group per task (``training.grpo.RolloutGroup``)
Rollout = Callable[[Path, list[Task], int], list[RolloutGroup]]


@dataclass
class PolicyGRPOConfig:
    """A GRPO run on the compact policy (names follow TRL's ``GRPOConfig`` where there is one)."""

    output_dir: str
    init_policy: str  # the start policy (a compact verifier directory: the SFT warm start)
    split: str = "train"
    tasks: list[str] | None = None  # templates to draw from (None: every template of the split)
    tasks_per_iteration: int = 16
    group_size: int = 8  # SmartSnap's G
    iterations: int = 20
    base_seed: int = 2000  # task seeds: base_seed + iteration (unseen by warm-start data at 0-409)
    temperature: float = 1.0
    learning_rate: float = 3e-4
    clip_eps: float = 0.2  # TRL's epsilon
    kl_beta: float = 0.0  # TRL's beta (0: no reference term, TRL's default)
    ppo_epochs: int = 2  # TRL's num_iterations
    batch_size: int = 64  # steps per optimizer step
    max_minutes: float | None = None
    seed: int = 0
    threads: int = 1

    def validate(self) -> None:
        for name in ("tasks_per_iteration", "group_size", "iterations", "ppo_epochs", "batch_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise TrainingError(f"{name} must be an int >= 1, got {v!r}")
        if self.group_size < 2:
            raise TrainingError("group_size must be >= 2: a group of one carries no preference")
        if not (self.temperature > 0 and math.isfinite(self.temperature)):
            raise TrainingError(f"temperature must be > 0 (greedy groups have no spread), got {self.temperature}")
        if not (self.learning_rate > 0 and 0 < self.clip_eps < 1 and self.kl_beta >= 0):
            raise TrainingError("learning_rate must be > 0, clip_eps in (0, 1) and kl_beta >= 0")
        if self.tasks is not None and not self.tasks:
            raise TrainingError("tasks is empty (None: every template of the split)")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StepSample:
    """One step a member took: the view the policy scored, its choice, the behaviour log-prob."""

    view: StepView
    chosen: int
    old_logp: float
    advantage: float


@dataclass
class IterationStats:
    episodes: int = 0
    excluded: int = 0
    reward_sum: float = 0.0
    judged_success: int = 0
    checker_success: int = 0
    agree: int = 0
    submits: int = 0
    evidences: int = 0
    zero_std_groups: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def step_samples(traj: Trajectory, advantage: float, temperature: float,
                 feature_version: int = FEATURE_VERSION) -> list[StepSample]:
    """The steps of a verifier-played episode as training samples (steps without candidate scores,
    e.g. an agent error, are skipped); ``feature_version``: the policy checkpoint's."""
    out: list[StepSample] = []
    for step in traj.steps:
        info = VerifierStepInfo.from_info(step.agent_info)
        cands, chosen = info.candidates, info.chosen
        if chosen is None or info.candidate(chosen) is None or len(cands) < 2:
            continue
        actions = [Action.model_validate_json(c.action) for c in cands]
        scores = [float(c.score) / temperature for c in cands]  # type: ignore[arg-type]  # None: a damaged step
        m = max(scores)
        logz = m + math.log(sum(math.exp(s - m) for s in scores))
        view = step_view(traj.goal, info.memory or "", step.observation.elements, actions,
                         [c.description for c in cands], version=feature_version)
        out.append(StepSample(view, chosen, scores[chosen] - logz, advantage))
    return out


def clipped_objective(new_logp: Any, old_logp: Any, advantage: Any, eps: float) -> tuple[Any, Any]:
    """(-mean min(rho A, clip(rho) A), fraction of steps clipped), rho = exp(new - old)."""
    import torch

    ratio = torch.exp(new_logp - old_logp)
    unclipped = ratio * advantage
    clipped = torch.clamp(ratio, 1 - eps, 1 + eps) * advantage
    frac = ((ratio < 1 - eps) | (ratio > 1 + eps)).float().mean()
    return -torch.minimum(unclipped, clipped).mean(), frac


def _evidences(traj: Trajectory) -> int | None:
    last = traj.steps[-1].action if traj.steps else None
    if last is None or last.action_type != "submit":
        return None
    return len(last.evidences or ())


class PolicyGRPOTrainer:
    """Runs (or resumes) GRPO iterations; the current policy is exported to ``output_dir/policy``."""

    def __init__(self, config: PolicyGRPOConfig, *, rollout: Rollout, log: Callable[[str], None] | None = None,
                 encoder: Any = None) -> None:
        import copy

        import torch

        from droidverify.agents.verifier.compact.scorer import CompactScorer

        config.validate()
        self.config = config
        self.rollout = rollout
        self.say = log or (lambda msg: None)
        self.out = Path(config.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        start = CompactScorer.load(config.init_policy, encoder=encoder)
        if start.combiner is not None:  # the players would score with it, the update would not see it
            raise TrainingError(f"{config.init_policy} carries a stacking combiner; GRPO trains the network's own "
                                "policy: start from a checkpoint trained without --stack-folds")
        self.scorer = start
        self.encoder = start.encoder
        self.cache_file = self.out / f"embeddings-{getattr(self.encoder, 'dtype', 'float32')}.npz"
        self.encoder.load(self.cache_file)
        self.net = start.net
        self.ref = copy.deepcopy(start.net).eval() if config.kl_beta > 0 else None
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=config.learning_rate, weight_decay=0.0)
        self.iteration = 0

    # ---- tasks ---------------------------------------------------------------------------------
    def tasks_for(self, iteration: int) -> list[Task]:
        from droidverify.tasks import registry

        cfg = self.config
        names = sorted(cfg.tasks) if cfg.tasks is not None else sorted(t.name for t in registry.templates_for_split(cfg.split))
        pick = random.Random(f"{cfg.seed}:{iteration}").sample(names, min(cfg.tasks_per_iteration, len(names)))
        return [registry.get_template(n).instantiate(cfg.base_seed + iteration) for n in pick]

    # ---- one iteration -------------------------------------------------------------------------
    def export_policy(self, directory: Path) -> Path:
        from droidverify.agents.verifier.compact.scorer import CompactScorer

        s = self.scorer
        scorer = CompactScorer(self.net, self.encoder, memory=s.memory, content=s.content, meta=dict(s.meta))
        return scorer.save(directory, train_config={"grpo": self.config.to_dict(), "iteration": self.iteration},
                           provenance={"iteration": self.iteration, "init_policy": Path(self.config.init_policy).name})

    def update(self, samples: Sequence[StepSample]) -> dict[str, float]:
        import torch

        from droidverify.agents.verifier.compact.scorer import batch_tensors

        cfg = self.config
        # no dropout: the ratio to the policy that played must start at exactly 1 (dropout noise alone
        # clipped half of the first update's steps)
        self.net.eval()
        losses, kls, clips, n = 0.0, 0.0, 0.0, 0
        first: float | None = None  # the first minibatch's clip fraction: 0 unless played != scored here
        for epoch in range(cfg.ppo_epochs):
            order = list(range(len(samples)))
            random.Random(f"{cfg.seed}:{self.iteration}:{epoch}").shuffle(order)
            for start in range(0, len(order), cfg.batch_size):
                batch = [samples[i] for i in order[start:start + cfg.batch_size]]
                inputs = batch_tensors([s.view for s in batch], self.encoder,
                                       with_clauses=self.net.cfg.clauses > 0)
                logits = self.net(**inputs) / cfg.temperature
                logp = torch.log_softmax(logits, -1)
                chosen = torch.tensor([s.chosen for s in batch])
                new = logp.gather(1, chosen[:, None]).squeeze(1)
                old = torch.tensor([s.old_logp for s in batch])
                adv = torch.tensor([s.advantage for s in batch])
                loss, frac = clipped_objective(new, old, adv, cfg.clip_eps)
                if first is None:
                    first = float(frac)
                kl = torch.zeros(())
                if self.ref is not None:
                    with torch.no_grad():
                        ref = torch.log_softmax(self.ref(**inputs) / cfg.temperature, -1)
                    p = logp.exp()
                    present = torch.isfinite(logp)
                    kl = torch.where(present, p * (logp - ref), torch.zeros_like(p)).sum(-1).mean()
                    loss = loss + cfg.kl_beta * kl
                self.opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                self.opt.step()
                losses += float(loss.detach()) * len(batch)
                kls += float(kl) * len(batch)
                clips += float(frac) * len(batch)
                n += len(batch)
        # clip_fraction averages every minibatch of every epoch: it grows as the updates move the policy
        return {"loss": losses / max(n, 1), "kl": kls / max(n, 1), "clip_fraction": clips / max(n, 1),
                "clip_fraction_first": first if first is not None else 0.0}

    def iterate(self) -> dict[str, Any]:
        """One rollout + update; returns the iteration's log entry."""
        cfg = self.config
        t0 = time.perf_counter()
        k = self.iteration
        policy = self.export_policy(self.out / "policy")
        groups = self.rollout(policy, self.tasks_for(k), k)
        st = IterationStats()
        samples: list[StepSample] = []
        for g in groups:
            st.zero_std_groups += int(g.zero_std)
            for m in g.members:
                st.episodes += 1
                traj = m.trajectory
                checker_ok = is_success(traj.success)
                st.checker_success += checker_ok
                ev = _evidences(traj)
                if ev is not None:
                    st.submits += 1
                    st.evidences += ev
                if m.excluded or m.reward is None:
                    st.excluded += 1
                    continue
                judged_ok = m.outcome == "success"
                st.reward_sum += m.reward
                st.judged_success += judged_ok
                st.agree += judged_ok == checker_ok
                if m.advantage:
                    samples.extend(step_samples(traj, float(m.advantage), cfg.temperature,
                                                self.scorer.feature_version))
        t_roll = time.perf_counter() - t0
        upd = self.update(samples) if samples else {"loss": 0.0, "kl": 0.0, "clip_fraction": 0.0, "clip_fraction_first": 0.0}
        self.encoder.save(self.cache_file)
        judged = max(st.episodes - st.excluded, 1)
        self.iteration += 1
        entry = {"type": "iteration", "iteration": self.iteration, "episodes": st.episodes,
                 "excluded": st.excluded, "reward_mean": st.reward_sum / judged,
                 "judged_success": st.judged_success / judged, "checker_success": st.checker_success / max(st.episodes, 1),
                 "judge_agreement": st.agree / judged, "evidences_per_submit": st.evidences / max(st.submits, 1),
                 "submits": st.submits, "zero_std_groups": st.zero_std_groups, "steps_trained": len(samples),
                 **upd, "seconds_rollout": round(t_roll, 1), "seconds": round(time.perf_counter() - t0, 1)}
        with open(self.out / "log.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        self.save_checkpoint()
        return entry

    def train(self) -> dict[str, Any]:
        import torch

        cfg = self.config
        torch.set_num_threads(cfg.threads)
        self.load_checkpoint()
        t0 = time.perf_counter()
        stopped = "iterations"
        while self.iteration < cfg.iterations:
            e = self.iterate()
            self.say(f"iteration {e['iteration']}/{cfg.iterations}: reward {e['reward_mean']:.3f}, judged success "
                     f"{e['judged_success']:.2f}, checker success {e['checker_success']:.2f}, agreement "
                     f"{e['judge_agreement']:.2f}, {e['steps_trained']} steps, loss {e['loss']:.4f}, "
                     f"{e['seconds']:.0f} s")
            plot_grpo_curves(self.out / "log.jsonl", self.out / "curves.png")
            if cfg.max_minutes is not None and time.perf_counter() - t0 > cfg.max_minutes * 60:
                stopped = "time budget"
                break
        return {"iterations": self.iteration, "stopped_by": stopped}

    # ---- checkpoints ---------------------------------------------------------------------------
    def save_checkpoint(self) -> None:
        import torch

        path = self.out / "checkpoint.pt"
        tmp = path.with_name(path.name + ".tmp")
        torch.save({"net": self.net.state_dict(), "opt": self.opt.state_dict(), "iteration": self.iteration,
                    "config": self.config.to_dict()}, tmp)
        tmp.replace(path)

    def load_checkpoint(self) -> None:
        import torch

        path = self.out / "checkpoint.pt"
        if not path.is_file():
            return
        state = torch.load(path, map_location="cpu", weights_only=False)
        free = ("iterations", "max_minutes", "output_dir", "threads")
        saved = {k: v for k, v in state["config"].items() if k not in free}
        mine = {k: v for k, v in self.config.to_dict().items() if k not in free}
        if saved != mine:
            diff = sorted(k for k in set(saved) | set(mine) if saved.get(k) != mine.get(k))
            raise TrainingError(f"{path} was written with other settings ({', '.join(diff)}): "
                                "use another output directory or the same settings")
        self.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        self.iteration = int(state["iteration"])
        self.say(f"resumed at iteration {self.iteration}")

    def export(self, directory: str | Path, *, provenance: dict[str, Any] | None = None) -> Path:
        from droidverify.agents.verifier.compact.scorer import CompactScorer

        s = self.scorer
        scorer = CompactScorer(self.net, self.encoder, memory=s.memory, content=s.content, meta=dict(s.meta))
        cfg = self.config.to_dict()
        cfg["init_policy"] = Path(cfg["init_policy"]).name
        cfg["output_dir"] = "."
        return scorer.save(directory, train_config={"grpo": cfg}, provenance=provenance)


def plot_grpo_curves(log_file: str | Path, png: str | Path) -> None:
    """Reward, judged and checker success and judge agreement per iteration (needs matplotlib)."""
    from droidverify.training.curves import plot_log

    plot_log(log_file, png, x="iteration", left=[("reward_mean", "mean reward")],
             right=[("judged_success", "judged success"), ("checker_success", "checker success"),
                    ("judge_agreement", "judge agrees with checker")])
