"""The shared answer reader: an option letter is read only where the answer is one or states one, never
from a sentence that opens with the article "a"; options a prompt writes out itself are found in both
released styles ("A. text" lines, "Options: (A) text" lines). Expected letters are written by hand."""

from __future__ import annotations

import pytest

from evaluators.core.answers import option_letter, prompt_options

SHAPES = ("circle", "square", "triangle", "star")
CAPTIONS = (
    "two black suitcases one is open and a white bag",
    "a man that is holding some kind of surfboard",
    "A guitar case sits among luggage on a metal bench.",
    "a green circle in the last frame",
)


@pytest.mark.parametrize(
    "answer, letter",
    [
        ("B", "B"),
        ("b", "B"),
        ("(b)", "B"),
        ("<B>", "B"),
        ("[C]", "C"),
        ("**D**", "D"),
        ("B.", "B"),
        ("B) square", "B"),
        ("b) square", "B"),
        ("B. Square, in the middle", "B"),
        ("Option B", "B"),
        ("Option A is correct", "A"),
        ("answer: d", "D"),
        ("The answer is B.", "B"),
        ("The answer is A.", "A"),
        ("The correct answer is (C) triangle", "C"),
        ('Answer: "C"', "C"),
        ("B\n\nThe star is in frame 3.", "B"),
        ("A, the circle", "A"),
        ("square", "B"),
        ("Star.", "D"),
    ],
)
def test_letters_where_the_answer_is_one_or_states_one(answer, letter):
    assert option_letter(answer, SHAPES) == letter


@pytest.mark.parametrize(
    "answer",
    [
        "a square",  # the article, then the option's text of B
        "A green circle in the last frame",  # a sentence opening with "A"
        "The answer is a star",  # stated, but "a" is the article
        "a. circle",  # a lower-case letter before a full stop and text
        "A square with a question mark on it",
        "The answer is A because it is round",  # "A" before a word reads as the article
        "B. circle",  # "B." followed by the text of another option
        "Dog",
        "Because it is round",
        "I am not sure",
        "E",
        "",
        "Options: (A) circle (B) square",  # an echo of the options names two letters
    ],
)
def test_no_letter_is_guessed_from_a_sentence(answer):
    assert option_letter(answer, SHAPES) is None


@pytest.mark.parametrize(
    "answer, letter",
    [
        ("a man that is holding some kind of surfboard", "B"),  # a caption written out is its option's letter
        ("A guitar case sits among luggage on a metal bench", "C"),
        ("Answer: A guitar case sits among luggage", None),  # the caption of C, not the letter A
        ("a green circle", None),
        ("A two black suitcases", None),
    ],
)
def test_captions_that_open_with_a_are_not_option_a(answer, letter):
    assert option_letter(answer, CAPTIONS) == letter


def test_options_written_in_a_prompt_are_taken_out():
    longva = (
        "\nFind the frame of a scientist. The scientist is a...\nA. Bird\nB. Elephant\nC. Panda\nD. Dog\n"
        "Answer with the option's letter from the given choices directly."
    )
    assert prompt_options(longva) == ["Bird", "Elephant", "Panda", "Dog"]
    flash = (
        "Find the frame of a plate. what is the color of the plate\nOptions: (A) white\n(B) purple\n(C) green\n"
        "(D) orange \nOnly give the best option. Best option: ("
    )
    assert prompt_options(flash) == ["white", "purple", "green", "orange"]
    assert prompt_options("What colour is the balloon?\nAnswer the question using a single word or phrase.") is None
    assert prompt_options("Pick one.\nA. red\nB. blue\nC. green") is None  # three options are not four
    assert prompt_options("A. red\nB. blue\nB. green\nD. grey") is None
