"""Local-backend behaviour that needs no model: path resolution, cache location, helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from droidverify.errors import LLMInputError, ModelLoadError
from droidverify.llm.chat import cut_at_stop, render_chatml, validate_messages, validate_targets
from droidverify.llm.modelcache import bundled_gguf_path, cache_root, resolve_model_path


def test_missing_and_unusable_model_paths_raise_model_load_error(tmp_path: Path) -> None:
    from droidverify.llm.local import LocalLLM

    with pytest.raises(ModelLoadError, match="does not exist"):
        LocalLLM(tmp_path / "nope.gguf")
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ModelLoadError, match="not a .gguf"):
        resolve_model_path(tmp_path / "weights.bin")
    with pytest.raises(ModelLoadError, match="config.json"):
        resolve_model_path(tmp_path)
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a gguf file")
    with pytest.raises(ModelLoadError, match="broken.gguf"):
        LocalLLM(bad, dtype="float32")
    with pytest.raises(LLMInputError, match="dtype"):
        LocalLLM(dtype="float16")


def test_bundled_model_is_found_without_importing_its_package() -> None:
    path = bundled_gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def test_cache_root_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DROIDVERIFY_CACHE", str(tmp_path))
    assert cache_root() == tmp_path
    monkeypatch.delenv("DROIDVERIFY_CACHE")
    assert cache_root() == Path.home() / ".cache" / "droidverify"


def test_chatml_fallback_and_helpers() -> None:
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    assert render_chatml(msgs) == ("<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n"
                                   "<|im_start|>assistant\n")
    assert render_chatml(msgs, add_generation_prompt=False).endswith("U<|im_end|>\n")
    # Message content is data: template syntax inside it is not executed.
    out = render_chatml([{"role": "user", "content": "{{ 7*7 }} {% if 1 %}x{% endif %}"}])
    assert "{{ 7*7 }} {% if 1 %}x{% endif %}" in out
    for bad in ([], "hi", [{"role": "user"}], [{"role": "user", "content": 3}], ["x"]):
        with pytest.raises(LLMInputError):
            validate_messages(bad)
    for bad in ((), "Yes", ("Yes", ""), ("Yes", "Yes")):
        with pytest.raises(LLMInputError):
            validate_targets(bad)
    assert cut_at_stop("abc\nObservation: x", ["\nObs", "zz"]) == ("abc", True)
    assert cut_at_stop("abc", ["zz"]) == ("abc", False)
    assert cut_at_stop("abc", None) == ("abc", False)


def test_load_llm_specs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from droidverify.llm import load_llm
    from droidverify.llm.openai_backend import OpenAICompatLLM

    llm = load_llm("openai:http://127.0.0.1:9/v1#my-model", max_retries=0)
    assert isinstance(llm, OpenAICompatLLM)
    assert (llm.base_url, llm.model, llm.name) == ("http://127.0.0.1:9/v1", "my-model", "openai:my-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    env = load_llm("openai:#other")
    assert env.base_url == "http://127.0.0.1:9/v2" and env.client.api_key == "sk-test"
    with pytest.raises(ModelLoadError, match="does not exist"):
        load_llm(str(tmp_path / "missing-model"))
    with pytest.raises(LLMInputError):
        load_llm(42)  # type: ignore[arg-type]
