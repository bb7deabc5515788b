"""The compact verifier backbone (LiMAC-style): a small transformer over frozen sentence embeddings
of the goal, the working memory and every candidate, trained from scratch on the CPU in minutes.
torch loads only when a network is built or scored."""

from droidverify.agents.verifier.compact.features import FEATURE_VERSION, NUMERIC_NAMES, StepView, step_view

__all__ = ["FEATURE_VERSION", "NUMERIC_NAMES", "StepView", "step_view"]
