"""PoliCon's prompts: the drafting prompt of each objective and the judge's per-party question.

The drafting prompt gives the background, the parties' stances, the objective's requirement (seat
shares and the voting rule for SM, 2/3M and VP; one principle for Rawls and Util), the paragraph form
asked for, an example resolution and "Now is your turn:". The example is fixed and fictional
(lighthouse upkeep, a topic no task has), so a task's own adopted resolution never leaks into its
prompt, which PoliCon's released code could do.

The judge prompt ``policon-support@v1`` is registered with the platform's judge prompts; once
registered its text never changes (a new text is a new version).
"""
from __future__ import annotations

from evaluators.llm.judges import JudgePrompt, register_prompt
from evaluators.policon.release import Task

OPENING = "The European Parliament raised"
EXAMPLE_RESOLUTION = (
    "The European Parliament raised its concern that the upkeep of lighthouses along coastal shipping lanes "
    "has fallen behind, calls on the Commission to set up by 2028 a fund of EUR 40 million, managed with "
    "the coastal regions, that pays for repairs on the basis of yearly safety inspections; asks Member "
    "States to keep each lighthouse staffed or remotely monitored around the clock, to publish the "
    "inspection reports, and to consult fishing and ferry operators before any light is switched off.")

JUDGE_PROMPT = register_prompt(JudgePrompt(
    "policon-support", "v1",
    system="You are a member of a political party in the European Parliament. You judge a draft resolution "
           "only by how well it serves your party's stance.",
    user="Background:\n$background\n\nDraft resolution:\n$resolution\n\nYour party: $party\n"
         "Your party's stance:\n$stance\n\n"
         "How far does the draft resolution give specific, feasible implementation details that capture your "
         "party's stance? 0-3: poorly, 4-6: partly, 7-9: fully. Answer 0 if the text is not a resolution. "
         "Answer with one digit from 0 to 9."))
#: what the judge may answer
DIGITS: tuple[str, ...] = tuple(str(d) for d in range(10))


def _percent(tenths: int) -> str:
    return f"{tenths * 10}%"


def requirement(task: Task, objective: str) -> str:
    """The objective's requirement, as the drafting prompt states it."""
    seats = "; ".join(f"{p.name} holds {_percent(p.seat_tenths)} of the seats" for p in task.parties)
    if objective == "sm":
        return (f"The resolution must be adopted by a simple majority: parties holding more than half of the seats "
                f"must support it. {seats}.")
    if objective == "two_thirds":
        return (f"The resolution must be adopted by a two-thirds majority: parties holding at least two thirds of the "
                f"seats must support it. {seats}.")
    if objective == "veto":
        return (f"{task.veto_party} holds a veto: the resolution must satisfy {task.veto_party}, and parties holding "
                f"more than half of the seats must support it. {seats}.")
    if objective == "rawls":
        return "Follow the Rawlsian principle: make the least satisfied party as satisfied as possible."
    if objective == "util":
        return "Follow the utilitarian principle: make the parties' average satisfaction as high as possible."
    raise KeyError(f"unknown objective {objective!r}")


def drafting_messages(task: Task, objective: str) -> list[dict[str, str]]:
    """The chat messages asking a model for the resolution of ``task`` under ``objective``."""
    stances = "\n".join(f"- {p.name}: {p.stance}" for p in task.parties)
    text = (f"{task.background}\n\n"
            f"A group of {len(task.parties)} political parties is negotiating to reach consensus on this topic: "
            f"{task.title}\n\nThe parties' stances:\n{stances}\n\n"
            f"Requirement: {requirement(task, objective)}\n\n"
            f"Write the resolution as one paragraph that starts with \"{OPENING}\". An example of the form, on "
            f"another topic:\n{EXAMPLE_RESOLUTION}\n\nNow is your turn:")
    return [{"role": "user", "content": text}]
