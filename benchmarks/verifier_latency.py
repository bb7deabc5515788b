"""Verifier latency benchmarks.

Part (a): scoring N candidate actions with the bundled SmolLM2-135M on a ~900-token verifier-style
shared prefix, naive (each prefix + candidate run on its own) vs prefix-cached batched scoring
(prefix run once, candidates batched on its KV cache), per dtype. Reports:

* time ratio = naive seconds / cached seconds (same run, same model, same inputs);
* token ratio = naive tokens processed / cached tokens processed, the ideal speed-up if time were
  proportional to tokens run through the model;
* efficiency = time ratio / token ratio (goal: >= 90%, and time ratio >= 10x).

Part (b): one VerifierAgent step vs one GeneratorAgent step with the same model on the same
simulator screens. Screens are drawn deterministically: for the validation-split templates (sorted
by name, seed 0) the oracle runs 1, 3 or 5 steps (cycling) to reach varied screens; the agents see
that screen with the oracle's history. Reports median / p90 seconds, candidates per step, prefix
tokens (verifier), prompt and generated tokens (generator), and the ratio generator / verifier.

Part (c): success of the verifier and generator agents (and the oracle, random and noop baselines
for reference) on the validation split through ``run_many``; what the agents do (solved, mean steps,
declared done too early = declared done while the checker says not solved, entropy of the
verifier's candidate scores, generator fallbacks to wait, seconds per step).

    python benchmarks/verifier_latency.py --parts a
    python benchmarks/verifier_latency.py --parts a --dtypes float32 --candidates 30 --tune 4,8,16,32
    python benchmarks/verifier_latency.py --parts b --screens 12 --dtypes bfloat16
    python benchmarks/verifier_latency.py --parts c --seeds 0 --max-tasks 5 --max-steps 8
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

ROLE = ("You are a verifier for an agent that operates an Android phone. You see the user's goal, "
        "what the agent has done so far, and the current screen as HTML-like elements. For one "
        "proposed action you answer whether it is helpful for completing the goal. Answer with a "
        "single word: Yes or No.")
GOAL = "Turn on Battery Saver, then set the screen timeout to 2 minutes and go back to the home screen."
HISTORY = [
    "open_app(app='Settings') -> Settings opened on the main list",
    "scroll(direction='down') -> list moved; 'Battery' and 'Display' now visible",
    "click(index=14, text='Battery') -> Battery page opened",
    "click(index=3, text='Battery Saver') -> Battery Saver page opened",
    "click(index=5, text='Use Battery Saver') -> switch turned on",
    "navigate_back() -> back on the Settings list",
]
_LABELS = [
    ("Network & internet", "Mobile, Wi-Fi, hotspot"), ("Connected devices", "Bluetooth, pairing"),
    ("Apps", "Recent apps, default apps"), ("Notifications", "Notification history, conversations"),
    ("Battery", "78% - Battery Saver on"), ("Storage", "41% used - 75.3 GB free"),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb"), ("Display", "Dark theme, font size, brightness"),
    ("Wallpaper & style", "Colors, themed icons"), ("Accessibility", "Display, interaction, audio"),
    ("Security & privacy", "App security, device lock"), ("Location", "On - 6 apps have access"),
    ("Safety & emergency", "Emergency SOS, medical info"), ("Passwords & accounts", "Saved passwords"),
    ("Digital Wellbeing", "Screen time, app timers"), ("Google", "Services & preferences"),
    ("System", "Languages, gestures, time, backup"), ("About phone", "Pixel 7"),
    ("Tips & support", "Help articles, phone & chat"),
]


def build_prefix() -> str:
    """A realistic verifier prompt up to the per-candidate question (ChatML, ends with a newline)."""
    ui = ['<screen package="com.android.settings" activity=".Settings">',
          '  <header id="0" class="TextView">Settings</header>',
          '  <input id="1" class="EditText" hint="Search settings" clickable="true"></input>',
          '  <button id="2" class="ImageButton" description="Account: alex@example.com"></button>']
    idx = 3
    for title, summary in _LABELS:
        extra = f"<p>{summary}</p>" if idx % 3 else ""  # not every row shows a summary line
        ui.append(f'  <div id="{idx}" clickable="true"><p>{title}</p>{extra}</div>')
        idx += 1
    ui += [f'  <button id="{idx}" class="ImageButton" description="Navigate up"></button>',
           f'  <div id="{idx + 1}" class="RecyclerView" scrollable="true"></div>',
           f'  <p id="{idx + 2}" class="TextView">Status bar: 10:42, Wi-Fi, 78% battery</p>', '</screen>']
    history = "\n".join(f"{i + 1}. {h}" for i, h in enumerate(HISTORY))
    user = (f"Goal: {GOAL}\n\nWhat has been done so far:\n{history}\n\nCurrent screen:\n" + "\n".join(ui)
            + "\n\nI will now ask about one action.")
    return (f"<|im_start|>system\n{ROLE}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
            "<|im_start|>assistant\nUnderstood.<|im_end|>\n")


def build_candidates(n: int, seed: int = 0) -> list[str]:
    """V-Droid-style candidate actions: per-element click/long_press/input, scrolls, defaults."""
    rng = random.Random(seed)
    acts = []
    for i, (title, _) in enumerate(_LABELS):
        acts.append(f"click(index={i + 3}, text='{title}')")
        acts.append(f"long_press(index={i + 3}, text='{title}')")
    acts += [f"scroll(direction='{d}')" for d in ("up", "down", "left", "right")]
    acts += ["input_text(index=1, text='screen timeout')", "clear_text(index=1)", "navigate_back()",
             "navigate_home()", "wait()", "open_app(app='Clock')", "status(goal_status='complete')",
             "answer(text='Done')", "click(index=22, description='Navigate up')"]
    rng.shuffle(acts)
    if n > len(acts):
        raise SystemExit(f"at most {len(acts)} candidates available, asked for {n}")
    return [f"<|im_start|>user\nIs the action {a} helpful for completing the goal? Answer Yes or No."
            "<|im_end|>\n<|im_start|>assistant\n" for a in acts[:n]]


def _flops(cfg: Any, n_new: int, n_keys_total: int) -> float:
    """Forward FLOPs of ``n_new`` query tokens whose attention covers ``n_keys_total`` keys in sum."""
    d, inter, layers = cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers
    hd = getattr(cfg, "head_dim", None) or d // cfg.num_attention_heads
    q_dim, kv_dim = cfg.num_attention_heads * hd, cfg.num_key_value_heads * hd
    dense = 2 * (d * q_dim + 2 * d * kv_dim + q_dim * d + 3 * d * inter)
    return layers * (dense * n_new + 4 * q_dim * n_keys_total)


def flop_ratio(llm: Any, prefix: str, conts: list[str]) -> float:
    """Naive / cached forward FLOPs, counting attention (each candidate token attends to the whole
    prefix) but not the masked-out work of packing; the LM head runs once per candidate in both."""
    cfg = llm.model.config
    k = llm.count_tokens(prefix)
    lens = [llm.count_tokens(prefix + c) for c in conts]
    naive = sum(_flops(cfg, n, n * (n + 1) // 2) for n in lens)
    tails = [n - k for n in lens]
    cached = _flops(cfg, k, k * (k + 1) // 2) + sum(_flops(cfg, t, t * k + t * (t + 1) // 2) for t in tails)
    return naive / cached


def _timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, res = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), res


def part_a(args: argparse.Namespace, console: Console) -> None:
    from droidverify.llm.local import LocalLLM

    prefix = build_prefix()
    table = Table(title="(a) verifier scoring: naive vs prefix-cached batched (SmolLM2-135M, CPU)")
    for col in ("dtype", "cands", "prefix tok", "naive s", "cached s", "time ratio", "token ratio",
                "efficiency", "FLOP ratio", "of FLOP limit", "max |dlogp|", "mode/batch"):
        table.add_column(col, justify="right")
    for dtype in args.dtypes.split(","):
        llm = LocalLLM(dtype=dtype, max_batch=args.batch, score_mode=args.mode)
        n_prefix = llm.count_tokens(prefix)
        if args.tune:
            tune = Table(title=f"batch-size tuning, {dtype}, {args.tune_candidates} candidates")
            tune.add_column("max_batch", justify="right")
            tune.add_column("cached s (median)", justify="right")
            conts = build_candidates(args.tune_candidates)
            llm.score(prefix, conts)  # warm-up
            for b in (int(x) for x in args.tune.split(",")):
                llm.max_batch = b
                sec, _ = _timed(lambda m=llm, c=conts: m.score(prefix, c), args.repeats)
                tune.add_row(str(b), f"{sec:.3f}")
            console.print(tune)
            llm.max_batch = args.batch
        for n in (int(x) for x in args.candidates.split(",")):
            conts = build_candidates(n)
            llm.score(prefix, conts[:4])  # warm-up (allocator, kernels)
            llm.naive_score(prefix, conts[:1])
            t_cached, cached = _timed(lambda m=llm, c=conts: m.score(prefix, c), args.repeats)
            t_naive, naive = _timed(lambda m=llm, c=conts: m.naive_score(prefix, c), args.naive_repeats)
            tok_naive = naive.usage.prompt_tokens
            tok_cached = cached.usage.prompt_tokens - cached.usage.cached_tokens
            time_ratio, tok_ratio = t_naive / t_cached, tok_naive / tok_cached
            diff = max(abs(a[k] - b[k]) for a, b in zip(cached.logprobs, naive.logprobs) for k in a)
            eff = time_ratio / tok_ratio
            fr = flop_ratio(llm, prefix, conts)
            style = "green" if eff >= 0.9 and time_ratio >= 10 else "yellow"
            table.add_row(dtype, str(n), str(n_prefix), f"{t_naive:.2f}", f"{t_cached:.3f}",
                          f"[{style}]{time_ratio:.1f}x[/]", f"{tok_ratio:.1f}x", f"[{style}]{eff:.0%}[/]",
                          f"{fr:.1f}x", f"{time_ratio / fr:.0%}",
                          f"{diff:.1e}", f"{llm.score_mode}/{llm.max_batch}")
    console.print(table)
    console.print("time ratio = naive s / cached s; token ratio = naive tokens / cached tokens "
                  "(prefix once + every candidate's own tokens); efficiency = time ratio / token ratio. "
                  "Goal: efficiency >= 90% and time ratio >= 10x. FLOP ratio also counts attention (every "
                  "candidate token attends to the whole prefix), the limit once attention is included.")


# ------------------------------------------------------------------------------- part (b)

DEPTHS = (1, 3, 5)  # oracle steps before a screen is taken, cycling over the templates


def collect_screens(n: int, split: str = "validation") -> list[tuple[str, str, list[Any], Any]]:
    """(template, goal, oracle history, observation) for ``n`` screens, deterministically."""
    from droidverify.agents.oracle import OracleAgent
    from droidverify.env.records import Step
    from droidverify.env.sim import SimEnv
    from droidverify.tasks import registry

    screens: list[tuple[str, str, list[Any], Any]] = []
    templates = sorted(registry.templates_for_split(split), key=lambda t: t.name)
    for i, template in enumerate(templates[:n]):
        task = template.instantiate(0)
        env = SimEnv(task=task, seed=0)
        obs = env.reset()
        oracle = OracleAgent()
        oracle.bind(env, task)
        oracle.reset(task.goal)
        history: list[Any] = []
        for j in range(DEPTHS[i % len(DEPTHS)]):
            action = oracle.act(obs, history).action
            if action is None or action.action_type in ("status", "answer", "submit"):
                break
            history.append(Step(index=j, observation=obs, action=action))
            obs = env.step(action)
        screens.append((template.name, task.goal, history, obs))
        env.close()
    if len(screens) < n:
        raise SystemExit(f"only {len(screens)} {split} templates, asked for {n} screens")
    return screens


def _p90(xs: list[float]) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, round(0.9 * (len(ys) - 1)))]


def sim_app_names() -> list[str]:
    from droidverify.env.sim.app import installed_apps

    return sorted(app.name for app in installed_apps().values())


def part_b(args: argparse.Namespace, console: Console) -> None:
    from droidverify.agents.generator import GeneratorAgent
    from droidverify.agents.verifier import VerifierAgent
    from droidverify.llm.local import LocalLLM

    screens = collect_screens(args.screens)
    apps = sim_app_names()
    for dtype in args.dtypes.split(","):
        llm = LocalLLM(dtype=dtype)
        per = Table(title=f"(b) one agent step per screen, {llm.name} {llm.dtype_name}, CPU "
                          f"({len(screens)} validation screens, oracle depth {'/'.join(map(str, DEPTHS))})")
        for col in ("screen (template)", "pkg", "cands", "prefix tok", "verifier s", "score s",
                    "verifier action", "gen prompt tok", "gen tok", "generator s", "generator action",
                    "gen/ver"):
            per.add_column(col, justify="right" if col not in ("screen (template)", "verifier action",
                                                               "generator action") else "left")
        rows: dict[str, list[float]] = {k: [] for k in ("v", "g", "score", "cands", "prefix", "gtok", "gprompt")}
        VerifierAgent(llm, apps=apps).llm.score("warm up", ["a", "b"])  # first-call allocations
        for name, goal, history, obs in screens:
            ver = VerifierAgent(llm, apps=apps)
            ver.reset(goal)
            t = time.perf_counter()
            vout = ver.act(obs, history)
            tv = time.perf_counter() - t
            gen = GeneratorAgent(llm, max_tokens=args.gen_max_tokens)
            gen.reset(goal)
            t = time.perf_counter()
            gout = gen.act(obs, history)
            tg = time.perf_counter() - t
            info = vout.info
            rows["v"].append(tv)
            rows["g"].append(tg)
            rows["score"].append(info["seconds_scoring"])
            rows["cands"].append(info["n_candidates"])
            rows["prefix"].append(info["prefix_tokens"])
            rows["gtok"].append(gout.usage.completion_tokens)
            rows["gprompt"].append(gout.usage.prompt_tokens)
            gact = gout.action.to_json() if gout.action else "-"
            if gout.info.get("fallback_wait"):
                gact = "wait (fallback)"
            per.add_row(name, (obs.package or "").rsplit(".", 1)[-1], str(info["n_candidates"]),
                        str(info["prefix_tokens"]), f"{tv:.2f}", f"{info['seconds_scoring']:.2f}",
                        vout.action.to_json() if vout.action else "-", str(gout.usage.prompt_tokens),
                        str(gout.usage.completion_tokens), f"{tg:.2f}", gact[:40], f"{tg / tv:.2f}x")
        console.print(per)
        agg = Table(title=f"(b) step latency summary, {llm.dtype_name}: generator vs verifier, same screens")
        for col in ("agent", "median s", "p90 s", "mean s", "ratio median (gen/ver)", "ratio p90 (gen/ver)",
                    "per step"):
            agg.add_column(col, justify="right")
        med = {k: statistics.median(rows[k]) for k in ("v", "g")}
        p90 = {k: _p90(rows[k]) for k in ("v", "g")}
        agg.add_row("verifier", f"{med['v']:.2f}", f"{p90['v']:.2f}", f"{statistics.mean(rows['v']):.2f}",
                    "1.00x", "1.00x",
                    f"cands median {statistics.median(rows['cands']):.0f} (max {max(rows['cands']):.0f}); "
                    f"prefix tok median {statistics.median(rows['prefix']):.0f} (max {max(rows['prefix']):.0f}); "
                    f"scoring {sum(rows['score']) / sum(rows['v']):.0%} of the time")
        agg.add_row("generator", f"{med['g']:.2f}", f"{p90['g']:.2f}", f"{statistics.mean(rows['g']):.2f}",
                    f"{med['g'] / med['v']:.2f}x", f"{p90['g'] / p90['v']:.2f}x",
                    f"generated tok median {statistics.median(rows['gtok']):.0f} (max {max(rows['gtok']):.0f}); "
                    f"prompt tok median {statistics.median(rows['gprompt']):.0f} (incl. retries)")
        console.print(agg)


# ------------------------------------------------------------------------------- part (c)

BASELINES = ("oracle", "random", "noop")


def _llm_agent_factories(args: argparse.Namespace, apps: list[str]) -> dict[str, Callable[[], Any]]:
    from droidverify.agents.generator import GeneratorAgent
    from droidverify.agents.verifier import VerifierAgent
    from droidverify.llm.local import LocalLLM

    llm = LocalLLM(dtype=args.dtypes.split(",")[0])
    return {"verifier": lambda: VerifierAgent(llm, apps=apps),
            "generator": lambda: GeneratorAgent(llm, max_tokens=args.gen_max_tokens)}


def _agent_stats(out_dir: Any) -> dict[str, Any]:
    from droidverify.runner.store import load_trajectories

    trajs = load_trajectories(out_dir)
    eps = len(trajs)
    scored = [t for t in trajs if t.success is not None]
    solved = sum(1 for t in scored if t.success >= 1.0)
    done = [t for t in trajs if t.declared_done]
    early = sum(1 for t in done if (t.metadata.get("checker_score") or 0.0) < 1.0)
    steps = [len(t.steps) for t in trajs]
    ents = [s.agent_info["entropy_normalized"] for t in trajs for s in t.steps
            if s.agent_info and "entropy_normalized" in s.agent_info]
    # Spread of the verifier's normalised P(Yes) over a step's candidates (0 = no preference).
    spreads = [max(c["score"] for c in s.agent_info["candidates"]) - min(c["score"] for c in s.agent_info["candidates"])
               for t in trajs for s in t.steps if s.agent_info and s.agent_info.get("candidates")]
    fallbacks = sum(1 for t in trajs for s in t.steps if s.agent_info and s.agent_info.get("fallback_wait"))
    n_steps = sum(steps)
    agent_s = sum(s.timings.get("agent", 0.0) for t in trajs for s in t.steps)
    kinds: dict[str, int] = {}
    for t in trajs:
        for s in t.steps:
            k = s.action.action_type if s.action else "none"
            kinds[k] = kinds.get(k, 0) + 1
    return {"episodes": eps, "solved": solved, "scored": len(scored),
            "checker_passed": sum(1 for t in trajs if (t.metadata.get("checker_score") or 0) >= 1.0),
            "declared_done": len(done), "early_done": early,
            "first_step_done": sum(1 for t in done if len(t.steps) <= 1),
            "mean_steps": statistics.mean(steps) if steps else 0.0, "steps": n_steps,
            "entropy": ents, "spread": spreads, "fallbacks": fallbacks,
            "s_per_step": agent_s / n_steps if n_steps else 0.0, "kinds": kinds}


def part_c(args: argparse.Namespace, console: Console) -> None:
    from pathlib import Path

    from droidverify.agents.oracle import OracleAgent
    from droidverify.agents.random import NoopAgent, RandomAgent
    from droidverify.env.sim import SimEnv
    from droidverify.runner.run import run_many
    from droidverify.tasks import registry

    seeds = [int(s) for s in args.seeds.split(",")]
    templates = list(registry.templates_for_split("validation"))[:args.max_tasks]
    pairs = [(t, s) for t in templates for s in seeds]
    apps = sim_app_names()
    factories: dict[str, Callable[[], Any]] = {
        "oracle": OracleAgent, "random": lambda: RandomAgent(0, apps=apps), "noop": NoopAgent}
    agents = [a for a in args.agents.split(",") if a]
    if any(a in ("verifier", "generator") for a in agents):
        factories.update(_llm_agent_factories(args, apps))
    root = Path(args.out_dir)
    stats: dict[str, dict[str, Any]] = {}
    wall: dict[str, float] = {}
    for name in agents:
        if name not in factories:
            raise SystemExit(f"unknown agent {name!r}; use {sorted(factories)}")
        t = time.perf_counter()
        # The oracle runs to each task's own step limit: it shows what the limit allows.
        run_many(factories[name], pairs, root / name, env_factory=lambda task, seed: SimEnv(task=task, seed=seed),
                 resume=False, progress=True, max_steps=None if name == "oracle" else args.max_steps,
                 config={"agent": name, "benchmark": "verifier_latency c"}, report=False, console=console)
        wall[name] = time.perf_counter() - t
        stats[name] = _agent_stats(root / name)
    table = Table(title=f"(c) validation split, {len(templates)} templates x seeds {seeds}, "
                        f"max_steps {args.max_steps} (oracle: task limit)")
    for col in ("agent", "episodes", "solved", "success", "vs oracle", "checker passed", "declared done",
                "too early", "done at step 1", "mean steps", "s/step", "wall s", "entropy norm. mean/min",
                "P(Yes) spread", "gen. wait fallbacks"):
        table.add_column(col, justify="right" if col != "agent" else "left")
    oracle_rate = None
    if "oracle" in stats and stats["oracle"]["scored"]:
        oracle_rate = stats["oracle"]["solved"] / stats["oracle"]["scored"]
    for name in agents:
        st = stats[name]
        rate = st["solved"] / st["scored"] if st["scored"] else None
        ent, spread = st["entropy"], st["spread"]
        table.add_row(
            name, str(st["episodes"]), str(st["solved"]), "-" if rate is None else f"{rate:.0%}",
            "-" if rate is None or not oracle_rate else f"{rate / oracle_rate:.2f}x",
            str(st["checker_passed"]), str(st["declared_done"]),
            f"{st['early_done']} of {st['declared_done']}", str(st["first_step_done"]),
            f"{st['mean_steps']:.1f}", f"{st['s_per_step']:.2f}", f"{wall[name]:.0f}",
            f"{statistics.mean(ent):.4f}/{min(ent):.4f}" if ent else "-",
            f"{statistics.mean(spread):.3f}" if spread else "-",
            str(st["fallbacks"]) if name == "generator" else "-")
    console.print(table)
    for name in agents:
        kinds = sorted(stats[name]["kinds"].items(), key=lambda kv: -kv[1])
        console.print(f"  {name} actions: " + ", ".join(f"{k} {v}" for k, v in kinds))
    if "verifier" in stats and "generator" in stats and stats["verifier"]["s_per_step"]:
        console.print(f"generator / verifier seconds per step: "
                      f"{stats['generator']['s_per_step'] / stats['verifier']['s_per_step']:.2f}x")
    console.print("done too early = declared done (status complete) while the checker does not pass; "
                  "entropy norm. = entropy of the softmax over candidate scores / log(#candidates) per "
                  "verifier step (1 = uniform); P(Yes) spread = max - min normalised P(Yes) over a step's "
                  f"candidates, mean over steps. Run directories: {root}/<agent>")


PARTS: dict[str, Callable[[argparse.Namespace, Console], None]] = {"a": part_a, "b": part_b, "c": part_c}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", default="a", help=f"comma-separated parts to run, of {sorted(PARTS)}")
    p.add_argument("--dtypes", default="float32,bfloat16")
    p.add_argument("--candidates", default="30,50")
    p.add_argument("--batch", type=int, default=None, help="max_batch for cached scoring (default: library's)")
    p.add_argument("--mode", default="packed", choices=["packed", "batched"], help="LocalLLM score_mode")
    p.add_argument("--repeats", type=int, default=3, help="runs of cached scoring (median taken)")
    p.add_argument("--naive-repeats", type=int, default=1, help="runs of naive scoring (median taken)")
    p.add_argument("--tune", default="", help="comma-separated max_batch values to time first, e.g. 4,8,16,32")
    p.add_argument("--tune-candidates", type=int, default=50)
    p.add_argument("--screens", type=int, default=12, help="(b) simulator screens to time both agents on")
    p.add_argument("--gen-max-tokens", type=int, default=256, help="(b, c) generator max_tokens per reply")
    p.add_argument("--seeds", default="0", help="(c) comma-separated seeds")
    p.add_argument("--max-tasks", type=int, default=5, help="(c) first N validation templates")
    p.add_argument("--max-steps", type=int, default=8, help="(c) step limit for all agents but the oracle")
    p.add_argument("--agents", default="oracle,random,noop,verifier,generator", help="(c) agents to run")
    p.add_argument("--out-dir", default="runs/bench_verifier_c", help="(c) run directories go here")
    args = p.parse_args()
    if args.batch is None:
        from droidverify.llm.local import DEFAULT_MAX_BATCH

        args.batch = DEFAULT_MAX_BATCH
    console = Console(width=max(140, Console().width))
    for part in args.parts.split(","):
        if part not in PARTS:
            raise SystemExit(f"unknown part {part!r}; available: {sorted(PARTS)}")
        PARTS[part](args, console)


if __name__ == "__main__":
    main()
