"""The one episode loop (:mod:`droidverify.episode.loop`), below the runner, the judges and the trainers
that play episodes: above agents, env and tasks, below rewards, training and runner."""

from __future__ import annotations

from droidverify.episode.loop import (
    ENDED,
    TERMINATIONS,
    EndEpisode,
    OnStep,
    Played,
    Scripted,
    env_rejected,
    play,
)

__all__ = ["ENDED", "TERMINATIONS", "EndEpisode", "OnStep", "Played", "Scripted", "env_rejected", "play"]
