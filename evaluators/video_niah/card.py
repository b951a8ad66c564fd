"""The Video NIAH method card: each element of the protocol beside LongVA's and VideoChat-Flash's released
code (read at github.com/EvolvingLMMs-Lab/LongVA ``vision_niah/`` and github.com/OpenGVLab/VideoChat-Flash
``xtuner-eval_niah/``), what this platform does, and why where it differs. One card per board; the frame
mode (images or video) changes one row."""

from __future__ import annotations

from evaluators.core.types import ProtocolRow
from evaluators.video_niah.release import DEFAULT_PRESET, PRESETS

LONGVA = "LongVA vision_niah/"
FLASH = "VideoChat-Flash xtuner-eval_niah/vision_niah/"
FORMAT_NAMES = {
    "longva": "LongVA (needle records {path, prompt, answer})",
    "videochat-flash": "VideoChat-Flash ({image, question, answer} and {images, question1, answer1, question2, "
    "answer2})",
    "platform": "this platform's sample (options listed beside the prompt, chains with decoys)",
}


def grid_words(names: list[str]) -> str:
    """Where each named grid comes from, for the dataset's page."""
    return "; ".join(
        PRESETS[n].source if n in PRESETS else "frames and depths set in the release's grid.json" for n in names
    )


def _presets(multi: bool) -> str:
    return "; ".join(
        f"{name}: {min(p.multihop_frames if multi else p.frames):,}-{max(p.multihop_frames if multi else p.frames):,}"
        f" frames"
        for name, p in PRESETS.items()
    )


def rows(key: str, mode: str) -> list[ProtocolRow]:
    """The card of the benchmark ``key`` (single or multi needle) sending its frames in ``mode``."""
    multi = key == "video-niah-multi"
    return [*_asking_rows(mode), *_haystack_rows(multi), *_scoring_rows(multi)]


def _asking_rows(mode: str) -> list[ProtocolRow]:
    """How a question reaches the model and how its reply is read."""
    return [
        ProtocolRow(
            "Question text",
            'LongVA: the needle record\'s prompt as written, its options inside ("A. ..." lines) and its instruction '
            '("Answer with the option\'s letter from the given choices directly." or "Answer the question using a '
            'single word or phrase."). VideoChat-Flash: the record\'s question, "Options: (A) ..." inside, ending '
            '"Only give the best option. Best option: (".',
            "as released",
            "",
            f"{LONGVA}needle_datasets/dataset.json; {FLASH}data/source_data/niah-coco-singlehop_20.json, "
            "data_multi/source_data/niah-coco-multihop-100.json",
        ),
        ProtocolRow(
            "Chat template",
            "The model's template written out by hand around the frames and the question (qwen2: system \"You are a "
            'helpful assistant.", then the user turn).',
            "The model server's own chat template (OpenAI-compatible chat API): one user message, the frames and then "
            "the question; no system message added.",
            "Models are reached through their server's chat API, which applies the model's own template.",
            f"{LONGVA}eval_vision_niah.py (prompt_templates); {FLASH}single_eval_vision_niah.py",
        ),
        ProtocolRow(
            "This platform's sample questions",
            "None: the released questions only.",
            "The sample's own records (options listed beside the prompt) are composed here: \"These are N frames of a "
            'video, in order, one per second.", the question, the options, "Answer with the option\'s letter (A, B, C '
            'or D) only."',
            "The sample exercises the pipeline with questions known by construction; a released question is never "
            "composed or given an instruction of ours.",
            "",
        ),
        ProtocolRow(
            "Answer reading",
            "Teacher forcing: the gold answer's tokens are appended and the model's argmax tokens at those positions "
            "compared with them (LongVA: token for token; VideoChat-Flash: decoded, lower-cased, brackets removed, "
            "equal to the answer).",
            "The model writes its answer (temperature 0, at most 16 tokens). A letter is read only where the reply is "
            'one or states one ("B", "(B)", "B) white", "B. <that option\'s text>", "Option B", "the answer '
            'is B") or writes an option\'s text; "a"/"A" opening a sentence is never read as a letter. A short '
            "answer counts when the reply states it as a whole word or number.",
            "A served model is asked through the chat API, which gives its reply, not its logits over a forced answer.",
            f"{LONGVA}eval_vision_niah.py (eval_forward); {FLASH}multi_eval_vision_niah.py (eval_forward)",
        ),
        ProtocolRow(
            "Needle and haystack",
            "Vision embeddings: the haystack encoded once (LongVA pooled 2x2), the needle's embedding inserted among "
            "them; no pixels reach the model at evaluation.",
            "Real frames (JPEG, at most 448 px) through the server's own vision encoder, sent "
            + (
                "as one MP4 video with every frame kept (video mode)."
                if mode == "video"
                else "as a list of images (images mode)."
            ),
            "A served model takes pixels, not embeddings; the needle is a real frame among the others, so no sampling "
            "can skip it.",
            f"{LONGVA}produce_haystack_embedding.py; {FLASH}produce_haystack_embedding.py",
        ),
    ]


