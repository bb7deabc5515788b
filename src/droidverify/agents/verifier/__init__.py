"""V-Droid: verifier-driven agent (candidate extraction, prefix-cached Yes/No scoring, memory)."""

from droidverify.agents.verifier.agent import VerifierAgent, softmax_entropy, yes_probability
from droidverify.agents.verifier.candidates import extract_candidates
from droidverify.agents.verifier.memory import (
    MEMORY_NAMES,
    DiffMemory,
    HistoryMemory,
    LLMSummaryMemory,
    WorkingMemory,
    make_memory,
    ui_diff,
)
from droidverify.agents.verifier.prompt import VerificationPrompt, build_verification_prompt
from droidverify.agents.verifier.trained import load_verifier, shipped_verifier_path

__all__ = [
    "MEMORY_NAMES", "DiffMemory", "HistoryMemory", "LLMSummaryMemory", "VerificationPrompt",
    "VerifierAgent", "WorkingMemory", "build_verification_prompt", "extract_candidates",
    "load_verifier", "make_memory", "shipped_verifier_path", "softmax_entropy", "ui_diff", "yes_probability",
]
