"""The trained LLM judge (issue 21, item 2): the scored question of the passive judge or of
SmartSnap's evidence judge, asked of a local language model with a LoRA adapter merged into its
weights, and read by V-Droid's score head (``agents.verifier.head``) on the next-token logits after
the question. P(success) = sigmoid(score); ``success`` iff it is at or above the threshold stored
with the judge, chosen on train templates when it was trained (``training.llm_judge``), never on
validation or test.

What each setting reads is its paper's: ``passive`` the whole episode as the passive judge's prompt
renders it (``prompts.passive.build_score_messages``); ``evidence`` only the submit message and the
exhibits it cites (``prompts.evidence.build_score_messages`` with the verdict question of the first
vote). SmartSnap's format rules come first: a malformed submission is a failure with reward -1,
without scoring. ``auto`` picks ``evidence`` for an episode that ends in ``submit`` (``passive`` when the
judge was trained for passive alone, as the shipped one is). Screen text is
untrusted: it only ever sits inside the episode turn, and the scored position follows the judge's
own fixed question.

A judge directory::

    judge.json          format, the settings it judges and the threshold of each, prompt versions,
                        prompt sizes, the base model's identity and the training config
    adapter/            the LoRA adapter (peft's files; merged at load, so running needs no peft)
    head.safetensors    the score head
    provenance.json     command, commit, data and metrics
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from droidverify.env.records import Trajectory
from droidverify.errors import CheckpointError, JudgeInputError
from droidverify.llm.base import Messages
from droidverify.rewards.base import Judgement, Tally, trajectory_id
from droidverify.rewards.compact_judge import CHOICES, SETTINGS, setting_for
from droidverify.rewards.prompts import evidence as evidence_prompt
from droidverify.rewards.prompts import passive as passive_prompt

FORMAT = "droidverify-llm-judge"
FORMAT_VERSION = 1
JUDGE_FILE = "judge.json"
PROMPT_VERSIONS = {"passive": passive_prompt.SCORE_VERSION, "evidence": evidence_prompt.SCORE_VERSION}
EVIDENCE_QUESTION = evidence_prompt.VOTE_QUESTIONS[0][0]  # the verdict question of the first vote
# Prompt sizes: a 135M model on a CPU trains on ~1-2k-token prompts; the judge runs with the sizes
# it was trained with (judge.json), whatever the untrained judges' defaults are.
DEFAULT_MAX_SCREEN_CHARS = 600
DEFAULT_MAX_CHARS = 4000


def judge_chat(traj: Trajectory, setting: str, *, max_screen_chars: int = DEFAULT_MAX_SCREEN_CHARS,
               max_chars: int = DEFAULT_MAX_CHARS) -> Messages | None:
    """The chat the judge scores for ``traj`` in ``setting`` (``passive`` or ``evidence``); None for
    an evidence-setting episode whose submission breaks SmartSnap's format rules. The trainer builds
    its examples with this function, so training and judging read the same prompt."""
    if setting == "passive":
        return passive_prompt.build_score_messages(traj, max_screen_chars=max_screen_chars, max_chars=max_chars)
    if setting == "evidence":
        from droidverify.rewards.smartsnap import check_submit

        check = check_submit(traj)
        if not check.ok:
            return None
        return evidence_prompt.build_score_messages(traj, check.message, check.evidences, EVIDENCE_QUESTION,
                                                    max_screen_chars=max_screen_chars)
    raise JudgeInputError(f"unknown judge setting {setting!r}; use one of {', '.join(SETTINGS)}")


def shipped_llm_judge_path() -> Path:
    """The LLM judge shipped in the package (passive setting, the bundled model; trained on CPU at
    small scale: docs/rewards.md, "The trained LLM judge")."""
    return Path(__file__).resolve().parent / "shipped_llm_judge"


def is_llm_judge(path: str | Path | None) -> bool:
    """Whether ``path`` is a trained LLM judge directory (its judge.json names this format)."""
    if path is None:
        return False
    try:
        return json.loads((Path(path) / JUDGE_FILE).read_text()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def read_llm_judge_meta(directory: str | Path) -> dict[str, Any]:
    """``judge.json`` of an LLM judge directory, checked; else :class:`CheckpointError`."""
    directory = Path(directory)
    path = directory / JUDGE_FILE
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"{directory} is not a trained LLM judge: no {JUDGE_FILE}") from None
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
        fmt = meta.get("format") if isinstance(meta, dict) else None
        raise CheckpointError(f"{directory}: not an LLM judge of format {FORMAT} v{FORMAT_VERSION} "
                              f"(judge.json says {fmt!r})")
    thresholds = meta.get("thresholds")
    if not isinstance(thresholds, dict) or not thresholds or set(thresholds) - set(SETTINGS) or not all(
            isinstance(t, (int, float)) and 0.0 <= t <= 1.0 for t in thresholds.values()):
        raise CheckpointError(f"{path}: thresholds must map settings ({', '.join(SETTINGS)}) to numbers in [0, 1], "
                              f"got {thresholds!r}")
    for setting in thresholds:
        want, have = PROMPT_VERSIONS[setting], meta.get("prompt_versions", {}).get(setting)
        if have != want:
            raise CheckpointError(f"{directory} was trained on the {setting} prompt {have!r}; this droidverify's is "
                                  f"{want!r}: train it again")
    for name in ("adapter/adapter_config.json", "adapter/adapter_model.safetensors", "head.safetensors"):
        if not (directory / name).is_file():
            raise CheckpointError(f"{directory} lacks {name}")
    return meta


def judge_digest(directory: str | Path) -> str:
    """A short digest of the judge's weights and judge.json (its judgements' version names it)."""
    directory = Path(directory)
    h = hashlib.sha256()
    for name in (JUDGE_FILE, "head.safetensors", "adapter/adapter_model.safetensors"):
        h.update(name.encode() + b"\0" + (directory / name).read_bytes())
    return h.hexdigest()[:12]


def write_llm_judge(directory: str | Path, *, weights: Callable[[Path], None], meta: dict[str, Any],
                    provenance: dict[str, Any] | None = None) -> Path:
    """Write a judge directory atomically: ``weights(tmp)`` writes adapter/ and head.safetensors."""
    directory = Path(directory)
    tmp = directory.with_name(directory.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    weights(tmp)
    (tmp / JUDGE_FILE).write_text(json.dumps({"format": FORMAT, "version": FORMAT_VERSION,
                                              "prompt_versions": dict(PROMPT_VERSIONS), **meta}, indent=1))
    if provenance is not None:
        (tmp / "provenance.json").write_text(json.dumps(provenance, indent=1, default=str))
    if directory.exists():
        shutil.rmtree(directory)
    tmp.rename(directory)
    return directory


def _version(digest: str, setting: str, thresholds: dict[str, float]) -> str:
    """Judgements are keyed by version: it names the weights, the setting and each threshold."""
    return f"lora-{digest}-{setting}:" + ",".join(f"{s}@t={t:.6g}" for s, t in thresholds.items())


def _needed(setting: str, thresholds: dict[str, Any]) -> tuple[str, ...]:
    """The settings a judge built for ``setting`` needs thresholds of: ``auto`` takes whichever of
    passive and evidence the judge was trained for (a judge trained for passive alone reads submit
    episodes passively)."""
    return tuple(s for s in SETTINGS if s in thresholds) if setting == "auto" else (setting,)


class LLMJudge:
    """A trained LLM judge as a ``Judge``. Reward: 1 success, 0 failure, -1 for a submission that
    breaks SmartSnap's format rules (evidence setting); ``undecided`` only when the scoring call
    failed or the episode has nothing to read."""

    name = "lora"

    def __init__(self, llm: Any, head: Any, thresholds: dict[str, float], *, setting: str = "auto",
                 max_screen_chars: int = DEFAULT_MAX_SCREEN_CHARS, max_chars: int = DEFAULT_MAX_CHARS,
                 digest: str = "memory") -> None:
        if setting not in CHOICES:
            raise JudgeInputError(f"unknown judge setting {setting!r}; use one of {', '.join(CHOICES)}")
        need = _needed(setting, thresholds)
        missing = [s for s in need if s not in thresholds]
        if missing or not need:
            raise JudgeInputError(f"this LLM judge was trained for {', '.join(thresholds) or 'no setting'}, not for "
                                  f"{' or '.join(missing or SETTINGS)}; pick --setting {' or '.join(thresholds)}")
        self.llm, self.head, self.setting = llm, head, setting
        self.thresholds = {s: float(thresholds[s]) for s in need}
        self.max_screen_chars, self.max_chars = max_screen_chars, max_chars
        self.version = _version(digest, setting, self.thresholds)
        self.verdict = "score"

    @staticmethod
    def version_of(directory: str | Path, setting: str = "auto") -> str:
        """The version a judge loaded from ``directory`` will have, without loading its model."""
        meta = read_llm_judge_meta(directory)
        need = _needed(setting, meta["thresholds"])
        return _version(judge_digest(directory), setting, {s: meta["thresholds"][s] for s in need
                                                           if s in meta["thresholds"]})

    @classmethod
    def load(cls, directory: str | Path, setting: str = "auto", *, model: str | None = None, dtype: str = "auto",
             device: str = "cpu", llm: Any = None) -> LLMJudge:
        """The judge in ``directory`` on its base model: ``llm`` (an already loaded ``LocalLLM`` of
        that model; its weights are changed in place), else ``model`` (default: the one it was
        trained on) loaded here."""
        from droidverify.agents.verifier.trained import apply_adapter

        if setting not in CHOICES:  # before loading a model
            raise JudgeInputError(f"unknown judge setting {setting!r}; use one of {', '.join(CHOICES)}")
        meta = read_llm_judge_meta(directory)
        if llm is None:
            from droidverify.llm.local import LocalLLM

            llm = LocalLLM(model if model is not None else meta.get("train_config", {}).get("model"),
                           dtype=dtype, device=device)
        head = apply_adapter(llm, directory, meta["base_model"])
        return cls(llm, head, meta["thresholds"], setting=setting,
                   max_screen_chars=int(meta.get("max_screen_chars", DEFAULT_MAX_SCREEN_CHARS)),
                   max_chars=int(meta.get("max_chars", DEFAULT_MAX_CHARS)), digest=judge_digest(directory))

    def judge(self, trajectory: Trajectory) -> Judgement:
        from droidverify.rewards.scoring import score_chats

        tally = Tally()
        eid = trajectory_id(trajectory)
        setting = setting_for(trajectory, self.setting)
        if setting not in self.thresholds and self.setting == "auto":
            # auto on a judge trained for one setting: a submit episode is read passively (the passive
            # view shows its message); an evidence-only judge cannot read an episode without a submit
            if setting == "evidence":
                setting = "passive"
            else:
                return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                       reward=0.0, components={"setting": setting},
                                       error="this LLM judge was trained for the evidence setting only, and the "
                                             "episode does not end in submit")
        threshold = self.thresholds[setting]
        base: dict[str, Any] = {"setting": setting, "threshold": threshold}
        if not (trajectory.goal or "").strip() or not trajectory.steps:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, components=base, error="the episode has no goal or no step")
        chat = judge_chat(trajectory, setting, max_screen_chars=self.max_screen_chars, max_chars=self.max_chars)
        if chat is None:
            from droidverify.rewards.smartsnap import check_submit

            reason = check_submit(trajectory).reason
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="failure",
                                   reward=-1.0, components={**base, "format_ok": False, "format_error": reason},
                                   rationale=f"format failure: {reason}")
        [s] = score_chats(self.llm, [chat], tally, head=self.head)
        if s.p_yes is None:
            return tally.judgement(episode_id=eid, judge=self.name, version=self.version, outcome="undecided",
                                   reward=0.0, parse_status="error", error=s.error, components=base)
        ok = s.p_yes >= threshold
        extra = {"format_ok": True} if setting == "evidence" else {}
        return tally.judgement(
            episode_id=eid, judge=self.name, version=self.version, outcome="success" if ok else "failure",
            reward=1.0 if ok else 0.0, parse_status="strict",
            components={**base, **extra, "p_yes": s.p_yes, "p_success": s.p_yes, "score": s.score},
            rationale=f"P(success) = {s.p_yes:.4f} {'>=' if ok else '<'} threshold {threshold:.4f}")
