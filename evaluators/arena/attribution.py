"""Citation attribution of one arena answer: which cited source backs which claim.

The Search Arena paper's question (does a citation support the claim it is attached to?) as a step of
the platform. An answer with ``[n]`` markers is broken into (claim, cited source) pairs and each pair
gets a label: ``supported``, ``contradicting`` or ``irrelevant`` (the paper's support / contradict /
irrelevant), or ``unchecked`` when we hold no text of the cited page (an imported battle keeps only
its URLs). The cited page's text is what the search trace stored for that URL: the source's title and
snippet, and the snippets of every search result with the same URL. That is the text the model was
shown, not the whole page the paper's authors scraped.

Two methods, and every result names the one that produced it:

- a judge (role ``arena-attribution`` in the site's judges), asked two versioned prompts of our own:
  ``arena-attribution-claims@v1`` splits the answer into claims with the source numbers each cites
  (structured output: a JSON object), then ``arena-attribution@v1`` is asked once per cited source
  for a label for each claim citing it (the sources checked at once within the judge's concurrency).
  A malformed claims answer falls back to splitting by sentence and says so; a malformed check
  answer labels its pairs ``failed`` (the release's "Failed": counted in no share, counted and shown
  as failed); an unreachable judge falls back to the heuristic for the whole answer and says so. Every call, with its
  raw answer, is kept (``judge_calls``);
- without a judge, :data:`HEURISTIC_METHOD`: each sentence holding markers is a claim; a pair is
  ``supported`` when at least :data:`SUPPORT_SHARE` of the claim's content words (not stop words;
  numbers kept) occur in the cited text, else ``irrelevant``. It is crude: it cannot see a
  contradiction (it never says ``contradicting``), a paraphrase reads as irrelevant and a claim that
  copies the source's words while negating them reads as supported.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluators.core.types import InfrastructureError
from evaluators.llm.judges import Judge, JudgePrompt, register_prompt
from evaluators.llm.types import Answer, JudgeBatch, JudgeCall

SUPPORTED, CONTRADICTING, IRRELEVANT, UNCHECKED = "supported", "contradicting", "irrelevant", "unchecked"
#: a pair the judge was asked about but whose answer was unusable: the release's "Failed" (counted in no
#: share, shown with its count), never relabelled by the heuristic
FAILED = "failed"
#: the labels a checked pair can get, in the order pages show them
LABELS: tuple[str, ...] = (SUPPORTED, IRRELEVANT, CONTRADICTING)
#: the judge's answer words (the paper's) -> our labels
_JUDGE_LABELS = {"support": SUPPORTED, "contradict": CONTRADICTING, "irrelevant": IRRELEVANT}

JUDGE_ROLE = "arena-attribution"
CLAIMS_PROMPT, CHECK_PROMPT, PROMPT_VERSION = "arena-attribution-claims", "arena-attribution", "v1"
SUPPORT_SHARE = 0.6
HEURISTIC_METHOD = (
    f"overlap-v1 (crude: a sentence with citation markers is a claim; supported when {SUPPORT_SHARE:.0%} "
    "of its content words occur in the cited text, else irrelevant; never contradicting; no model)"
)
#: the most characters of one cited source's text shown to the judge
SOURCE_CHARS = 6000

register_prompt(
    JudgePrompt(
        CLAIMS_PROMPT,
        PROMPT_VERSION,
        system="You read answers written by search assistants and list what they claim on the authority of a source.",
        user="Answer (citation markers look like [3]):\n$answer\n\nSource numbers that exist: $numbers\n\n"
        "List every statement of the answer that carries one or more citation markers. Make each statement readable "
        "on its own (resolve pronouns, keep the subject), and give the numbers of the sources it cites. "
        'Reply with a JSON object {"claims": [{"claim": <statement>, "citations": [<number>, ...]}, ...]}.',
    )
)
register_prompt(
    JudgePrompt(
        CHECK_PROMPT,
        PROMPT_VERSION,
        system="You check whether a cited text backs the statements that cite it. Judge only by the text given.",
        user="Cited text ($kind):\n$source\n\nStatements citing it:\n$claims\n\n"
        "For each statement, in order, decide: the text states or directly implies it (support), the text says "
        "otherwise (contradict), or the text does not address it (irrelevant). "
        'Reply with a JSON object {"verdicts": [{"reasoning": <one sentence>, "label": "support" | "contradict" | '
        '"irrelevant"}, ...]} with exactly $count verdicts.',
    )
)

CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "claim": {"type": "string"},
                    "citations": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["claim", "citations"],
            },
        }
    },
    "required": ["claims"],
}
CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "reasoning": {"type": "string"},
                    "label": {"type": "string", "enum": list(_JUDGE_LABELS)},
                },
                "required": ["reasoning", "label"],
            },
        }
    },
    "required": ["verdicts"],
}

_MARKERS = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]|【(\d{1,3})(?:†[^】]*)?】")
_SENTENCE = re.compile(r"\S.*?(?:[.!?]+(?:\s*(?:\[\d{1,3}(?:\s*,\s*\d{1,3})*\]|【\d{1,3}(?:†[^】]*)?】))*(?=\s|$)|$)")
_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    """a an the and or but nor so yet of in on at to for from by with about as into onto over under than then
that this these those there here it its is are was were be been being has have had do does did can could may might must
shall should will would not no yes also very more most much many some any each every all both either neither such which
who whom whose what when where why how while if else because since until unless although though their they them
he she his her we our you your i me my mine ours yours le la les de des du un une et est el los las y en""".split()
)


@dataclass(frozen=True)
class Claim:
    """A statement of the answer and the source numbers its markers point at."""

    text: str
    numbers: tuple[int, ...]


@dataclass(frozen=True)
class Pair:
    """One claim and one source it cites, with the label and why."""

    claim: str
    number: int
    url: str
    label: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "number": self.number, "url": self.url, "label": self.label, "reason": self.reason}


@dataclass
class Attribution:
    """An answer's pairs, the method that labelled them and every judge call behind them."""

    method: str
    pairs: list[Pair]
    judge_calls: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Pairs per label (``unchecked`` and ``failed`` included)."""
        found = dict.fromkeys((*LABELS, UNCHECKED, FAILED), 0)
        for pair in self.pairs:
            found[pair.label] += 1
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "pairs": [p.to_dict() for p in self.pairs],
            "judge_calls": self.judge_calls,
            "counts": self.counts(),
        }


def _numbers(body: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", body))


def split_claims(text: str) -> list[Claim]:
    """Each sentence (or list item, or line) that holds citation markers, with the markers removed and
    the numbers they cite, in order. A marker just after the full stop belongs to the sentence before."""
    claims: list[Claim] = []
    for line in (text or "").splitlines():
        for match in _SENTENCE.finditer(line):
            sentence = match.group(0)
            numbers = tuple(dict.fromkeys(n for m in _MARKERS.finditer(sentence) for n in _numbers(m.group(0))))
            if not numbers:
                continue
            plain = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", _MARKERS.sub("", sentence))).strip()
            plain = re.sub(r"^(?:[-*+]|\d+[.)]|#+)\s+", "", plain).replace("**", "").replace("__", "").strip()
            if plain:
                claims.append(Claim(plain, numbers))
    return claims


def cited_texts(answer: Answer) -> dict[int, tuple[str, str]]:
    """Source number -> (URL, the text the search trace holds for it: title and snippets, each once)."""
    by_url: dict[str, list[str]] = {}
    for search in answer.searches:
        for result in search.results:
            by_url.setdefault(result.url, []).extend(t for t in (result.title, result.snippet) if t)
    found: dict[int, tuple[str, str]] = {}
    for source in answer.sources:
        parts = [t for t in (source.title, source.snippet, *by_url.get(source.url, [])) if t]
        found[source.number] = (source.url, "\n".join(dict.fromkeys(p.strip() for p in parts if p.strip())))
    return found


def content_words(text: str) -> list[str]:
    """The words that carry a statement's content: not stop words, three letters or more, or a number."""
    words = (w.lower() for w in _WORD.findall(text or ""))
    return [w for w in words if w not in _STOP and (len(w) >= 3 or w.isdigit())]


