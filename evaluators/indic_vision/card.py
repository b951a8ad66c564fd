"""IndicVisionBench's method card: each element of the protocol as the authors' released code runs it
(``ola-krutrim/IndicVisionBench``: ``generation/`` and ``evaluation/``), beside what this platform does
and why it differs. One card per board (``rows(task)``: OCR, translation, VQA); the rows every board
shares come first. The released side is described, not quoted: the release's licence does not allow
copying its prompt text, so our prompts are our own wording of the same requests."""

from __future__ import annotations

from evaluators.core.types import ProtocolRow
from evaluators.indic_vision.prompts import GRADE_SCHEMA, JUDGE_PROMPTS, MAX_TOKENS
from evaluators.llm.constraints import answer_format_row
from evaluators.llm.validation import known_answer_row

_REPO = "ola-krutrim/IndicVisionBench"
_WRAPPERS = f"{_REPO} generation/model_wrappers.py"
_GENERATE = f"{_REPO} generation/generate_predictions.py, generation/utils.py"
_EVAL_UTILS = f"{_REPO} evaluation/utils.py"
_EVAL_METRICS = f"{_REPO} evaluation/metrics.py"
_EVAL_MAIN = f"{_REPO} evaluation/evaluate_predictions.py"


def _shared(task: str) -> list[ProtocolRow]:
    cap = MAX_TOKENS["ocr"] if task == "ocr" else MAX_TOKENS["long"]
    return [
        ProtocolRow(
            "Image",
            "converted to RGB, shrunk to at most 1080 px a side (Lanczos), JPEG quality 95, sent as "
            "a data URL after the text part of one user message",
            "as released",
            source=_WRAPPERS,
        ),
        ProtocolRow(
            "Sampling",
            "set per model wrapper, no single setting: GPT-4o and Gemini 2.5 Flash (the "
            "OpenAI-compatible calls) at temperature 0.7; Llama 4 and Gemma 3 at their API's default; PALO "
            "greedy; Pangea sampled at temperature 1.0, top_p 0.9",
            "temperature 0.7, top_p 1.0, one answer per question, a seed per item; a run may set others "
            "(recorded with the run)",
            why="every model here is reached through the OpenAI-compatible API, for which the release "
            "sets 0.7; the seed makes a rerun repeatable",
            source=_WRAPPERS,
        ),
        ProtocolRow(
            "Answer length",
            "per wrapper: no cap for GPT-4o and Gemini; 2,048 new tokens for Llama 4 and "
            "PALO; 1,024 for Gemma 3 and Pangea",
            f"{cap:,} new tokens"
            + (" (a page of text)" if task == "ocr" else "")
            + "; an answer the server stops at the cap "
            '(finish_reason "length") is scored on its text and counted in "Cut off"',
            why="the release's largest cap"
            + (
                ", doubled for OCR: tokenizers often spend several tokens "
                "on one Indic word, and a page holds hundreds of words"
                if task == "ocr"
                else ""
            )
            + "; the count shows where a cap "
            "bit, which the release does not record",
            source=_WRAPPERS,
        ),
        ProtocolRow(
            "Failed requests",
            "the error's text is stored as the model's answer and scored as one",
            "a failed or refused request is an empty answer with its reason, scored as wrong and left out "
            'of "Answers read"',
            why="an error message is no answer; scoring its text as a transcription "
            "or translation gives it chance credit",
            source=_GENERATE,
        ),
        ProtocolRow(
            "Intervals",
            "none",
            "95% bootstrap intervals that resample images",
            why="a leaderboard compares models; the questions, translations or pages of one image are not "
            "independent, so images are resampled",
            source=_EVAL_MAIN,
        ),
    ]


def _ocr() -> list[ProtocolRow]:
    return [
        ProtocolRow(
            "Prompt",
            "asks for the exact text in the image, read by OCR, and the text alone",
            'our own wording of the same request ("Read the text in this image and write it out exactly. '
            'Give the text alone."), then the image',
            why="the release's licence does not allow copying its prompt; the request is the same",
            source=_GENERATE,
        ),
        ProtocolRow(
            "Normalized before the edit distance",
            "newlines as spaces, ends stripped",
            "newlines as spaces, ends stripped, and Unicode NFC with zero-width characters removed",
            why="the same visible text in two Unicode spellings (composed or not, with or without a joiner) "
            "is not a transcription error",
            source=_EVAL_UTILS,
        ),
        ProtocolRow(
            "Edit distance",
            "Levenshtein distance over the longer length, x 100, at character and at word "
            "level (lower is better); two empty texts divide by zero (infinity)",
            "the same distance (rapidfuzz); two empty texts are 0",
            why="an infinite score would make every mean infinite",
            source=_EVAL_METRICS,
        ),
        ProtocolRow(
            "Empty answers", "scored: an empty transcription is 100 (nothing shared)", "as released", source=_EVAL_UTILS
        ),
        ProtocolRow(
            "Headline",
            "the mean over all pages, pooled across languages, and the mean per language",
            "as released",
            source=_EVAL_MAIN,
        ),
        ProtocolRow(
            "English and Indic",
            "not reported apart",
            "beside the headline: Indic (the mean over the ten Indic languages, each language's pages "
            "averaged first) and English",
            why="a pooled mean weighs a language by its page count; the Indic figure weighs each language the same",
            source=_EVAL_MAIN,
        ),
        ProtocolRow(
            "CER and WER",
            "not reported",
            "corpus rates beside the paper's metrics: all edits over all reference characters (or words)",
            why="the usual OCR rates, for comparison with other OCR benchmarks",
            source=_EVAL_MAIN,
        ),
        ProtocolRow(
            "Counts",
            "pages scored, per language",
            'pages per language and n on every figure; "Answers read" and "Cut off" as shares',
            why="shows how many answers were empty, refused or cut off",
            source=_EVAL_MAIN,
        ),
    ]


