"""Agents: generator (T3A style), verifier-driven (V-Droid), oracle, random and no-op baselines."""

from droidverify.agents.base import Agent, AgentOutput
from droidverify.agents.generator import GeneratorAgent
from droidverify.agents.oracle import OracleAgent
from droidverify.agents.random import NoopAgent, RandomAgent
from droidverify.agents.screen import describe_action, sanitize_screen_text
from droidverify.agents.verifier import VerifierAgent, extract_candidates

__all__ = [
    "Agent", "AgentOutput", "GeneratorAgent", "NoopAgent", "OracleAgent", "RandomAgent", "VerifierAgent",
    "describe_action", "extract_candidates", "sanitize_screen_text",
]
