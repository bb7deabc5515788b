"""``droidverify train llm-policy``: SFT, ASL or GRPO of the LLM generator policy (a LoRA adapter),
docs/llm_policy.md.

A module of its own that adds the command to ``droidverify train``; torch, peft and the model load
when the command runs, so ``droidverify --help`` stays light.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from droidverify.cli._common import cli_errors

REWARDS = ("exact", "see-learned")


def llm_reward_for(source: str, world_model: Path | None) -> Any:
    """ASL's reward function for the LLM policy: ``exact`` (None: the trainer's default, the oracle
    action or an equivalent candidate) or ``see-learned`` (SEE's semantic similarity of the sampled
    and the oracle action on the record's screen, from the learned world model; the oracle action and
    its equivalents are exact 1.0)."""
    from droidverify.errors import TrainingError

    if source == "exact":
        return None
    if source != "see-learned":
        raise TrainingError(f"unknown ASL reward {source!r}; use one of {REWARDS}")
    from droidverify.rewards.see import LearnedWorldModel, semantic_reward, shipped_world_model
    from droidverify.training.llm_policy import correct_actions, oracle_action

    model = LearnedWorldModel.load(world_model) if world_model else shipped_world_model()

    def reward(record: Any, action: Any) -> float:
        if action.to_json() in correct_actions(record):
            return 1.0
        return float(semantic_reward(record.xml, action, oracle_action(record), model=model))

    return reward


def llm_policy_command(
    out: Annotated[Path, typer.Option("--out", help="Run directory (checkpoints, log.jsonl, curves.png); a rerun "
                                      "resumes (with the same settings).")],
    objective: Annotated[str, typer.Option("--objective", help="sft | asl | grpo")] = "sft",
    train: Annotated[Path | None, typer.Option("--train", help="sft, asl: step records (`droidverify train "
                                               "data`, schema 3).")] = None,
    groups: Annotated[Path | None, typer.Option("--groups", help="grpo: rollout groups (`droidverify train "
                                                "grpo-rollouts`).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="The policy LLM: a model directory or a .gguf "
                                              "file (default: the bundled SmolLM2-135M-Instruct).")] = None,
    device: Annotated[str, typer.Option("--device", help="cpu | cuda | cuda:N")] = "cpu",
    dtype: Annotated[str, typer.Option("--dtype", help="auto | float32 | bfloat16")] = "auto",
    agent: Annotated[str, typer.Option("--agent", help="Whose prompt the records become: generator | "
                                       "smartsnap (train it on `train sv-data` records).")] = "generator",
    description: Annotated[str, typer.Option("--description", help="How the prompt writes the screen: list (the "
                                             "agents' default) | html | compressed.")] = "list",
    memory: Annotated[str, typer.Option("--memory", help="The working memory the records were written by "
                                        "(`train data --memory`; the agents' default diff): recorded in "
                                        "policy.json, and the memory `run --policy` plays with.")] = "diff",
    eval_file: Annotated[Path | None, typer.Option("--eval", help="Held-out records: greedy valid-action and "
                                                   "oracle-match rates before the first step and after the "
                                                   "last.")] = None,
    eval_records: Annotated[int, typer.Option("--eval-records", help="How many held-out records (a seeded "
                                              "sample).", min=1)] = 30,
    eval_every: Annotated[int | None, typer.Option("--eval-every", help="Also evaluate every N steps.",
                                                   min=1)] = None,
    eval_max_tokens: Annotated[int, typer.Option("--eval-max-tokens", help="Tokens per evaluated reply.",
                                                 min=1)] = 96,
    max_records: Annotated[int | None, typer.Option("--max-records", help="Train on the first N records of "
                                                    "--train only.", min=1)] = None,
    epochs: Annotated[int, typer.Option("--epochs", help="sft, asl: passes over the records.", min=1)] = 1,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Optimizer steps (default: what "
                                                  "--epochs / --ppo-epochs give).", min=1)] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Sequences per forward pass.", min=1)] = 1,
    grad_accum: Annotated[int, typer.Option("--grad-accum", help="Forward passes per optimizer step.",
                                            min=1)] = 1,
    learning_rate: Annotated[float, typer.Option("--lr", help="Learning rate of the adapter.")] = 2e-4,
    warmup_steps: Annotated[int, typer.Option("--warmup-steps", min=0)] = 10,
    lora_r: Annotated[int, typer.Option("--lora-r", min=1)] = 16,
    lora_alpha: Annotated[int, typer.Option("--lora-alpha", min=1)] = 32,
    lora_dropout: Annotated[float, typer.Option("--lora-dropout", min=0, max=0.99)] = 0.0,
    lora_layers: Annotated[int | None, typer.Option("--lora-layers", help="LoRA on the last N layers only "
                                                    "(default: every layer).", min=1)] = None,
    max_seq_tokens: Annotated[int, typer.Option("--max-seq-tokens", help="Prompt + reply; longer records are "
                                                "skipped (counted).", min=16)] = 4096,
    max_minutes: Annotated[float | None, typer.Option("--max-minutes", help="Stop (checkpointed, exported) after "
                                                      "this much training time.", min=0.1)] = None,
    save_every: Annotated[int, typer.Option("--save-every", help="Checkpoint every N steps.", min=1)] = 50,
    reward: Annotated[str, typer.Option("--reward", help="asl: exact (oracle action or an equivalent) or "
                                        "see-learned (SEE with the learned world model).")] = "exact",
    world_model: Annotated[Path | None, typer.Option("--world-model", help="see-learned: a world model "
                                                     "directory (default: the shipped one).")] = None,
    tau: Annotated[float | None, typer.Option("--tau", help="asl: thresholded reward's similarity threshold "
                                              "(paper: 0.6); unset: the plain reward.")] = None,
    beta: Annotated[float, typer.Option("--beta", help="asl thresholded reward: weight of the semantic part.",
                                        min=0)] = 0.5,
    sample_temperature: Annotated[float, typer.Option("--sample-temperature", help="asl: temperature of the "
                                                      "sampled reply.")] = 1.0,
    sample_max_tokens: Annotated[int, typer.Option("--sample-max-tokens", help="asl: tokens per sampled "
                                                   "reply.", min=1)] = 48,
    clip_eps: Annotated[float, typer.Option("--clip-eps", help="grpo: ratio clip (TRL's epsilon).")] = 0.2,
    kl_beta: Annotated[float, typer.Option("--kl-beta", help="grpo: weight of the k3 KL to the starting "
                                           "model (--init's policy, else the base model; 0: none).",
                                           min=0)] = 0.0,
    ppo_epochs: Annotated[int, typer.Option("--ppo-epochs", help="grpo: passes over the samples (TRL's "
                                            "num_iterations).", min=1)] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Adapter init, data order, ASL samples.", min=0)] = 0,
    init: Annotated[Path | None, typer.Option("--init", metavar="DIR", help="Start from a trained policy (an "
                                              "export of this command, e.g. SFT before GRPO): merged into the "
                                              "model before a new adapter is trained on top; grpo: the policy "
                                              "that played --groups (checked by digest). The export carries "
                                              "it whole.")] = None,
    export: Annotated[Path | None, typer.Option("--export", help="Write the trained adapter here (default "
                                                "OUT/policy).")] = None,
) -> None:
    """Train the generator agent's LLM (a LoRA adapter) by SFT on the oracle's actions, ASL's semantic
    loss, or GRPO on rollout groups; loss on the reply tokens only. Exports the adapter with
    policy.json and provenance.json (docs/llm_policy.md has the CPU and GPU recipes)."""
    from droidverify.cli.train import _provenance, _say
    from droidverify.training.llm_policy import LLMPolicyConfig, LLMPolicyTrainer

    with cli_errors():
        if objective == "grpo" and groups is None:
            raise typer.BadParameter("--objective grpo needs --groups FILE (`droidverify train grpo-rollouts`)")
        if objective in ("sft", "asl") and train is None:
            raise typer.BadParameter(f"--objective {objective} needs --train FILE (`droidverify train data`)")
        cfg = LLMPolicyConfig(
            output_dir=str(out), objective=objective, train_file=str(train) if train else None,
            groups_file=str(groups) if groups else None, max_records=max_records, model=model, dtype=dtype,
            device=device, agent=agent, description=description, memory=memory, lora_r=lora_r, lora_alpha=lora_alpha,
            lora_dropout=lora_dropout, lora_layers=lora_layers, learning_rate=learning_rate,
            warmup_steps=warmup_steps, epochs=epochs, max_steps=max_steps, batch_size=batch_size,
            grad_accum=grad_accum, max_seq_tokens=max_seq_tokens,
            max_minutes=max_minutes, save_every=save_every, seed=seed,
            eval_file=str(eval_file) if eval_file else None, eval_records=eval_records, eval_every=eval_every,
            eval_max_tokens=eval_max_tokens, reward_name=reward, tau=tau, beta=beta,
            sample_temperature=sample_temperature, sample_max_tokens=sample_max_tokens, clip_eps=clip_eps,
            kl_beta=kl_beta, ppo_epochs=ppo_epochs, init_policy=str(init) if init is not None else None)
        cfg.validate()  # before a model or a world model loads
        if objective != "asl" and reward != "exact":
            raise typer.BadParameter("--reward is an ASL setting (--objective asl)")
        reward_fn = llm_reward_for(reward, world_model) if objective == "asl" else None
        trainer = LLMPolicyTrainer(cfg, reward_fn=reward_fn, log=_say)
        result = trainer.train()
        dest = export or out / "policy"
        data = {"train": train.name if train else None, "groups": groups.name if groups else None,
                "eval": eval_file.name if eval_file else None}
        trainer.export(dest, provenance={**_provenance(), "data": data, "result": result})
        (out / "result.json").write_text(json.dumps(result, indent=1))
    summary = {"policy": str(dest), "objective": objective, "step": result["step"], "stopped": result["stopped"]}
    for key in ("eval_before", "eval"):
        ev = result.get(key)
        if ev:
            summary[key] = {k: ev[k] for k in ("n", "valid", "oracle_match", "correct") if k in ev}
    typer.echo(json.dumps(summary))


def register(app: typer.Typer) -> None:
    from droidverify.cli.train import train_app  # the `train` group; this module adds one command to it

    del app  # the command belongs to the train group, not to the root
    train_app.command("llm-policy")(llm_policy_command)
