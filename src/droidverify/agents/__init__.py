"""Agents: generator (T3A style), verifier-driven (V-Droid), oracle and random baselines."""

from droidverify.agents.base import Agent, AgentOutput

__all__ = ["Agent", "AgentOutput"]
