"""``droidverify run``'s options as one validated :class:`RunConfig`.

Every check of an option, or of a combination of options, is here: :class:`RunConfig` checks what
the options say on their own when it is built (:class:`~droidverify.errors.RunConfigError`, or the
typed error of the parser that refused a value: ``RunError`` for ``--seeds``, ``BackendError`` for
``--workers``); :meth:`RunConfig.resolve` then checks what needs the task registry and the trained
verifier on disk, and returns the :class:`ResolvedRun` the runner is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, model_validator

from droidverify.agents import registry as catalogue  # the agent catalogue: names, AgentSpec
from droidverify.agents.registry import AgentSpec
from droidverify.cli._common import parse_seeds
from droidverify.errors import RunConfigError, RunError
from droidverify.llm.registry import is_remote
from droidverify.runner.factories import EnvSpec

MAX_EPISODES = 1_000_000  # template x seed pairs in one run: a run directory stays workable


class RunConfig(BaseModel):
    """The options of ``droidverify run`` (same names, same defaults), checked together.

    Build one with :meth:`of` (a type error becomes :class:`RunConfigError`, like every other bad
    option); :meth:`resolve` it after the ``--tasks-module`` modules are loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    agent: str
    out: str | None = None
    tasks: str | None = None
    tasks_module: list[str] | None = None
    split: str | None = None
    seeds: str = "0"
    max_tasks: int | None = None
    model: str | None = None
    dtype: str = "auto"
    memory: str | None = None  # None: the verifier checkpoint's own, else diff
    env: str = "sim"
    serial: str | None = None
    max_steps: int | None = None
    agent_seed: int = 0
    screenshots: bool = False
    answer_ends: bool = False
    no_resume: bool = False
    no_progress: bool = False
    verifier: str | None = None
    content: str | None = None
    device: str = "cpu"
    avoid_repeats: bool = False
    temperature: float = 0.0
    top_k: int | None = None
    retry_temperature: float | None = None
    workers: str | None = None
    ray: str | None = None
    judge: str | None = None
    judge_model: str | None = None
    probes: int | None = None
    probe_steps: int | None = None
    evaluator: str | None = None
    attempts: int = 1
    finish_check: str | None = None
    finish_check_model: str | None = None
    policy: str | None = None

    _seed_list: list[int] = PrivateAttr(default_factory=list)
    _n_workers: int | None = PrivateAttr(default=1)

    @classmethod
    def of(cls, **options: Any) -> RunConfig:
        """The checked configuration of these options; :class:`RunConfigError` (or the parser's
        typed error) naming the first one that cannot run."""
        try:
            return cls(**options)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err.get("loc", ())) or "options"
            raise RunConfigError(f"--{where.replace('_', '-')}: {err.get('msg')}") from None

    @model_validator(mode="before")
    @classmethod
    def _default_judge(cls, data: Any) -> Any:
        # retries need a judge: the trained default unless one is named
        if isinstance(data, dict) and data.get("judge") is None and type(data.get("attempts")) is int \
                and data["attempts"] > 1:
            from droidverify.rewards.registry import DEFAULT_JUDGE

            return {**data, "judge": DEFAULT_JUDGE}
        return data

    @model_validator(mode="after")
    def _check(self) -> Self:
        from droidverify.tasks import registry

        agent, env = self.agent, self.env
        if agent not in catalogue.AGENTS:
            raise RunConfigError(f"unknown --agent {agent!r}; use one of {', '.join(catalogue.AGENTS)}")
        if env not in catalogue.ENVS:
            raise RunConfigError(f"unknown --env {env!r}; use sim or adb")
        if env == "adb" and agent == "oracle":
            raise RunConfigError("the oracle agent needs simulator state; it cannot run with --env adb")
        if self.memory is not None and self.memory not in catalogue.MEMORIES:
            raise RunConfigError(f"unknown --memory {self.memory!r}; use {', '.join(catalogue.MEMORIES)}")
        if self.dtype not in catalogue.DTYPES:
            raise RunConfigError(f"unknown --dtype {self.dtype!r}; use {', '.join(catalogue.DTYPES)}")
        if self.dtype != "auto" and (agent not in catalogue.LLM_AGENTS or is_remote(self.model)):
            raise RunConfigError("--dtype applies only to a local model (--agent verifier|generator without "
                                 "openai:URL)")
        if self.max_steps is not None and self.max_steps < 1:
            raise RunConfigError(f"--max-steps must be >= 1, got {self.max_steps}")
        if self.out is not None and not self.out.strip():
            raise RunConfigError("--out is empty; name a run directory (or leave --out out for a new one)")
        if self.tasks and self.split:
            raise RunConfigError("give --tasks or --split, not both")
        if self.tasks is not None and self.tasks and not [n for n in self.tasks.split(",") if n.strip()]:
            raise RunConfigError(f"--tasks {self.tasks!r} names no task")
        if self.split and self.split not in registry.SPLITS:
            raise RunConfigError(f"unknown --split {self.split!r}; use train, validation or test")
        if self.max_tasks is not None and self.max_tasks < 1:
            raise RunConfigError(f"--max-tasks must be >= 1, got {self.max_tasks}")
        self._seed_list = parse_seeds(self.seeds)  # RunError names the bad part
        from droidverify.runner.run import check_attempts

        check_attempts(self.attempts)
        self._check_judge()
        if self.attempts > 1 and env == "adb":
            raise RunConfigError("--attempts > 1 cannot run with --env adb: a device has no reset to the task's "
                                 "initial state, so a retry would start from wherever the failed attempt left "
                                 "the phone")
        from droidverify.runner.backends import parse_workers

        self._n_workers = parse_workers(self.workers) if self.workers is not None or self.ray is not None else 1
        if env == "adb" and (self._n_workers != 1 or self.ray is not None):
            raise RunConfigError("--env adb drives one device: it runs in this process (no --workers N or --ray)")
        if self.content is not None and self.content not in catalogue.CONTENT_MODES:
            raise RunConfigError(f"unknown --content {self.content!r}; use {' or '.join(catalogue.CONTENT_MODES)}")
        if agent != "verifier" and (self.verifier is not None or self.content is not None):
            raise RunConfigError("--verifier and --content apply only to --agent verifier")
        if self.avoid_repeats and agent != "verifier":
            raise RunConfigError("--avoid-repeats applies only to --agent verifier")
        if self.policy is not None:
            if agent not in catalogue.SAMPLING_AGENTS:
                raise RunConfigError(f"--policy (a trained LLM policy) applies only to --agent "
                                     f"{' | '.join(catalogue.SAMPLING_AGENTS)}; a verifier is given by --verifier")
            if is_remote(self.model):
                raise RunConfigError("--policy merges a LoRA adapter into local weights; it cannot run on an "
                                     "openai:URL server (serve the merged model there instead)")
        if (self.finish_check is not None or self.finish_check_model is not None) and agent != "verifier":
            raise RunConfigError("--finish-check applies only to --agent verifier")
        if self.finish_check_model is not None and self.finish_check is None:
            raise RunConfigError("--finish-check-model configures the finish check: give --finish-check METHOD")
        if self.finish_check is not None:
            from droidverify.rewards.finish_check import CHECK_METHODS

            if self.finish_check not in CHECK_METHODS:
                raise RunConfigError(f"unknown --finish-check {self.finish_check!r}; use one of "
                                     f"{', '.join(CHECK_METHODS)}")
        try:
            catalogue.check_sampling(agent, self.temperature, self.top_k, self.retry_temperature)
        except RunError as e:
            raise RunConfigError(f"--temperature/--top-k/--retry-temperature: {e}") from None
        if self.retry_temperature is not None and self.attempts < 2:
            raise RunConfigError("--retry-temperature is the temperature of judged retries: give --attempts K > 1")
        return self

    def _check_judge(self) -> None:
        from droidverify.rewards.registry import EVALUATORS, METHODS

        if self.judge is None:
            given = [name for name, v in (("--judge-model", self.judge_model), ("--probes", self.probes),
                                          ("--probe-steps", self.probe_steps), ("--evaluator", self.evaluator))
                     if v is not None]
            if given:
                raise RunConfigError(f"{', '.join(given)} configure the judge: give --judge METHOD")
            return
        if self.judge not in METHODS:
            raise RunConfigError(f"unknown --judge {self.judge!r}; use one of {', '.join(METHODS)}")
        if self.judge == "confidence" and self.agent != "verifier":
            raise RunConfigError("--judge confidence reads the verifier agent's own candidate scores: it judges "
                                 "--agent verifier only")
        if self.judge != "prore" and (self.probes is not None or self.probe_steps is not None
                                      or self.evaluator is not None):
            raise RunConfigError("--probes, --probe-steps and --evaluator apply only to --judge prore")
        if self.probes is not None and not 1 <= self.probes <= 5:
            raise RunConfigError(f"--probes must be between 1 and 5, got {self.probes}")
        if self.probe_steps is not None and not 1 <= self.probe_steps <= 30:
            raise RunConfigError(f"--probe-steps must be between 1 and 30, got {self.probe_steps}")
        if self.evaluator is not None and self.evaluator not in EVALUATORS:
            raise RunConfigError(f"unknown --evaluator {self.evaluator!r}; use one of {', '.join(EVALUATORS)}")

    @property
    def seed_list(self) -> list[int]:
        """``--seeds`` parsed: sorted, unique."""
        return list(self._seed_list)

    @property
    def n_workers(self) -> int | None:
        """``--workers`` parsed (None: ``auto``); 1 without ``--workers`` and ``--ray``."""
        return self._n_workers

    def judge_spec(self) -> Any:
        """The ``--judge`` options as a picklable judge factory (None without ``--judge``). The judge's
        model defaults to the agent's ``--model``, except for judges whose model is a trained
        checkpoint of their own (the compact judge): an agent's LLM is not one."""
        from droidverify.rewards.registry import JudgeSpec

        if self.judge is None:
            return None
        fallback = None if self.judge in ("compact", "lora", "confidence") else self.model
        return JudgeSpec(self.judge, model=self.judge_model if self.judge_model is not None else fallback,
                         probes=self.probes or 2, probe_steps=self.probe_steps or 6,
                         evaluator=self.evaluator or "generator", env=self.env)

    def templates(self) -> list[Any]:
        """The selected task templates (load the ``--tasks-module`` modules first); ``TaskError``
        names an unknown one."""
        from droidverify.tasks import registry

        if self.tasks:
            templates = [registry.get_template(n.strip()) for n in self.tasks.split(",") if n.strip()]
        elif self.split:
            templates = list(registry.templates_for_split(self.split))
        else:
            templates = list(registry.all_templates())
        return templates[:self.max_tasks] if self.max_tasks is not None else templates

    def resolve(self, default_out: Path | None = None) -> ResolvedRun:
        """Everything the run needs, checked against the registry and the trained verifier on disk:
        the templates (:class:`RunConfigError` when none, or too many episodes), the verifier
        directory (``RunError``, or the checkpoint's error when ``--memory`` / ``--content`` differ
        from what it was trained with), the agent and environment factories and ``run.json``'s
        configuration."""
        templates = self.templates()
        seeds = self.seed_list
        if not templates:
            raise RunConfigError("no task templates selected")
        if len(templates) * len(seeds) > MAX_EPISODES:
            raise RunConfigError(f"{len(templates)} templates x {len(seeds)} seeds is more than {MAX_EPISODES} "
                                 "episodes; split the run")
        judge = self.judge_spec()
        verifier_dir = None
        memory = self.memory
        if self.agent == "verifier":
            from droidverify.agents.verifier.trained import check_settings, load_compact, verifier_backbone

            verifier_dir = catalogue.resolve_verifier(self.verifier, self.model, self.env)
            # fails now, not in a worker, when memory/content differ from the checkpoint's; else adopts its memory
            if verifier_dir is not None and verifier_backbone(verifier_dir) == "compact":
                memory = load_compact(verifier_dir, memory=self.memory, content=self.content).memory
            elif verifier_dir is not None:
                memory = check_settings(verifier_dir, memory=self.memory).get("memory", memory)
        policy_dir = None
        if self.policy is not None:
            from droidverify.agents.trained_policy import check_policy, check_policy_base
            from droidverify.errors import CheckpointError

            policy_dir = Path(self.policy)
            try:  # wrong agent, memory or model file: refused now, not in a worker
                memory = check_policy(policy_dir, agent=self.agent, memory=self.memory)["memory"]
                check_policy_base(policy_dir, self.model)
            except CheckpointError as e:
                raise RunConfigError(f"--policy: {e}") from None
        memory = memory or "diff"
        from droidverify.agents.verifier.trained import verifier_digest

        if judge is not None and judge.method == "confidence":
            _check_confidence_judge(judge.model, verifier_digest(verifier_dir) if verifier_dir else None)

        apps = catalogue.installed_app_names(self.env)
        config = {"agent": self.agent, "model": self.model, "dtype": self.dtype, "apps": apps, "memory": memory,
                  "env": self.env, "serial": self.serial, "seeds": seeds, "tasks": [t.name for t in templates],
                  "max_steps": self.max_steps, "agent_seed": self.agent_seed,
                  "verifier": str(verifier_dir.resolve()) if verifier_dir else None,
                  "verifier_digest": verifier_digest(verifier_dir) if verifier_dir else None,
                  "judge": _judge_config(judge), "avoid_repeats": self.avoid_repeats,
                  "temperature": self.temperature, "top_k": self.top_k, "content": self.content}
        if self.attempts > 1:  # only then: a run without retries writes the run.json it always did
            config["attempts"] = self.attempts
        if self.retry_temperature is not None:
            config["retry_temperature"] = self.retry_temperature
        if policy_dir is not None:  # only then, like attempts: a run without one keeps its run.json
            from droidverify.agents.trained_policy import policy_digest

            config["policy"] = str(policy_dir.resolve())
            config["policy_digest"] = policy_digest(policy_dir)
        finish_check = None
        if self.finish_check is not None:
            from droidverify.rewards.finish_check import JudgeFinishCheck
            from droidverify.rewards.registry import JudgeSpec

            model = self.finish_check_model if self.finish_check_model is not None else (
                None if self.finish_check in ("compact", "lora") else self.model)
            finish_check = JudgeFinishCheck(JudgeSpec(self.finish_check, model=model, setting="passive",
                                                      verdict="score" if self.finish_check == "passive" else "text"))
            config["finish_check"] = {"method": self.finish_check, "model": model, "version": finish_check.version}
        agent = AgentSpec(self.agent, model=self.model, memory=memory, seed=self.agent_seed, apps=apps,
                          dtype=self.dtype, verifier=verifier_dir, device=self.device,
                          avoid_repeats=self.avoid_repeats, temperature=self.temperature, top_k=self.top_k,
                          retry_temperature=self.retry_temperature, content=self.content, finish_check=finish_check,
                          policy=policy_dir)
        out = Path(self.out) if self.out is not None else (default_out or Path("runs") / self.agent)
        return ResolvedRun(config=self, out_dir=out, pairs=[(t, s) for t in templates for s in seeds],
                           agent=agent, env=EnvSpec(self.env, self.serial, self.screenshots), judge=judge,
                           run_json=config)


@dataclass(frozen=True)
class ResolvedRun:
    """A :class:`RunConfig` made concrete: what ``run_many`` is given."""

    config: RunConfig
    out_dir: Path
    pairs: list[tuple[Any, int]]  # (template, seed)
    agent: AgentSpec
    env: EnvSpec
    judge: Any  # a JudgeSpec, or None
    run_json: dict[str, Any]  # run.json's "config" (resume compares it)


def _check_confidence_judge(calibration: str | None, digest: str | None) -> None:
    """The confidence judge's calibration must be the run's verifier's (its scores mean nothing for
    another checkpoint): :class:`RunConfigError` naming both, before any episode is played."""
    from droidverify.errors import DroidVerifyError
    from droidverify.rewards.confidence import ConfidenceJudge

    try:
        ConfidenceJudge.load(calibration).check_verifier(digest)
    except DroidVerifyError as e:
        raise RunConfigError(f"--judge confidence: {e}") from None


def _judge_config(spec: Any) -> dict[str, Any] | None:
    if spec is None:
        return None
    return {"method": spec.method, "name": spec.name, "version": spec.version, "model": spec.model,
            "probes": spec.probes, "probe_steps": spec.probe_steps, "evaluator": spec.evaluator}
