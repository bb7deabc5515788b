"""Gymnasium adapter: text observations (goal + numbered element list), JSON/free-text actions.

``DroidSimGymEnv`` passes ``gymnasium.utils.env_checker.check_env`` (tested). Observation and
action spaces are ``gymnasium.spaces.Text`` over printable Unicode. An action string is parsed
with ``droidverify.actions.parse.parse_action`` (JSON or the other formats it accepts); an
unusable action is not fatal: the step counts, the screen stays, ``info["error"]`` says why.
Reward is the episode's success by the runner's rule (:func:`~droidverify.env.records.episode_success`)
when the agent ends the episode; ``answer`` ends it here (as ``answer_ends_episode``), so a query
task is one answer. It lives in ``runner`` because it composes the simulator with the task registry.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
from gymnasium import spaces

from droidverify.actions.parse import parse_action
from droidverify.env.records import episode_end, episode_success
from droidverify.env.sim.env import SimEnv
from droidverify.errors import ActionError, TaskError
from droidverify.tasks import registry
from droidverify.tasks.base import Task, TaskTemplate
from droidverify.ui.describe import describe_list

# Printable Unicode up to the end of the Basic Multilingual Plane's common blocks, plus newline/tab.
CHARSET = frozenset(["\n", "\t", *map(chr, range(0x20, 0x7F)), *map(chr, range(0xA0, 0x3000)),
                     *map(chr, range(0xFF00, 0xFFF0))])
MAX_OBS_CHARS = 32000
MAX_ACTION_CHARS = 4000


def _clean(text: str) -> str:
    # characters outside the space's charset (emoji, CJK) are shown as "?" so observations stay in-space
    return "".join(c if c in CHARSET else "?" for c in text)[:MAX_OBS_CHARS]


class DroidSimGymEnv(gym.Env):
    """One simulated phone per env; each reset draws a template and a parameter seed.

    ``tasks``: template names (default: every template of ``split``). ``seeds``: the parameter
    seeds to draw from (default 0..999, the "seen" parameter split).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array", "ansi"], "render_fps": 2}

    def __init__(self, tasks: list[str] | None = None, *, split: str = "train", seeds: range | list[int] | None = None,
                 max_steps: int | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if tasks:
            self.templates: list[TaskTemplate] = [registry.get_template(n) for n in tasks]
        else:
            self.templates = registry.templates_for_split(split)
        if not self.templates:
            raise TaskError(f"no task templates for split {split!r}")
        self.seeds = list(seeds if seeds is not None else range(registry.UNSEEN_SEED_START))
        if not self.seeds:
            raise TaskError("seeds must not be empty")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise TaskError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.observation_space = spaces.Text(max_length=MAX_OBS_CHARS, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(max_length=MAX_ACTION_CHARS, min_length=1, charset=CHARSET)
        self.task: Task | None = None
        self.sim: SimEnv | None = None
        self._steps = 0
        self._limit = 0
        self._text = ""

    def _observe_text(self) -> str:
        assert self.sim is not None and self.task is not None
        obs = self.sim.last_observation or self.sim.observe()
        return _clean(f"Goal: {self.task.goal}\nScreen ({obs.info.get('location', '')}):\n"
                      f"{describe_list(obs.elements).text}")

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        tmpl = self.templates[int(self.np_random.integers(len(self.templates)))]
        param_seed = self.seeds[int(self.np_random.integers(len(self.seeds)))]
        if options and "task" in options:
            tmpl = registry.get_template(options["task"])
        if options and "param_seed" in options:
            param_seed = int(options["param_seed"])
        self.task = tmpl.instantiate(param_seed)
        if self.sim is not None:
            self.sim.close()
        self.sim = SimEnv(self.task, param_seed)
        self.sim.reset()
        self._steps = 0
        self._limit = self.max_steps or self.task.max_steps
        self._text = self._observe_text()
        return self._text, {"task": tmpl.name, "param_seed": param_seed, "goal": self.task.goal}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self.sim is None or self.task is None:
            raise TaskError("call reset() before step()")
        self._steps += 1
        info: dict[str, Any] = {"task": self.task.id}
        terminated, reward = False, 0.0
        try:
            act = parse_action(action)
            self.sim.step(act)
            info["action"] = act.to_json()
            terminated, declared = episode_end(act, answer_ends_episode=True)
            if terminated:
                score = float(self.task.is_successful(self.sim.phone, self.sim.last_answer))
                reward = episode_success(score, declared) or 0.0
        except ActionError as exc:
            info["error"] = f"{type(exc).__name__}: {exc}"
        truncated = not terminated and self._steps >= self._limit
        self._text = self._observe_text()
        return self._text, reward, terminated, truncated, info

    def render(self) -> Any:
        if self.sim is None:
            return None
        if self.render_mode == "ansi":
            return self._text
        if self.render_mode == "rgb_array":
            import io

            import numpy as np
            from PIL import Image

            from droidverify.ui.render import render_png

            obs = self.sim.last_observation or self.sim.observe()
            return np.asarray(Image.open(io.BytesIO(render_png(obs, scale=0.25))).convert("RGB"))
        return None

    def close(self) -> None:
        if self.sim is not None:
            self.sim.close()
            self.sim = None
