"""Versioned judge prompts, one module per method.

Every judge's system message starts with :data:`common.PREAMBLE`, byte for byte, and everything that
depends on the episode sits in the last (user) message, so a judge's prompts share one long
identical prefix: the system turn is computed once by a prefix cache (local or remote) and reused
for every episode and every vote. Bump a module's ``VERSION`` whenever its text changes: stored
judgements are keyed by it.

Methods that can decide by scoring (passive, evidence, prore) also carry ``SCORE_VERSION``, the
version of their scored messages: the same episode turn after a ``SCORE_SYSTEM`` that asks for one
word, then a fixed final question (``QUESTION`` / ``VOTE_QUESTIONS`` / ``JUDGE_QUESTION``, each
ending in ``common.YES_NO``) as the last turn, so the scored token always follows it
(``rewards.scoring``). Bump ``SCORE_VERSION`` when any of those texts changes; calibrated judge files
name it and refuse another.
"""
