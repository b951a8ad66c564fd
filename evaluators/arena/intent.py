"""Intent of an arena prompt, in the Search Arena paper's nine classes, for sub-leaderboards.

Two methods, and every answer says which one produced it:

- a configured judge model (``evaluators.llm.judges.Judge``), asked for a JSON object
  ``{"primary": ..., "secondary": ...}`` constrained to the class names (prompt ``arena-intent``);
- without a judge, or when the judge fails, a transparent rule classifier: keyword patterns per
  class, scored by how many match, ties broken by the order of :data:`INTENTS`. It is crude and
  labelled as such (:data:`METHOD`); a sub-leaderboard built on it says so.

The secondary intent is always one of the nine classes; "Other" when nothing else applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluators.core.types import InfrastructureError

INTENTS = (
    "Text Processing",
    "Creative Generation",
    "Factual Lookup",
    "Info Synthesis",
    "Analysis",
    "Recommendation",
    "Explanation",
    "Guidance",
    "Other",
)
#: The rule classifier's label, stored with every intent it assigns.
METHOD = "rules-v1 (keyword rules, no model)"
JUDGE_PROMPT = "arena-intent"

# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
_RULES: dict[str, tuple[str, ...]] = {
    "Text Processing": (r"\btranslat\w*", r"\bsummari[sz]e (this|the following|my)", r"\brewrite\b", r"\bparaphras\w*",
                        r"\bproofread\w*", r"\bgrammar\b", r"\breformat\w*", r"\bconvert (this|the following)",
                        r"\bextract\b", r"\btl;?dr\b", r"\bshorten\b"),
    "Creative Generation": (r"\bpoem\b", r"\bstory\b", r"\bsong\b", r"\blyrics\b", r"\bjoke\b", r"\bfiction\w*",
                            r"\bslogan\b", r"\bhaiku\b", r"\bimagine\b",
                            r"\bwrite (me )?an? (essay|poem|story|letter|speech)"),
    "Factual Lookup": (r"^(who|when|where) (is|was|are|were|did)\b", r"\bhow (many|much|old|tall|far|long ago)\b",
                       r"\bwhat (year|date|time)\b", r"\bcapital of\b", r"\bpopulation of\b", r"\bprice of\b",
                       r"\blatest version\b", r"\bdefault value\b", r"\bwhich version\b", r"\brelease date\b"),
    "Info Synthesis": (r"\boverview\b", r"\bnews\b", r"\blatest (developments|research|news)\b",
                       r"\bstate of the art\b", r"\btrends?\b", r"\blist (of|all)\b", r"\bcompile\b", r"\bsurvey\b",
                       r"\bwhat are the\b", r"\bsummary of\b"),
    "Analysis": (r"\banaly[sz]\w*", r"\bcompare\w*", r"\bcomparison\b", r"\bvs\.?\b", r"\bversus\b",
                 r"\bpros and cons\b", r"\bdifferences? between\b", r"\bevaluat\w*", r"\bimpact of\b",
                 r"\btrade-?offs?\b", r"\bimplications?\b"),
    "Recommendation": (r"\brecommend\w*", r"\bbest\b", r"\bsuggest\w*", r"\bshould i\b", r"\btop \d+\b",
                       r"\balternatives? to\b", r"\bwhich (one|library|module|tool)\b", r"\bworth it\b"),
    "Explanation": (r"\bexplain\w*", r"^what (is|are|does)\b", r"\bhow does\b.*\bwork", r"\bwhy (is|are|does|do)\b",
                    r"\bmeaning of\b", r"\bdefin(e|ition)\b", r"\bwhat does .* mean\b", r"\bunderstand\b"),
    "Guidance": (r"\bhow (do|can|should) i\b", r"\bhow to\b", r"\bsteps? (to|for)\b", r"\bguide\b", r"\btutorial\b",
                 r"\bhelp me\b", r"\bfix\b", r"\btroubleshoot\w*", r"\binstall\w*", r"\bset ?up\b", r"\berror\b"),
}
# fmt: on
_COMPILED = {intent: [re.compile(p, re.I | re.M) for p in patterns] for intent, patterns in _RULES.items()}


class IntentJudge(Protocol):
    """What :func:`classify` needs from ``evaluators.llm.judges.Judge``."""

    def ask(
        self,
        prompt_key: str,
        variables: dict[str, Any],
        *,
        choices: Any = None,
        json_schema: dict[str, Any] | None = None,
    ) -> Any: ...


@dataclass(frozen=True)
class Intent:
    primary: str
    secondary: str
    method: str
    judge_call: dict[str, Any] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "primary": self.primary,
            "secondary": self.secondary,
            "method": self.method,
            "judge_call": self.judge_call,
        }


JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "primary": {"type": "string", "enum": list(INTENTS)},
        "secondary": {"type": "string", "enum": list(INTENTS)},
    },
    "required": ["primary", "secondary"],
    "additionalProperties": False,
}


def rule_scores(prompt: str) -> dict[str, int]:
    """How many of each class's patterns match (the first 5,000 characters)."""
    text = (prompt or "")[:5000].strip()
    return {intent: sum(1 for p in patterns if p.search(text)) for intent, patterns in _COMPILED.items()}


def classify_by_rules(prompt: str) -> Intent:
    scores = rule_scores(prompt)
    ranked = [i for i in sorted(scores, key=lambda i: (-scores[i], INTENTS.index(i))) if scores[i] > 0]
    primary = ranked[0] if ranked else "Other"
    secondary = ranked[1] if len(ranked) > 1 else "Other"
    return Intent(primary, secondary, METHOD)


def classify_detailed(prompt: str, *, judge: IntentJudge | None = None) -> Intent:
    """The intent with the method that produced it (and the judge's call, when one was asked)."""
    if judge is None:
        return classify_by_rules(prompt)
    label = getattr(getattr(judge, "spec", None), "label", "judge")
    try:
        call = judge.ask(
            JUDGE_PROMPT, {"prompt": (prompt or "")[:8000], "classes": ", ".join(INTENTS)}, json_schema=JSON_SCHEMA
        )
    except KeyError as exc:  # the judge's prompt version has no intent prompt
        fallback = classify_by_rules(prompt)
        return Intent(fallback.primary, fallback.secondary, f"{METHOD}; judge {label} unusable: {exc.args[0]}")
    except InfrastructureError as exc:  # the judge is down: a battle's label never waits for it
        fallback = classify_by_rules(prompt)
        return Intent(fallback.primary, fallback.secondary, f"{METHOD}; judge {label} failed (unavailable): {exc}")
    parsed = getattr(call, "parsed", None)
    error = getattr(call, "error", "") or ""
    record = call.to_dict() if hasattr(call, "to_dict") else None
    if not error and isinstance(parsed, dict) and parsed.get("primary") in INTENTS:
        secondary = str(parsed["secondary"]) if parsed.get("secondary") in INTENTS else "Other"
        return Intent(str(parsed["primary"]), secondary, f"judge {label}", record)
    fallback = classify_by_rules(prompt)
    problem = error or f"answer {str(parsed)[:80]!r} is not one of the classes"
    return Intent(fallback.primary, fallback.secondary, f"{METHOD}; judge {label} failed: {problem}", record)


def classify(prompt: str, *, judge: IntentJudge | None = None) -> tuple[str, str]:
    """(primary, secondary) intent of ``prompt``; see :func:`classify_detailed` for the method."""
    result = classify_detailed(prompt, judge=judge)
    return result.primary, result.secondary