def _mmt() -> list[ProtocolRow]:
    return [
        ProtocolRow(
            "Prompt",
            "the English caption, then a request to translate it into the target language for "
            "the image, with the translation alone and no explanation",
            "our own wording of the same parts in the same order, then the image",
            why="the release's licence does not allow copying its prompt; the request is the same",
            source=_GENERATE,
        ),
        ProtocolRow(
            "Normalized before BLEU, chrF++ and RIBES",
            "nothing: both texts scored as written",
            "Unicode NFC, zero-width characters removed, ends stripped, on both texts",
            why="the same visible text in two Unicode spellings is not a translation error",
            source=_EVAL_UTILS,
        ),
        ProtocolRow(
            "BLEU",
            "per sentence through Hugging Face evaluate's sacrebleu: a corpus BLEU of one sentence "
            "(13a tokenizer, exponential smoothing, no effective order), averaged per language. A sentence "
            "under four tokens has no 4-grams and scores 0 however right; a longer one with no matching "
            "4-gram is smoothed, not 0",
            "as released",
            source=_EVAL_METRICS,
        ),
        ProtocolRow(
            "Corpus BLEU",
            "not reported",
            "per language from the summed n-gram statistics, beside the released BLEU",
            why="the usual definition, free of the per-sentence zeros",
            source=_EVAL_METRICS,
        ),
        ProtocolRow(
            "chrF++",
            "not reported",
            "sacreBLEU chrF with word bigrams, per sentence, averaged",
            why="a character metric suits Indic morphology better than BLEU",
            source=_EVAL_METRICS,
        ),
        ProtocolRow(
            "RIBES",
            "nttcslab's RIBES.py: normalized Kendall's tau x unigram precision^0.25 x brevity "
            "penalty^0.10, on lower-cased whitespace tokens, 0-1",
            "the same algorithm (words aligned by the shortest unique n-gram context, a one-word reference "
            "found in the answer scoring nkt 1 x (1/answer length)^0.25), our own implementation, on the "
            "same tokens, x 100; an empty reference scores 0 (the release raises and leaves the sentence out)",
            why="0-100 like the other columns; the release's licence does not allow copying its code; a "
            "reference is never empty in the imported release",
            source=_EVAL_METRICS,
        ),
        ProtocolRow(
            "Headline",
            "none: the mean per target language only",
            "the mean over sentences (the mean over languages when every caption has its ten translations), "
            "and the mean per language",
            why="a leaderboard needs one primary figure",
            source=_EVAL_MAIN,
        ),
        ProtocolRow(
            "Counts",
            "sentences scored, per language",
            "captions x target languages present in the "
            'release, n on every figure; "Answers read" and "Cut off" as shares',
            why="shows how many answers were empty, refused or cut off",
            source=_EVAL_MAIN,
        ),
    ]


def _vqa() -> list[ProtocolRow]:
    return _vqa_reading_rows() + _vqa_judging_rows()


