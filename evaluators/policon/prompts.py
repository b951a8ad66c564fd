"""PoliCon's prompts: the drafting prompt of each objective and the judge's per-party question.

The drafting prompt gives the background, the parties' stances, the objective's requirement (seat
shares and the voting rule for SM, 2/3M and VP; for Rawls and Util the principle, in the release's own
sentence, since its definition is what the objective measures), the guidance of
PoliCon's released prompt in our words (the shares are weights for the exercise, not real seats; each
stance weighs with its share; opposing stances get concrete remedies, supportive ones may be
qualified; one paragraph of substance without procedure), an example resolution and "Now is your
turn:". The example is fixed and fictional (lighthouse upkeep, a topic no task has), so a task's own
adopted resolution never leaks into its prompt, which PoliCon's released code could do.

Judge prompts are registered with the platform's judge prompts; once registered a text never changes
(a new text is a new version). ``policon-support@v2`` is our wording of the released rubric: a neutral
judge, three bands with what each means, the same reading for supportive and opposing stances, and the
format rule (a text that does not open with "The European Parliament", or only restates the stances,
is in the lowest band). ``policon-support@v1``, the project's first one-line band list, stays
selectable. ``PROTOCOLS`` ties each version to its retry count and fallback vote.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluators.llm.judges import JudgePrompt, register_prompt
from evaluators.policon.release import Task

OPENING = "The European Parliament raised"
#: how an empty released stance (3 tasks) appears in the prompts
NO_STANCE = "(the release gives no stance for this party)"
EXAMPLE_RESOLUTION = (
    "The European Parliament raised its concern that the upkeep of lighthouses along coastal shipping lanes "
    "has fallen behind, calls on the Commission to set up by 2028 a fund of EUR 40 million, managed with "
    "the coastal regions, that pays for repairs on the basis of yearly safety inspections; asks Member "
    "States to keep each lighthouse staffed or remotely monitored around the clock, to publish the "
    "inspection reports, and to consult fishing and ferry operators before any light is switched off."
)
DRAFTING_SYSTEM = (
    "You are a helpful assistant. Give clear, accurate and practical answers, detailed where it "
    "matters and without needless complexity."
)
DRAFTING_GUIDANCE = (
    f"Write one consensus resolution of the European Parliament that meets the requirement above, as one continuous "
    f'paragraph with no formatting or line breaks, starting with "{OPENING}". Concentrate on what the resolution '
    "decides: its substance, its measures and figures where they apply; leave out procedure such as votes and "
    "amendments. Where a party opposes the matter, set out concrete solutions and safeguards that answer its "
    "concerns; where a supporting party's demands have to be tempered, state them with suitable conditions and "
    "limits. Be concise but complete."
)

JUDGE_PROMPT_V1 = register_prompt(
    JudgePrompt(
        "policon-support",
        "v1",
        system="You are a member of a political party in the European Parliament. You judge a draft resolution "
        "only by how well it serves your party's stance.",
        user="Background:\n$background\n\nDraft resolution:\n$resolution\n\nYour party: $party\n"
        "Your party's stance:\n$stance\n\n"
        "How far does the draft resolution give specific, feasible implementation details that capture your "
        "party's stance? 0-3: poorly, 4-6: partly, 7-9: fully. Answer 0 if the text is not a resolution. "
        "Answer with one digit from 0 to 9.",
    )
)
JUDGE_PROMPT_V2 = register_prompt(
    JudgePrompt(
        "policon-support",
        "v2",
        system="You are an impartial assessor of draft European Parliament resolutions. You belong to no party; you "
        "rate how well a draft serves the stated position of one party.",
        user="Background:\n$background\n\nDraft resolution:\n$resolution\n\nParty: $party\n"
        "The party's stance:\n$stance\n\n"
        "Rate from 0 to 9 how far the draft turns this party's stance into specific, workable measures. Rate it "
        "the same way whether the stance supports or opposes the matter debated: for a supporting stance, how "
        "fully the draft delivers what the party asks for; for an opposing stance, how fully it answers the "
        "party's objections.\n\n"
        '0-3: the draft does not open with "The European Parliament" (a leading "assistant" label aside); or '
        "it only restates the stances without saying how they would be carried out; or its measures are "
        "unrealistic; or it leaves out key points of the stance; or it weakens what a supporting party seeks "
        "(for an opposing party: it advances what the party objects to). A text that is not a resolution at "
        "all gets 0.\n"
        "4-6: the draft gives some workable measures for the stance but is incomplete (it covers only some of "
        "the stance's key points, though at least half of them) or is at minor odds with the party's "
        "interests (another way of implementing it than the party prefers, a slower timetable than the party "
        "wants).\n"
        "7-9: the draft sets out detailed, concrete and workable measures for every point of the stance without "
        "diluting any (for an opposing party: it fully resolves the party's concerns); the more thoroughly "
        "each point is covered, the higher the score.\n\n"
        "The scale: 0 not at all, 1 very poorly, 2 poorly, 3 somewhat poorly, 4 somewhat, 5 moderately, "
        "6 somewhat well, 7 well, 8 very well, 9 perfectly. Answer with one digit from 0 to 9 and nothing else.",
    )
)


@dataclass(frozen=True)
class JudgeProtocol:
    """How the judge is asked: the prompt version, how often an unusable answer is asked again, and
    the vote counted (as a fallback) when it stays unusable."""

    prompt: JudgePrompt
    retries: int
    fallback_vote: int

    @property
    def key(self) -> str:
        return f"{self.prompt.name}@{self.prompt.version}"


#: judge prompt version -> protocol; v2 is PoliCon's released one (10 retries, then a vote of 4)
PROTOCOLS: dict[str, JudgeProtocol] = {
    "v2": JudgeProtocol(JUDGE_PROMPT_V2, retries=10, fallback_vote=4),
    "v1": JudgeProtocol(JUDGE_PROMPT_V1, retries=1, fallback_vote=0),
}
DEFAULT_PROTOCOL = "v2"
#: the Rawls and Util requirements as released (runner/task_prompts.py, task_requirement_templates): the
#: principle's definition is what the objective measures, so it is sent in the release's words
WELFARE_REQUIREMENTS: dict[str, str] = {
    "rawls": "The resolution should be based on the Rawlsianism principle, which means maximizing the benefits for "
    "the political parties with the weakest positions to achieve the greatest possible fairness.",
    "util": "The resolution should be based on the Utilitarianism principle, which means maximizing the preferences "
    "of all political parties while ensuring their sum is maximized.",
}
#: what the judge may answer
DIGITS: tuple[str, ...] = tuple(str(d) for d in range(10))


def _percent(tenths: int) -> str:
    return f"{tenths * 10}%"


def stance_text(stance: str) -> str:
    """A party's stance as the prompts show it (an empty released stance named as such)."""
    return stance or NO_STANCE


