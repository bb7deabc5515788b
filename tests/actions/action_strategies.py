"""Hypothesis strategies producing valid Actions of every type."""

from __future__ import annotations

from hypothesis import strategies as st

from droidverify.actions.model import DIRECTIONS, Action

idx = st.integers(min_value=0, max_value=500)
coord = st.integers(min_value=0, max_value=3000)
text = st.text(min_size=1, max_size=40)


def _target() -> st.SearchStrategy[dict]:
    return st.one_of(st.builds(lambda i: {"index": i}, idx),
                     st.builds(lambda x, y: {"x": x, "y": y}, coord, coord))


def _mk(t: str, extra: st.SearchStrategy[dict] | None = None) -> st.SearchStrategy[Action]:
    return (extra if extra is not None else st.just({})).map(lambda d: Action.make(t, **d))


def _merge(*parts: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
    return st.tuples(*parts).map(lambda ds: {k: v for d in ds for k, v in d.items()})


direction = st.sampled_from(DIRECTIONS)
actions: st.SearchStrategy[Action] = st.one_of(
    *[_mk(t, _target()) for t in ("click", "long_press", "double_tap", "clear_text")],
    _mk("scroll", _merge(st.builds(lambda d: {"direction": d}, direction),
                         st.one_of(st.just({}), st.builds(lambda i: {"index": i}, idx)))),
    _mk("swipe", _merge(st.builds(lambda d: {"direction": d}, direction),
                        st.one_of(st.just({}), _target()))),
    _mk("input_text", _merge(_target(), st.builds(lambda s: {"text": s}, text),
                             st.one_of(st.just({}), st.builds(lambda b: {"press_enter": b}, st.booleans())))),
    *[_mk(t) for t in ("keyboard_enter", "navigate_home", "navigate_back", "wait")],
    _mk("open_app", st.builds(lambda s: {"app_name": s}, text.filter(lambda s: s.strip()))),
    _mk("answer", st.builds(lambda s: {"text": s}, st.text(max_size=40))),
    _mk("status", st.builds(lambda g: {"goal_status": g}, st.sampled_from(["complete", "infeasible"]))),
    _mk("submit", st.builds(lambda s, ev: {"text": s, "evidences": ev}, st.text(max_size=40),
                            st.lists(st.integers(0, 50), max_size=5, unique=True))),
)
