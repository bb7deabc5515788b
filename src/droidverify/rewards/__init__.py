"""Judging agents' episodes: one ``Judge`` contract, one ``Judgement`` record, every method.

- ``RuleJudge`` (``rule``): the task checker (ground truth on the simulator).
- ``PassiveJudge`` (``passive``): an LLM reads the whole trajectory (the papers' baseline).
- ``EvidenceJudge`` (``smartsnap``): SmartSnap's judge of a self-verifying agent's submitted exhibits,
  with the composite reward (format rules, N-vote majority, conciseness penalty).
- ``ProReJudge`` (``prore``): probe the final state with an evaluator agent, compare claims.
- ``SEEJudge`` / ``SemanticEstimator`` (``see``): ASL's semantic action reward, and the simulator's
  ground truth of action equivalence it is measured against; ``LearnedWorldModel``,
  ``semantic_reward`` and ``semantic_table``: SEE with the compact learned world model.
- ``CompactJudge`` (``compact``): the trained compact judge (passive and evidence settings), no LLM.
- ``rewards.scoring``: LLM judges decide by comparing the scores of the verdict options (a threshold set on train labels).

Judgements are stored in ``judgements.jsonl`` (``rewards.store``); ``rewards.labelled`` builds the
checker-labelled trajectory set every judge is benchmarked on. Judges load lazily (PEP 562).
"""

from droidverify._lazy import lazy_attributes

__all__ = [
    "OUTCOMES", "CompactJudge", "EvidenceJudge", "Judge", "Judgement", "JudgementStore", "LearnedWorldModel",
    "PassiveJudge", "ProReJudge", "RuleJudge", "SEEJudge", "SemanticEstimator", "agreement", "judge_all",
    "roc_auc", "semantic_reward", "semantic_table",
]

__getattr__ = lazy_attributes(__name__, {
    "OUTCOMES": "droidverify.rewards.base", "Judge": "droidverify.rewards.base",
    "Judgement": "droidverify.rewards.base", "JudgementStore": "droidverify.rewards.store",
    "judge_all": "droidverify.rewards.store", "RuleJudge": "droidverify.rewards.rule",
    "PassiveJudge": "droidverify.rewards.passive", "EvidenceJudge": "droidverify.rewards.smartsnap",
    "ProReJudge": "droidverify.rewards.prore", "SEEJudge": "droidverify.rewards.see",
    "SemanticEstimator": "droidverify.rewards.see", "agreement": "droidverify.rewards.metrics",
    "roc_auc": "droidverify.rewards.metrics", "CompactJudge": "droidverify.rewards.compact_judge",
    "LearnedWorldModel": "droidverify.rewards.see", "semantic_reward": "droidverify.rewards.see",
    "semantic_table": "droidverify.rewards.see",
})
