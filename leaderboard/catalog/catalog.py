"""The benchmarks the site hosts from the start, whether or not their evaluator has landed.

A benchmark without an evaluator is listed on the home page with what it will measure and a plain
"evaluator not available yet" note; its metric columns come from the evaluator once registered.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchmarkEntry:
    slug: str
    name: str
    summary: str
    evaluator_key: str
    modality: str
    kind: str = "static"


BENCHMARKS: tuple[BenchmarkEntry, ...] = (
    BenchmarkEntry(
        "multi-lcb", "Multi-LCB",
        "LiveCodeBench competitive-programming problems in 12 languages (Python, C++, Java, C#, Go, Rust, "
        "JavaScript, TypeScript, Ruby, PHP, Kotlin, Scala), executed in a sandbox; pass@1 per language "
        "within a contest-date window, with contaminated models flagged.",
        "multi-lcb", "text"),
    BenchmarkEntry(
        "policon", "PoliCon",
        "Drafting consensus resolutions from European Parliament deliberations: a model writes a resolution "
        "that parties with given stances and seat weights would support, scored by a judge under simple "
        "majority, two-thirds and veto rules.",
        "policon", "text"),
    BenchmarkEntry(
        "causal-pitfalls", "CausalPitfalls",
        "Statistical causal-inference pitfalls (confounding, intervention, counterfactuals, mediation, causal "
        "discovery, external validity) on generated datasets, answered directly from 100 rows of the data, "
        "graded by a judge against rubrics.",
        "causal-pitfalls", "text"),
    BenchmarkEntry(
        "causal-pitfalls-code", "CausalPitfalls (code-assisted)",
        "The same challenges answered through code: the model writes a Python program, the platform runs it on "
        "the dataset in a sandbox (pandas, statsmodels, scikit-learn) and the model answers with its output; "
        "graded by a judge against rubrics, with the code-failure rate.",
        "causal-pitfalls-code", "text"),
    BenchmarkEntry(
        "indic-vision-ocr", "IndicVisionBench OCR",
        "Transcribing printed pages in English and ten Indian scripts from their image; normalized edit "
        "distance at character and word level (lower is better), CER and WER, per language.",
        "indic-vision-ocr", "image"),
    BenchmarkEntry(
        "indic-vision-mmt", "IndicVisionBench translation",
        "Translating the English caption of a culturally grounded image into ten Indian languages with the image "
        "in view; BLEU as the paper computes it, corpus BLEU, chrF++ and RIBES per language.",
        "indic-vision-mmt", "image"),
    BenchmarkEntry(
        "indic-vision-vqa", "IndicVisionBench VQA",
        "Questions about culturally grounded images in English and ten Indian languages: multiple choice, "
        "true/false, short and long answers and false-premise questions, with a language x question-type heatmap.",
        "indic-vision-vqa", "image"),
    BenchmarkEntry(
        "video-niah-single", "Video NIAH (single hop)",
        "Needle-in-a-Video-Haystack: one needle frame inserted at a depth of N frames of a long video (up to "
        "thousands of frames, sent as images), a question about it; accuracy per depth x N cell as a heatmap.",
        "video-niah-single", "image"),
    BenchmarkEntry(
        "video-niah-multi", "Video NIAH (multi hop)",
        "Multi-hop Needle-in-a-Video-Haystack: a chain of clue frames with decoys spread over N frames; what the "
        "chain's last frame shows and a question about it, plotted against N.",
        "video-niah-multi", "image"),
    BenchmarkEntry(
        "search-arena", "Search Arena",
        "People compare two anonymous search-augmented models side by side and vote; Bradley-Terry ratings "
        "with intervals and style control.",
        "", "text", kind="arena"),
)
