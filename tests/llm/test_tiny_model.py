"""The tiny test model: deterministic, small, with its tokenizer and chat template."""

from __future__ import annotations

from pathlib import Path

from evaluators.llm.tiny import create_tiny_model


def test_same_arguments_give_the_same_small_files(tiny_model_dir: Path, tmp_path: Path):
    again = create_tiny_model(tmp_path / "again")
    names = sorted(p.name for p in tiny_model_dir.iterdir())
    assert {"config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"} <= set(names)
    assert names == sorted(p.name for p in again.iterdir())
    assert all((tiny_model_dir / n).read_bytes() == (again / n).read_bytes() for n in names)
    assert sum((tiny_model_dir / n).stat().st_size for n in names) < 2_000_000  # hidden 128: vLLM's CPU head size
    other_seed = create_tiny_model(tmp_path / "seed1", seed=1)
    assert (other_seed / "model.safetensors").read_bytes() != (tiny_model_dir / "model.safetensors").read_bytes()


def test_chat_template_renders_messages(tiny_model_dir: Path):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Hello!"}], tokenize=False, add_generation_prompt=True
    )
    assert prompt == "<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n"
    assert tokenizer.decode(tokenizer.encode("Hello!")) == "Hello!"
