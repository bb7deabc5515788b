"""benchmarks/rewards.py end to end with a scripted judge LLM and a fake embedder (no model load):
every row is printed, SEE's pairs hold both classes (its AUC is defined), ProRe comes last."""

from __future__ import annotations

import re
import sys

from rewards_doubles import ScriptedLLM, load_benchmark, reply

from droidverify.rewards import see


def fake_embed(texts):
    return [[float(len(t) % 7), 1.0] for t in texts]


def test_benchmark_prints_every_row_with_both_see_classes(monkeypatch, capsys) -> None:
    mod = load_benchmark("rewards")
    llm = ScriptedLLM(reply_fn=lambda m, i: reply("SUCCESS", True) if "verdict" in m[-1]["content"].lower()
                      else f"The screen changes ({len(m[-1]['content']) % 5}).")
    monkeypatch.setattr(mod, "load_llm", lambda spec: llm)
    monkeypatch.setattr(mod, "SemanticEstimator",
                        lambda llm, **kw: see.SemanticEstimator(llm, embed=fake_embed, **kw))
    monkeypatch.setattr(sys, "argv", ["rewards.py", "--n", "12", "--limit", "4", "--prore-limit", "2",
                                      "--probe-steps", "1", "--see-pairs", "6", "--hostile", "1",
                                      "--agent-episodes", "1", "--votes", "1", "--max-tokens", "16"])
    mod.main()
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| judge")]
    names = [r.split("|")[1].strip() for r in rows]
    assert names[:3] == ["rule", "passive", "smartsnap"]
    assert names[-4:] == ["see (ASL)", "injection", "evidences per task", "prore"]  # ProRe last
    see_row = rows[names.index("see (ASL)")]
    assert "ROC AUC vs simulator semantics n/a" not in see_row
    m = re.search(r"(\d+) equivalent, (\d+) not; (\d+)/(\d+) constructed forms equivalent", see_row)
    assert m is not None, see_row  # both classes among the 6 pairs, every constructed form equivalent
    eq, neq, made, of = map(int, m.groups())
    assert eq >= 1 and neq >= 1 and eq + neq == 6 and made == of >= 1
    assert "submit episodes its judge reads" in rows[names.index("injection")]
    assert rows[0].split("|")[3].strip() == "1.000"  # the rule judge is the ground truth
    assert "total" in out
