"""A tiny randomly initialised Llama with its own byte-level tokenizer, built from a config (no download).

Trainer tests run on it in float32 in a second or two per step.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tiny_model(directory: Path, *, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from droidverify.agents.verifier.prompt import INSTRUCTION, ROLE

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = [ROLE, INSTRUCTION, "Is the action [click <button id=3>Save</button>] helpful for completing the task?",
              "Task goal: Create an alarm at 7:30. Working memory: Step 1: open the app Clock"] * 5
    tok.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   bos_token=None, unk_token=None)
    fast.add_tokens(["Yes", "No"])
    fast.chat_template = CHATML
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=8192,
                      tie_word_embeddings=False, eos_token_id=fast.eos_token_id,
                      pad_token_id=fast.pad_token_id, bos_token_id=None)
    model = LlamaForCausalLM(cfg)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    fast.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="session")
def oracle_records():
    from droidverify.tasks import registry
    from droidverify.training.collection import collect
    from droidverify.training.loop import sim_apps

    tasks = registry.tasks_for("train", [0])[:3]
    return list(collect(tasks, split_of=registry.split_of, apps=sim_apps()))
