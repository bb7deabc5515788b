"""Simulated apps. Every module here is imported on first use and registers its app(s)."""