def _haystack_rows(multi: bool) -> list[ProtocolRow]:
    """Which frames make the haystack, the grid of haystack sizes and where the needle goes."""
    return [
        ProtocolRow(
            "Frame sampling",
            "Every round(average fps)-th decoded frame, counted from the first (by index). VideoChat-Flash above 7,500 "
            "frames encodes about half and repeats them, so its 10,000-frame haystack is about 5,000 frames twice.",
            "The first frame of each second of presentation time (a late start gives its first frame, a timestamp gap "
            "gives none for its empty seconds); N distinct haystack frames.",
            "Timestamps hold on variable-frame-rate videos, where counting frames drifts (the same frames on a "
            "constant-rate video); a repeated haystack would let a model see the same frames twice.",
            f"{FLASH}produce_haystack_embedding.py (load_video_batches, double_flag)",
        ),
        ProtocolRow(
            "Grid and preset",
            (
                "VideoChat-Flash: 1,000-10,000 frames, step 1,000 (flash_eval_xtuner_multi.sh); LongVA in "
                "VideoChat-Flash's "
                "harness: 500-3,000, step 500 (longva_eval_xtuner_multi.sh); no depth axis."
                if multi
                else "LongVA: 200-3,000 frames, step 200 (eval.sh); VideoChat-Flash: 1,000-10,000, step 1,000 "
                "(flash_eval_xtuner_single.sh); LongVA in VideoChat-Flash's harness: 500-3,000, step 500 "
                "(longva_eval_xtuner_single.sh); depths 0-100 %, step 20."
            ),
            "as released",
            "",
            f"{LONGVA}eval.sh; {FLASH}flash_eval_xtuner_*.sh, longva_eval_xtuner_*.sh; here the presets "
            f"{_presets(multi)} (default {DEFAULT_PRESET}); the dataset's page names the version's grid",
        ),
        ProtocolRow(
            "Needle placement",
            (
                "The record's images in their order, image i after int(i x N / (K - 1)) haystack frames: the first "
                "image "
                "first, the last one last, N + K frames."
                if multi
                else "The needle before haystack frame int(depth x N): N + 1 frames."
            ),
            "as released",
            "",
            f"{FLASH}multi_eval_vision_niah.py"
            if multi
            else f"{LONGVA}eval_vision_niah.py; {FLASH}single_eval_vision_niah.py",
        ),
    ]


def _scoring_rows(multi: bool) -> list[ProtocolRow]:
    """From answers to the board's figures: the headline, the cells over a model's limit, the counts."""
    return [
        ProtocolRow(
            "Headline",
            (
                "Per N: (Q1 correct + Q2 correct) / (2 x chains), with both-correct counts; the average over every N "
                "of "
                "the grid."
                if multi
                else "The mean of the cell scores over every cell of the grid (avg_accuracy.txt)."
            ),
            "as released",
            "",
            f"{FLASH}multi_eval_vision_niah.py (plot: df['Score'].mean())"
            if multi
            else f"{LONGVA}eval_vision_niah.py (plot: df['Score'].mean())",
        ),
        ProtocolRow(
            "Cells over the model's limit",
            "None: every cell is computed, or the run fails.",
            "A request the model's server refuses as too long (its context, its images per prompt) counts as a miss "
            "in the headline; beside it the accuracy within the limit, the share of the grid answered and the largest "
            'N answered; a refused cell reads "over limit" on the heatmap, a refused N has no point on the lines.',
            "A served model has limits the embedding harness does not; counting a refusal as a miss keeps every model "
            "ranked on the same whole grid, as the released average is.",
            "",
        ),
        ProtocolRow(
            "Counts",
            (
                "VideoChat-Flash: 100 chains of 5 to 7 images (one a decoy), Q1 and Q2 each, at 10 N: 2,000 questions."
                if multi
                else "LongVA: 5 needles (dataset.json) x 15 N x 6 depths = 450 questions; VideoChat-Flash: 20 "
                "needles x 10 N x 6 depths = 1,200."
            ),
            "as released",
            "",
            f"{FLASH}data_multi/source_data/niah-coco-multihop-100.json"
            if multi
            else f"{LONGVA}needle_datasets/dataset.json; {FLASH}data/source_data/niah-coco-singlehop_20.json",
        ),
        ProtocolRow(
            "Circular evaluation",
            "Each question asked once.",
            "as released",
            "",
            'VNBench\'s rotated options are an option of grid.json ("circular": true), off by default',
        ),
    ]
