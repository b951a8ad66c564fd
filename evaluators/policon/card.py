"""PoliCon's method card: each protocol element of the authors' release beside what this platform does.

The released side was read in the authors' repository (github.com/enrico956/EuroCon, the layout and
code PoliCon ships): ``runner/task_prompts.py`` and ``runner/task_runner.py`` (drafting),
``evals/eval_agent.py`` (the judge, its retries and fallback), ``utils/call_gpt.py`` and ``config.py``
(models and settings), ``evals/get_voting_result.py`` and ``utils/swf.py`` (aggregation) and
``datas/task_datas`` (counts). A row whose ``here`` is not "as released" says why.
"""

from __future__ import annotations

from typing import Any

from evaluators.core.types import ProtocolRow
from evaluators.llm.constraints import answer_format_row
from evaluators.policon.prompts import DEFAULT_PROTOCOL, DIGITS, PROTOCOLS, WELFARE_REQUIREMENTS, JudgeProtocol
from evaluators.policon.validation import PASS_R

#: tasks per party count in the paper (and in the release's task_datas)
PAPER_TASKS: dict[int, int] = {2: 2172, 4: 2022, 6: 1530}
#: the paper's correlation between its judge's votes and the parties' real votes (as quoted in issue 31;
#: the released repository holds no paper text)
PAPER_JUDGE_R = 0.83
REPO = "enrico956/EuroCon"
#: the judge's sampling as released (utils/call_gpt.py): top_p 0.95 and seed 42 on every call, at temperature 0
JUDGE_TOP_P = 0.95
JUDGE_SEED = 42


def protocol_card(protocol: JudgeProtocol, generation: dict[str, Any], judge_max_tokens: int) -> list[ProtocolRow]:
    """The card for the judge ``protocol`` (a setting), the drafting ``generation`` defaults and the
    judge's answer budget."""
    return [
        *_drafting_rows(generation),
        *_judging_rows(protocol, judge_max_tokens),
        *_judge_failure_rows(protocol),
        *_scoring_rows(),
    ]


def _drafting_rows(generation: dict[str, Any]) -> list[ProtocolRow]:
    """How the model under test is asked for its resolution: the prompt's parts and the sampling."""
    return [
        ProtocolRow(
            "Drafting prompt",
            "A system prompt asking for helpful, clear, concise answers; the background, the parties' stances, "
            "the objective's requirement and guidance: one continuous paragraph opening \"The European "
            'Parliament raised", substance, decisions and figures without procedure, detailed remedies for '
            "opposing stances, supportive ones qualified where they must be moderated",
            "The same instructions in our own words (the Rawls and Util requirements excepted: next row)",
            "The released sentences are the authors'; the platform restates them rather than copy them",
            f"{REPO}: runner/task_prompts.py",
        ),
        ProtocolRow(
            "Rawls and Util requirements",
            'Rawls: "' + WELFARE_REQUIREMENTS["rawls"] + '" Util: "' + WELFARE_REQUIREMENTS["util"] + '"',
            "as released",
            "",
            f"{REPO}: runner/task_prompts.py",
        ),
        ProtocolRow(
            "Seat shares and voting rule in the prompt",
            "Each party's share as a percentage, stated to be weights rather than real seats; each stance to be "
            "reflected in proportion to its share; the rule (more than half, two thirds, the veto party's "
            "stances met); Rawls and Util name their principle instead",
            "as released",
            "",
            f"{REPO}: runner/task_prompts.py",
        ),
        ProtocolRow(
            "Example resolution",
            "A resolution drawn at random from the topic's original data (topic_datas), which can be the "
            "task's own adopted text",
            "One fixed, fictional resolution (lighthouse upkeep) in every prompt",
            "The released draw can show the model the text it is measured against, and changes with every run",
            f"{REPO}: runner/task_runner.py",
        ),
        ProtocolRow(
            "Generation settings",
            "temperature 0.7, top_p 0.95, 512 new tokens, seed 42; API models sample, local models decode "
            "greedily (do_sample=False)",
            f"temperature {generation['temperature']}, top_p {generation['top_p']}, {generation['max_tokens']} "
            "new tokens, sampled for every model, a seed per item",
            "One setting for every model whatever serves it; a seed per item keeps a resumed run reproducible",
            f"{REPO}: config.py, utils/call_models.py",
        ),
    ]


def _judging_rows(protocol: JudgeProtocol, judge_max_tokens: int) -> list[ProtocolRow]:
    """Who judges a resolution and how it is asked: the model, the prompt, the decoding, the answer's form."""
    is_released = protocol == PROTOCOLS[DEFAULT_PROTOCOL]
    return [
        ProtocolRow(
            "Judge model",
            "gpt-4o-mini-2024-07-18",
            "The judge the operator configured for PoliCon, pinned to a revision and named on this board "
            "(how to configure one: the Judges section of docs/models.md)",
            "The platform runs its own pinned judge; its agreement with the parties' real votes is measured "
            "below (judge validation)",
            f"{REPO}: utils/call_gpt.py",
        ),
        ProtocolRow(
            "Judge prompt",
            "Three bands with what each means (0-3 / 4-6 / 7-9), the same reading whether the stance is "
            'supportive or opposing, 0-3 for a text that does not open with "The European Parliament" or only '
            "rephrases the stances, 0 for a text that is not a resolution, the ten labels of the scale",
            f"{protocol.key}: "
            + (
                "the same rubric in our own words, asked of a judge told it is neutral and belongs to no party"
                if is_released
                else "a one-line band list; the judge is cast as a member of the party"
            ),
            "The released sentences are the authors'; the platform restates them"
            if is_released
            else "The project's first prompt, kept selectable (setting judge_prompt) so older scores can be compared",
            f"{REPO}: evals/eval_agent.py",
        ),
        ProtocolRow(
            "Judge decoding",
            "temperature 0, top_p 0.95, seed 42 on every call, 3 tokens; an answer counts only if it is exactly "
            "one digit",
            f"temperature 0, top_p {JUDGE_TOP_P}, seed {JUDGE_SEED} on every party's first attempt, "
            f"{judge_max_tokens} tokens, guided to one digit where the judge's server can; unguided, a short "
            "answer holding exactly one digit counts as that digit",
            "Guided decoding rules out unusable answers; the extra tokens let an unguided judge answer in a "
            "short sentence, which is kept on the per-item page",
            f"{REPO}: evals/eval_agent.py",
        ),
        answer_format_row(
            "No guided decoding: the prompt itself ends by asking for one of the numbers 0-9; the "
            "instructions appended to it come only with a retry (next row)",
            choices=DIGITS,
            source=f"{REPO}: evals/eval_agent.py",
        ),
    ]


