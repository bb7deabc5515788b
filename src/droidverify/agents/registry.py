"""The agent catalogue: every agent ``droidverify run --agent`` knows, by name, and how to build one.

``make_agent("oracle")`` builds one agent now; :class:`AgentSpec` is the same choice as a picklable
factory (worker processes and Ray actors receive the spec, not a model; docs/parallel.md). The names
(:data:`AGENTS`, :data:`LLM_AGENTS`, :data:`SAMPLING_AGENTS`, :data:`MEMORIES`, ...) are listed here
once; the runner, the CLI, the judges (ProRe's evaluator) and the trainers read them from here.
``droidverify.runner.factories`` re-exports what it always offered.
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from droidverify.errors import RunError
from droidverify.llm.registry import is_remote, load_model

if TYPE_CHECKING:
    from droidverify.agents.base import Agent

__all__ = ["ADB_DEFAULT_BACKBONE", "AGENTS", "CONTENT_MODES", "DTYPES", "ENVS", "LLM_AGENTS", "MEMORIES",
           "SAMPLING_AGENTS", "AgentSpec", "check_choice", "check_sampling", "installed_app_names", "make_agent",
           "resolve_verifier"]

AGENTS = ("oracle", "random", "noop", "verifier", "generator", "smartsnap")
LLM_AGENTS = ("verifier", "generator", "smartsnap")
SAMPLING_AGENTS = ("generator", "smartsnap")  # the agents that sample their actions (the verifier ranks)
MEMORIES = ("diff", "history", "llm", "notes")
DTYPES = ("auto", "float32", "bfloat16")
CONTENT_MODES = ("llm", "select")  # the verifier agent: generate text, or choose among proposed values
ENVS = ("sim", "adb")  # where an agent acts: the apps it may open differ (runner.factories re-exports it)


def installed_app_names(env: str) -> list[str]:
    """The apps an agent may open on the environment: every simulator app, or the adb app table.

    Never derived from the selected tasks: offering only the task's apps would tell the agent
    which app the task is about.
    """
    if env == "sim":
        from droidverify.env.sim.app import installed_apps

        return sorted(app.name for app in installed_apps().values())
    if env == "adb":
        from droidverify.env.apps import APPS

        return sorted(info.name for info in APPS)
    raise RunError(f"unknown environment {env!r}; use sim or adb")


# Which shipped backbone `--env adb` uses when --verifier is left out: the one better on the
# real-screen benchmark (`benchmarks/compact_verifier.py --part real`; docs/training.md has the
# figures: since the type-head checkpoint of 2026-11-27 the compact one, 4 of 8 against 3 of 8).
ADB_DEFAULT_BACKBONE = "compact"


def resolve_verifier(spec: str | Path | None, model: str | None, env: str = "sim") -> Path | None:
    """A verifier choice -> a trained verifier directory or None: a directory; ``"compact"`` / ``"llm"``
    (the shipped compact verifier / the shipped LLM verifier for the bundled model); ``"none"`` (the
    untrained model, P(Yes) scores); or None: with no ``model`` the shipped default (the compact
    verifier; on ``env="adb"`` the backbone better on real screens), with a ``model`` none."""
    from droidverify.agents.verifier.trained import shipped_compact_path, shipped_verifier_path

    remote = is_remote(model)
    name = spec.strip().lower() if isinstance(spec, str) else None
    if spec is None:
        if model is not None:
            return None
        first = ADB_DEFAULT_BACKBONE if env == "adb" else "compact"
        for path in ((shipped_compact_path(), shipped_verifier_path()) if first == "compact"
                     else (shipped_verifier_path(), shipped_compact_path())):
            if (path / "verifier.json").is_file():
                return path
        return None
    if name == "none":
        return None
    if name == "compact":
        spec = shipped_compact_path()
    elif name == "llm":
        spec = shipped_verifier_path()
    from droidverify.agents.verifier.trained import verifier_backbone

    if spec is not None and (Path(spec) / "verifier.json").is_file() and verifier_backbone(spec) == "compact":
        return Path(spec)  # a compact verifier needs no model: any --model only generates content
    if remote:
        raise RunError("--verifier needs a local model: a trained head reads next-token logits, which an "
                       "OpenAI-compatible server does not return (use --verifier none)")
    path = Path(spec)
    if not (path / "verifier.json").is_file():
        raise RunError(f"--verifier {str(spec)!r} is not a trained verifier directory (no verifier.json)")
    return path


@dataclass
class AgentSpec:
    """A picklable agent factory: ``spec()`` builds one fresh agent per episode.

    Worker processes and Ray actors receive the spec, not a model: the LLM (and a trained verifier
    head) is loaded on the first call in each process and shared by every later agent there, so a
    local model is loaded once per worker. An ``openai:URL`` model is only a client: all workers
    share that server.
    """

    agent: str
    _: KW_ONLY  # everything but the agent's name by keyword: AgentSpec("verifier", model=..., memory=...)
    model: str | None = None
    memory: str = "diff"
    seed: int = 0
    apps: list[str] = field(default_factory=list)
    dtype: str = "auto"
    verifier: Path | None = None
    device: str = "cpu"
    avoid_repeats: bool = False  # verifier agent: never repeat an action on a screen it was taken on
    temperature: float = 0.0  # verifier agent: > 0 draws the action from softmax(scores / T), seeded by seed
    top_k: int | None = None  # verifier agent: draw among the k best only
    retry_temperature: float | None = None  # verifier agent: the temperature of judged retries
    content: str | None = None  # verifier agent: llm | select (None: the backbone's default)
    # verifier agent: a picklable (goal, history, observation, action) -> (accept, detail) asked before
    # status complete (``rewards.finish_check.JudgeFinishCheck``); None: completion is not checked
    finish_check: Any = None
    # generator / smartsnap agent: a trained LLM policy directory (``train llm-policy`` export), merged
    # into the loaded model; None: the model as it is
    policy: Path | None = None
    _loaded: tuple[Any, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_loaded"] = None  # a loaded model never travels to a worker; each loads its own
        return state

    @property
    def agent_name(self) -> str:
        """The name the built agents carry (``run_many`` checks it without loading a model)."""
        return self.agent

    @property
    def compact(self) -> bool:
        """A verifier agent on a compact verifier: no language model unless ``model`` names one."""
        if self.agent != "verifier" or self.verifier is None:
            return False
        from droidverify.agents.verifier.trained import verifier_backbone

        return verifier_backbone(self.verifier) == "compact"

    @property
    def loads_local_model(self) -> bool:
        if self.compact and self.model is None:
            return False
        return self.agent in LLM_AGENTS and not is_remote(self.model)

    def with_llm(self, llm: Any) -> AgentSpec:
        """This spec building its agents on ``llm``, already loaded in this process (shared with a
        judge, say: ProRe's evaluator), instead of loading ``model``. Not for the verifier agent with
        a trained verifier, whose adapter is merged into the model in place (it would change the
        sharer's model too). Like any loaded model, ``llm`` is not pickled with the spec."""
        if self.agent == "verifier" and self.verifier is not None:
            raise RunError("a verifier agent with a trained verifier changes its model in place; it "
                           "cannot share an LLM (leave it to load its own)")
        if self.policy is not None:
            raise RunError("an agent with a trained policy changes its model in place; it cannot share "
                           "an LLM (leave it to load its own)")
        spec = replace(self)
        spec._loaded = (llm, None)
        return spec

    def _llm(self) -> tuple[Any, Any]:
        if self._loaded is None:
            if self.agent == "verifier" and self.verifier is not None and not self.compact:
                from droidverify.agents.verifier.trained import check_settings

                # a verifier trained on one memory's prompts runs with that memory (before a model loads)
                check_settings(self.verifier, memory=self.memory)

            if self.policy is not None:
                from droidverify.agents.trained_policy import check_policy

                check_policy(self.policy, agent=self.agent, memory=self.memory)  # before a model loads
            llm = load_model(self.model, dtype=self.dtype, device=self.device)
            # second slot: the trained verifier's score head, or the trained policy's metadata
            extra = None
            if self.agent == "verifier" and self.verifier is not None and not self.compact:
                from droidverify.agents.verifier.trained import apply_verifier

                extra = apply_verifier(llm, self.verifier)
            elif self.policy is not None:
                from droidverify.agents.trained_policy import apply_policy

                extra = apply_policy(llm, self.policy)
            self._loaded = (llm, extra)
        return self._loaded

    def __call__(self) -> Any:
        if self.policy is not None and self.agent not in SAMPLING_AGENTS:
            raise RunError(f"a trained LLM policy plays --agent {' or '.join(SAMPLING_AGENTS)}, not {self.agent}")
        if self.agent == "oracle":
            from droidverify.agents.oracle import OracleAgent

            return OracleAgent()
        if self.agent == "noop":
            from droidverify.agents.random import NoopAgent

            return NoopAgent()
        if self.agent == "random":
            from droidverify.agents.random import RandomAgent

            return RandomAgent(self.seed, apps=self.apps)
        if self.agent not in LLM_AGENTS:  # before loading a model for nothing
            raise RunError(f"unknown agent {self.agent!r}; use one of {', '.join(AGENTS)}")
        if self.compact:
            from droidverify.agents.verifier import VerifierAgent
            from droidverify.agents.verifier.trained import load_compact

            if self._loaded is None:  # the scorer loads once per process, like a model
                llm = self._llm()[0] if self.model is not None else None
                self._loaded = (llm, load_compact(self.verifier, memory=self.memory,  # type: ignore[arg-type]
                                                  content=self.content))
            llm, scorer = self._loaded
            return VerifierAgent(llm, scorer=scorer, memory=self.memory, content=scorer.content, apps=self.apps,
                                 avoid_repeats=self.avoid_repeats, temperature=self.temperature,
                                 top_k=self.top_k, sample_seed=self.seed, finish_check=self.finish_check,
                                 retry_temperature=self.retry_temperature)
        llm, extra = self._llm()  # extra: the LLM verifier's score head, or the trained policy's metadata
        if self.agent == "verifier":
            from droidverify.agents.verifier import VerifierAgent

            return VerifierAgent(llm, memory=self.memory, apps=self.apps, head=extra, content=self.content,
                                 avoid_repeats=self.avoid_repeats, temperature=self.temperature,
                                 top_k=self.top_k, sample_seed=self.seed, finish_check=self.finish_check,
                                 retry_temperature=self.retry_temperature)
        if self.agent == "smartsnap":  # SmartSnap's self-verifying agent: ends with submit(message, evidences)
            from droidverify.agents.selfverify import SelfVerifyingAgent

            return SelfVerifyingAgent(llm, memory=self.memory, **self._policy_prompt(extra))
        from droidverify.agents.generator import GeneratorAgent

        return GeneratorAgent(llm, memory=self.memory, **self._policy_prompt(extra))

    def _policy_prompt(self, meta: Any) -> dict[str, Any]:
        """A trained policy's agent describes the screen as the policy was trained to read it."""
        return {"description": meta["ui_style"]} if self.policy is not None else {}


def check_choice(what: str, value: object, allowed: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise RunError(f"unknown {what} {value!r}; use one of {', '.join(allowed)}")


def make_agent(agent: str, *, model: str | None = None, memory: str = "diff", seed: int = 0,
               apps: list[str] | None = None, dtype: str = "auto", verifier: str | Path | None = None,
               device: str = "cpu", env: str = "sim", avoid_repeats: bool = False,
               temperature: float = 0.0, top_k: int | None = None, content: str | None = None,
               policy: str | Path | None = None) -> Agent:
    """One agent as ``droidverify run --agent AGENT`` builds it (same options, same defaults).

    ``apps`` defaults to every app of ``env`` (what the agent may open); ``verifier`` as
    ``--verifier`` (None: the shipped verifier for the bundled model); ``policy`` as ``--policy`` (a
    trained LLM policy of the generator or smartsnap agent, merged into ``model``). Bad choices raise
    :class:`RunError`; a model that cannot be loaded raises ``ModelLoadError``.
    """
    check_choice("agent", agent, AGENTS)
    check_choice("memory", memory, MEMORIES)
    check_choice("dtype", dtype, DTYPES)
    check_choice("environment", env, ENVS)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RunError(f"the agent seed must be an int, got {type(seed).__name__}")
    if verifier is not None and agent != "verifier":
        raise RunError("verifier= applies only to the verifier agent")
    if avoid_repeats and agent != "verifier":
        raise RunError("avoid_repeats= applies only to the verifier agent")
    check_sampling(agent, temperature, top_k)
    if content is not None:
        if agent != "verifier":
            raise RunError("content= applies only to the verifier agent")
        check_choice("content", content, CONTENT_MODES)
    if policy is not None and agent not in SAMPLING_AGENTS:
        raise RunError(f"policy= applies only to the {' and '.join(SAMPLING_AGENTS)} agents")
    verifier_dir = resolve_verifier(verifier, model, env) if agent == "verifier" else None
    app_names = list(apps) if apps is not None else installed_app_names(env)
    return AgentSpec(agent, model=model, memory=memory, seed=seed, apps=app_names,  # type: ignore[no-any-return]
                     dtype=dtype, verifier=verifier_dir, device=device, avoid_repeats=avoid_repeats,
                     temperature=temperature, top_k=top_k, content=content,
                     policy=Path(policy) if policy is not None else None)()


def check_sampling(agent: str, temperature: float, top_k: int | None,
                   retry_temperature: float | None = None) -> None:
    """Raise :class:`RunError` unless ``temperature``/``top_k``/``retry_temperature`` are valid for ``agent``."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
            or not math.isfinite(temperature) or temperature < 0:
        raise RunError(f"temperature must be a finite number >= 0, got {temperature!r}")
    if retry_temperature is not None and (isinstance(retry_temperature, bool)
                                          or not isinstance(retry_temperature, (int, float))
                                          or not math.isfinite(retry_temperature) or retry_temperature <= 0):
        raise RunError(f"retry_temperature must be a finite number > 0, got {retry_temperature!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise RunError(f"top_k must be an integer >= 1, got {top_k!r}")
    if (temperature > 0 or top_k is not None or retry_temperature is not None) and agent != "verifier":
        raise RunError("temperature=, top_k= and retry_temperature= apply only to the verifier agent")
    if top_k is not None and temperature <= 0 and retry_temperature is None:
        raise RunError("top_k= needs temperature > 0 or retry_temperature (without either the agent takes "
                       "the argmax)")