def overlap_label(claim: str, source_text: str) -> tuple[str, str]:
    """The heuristic's label for one pair, with the share that decided it."""
    if not source_text.strip():
        return UNCHECKED, "no text of the cited page is stored"
    words = content_words(claim)
    if not words:
        return IRRELEVANT, "the claim has no content words"
    present = set(content_words(source_text))
    share = sum(1 for w in words if w in present) / len(words)
    label = SUPPORTED if share >= SUPPORT_SHARE else IRRELEVANT
    return label, f"{share:.0%} of the claim's content words are in the cited text"


def _pairs(claims: Sequence[Claim], texts: Mapping[int, tuple[str, str]]) -> list[tuple[Claim, int]]:
    """(claim, number) for every number a claim cites that names a source of the answer (others dropped)."""
    return [(claim, n) for claim in claims for n in claim.numbers if n in texts]


def attribute_by_overlap(answer: Answer) -> Attribution:
    texts = cited_texts(answer)
    pairs = []
    for claim, number in _pairs(split_claims(answer.text), texts):
        url, text = texts[number]
        label, reason = overlap_label(claim.text, text)
        pairs.append(Pair(claim.text, number, url, label, reason))
    return Attribution(HEURISTIC_METHOD, pairs)


def attribute(answer: Answer, *, judge: Judge | None = None) -> Attribution:
    """The answer's attribution, by ``judge`` when one is given, else by the heuristic (module doc)."""
    if judge is None or not answer.sources:
        return attribute_by_overlap(answer)
    label = judge.spec.label
    try:
        return _attribute_by_judge(answer, judge)
    except InfrastructureError as exc:  # the judge is down: the turn keeps the heuristic's labels, and says so
        fallback = attribute_by_overlap(answer)
        fallback.method = f"{HEURISTIC_METHOD}; judge {label} failed (unavailable): {exc}"
        return fallback


