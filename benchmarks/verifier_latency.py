"""Verifier latency benchmarks.

Part (a): scoring N candidate actions with the bundled SmolLM2-135M on a ~900-token verifier-style
shared prefix, naive (each prefix + candidate run on its own) vs prefix-cached batched scoring
(prefix run once, candidates batched on its KV cache), per dtype. Reports:

* time ratio = naive seconds / cached seconds (same run, same model, same inputs);
* token ratio = naive tokens processed / cached tokens processed, the ideal speed-up if time were
  proportional to tokens run through the model;
* efficiency = time ratio / token ratio (goal: >= 90%, and time ratio >= 10x).

Parts (b) and (c) (agent latency, success rates) are to be added as functions registered in PARTS.

    python benchmarks/verifier_latency.py --parts a
    python benchmarks/verifier_latency.py --parts a --dtypes float32 --candidates 30 --tune 4,8,16,32
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


PARTS: dict[str, Callable[[argparse.Namespace, Console], None]] = {"a": part_a}


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
