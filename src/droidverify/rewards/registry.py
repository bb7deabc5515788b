"""The judge catalogue: every judging method by name, how to build its judge, and a picklable factory.

``make_judge("rule")`` builds one judge now; :class:`JudgeSpec` is the same choice as a picklable
factory whose ``name`` and ``version`` are known without building the judge (``--workers``, the
runner's ``--judge``, GRPO players). The method names (:data:`METHODS`, the scored ones in
:data:`SCORE_PROMPTS`, ProRe's :data:`EVALUATORS`) are listed here once; ``droidverify judge``
(``cli.judge``, which re-exports them), the runner and library users read them from here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from droidverify.agents.registry import LLM_AGENTS
from droidverify.llm.registry import is_remote
from droidverify.rewards.compact_judge import COMPACT_CHOICES

__all__ = ["COMPACT_SETTINGS", "DEFAULT_JUDGE", "EVALUATORS", "METHODS", "SCORE_PROMPTS", "VERDICTS", "JudgeSpec", "check_evaluator",
           "check_verdict_options", "make_judge", "prore_evaluator", "score_prompt_version"]

# method -> (module, judge class): built lazily (a judge's module may load torch or a model)
_JUDGE_CLASSES = {"rule": ("droidverify.rewards.rule", "RuleJudge"),
                  "passive": ("droidverify.rewards.passive", "PassiveJudge"),
                  "smartsnap": ("droidverify.rewards.smartsnap", "EvidenceJudge"),
                  "prore": ("droidverify.rewards.prore", "ProReJudge"),
                  "see": ("droidverify.rewards.see", "SEEJudge"),
                  "compact": ("droidverify.rewards.compact_judge", "CompactJudge"),
                  "lora": ("droidverify.rewards.llm_judge", "LLMJudge"),
                  "confidence": ("droidverify.rewards.confidence", "ConfidenceJudge")}
METHODS = tuple(_JUDGE_CLASSES)
# The judge asked for by default (``run --attempts K`` without ``--judge``; GRPO rollouts judge with
# the compact evidence judge too): the trained one, the only judge here that decides on this CPU.
DEFAULT_JUDGE = "compact"
# Methods whose verdict can be scored, and the prompt module that versions their scored prompt.
SCORE_PROMPTS = {"passive": "droidverify.rewards.prompts.passive",
                 "smartsnap": "droidverify.rewards.prompts.evidence",
                 "prore": "droidverify.rewards.prompts.prore"}
VERDICTS = ("text", "score")
# ProRe's evaluator agents: the LLM agents of ``droidverify run`` (the generator first: the default).
EVALUATORS = ("generator", *(a for a in LLM_AGENTS if a != "generator"))
# The trained compact judge's settings (rewards.compact_judge.COMPACT_CHOICES): what it reads of an episode.
COMPACT_SETTINGS = COMPACT_CHOICES  # the compact judge's own list (its module loads no model on import)


def check_evaluator(evaluator: object) -> str:
    """A ProRe evaluator name, or :class:`JudgeInputError`."""
    from droidverify.errors import JudgeInputError

    if not isinstance(evaluator, str) or evaluator not in EVALUATORS:
        raise JudgeInputError(f"unknown ProRe evaluator {evaluator!r}; use one of {', '.join(EVALUATORS)}")
    return evaluator


def prore_evaluator(evaluator: str, llm: Any, model: str | None, *, env: str = "sim") -> Any:
    """ProRe's evaluator as a picklable agent factory: ``droidverify run --agent EVALUATOR``'s
    ``AgentSpec`` (history memory, except a trained verifier's own; the apps of ``env``). The
    generator and smartsnap agents share the
    judge's ``llm``; the verifier agent loads its own copy of ``model`` (with the shipped verifier for
    the bundled model: its adapter is merged into the weights, which must not be the judge's)."""
    from droidverify.agents.registry import AgentSpec, installed_app_names, resolve_verifier

    check_evaluator(evaluator)
    apps = installed_app_names(env)
    if evaluator == "verifier":
        from droidverify.agents.verifier.trained import check_settings

        # a trained verifier runs with the memory it was trained with (history only when it says so)
        verifier = resolve_verifier(None, model)
        memory = check_settings(verifier, memory=None).get("memory", "history") if verifier is not None else "history"
        return AgentSpec("verifier", model=model, memory=memory, seed=0, apps=apps, verifier=verifier)
    return AgentSpec(evaluator, model=model, memory="history", seed=0, apps=apps).with_llm(llm)


def score_prompt_version(method: str) -> str:
    """The scored prompt version of ``method`` (:class:`JudgeInputError` if it has no scored form)."""
    from droidverify.errors import JudgeInputError

    if method not in SCORE_PROMPTS:
        raise JudgeInputError(f"method {method!r} has no scored verdict; use one of {', '.join(SCORE_PROMPTS)}")
    return str(importlib.import_module(SCORE_PROMPTS[method]).SCORE_VERSION)


def check_verdict_options(method: str, verdict: str, threshold: float) -> None:
    """A verdict mode and threshold the method can use, else :class:`JudgeInputError`."""
    from droidverify.rewards.scoring import check_threshold, check_verdict_mode

    check_verdict_mode(verdict)
    check_threshold(threshold)
    if verdict == "score":
        score_prompt_version(method)


def make_judge(method: str, *, model: str | None, votes: int, max_tokens: int, probes: int,
               probe_steps: int, evaluator: str = "generator", env: str = "sim", verdict: str = "text",
               threshold: float = 0.5, expect_model: str | None = None, setting: str = "auto",
               world_model: str = "llm", base_model: str | None = None) -> Any:
    """Build the judge for ``method`` (loading the LLM only for model-based methods). ``evaluator``
    (ProRe): the agent that probes the end state, one of :data:`EVALUATORS` (:func:`prore_evaluator`);
    ``env``: where it probes (the apps it may open). ``verdict``/``threshold``: free-text or scored
    verdicts (``rewards.scoring``). ``expect_model``: the model name a judge file was calibrated on;
    a loaded model of another name is a :class:`JudgeInputError`. ``compact``: ``model`` is the
    trained judge's directory (None: the shipped judges), ``setting`` what it reads (passive,
    evidence, or auto: evidence for episodes that end in submit); no language model is loaded.
    ``lora``: ``model`` is a trained LLM judge's directory (``training.llm_judge``; None: the shipped one), loaded on
    ``base_model`` (None: the model it was trained on), with the same ``setting`` choices.
    ``confidence``: ``model`` is a calibration file of the verifier agent's own confidence
    (``rewards.confidence``; None: the shipped verifier's); it judges verifier-agent episodes only."""
    check_verdict_options(method, verdict, threshold)  # before loading a model
    if method == "prore":
        check_evaluator(evaluator)
    if method == "rule":
        from droidverify.rewards.rule import RuleJudge

        return RuleJudge()
    if method == "compact":
        from droidverify.rewards.compact_judge import CompactJudge

        return CompactJudge.load(model, setting)
    if method == "lora":
        from droidverify.rewards.llm_judge import LLMJudge

        return LLMJudge.load(_lora_dir(model), setting, model=base_model)
    if method == "confidence":
        from droidverify.rewards.confidence import ConfidenceJudge

        return ConfidenceJudge.load(model)
    if method == "see" and world_model == "learned":  # SEE's learned world model: no LLM to load
        from droidverify.rewards.see import SEEJudge, SemanticEstimator

        return SEEJudge(SemanticEstimator(world_model="learned"))
    from droidverify.llm.registry import load_llm

    llm = load_llm(model)
    if expect_model is not None and llm.name != expect_model:
        from droidverify.errors import JudgeInputError

        raise JudgeInputError(f"the judge file was calibrated on model {expect_model!r}, but --model "
                              f"loads {llm.name!r}; calibrate this model with `droidverify judge calibrate`")
    if method == "passive":
        from droidverify.rewards.passive import PassiveJudge

        return PassiveJudge(llm, max_tokens=max_tokens, verdict=verdict, threshold=threshold)
    if method == "smartsnap":
        from droidverify.rewards.smartsnap import EvidenceJudge

        return EvidenceJudge(llm, votes=votes, max_tokens=max_tokens, verdict=verdict, threshold=threshold)
    if method == "prore":
        from droidverify.rewards.prore import ProReJudge

        return ProReJudge(llm, evaluator=prore_evaluator(evaluator, llm, model, env=env), k=probes,
                          max_probe_steps=probe_steps, max_tokens=max_tokens, verdict=verdict,
                          threshold=threshold)
    from droidverify.rewards.see import SEEJudge, SemanticEstimator

    return SEEJudge(SemanticEstimator(llm, max_tokens=min(max_tokens, 64)))


def _lora_dir(model: str | None) -> str:
    """A trained LLM judge's directory: ``model``, or the shipped one when None."""
    if model is None:
        from droidverify.rewards.llm_judge import shipped_llm_judge_path

        return str(shipped_llm_judge_path())
    return model


@dataclass(frozen=True)
class JudgeSpec:
    """A picklable judge factory (``--workers``): :func:`make_judge` where it is called, i.e. once per
    worker; ``name`` and ``version`` are known without building the judge (nor loading its model).
    ``evaluator`` and ``env``: ProRe's evaluator agent and where it probes (:func:`make_judge`).
    ``verdict``, ``threshold``, ``expect_model``: scored verdicts and a judge file's model check.
    ``compact``: ``model`` is the trained judge's directory (None: shipped), ``setting`` its setting.
    ``lora``: ``model`` is the trained LLM judge's directory, ``base_model`` its base LLM.
    ``confidence``: ``model`` is the calibration file (None: the shipped one)."""

    method: str
    model: str | None = None
    votes: int = 3
    max_tokens: int = 256
    probes: int = 2
    probe_steps: int = 6
    evaluator: str = "generator"
    env: str = "sim"
    verdict: str = "text"
    threshold: float = 0.5
    expect_model: str | None = None
    setting: str = "auto"
    world_model: str = "llm"  # see: "llm" (ASL's prompt) or "learned" (rewards.see's shipped model)
    base_model: str | None = None  # lora: the base LLM (None: the one the judge was trained on)

    def __post_init__(self) -> None:
        from droidverify.errors import JudgeInputError

        if self.method not in METHODS:
            raise JudgeInputError(f"unknown judging method {self.method!r}; use one of {', '.join(METHODS)}")
        check_evaluator(self.evaluator)
        check_verdict_options(self.method, self.verdict, self.threshold)
        if self.setting not in COMPACT_SETTINGS:
            raise JudgeInputError(f"unknown judge setting {self.setting!r}; use one of {', '.join(COMPACT_SETTINGS)}")
        if self.world_model not in ("llm", "learned"):
            raise JudgeInputError(f"unknown SEE world model {self.world_model!r}; use llm or learned")

    def _cls(self) -> Any:
        module, cls = _JUDGE_CLASSES[self.method]
        return getattr(importlib.import_module(module), cls)

    @property
    def name(self) -> str:
        return self._cls().name

    @property
    def version(self) -> str:
        if self.method == "see" and self.world_model == "learned":  # keyed by the shipped weights
            from droidverify.rewards.see import shipped_world_model

            return shipped_world_model().version
        if self.method == "compact":  # names its weights and thresholds: read them (no model loads)
            return str(self._cls().load(self.model, self.setting).version)
        if self.method == "lora":
            return str(self._cls().version_of(_lora_dir(self.model), self.setting))
        if self.method == "confidence":  # names its signal, threshold and verifier: read the file
            return str(self._cls().load(self.model).version)
        if self.verdict == "score":
            from droidverify.rewards.scoring import scored_version

            return scored_version(score_prompt_version(self.method), self.threshold)
        return self._cls().version

    @property
    def loads_local_model(self) -> bool:
        return self.method not in ("rule", "confidence") and not is_remote(self.model)

    def __call__(self) -> Any:
        return make_judge(self.method, model=self.model, votes=self.votes, max_tokens=self.max_tokens,
                          probes=self.probes, probe_steps=self.probe_steps, evaluator=self.evaluator,
                          env=self.env, verdict=self.verdict, threshold=self.threshold,
                          expect_model=self.expect_model, setting=self.setting, world_model=self.world_model,
                          base_model=self.base_model)