def _judge_failure_rows(protocol: JudgeProtocol) -> list[ProtocolRow]:
    """What happens when the judge's answer is unusable or the judge is unreachable."""
    released = PROTOCOLS[DEFAULT_PROTOCOL]
    is_released = protocol == released
    return [
        ProtocolRow(
            "Retries of an unusable answer",
            f"Up to {released.retries} retries, each 0.1 warmer, with an instruction to answer with one number "
            "appended",
            f"Up to {protocol.retries} retr{'y' if protocol.retries == 1 else 'ies'} of the same prompt at "
            "temperature 0.7 with a new seed",
            (
                "The platform's judges retry at one temperature with a new seed (a greedy retry repeats itself); "
                "the count is the released one"
            )
            if is_released
            else "The v1 protocol, kept for comparison",
            f"{REPO}: evals/eval_agent.py",
        ),
        ProtocolRow(
            "Fallback vote",
            f"After the last retry the vote counts as {released.fallback_vote}; here each such vote is also "
            'counted in the "Judge fallbacks" column',
            "as released" if is_released else f"The vote counts as {protocol.fallback_vote}",
            "" if is_released else "The v1 protocol, kept for comparison",
            f"{REPO}: evals/eval_agent.py",
        ),
        ProtocolRow(
            "Judge outage",
            "An API error is retried every 5 seconds without end",
            "The run fails as an infrastructure error and is retried whole, never scored with fallback votes",
            "A run must end, and an unreachable judge must not turn into votes",
            f"{REPO}: utils/call_gpt.py",
        ),
    ]


def _scoring_rows() -> list[ProtocolRow]:
    """From votes to the board's figures: the tasks, the pass rules, the welfare functions, the headline, the
    judge's validation and the baselines."""
    counts = " / ".join(f"{n:,}" for n in PAPER_TASKS.values())
    return [
        ProtocolRow(
            "Party with an empty stance (3 tasks)",
            "The empty text is sent to the model and the judge",
            "Both prompts say the release gives no stance for the party",
            "An empty quotation reads as a formatting error; the fact shown is the same",
            f"{REPO}: datas/task_datas/*/environment & public health.json",
        ),
        ProtocolRow(
            "Pass rules (SM, 2/3M, VP)",
            "Float seat-weighted support compared with 5 and 20/3; VP: the veto party votes at least 6 and SM passes",
            "The same thresholds in integer tenths",
            "Float sums flip outcomes at the thresholds: weights .3/.5/.1/.1 with votes 9/2/5/8 give "
            "4.999999999999999 there, a fail, and 5 here, a pass",
            f"{REPO}: evals/get_voting_result.py",
        ),
        ProtocolRow(
            "Welfare (Rawls, Util)",
            "The least vote (alpha = infinity) and the mean vote (alpha = 0)",
            "as released",
            "",
            f"{REPO}: utils/swf.py",
        ),
        ProtocolRow(
            "Headline figures",
            "A pass rate or mean per party count, topic and objective (one result file each)",
            "The mean over all tasks, with the same figure per party count and per topic, and 95% intervals "
            "from a bootstrap that resamples tasks",
            "A leaderboard ranks models on one figure; the slices keep the released breakdown",
            f"{REPO}: runner/task_runner.py",
        ),
        ProtocolRow(
            "Tasks",
            f"{counts} tasks with 2 / 4 / 6 parties; 3 have a party with an empty stance and 6 an "
            "empty adopted resolution",
            "as released",
            "",
            f"the paper; {REPO}: datas/task_datas",
        ),
        ProtocolRow(
            "Judge validation",
            f"The paper reports r = {PAPER_JUDGE_R} between its judge's votes and the parties' real votes "
            "(quoted from issue 31; the released repository holds no paper text)",
            "The configured judge's Pearson r and exact-band agreement on every real resolution with a text, "
            f"shown on this board with its date (manage.py validate_judge policon); it passes when r is at "
            f"least {PASS_R}, and the board ranks only figures of a judge that passed (the others are shown "
            'as "judge not validated: not ranked")',
            "The judge here is not the paper's, so its agreement is measured again",
            "the paper",
        ),
        ProtocolRow(
            "Baselines",
            "Random and Greedy are named by the paper; the released repository holds neither their code nor "
            "their figures",
            "Random: a random party's stance; Greedy: the largest party's stance; each opened with \"The "
            'European Parliament raised" and scored like any submission',
            "Our reading of the names, stated; the paper's figures are not in the release, so none are shown",
            REPO,
        ),
    ]