def _vqa_reading_rows() -> list[ProtocolRow]:
    """How a VQA question is asked and its answer read: the prompts, the option letters, the true/false words."""
    return [
        ProtocolRow(
            "Prompts",
            "short: the question and a request for a brief, clear answer in the language; "
            "long and adversarial: the question and a request for a detailed answer in the language; "
            "multiple choice: a strict instruction to reply <A>-<D> only, the question, the options as "
            '"A. ..." lines; true/false: a strict instruction to reply with the language\'s true or false '
            "word only, the statement, the two words",
            "our own wording of each, with the same parts in the same order, then the image; true/false asks "
            "for the released words (Bengali ঠিক/ভুল, Marathi बरोबर/चूक, Odia ଠିକ୍/ଭୁଲ୍, Telugu ఒప్పు/తప్పు "
            "and the same words as released in the other languages)",
            why="the release's licence does not allow copying its prompts; the requests are the same",
            source=_GENERATE,
        ),
        ProtocolRow(
            "Option letters",
            "a table per language: Latin A-D, and the letters in the script (ए अ / बी ब "
            "/ सी स / डी द in Hindi, ಏ ಬಿ ಸಿ ಡಿ in Kannada, ଏ ଅ ବି ସି ଡି in Odia, ਏ ਅ ਬੀ ਸੀ ਡੀ in Punjabi, ఏ ఎ బి "
            "సి డి in Telugu, ...)",
            "every released form, plus the script's alphabet as option labels (क ख ग घ in Hindi, and the like "
            "in each Indic language)",
            why="models label options that way too; adding forms reads more answers and never changes what "
            "a released form means",
            source=_EVAL_UTILS,
        ),
        ProtocolRow(
            "Reading a letter",
            "the first word of the answer (split at a space, full stop or danda), looked "
            "up in the table or as a Latin letter; otherwise the answer's text is compared with the gold's",
            'a letter alone or in brackets, a script form followed by ".", ")", ":" or a danda, '
            '"Option B", "B. ...", or the option\'s text',
            why='the first word of a sentence is no answer: Bengali এ ("this") and English "A" open sentences',
            source=_EVAL_UTILS,
        ),
        ProtocolRow(
            "True/false words",
            "one true and one false word per language, and four synonyms (Malayalam "
            "ശരിയാണ്, Marathi चुकीचे, Odia ଭୁଲ, Tamil பொய்)",
            "every released word and synonym, plus other synonyms (Hindi सत्य/असत्य, ...) and English "
            "True/False in any language",
            why="models answer with those words too; none of them is read against its released meaning",
            source=_EVAL_UTILS,
        ),
        ProtocolRow(
            "Empty answers",
            "dropped: not counted in any mean (an answer that cannot be read is not dropped: "
            "it is compared as written with the gold letter or word, so it is wrong)",
            'counted as wrong (judged types: 0 without asking the judge); "Answers read" gives the share '
            "that could be read",
            why="dropping them rewards a model for not answering what it cannot",
            source=_EVAL_UTILS,
        ),
    ]


def _vqa_judging_rows() -> list[ProtocolRow]:
    """How the open answers are graded, and the board's figures."""
    short, long, adversarial = (JUDGE_PROMPTS[k] for k in ("short_1", "long", "adversarial"))
    return [
        ProtocolRow(
            "Judge",
            "GPT-4o, temperature 0, up to 50 tokens, text only (question, gold answer, model "
            "answer); an answer that is not a number is asked again, up to three tries, then dropped",
            'the judge pinned for the role "indic-vision" (name and revision on every run), temperature '
            "0, up to 50 tokens, text only; a non-number is asked once more at temperature 0.7, then scored "
            '0 and counted in "Judge fallbacks"',
            why="a hosted GPT-4o cannot be pinned to a revision; a fallback is counted, not hidden",
            source=_EVAL_UTILS,
        ),
        ProtocolRow(
            "Judge prompts",
            "three: short answers (accuracy, correctness), long answers (consistency, "
            "fluency, relevance), adversarial (5 points for noticing the false assumption or doubting it, "
            "0-5 for identifying what the image shows: 0 / 1-2 / 3-4 / 5), each a number 0-10 only",
            f"three prompts of our own writing with the same criteria and rubric: {short.name}@{short.version}, "
            f"{long.name}@{long.version}, {adversarial.name}@{adversarial.version}",
            why="the release's licence does not allow copying its prompts",
            source=_EVAL_UTILS,
        ),
        answer_format_row(
            "No constraint: the prompt itself asks for a number 0-10 only, and the answer's text is read as a number",
            json_schema=GRADE_SCHEMA,
            source=_EVAL_UTILS,
        ),
        known_answer_row(
            "indic-vision-vqa",
            "the released gold answer (it matches the reference)",
            "the question sent back",
            _EVAL_UTILS,
        ),
        ProtocolRow(
            "Decimal grades",
            'the judge\'s text read as a number and clamped to 0-10 ("7.5" is 7.5)',
            "as released",
            source=_EVAL_UTILS,
        ),
        ProtocolRow("Wrong-language penalty", "none", "as released", source=_EVAL_UTILS),
        ProtocolRow(
            "Headline",
            "each set (English, Indic, parallel) scored in its own run: accuracy for multiple "
            "choice and true/false, the judge's mean for the rest, pooled and per language",
            "Indic: the mean over the ten Indic languages of each language's score; English beside it; every "
            "question on 0-100 (a correct choice 100, a grade x 10); per type and per language as well",
            why="one run covers every set: pooling them would weigh English about four times an Indic "
            "language, so each language is averaged first",
            source=_EVAL_MAIN,
        ),
        ProtocolRow(
            "Counts",
            "answers scored per language and type",
            "every question per language and type, read "
            'or not; "Answers read", "Cut off" and "Judge fallbacks" as shares',
            why="shows how many answers were empty, unreadable, cut off or fell back",
            source=_EVAL_MAIN,
        ),
    ]


def rows(task: str) -> list[ProtocolRow]:
    """The card of the board for ``task`` ("ocr", "mmt" or "vqa")."""
    own = {"ocr": _ocr, "mmt": _mmt, "vqa": _vqa}[task]
    return _shared(task) + own()
