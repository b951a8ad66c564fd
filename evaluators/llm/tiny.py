"""A tiny model created locally, for tests and the embedded default (nothing can be downloaded here).

``create_tiny_model(path)`` writes a two-layer Llama-architecture model with random weights (hidden
size 128, attention heads of 64, which vLLM's CPU kernels accept) and a small byte-level BPE tokenizer
trained on a few strings, with a chat template, via ``save_pretrained`` (about 1.4 MB). The same arguments give the same
files. ``transformers serve PATH`` and ``vllm serve PATH`` load it offline; its answers are noise, which is all the
launch-wait-query-stop path needs.

``create_tiny_vision_model(path)`` adds a one-layer vision tower in front of it (LLaVA architecture,
Pillow's image processor), which `transformers serve` answers image requests with on a CPU.

``python -m evaluators.llm.tiny [--vision] PATH`` creates one from the command line.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: A ChatML-style template: enough for both servers to turn messages into a prompt.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_CORPUS = [
    "Hello! How can I help you today?",
    "The quick brown fox jumps over the lazy dog.",
    "def add(a, b):\n    return a + b\n",
    "print(sum(map(int, input().split())))",
    "Answer with exactly one of these options: yes, no.",
    '{"score": 4, "reason": "clear and correct"}',
    "Paris is the capital of France [1].",
]
_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
#: attention head size: vLLM's CPU kernels refuse small ones (8 is refused; 64 is accepted)
HEAD_DIM = 64


def create_tiny_model(path: Path, *, vocab_size: int = 384, seed: int = 0, hidden_size: int = 128) -> Path:
    """Write the tiny model to ``path`` (created if needed) and return ``path``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=_SPECIAL,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(_CORPUS, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|endoftext|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(path)

    heads = max(1, hidden_size // HEAD_DIM)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=2,
        num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2),
        max_position_embeddings=2048,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
        dtype="float32",
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.max_new_tokens = 16
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        model.save_pretrained(path)
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    return path


#: the tiny vision model's template: the text template, with an image token where a part is an image
VISION_CHAT_TEMPLATE = CHAT_TEMPLATE.replace(
    "{% if part['type'] == 'text' %}{{ part['text'] }}{% endif %}",
    "{% if part['type'] == 'text' %}{{ part['text'] }}{% elif part['type'] in ('image', 'image_url') %}"
    "{{ '<image>' }}{% endif %}",
)
#: the vision tower's input side and patch: (32 / 16)^2 patches + the class token = 5 tokens an image
IMAGE_SIZE = 32
PATCH_SIZE = 16


def create_tiny_vision_model(path: Path, *, seed: int = 0) -> Path:
    """Write a tiny LLaVA-architecture model to ``path``: a one-layer CLIP vision tower (32 px input,
    16 px patches) in front of the tiny text model, with a processor (Pillow's image processor: no
    torchvision) and a chat template that places an ``<image>`` token per image part, so that
    `transformers serve` answers OpenAI-style image requests with it on a CPU (about 450K parameters)."""
    import torch
    from transformers import (
        AutoTokenizer,
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )
    from transformers.utils import logging as hf_logging

    path = Path(path)
    create_tiny_model(path, seed=seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    tokenizer.chat_template = VISION_CHAT_TEMPLATE
    image_token = int(tokenizer.convert_tokens_to_ids("<image>"))  # type: ignore[arg-type]
    text = LlamaConfig.from_pretrained(path)
    text.vocab_size = len(tokenizer)
    vision = CLIPVisionConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=1,
        image_size=IMAGE_SIZE,
        patch_size=PATCH_SIZE,
        projection_dim=64,
    )
    config = LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_index=image_token,
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
    )
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config)
    model.generation_config.max_new_tokens = 16
    images = CLIPImageProcessorPil(
        size={"shortest_edge": IMAGE_SIZE}, crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE}
    )
    processor = LlavaProcessor(
        image_processor=images,
        tokenizer=tokenizer,
        patch_size=PATCH_SIZE,
        vision_feature_select_strategy="full",
        chat_template=VISION_CHAT_TEMPLATE,
        num_additional_image_tokens=1,
    )
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        (path / "model.safetensors").unlink()  # the text model's weights: replaced by the whole model's
        model.save_pretrained(path)
        processor.save_pretrained(path)
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    return path


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--vision"]
    if len(args) != 1:
        sys.exit("usage: python -m evaluators.llm.tiny [--vision] PATH")
    print((create_tiny_vision_model if "--vision" in sys.argv else create_tiny_model)(Path(args[0])))