def requirement(task: Task, objective: str) -> str:
    """The objective's requirement, as the drafting prompt states it."""
    seats = (
        "; ".join(f"{p.name} holds {_percent(p.seat_tenths)} of the seats" for p in task.parties)
        + " (weights set for this exercise, not the parties' real seats); give each party's stance weight in "
        "proportion to its share"
    )
    if objective == "sm":
        return (
            f"The resolution must be adopted by a simple majority: parties holding more than half of the seats "
            f"must support it. {seats}."
        )
    if objective == "two_thirds":
        return (
            f"The resolution must be adopted by a two-thirds majority: parties holding at least two thirds of the "
            f"seats must support it. {seats}."
        )
    if objective == "veto":
        return (
            f"{task.veto_party} holds a veto: the resolution must satisfy {task.veto_party}, and parties holding "
            f"more than half of the seats must support it. {seats}."
        )
    if objective in WELFARE_REQUIREMENTS:
        return WELFARE_REQUIREMENTS[objective]
    raise KeyError(f"unknown objective {objective!r}")


def drafting_messages(task: Task, objective: str) -> list[dict[str, str]]:
    """The chat messages asking a model for the resolution of ``task`` under ``objective``."""
    stances = "\n".join(f"- {p.name}: {stance_text(p.stance)}" for p in task.parties)
    text = (
        f"{task.background}\n\n"
        f"A group of {len(task.parties)} political parties in the European Parliament is negotiating to reach "
        f"consensus on this topic: {task.title}\n\nThe parties' stances:\n{stances}\n\n"
        f"Requirement: {requirement(task, objective)}\n\n{DRAFTING_GUIDANCE} An example of the form, on "
        f"another topic:\n{EXAMPLE_RESOLUTION}\n\nNow is your turn:"
    )
    return [{"role": "system", "content": DRAFTING_SYSTEM}, {"role": "user", "content": text}]