def _check(count: int) -> Any:
    def check(parsed: Any) -> str | None:
        verdicts = parsed.get("verdicts") if isinstance(parsed, dict) else None
        if not isinstance(verdicts, list) or len(verdicts) != count:
            return f"expected {count} verdicts"
        if any(not isinstance(v, dict) or v.get("label") not in _JUDGE_LABELS for v in verdicts):
            return "a verdict's label is not support, contradict or irrelevant"
        return None

    return check


def _judged_claims(answer: Answer, judge: Judge, calls: list[dict[str, Any]], notes: list[str]) -> list[Claim]:
    call: JudgeCall = judge.ask(
        CLAIMS_PROMPT,
        {"answer": answer.text[:20000], "numbers": ", ".join(str(s.number) for s in answer.sources)},
        json_schema=CLAIMS_SCHEMA,
        prompt_version=PROMPT_VERSION,
    )
    calls.append(call.to_dict())
    items = call.parsed.get("claims") if isinstance(call.parsed, dict) and not call.error else None
    if not isinstance(items, list):
        notes.append(f"claims split by sentence (the judge's claims were unusable: {call.error or 'no claims list'})")
        return split_claims(answer.text)
    claims = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("claim"), str) and isinstance(item.get("citations"), list):
            numbers = tuple(
                dict.fromkeys(int(n) for n in item["citations"] if isinstance(n, int) and not isinstance(n, bool))
            )
            if item["claim"].strip() and numbers:
                claims.append(Claim(item["claim"].strip(), numbers))
    return claims


def _attribute_by_judge(answer: Answer, judge: Judge) -> Attribution:
    calls: list[dict[str, Any]] = []
    notes: list[str] = []
    texts = cited_texts(answer)
    by_number: dict[int, list[Claim]] = {}
    for claim, number in _pairs(_judged_claims(answer, judge, calls, notes), texts):
        by_number.setdefault(number, []).append(claim)
    labels: dict[tuple[int, int], tuple[str, str]] = {}
    asked = [n for n in by_number if texts[n][1].strip()]
    for number in by_number:
        if number not in asked:
            for i in range(len(by_number[number])):
                labels[(number, i)] = (UNCHECKED, "no text of the cited page is stored")
    for count in sorted({len(by_number[n]) for n in asked}):  # one batch per claim count: its check needs the count
        numbers = [n for n in asked if len(by_number[n]) == count]
        batch: JudgeBatch = judge.ask_many(
            CHECK_PROMPT,
            shared={"count": count},
            each=[
                {
                    "source": texts[n][1][:SOURCE_CHARS],
                    "kind": "YouTube video" if _is_youtube(texts[n][0]) else "web page",
                    "claims": "\n".join(f"{i + 1}. {c.text}" for i, c in enumerate(by_number[n])),
                }
                for n in numbers
            ],
            json_schema=CHECK_SCHEMA,
            check=_check(count),
            prompt_version=PROMPT_VERSION,
        )
        calls.append(batch.to_dict())
        for number, call in zip(numbers, batch.calls):
            verdicts = call.parsed.get("verdicts") if isinstance(call.parsed, dict) and not call.error else None
            for i in range(len(by_number[number])):
                if verdicts is None:
                    labels[(number, i)] = (FAILED, f"the judge's answer was unusable ({call.error})")
                else:
                    labels[(number, i)] = (_JUDGE_LABELS[verdicts[i]["label"]], str(verdicts[i].get("reasoning", "")))
    pairs = [
        Pair(claim.text, number, texts[number][0], *labels[(number, i)])
        for number in by_number
        for i, claim in enumerate(by_number[number])
    ]
    method = f"judge {judge.spec.label} (prompts {CLAIMS_PROMPT}@{PROMPT_VERSION}, {CHECK_PROMPT}@{PROMPT_VERSION})"
    return Attribution("; ".join([method, *notes]), pairs, calls)


def _is_youtube(url: str) -> bool:
    return "youtube.com" in url or "youtu.be" in url


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score 95% interval of a share k/n ((0, 1) when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
