"""Versioned judge prompts, one module per method.

Every judge's system message starts with :data:`common.PREAMBLE`, byte for byte, and everything that
depends on the episode sits in the last (user) message, so a judge's prompts share one long
identical prefix: the system turn is computed once by a prefix cache (local or remote) and reused
for every episode and every vote. Bump a module's ``VERSION`` whenever its text changes: stored
judgements are keyed by it.
"""
