"""Build ``sample_release.jsonl``: the 22-problem Multi-LCB sample dataset.

The output follows LiveCodeBench's released format unchanged: one JSON object per line with
``question_title``, ``question_content``, ``platform``, ``question_id``, ``contest_id``,
``contest_date``, ``starter_code``, ``difficulty``, ``public_test_cases`` (a JSON string),
``private_test_cases`` (a JSON string, or for some problems the official release's compressed
encoding ``base64(zlib(pickle(json_string)))``) and ``metadata`` (a JSON string).

Test inputs come from fixed seeds, so every run produces byte-identical output. Expected outputs
are computed by running the Python reference solution ``solutions/<question_id>/python.py`` as a
subprocess, so they are right by construction. The problems and their exact I/O contracts are
described in ``PROBLEMS.md`` next to this file.

Usage::

    python evaluators/multi_lcb/data/make_sample.py [--out PATH]
"""

from __future__ import annotations

import argparse
import base64
import json
import pickle
import random
import subprocess
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

DATA_DIR = Path(__file__).resolve().parent
SOLUTIONS_DIR = DATA_DIR / "solutions"
DEFAULT_OUT = DATA_DIR / "sample_release.jsonl"
BASE_SEED = 20250401
PICKLE_PROTOCOL = 4  # pinned so the compressed encoding is identical across Python versions

# A test input: text on stdin for stdin problems, the argument list for functional problems.
TestInput = Any
Generator = Callable[[random.Random], List[TestInput]]


@dataclass
class Problem:
    """One problem of the sample release, before its expected outputs are computed."""

    question_id: str
    title: str
    platform: str
    contest_id: str
    contest_date: str
    difficulty: str
    statement: str  # contains "{example}" where the worked example goes
    public: List[TestInput]
    private: Generator
    compressed: bool = False
    func_name: Optional[str] = None
    params: List[Tuple[str, str]] = field(default_factory=list)  # (name, python type hint)
    returns: str = ""

    @property
    def functional(self) -> bool:
        return self.func_name is not None

    def starter_code(self) -> str:
        if not self.functional:
            return ""
        args = ", ".join(f"{name}: {hint}" for name, hint in self.params)
        return f"class Solution:\n    def {self.func_name}(self, {args}) -> {self.returns}:\n        "


# --------------------------------------------------------------------------------------------
# small helpers for building inputs


def lines(*rows: object) -> str:
    """Join rows into stdin text with a trailing newline."""
    return "\n".join(str(r) for r in rows) + "\n"


def ints(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


def rand_ints(rng: random.Random, n: int, lo: int, hi: int) -> List[int]:
    return [rng.randint(lo, hi) for _ in range(n)]


def rand_word(rng: random.Random, lo: int, hi: int, alphabet: str = "abcdefghijklmnopqrstuvwxyz") -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def count_list(values: Sequence[int]) -> str:
    return lines(len(values), ints(values))


# --------------------------------------------------------------------------------------------
# private test generators, one per problem


def gen_abc900_a(rng: random.Random) -> List[str]:
    big = 10**9
    tests = [lines("0 0"), lines(f"{big} {big}"), lines(f"{-big} {-big}"), lines(f"{big} {-big}")]
    tests += [lines(f"{rng.randint(-big, big)} {rng.randint(-big, big)}") for _ in range(4)]
    return tests


def gen_1901A(rng: random.Random) -> List[str]:
    big = 10**9
    tests = [
        count_list([-big]),
        count_list([big, -5, 3]),
        count_list([-7, -3, -9, -3]),
        count_list([4] * 10),
        count_list(rand_ints(rng, 50, -100, 100) + [big]),
        count_list(rand_ints(rng, 1000, -big, big)),
        count_list(rand_ints(rng, 60000, -big, big)),
    ]
    return tests


def gen_abc901_b(rng: random.Random) -> List[str]:
    tests = [lines("a"), lines("x y"), lines("same same same")]
    tests.append(lines(" ".join(rand_word(rng, 1, 10) for _ in range(100))))
    tests.append(lines(" ".join(rand_word(rng, 1, 3) for _ in range(57))))
    tests.append(lines(" ".join(["abcdefghijklmnopqrstuvwxyz"] * 99 + ["z"])))
    return tests


def gen_3001(rng: random.Random) -> List[List[Any]]:
    m = 10**6
    tests: List[List[Any]] = [[[5], 10], [[3, 3], 6], [[1, 2, 3], 100]]
    tests.append([[7] * 1000, 14])  # 499500 pairs
    tests.append([rand_ints(rng, 1000, -5, 5), 0])
    tests.append([rand_ints(rng, 1000, -m, m), rng.randint(-2 * m, 2 * m)])
    tests.append([rand_ints(rng, 1000, -m, -m + 50), -2 * m + 50])
    tests.append([[-m, m, 0, 0, -m, m], 0])
    return tests


def gen_3002(rng: random.Random) -> List[List[Any]]:
    alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
    half = rand_word(rng, 500, 500, alnum)
    half2 = rand_word(rng, 499, 499, alnum)
    broken = list(half + half[::-1])
    broken[0] = "0" if broken[0] != "0" else "1"
    return [
        [""],
        ["a"],
        ["ab"],
        ["abca"],
        [half + half[::-1]],
        [half2 + "x" + half2[::-1]],
        ["".join(broken)],
        ["12321"],
        [rand_word(rng, 1000, 1000, "ab")],
    ]


def gen_1902B(rng: random.Random) -> List[str]:
    return [lines(n) for n in (0, 1, 2, 50, 90, 100, 1000, 999999, 1000000)]


def gen_abc902_c(rng: random.Random) -> List[str]:
    big = 10**9

    def build(values: List[int], queries: List[Tuple[int, int]]) -> str:
        rows = [f"{len(values)} {len(queries)}", ints(values)]
        rows += [f"{l} {r}" for l, r in queries]
        return lines(*rows)

    def rand_queries(n: int, q: int) -> List[Tuple[int, int]]:
        out = []
        for _ in range(q):
            l, r = rng.randint(1, n), rng.randint(1, n)
            out.append((min(l, r), max(l, r)))
        return out

    tests = [build([5], [(1, 1)]), build([-3, 4], [(1, 2), (2, 2), (1, 1)])]
    tests.append(build([big] * 1000, [(1, 1000), (1, 1), (500, 1000)]))
    tests.append(build([-big] * 1000, [(1, 1000), (2, 999)]))
    vals = rand_ints(rng, 200, -big, big)
    tests.append(build(vals, rand_queries(200, 200)))
    n = 40000
    vals = rand_ints(rng, n, -big, big)
    tests.append(build(vals, rand_queries(n, n - 1) + [(1, n)]))
    return tests


def gen_1903C(rng: random.Random) -> List[str]:
    big = 10**9
    inc = sorted(rng.sample(range(-big, big), 1000))
    tests = [
        count_list([42]),
        count_list([5] * 100),
        count_list(list(range(100, 0, -1))),
        count_list(inc),
        count_list([1, 2, 2, 3, 3, 4]),
        count_list(rand_ints(rng, 2000, -big, big)),
        count_list(rand_ints(rng, 50000, -big, big)),
        count_list([i // 3 + rng.randint(0, 5) for i in range(50000)]),
    ]
    return tests


def gen_abc903_d(rng: random.Random) -> List[str]:
    def build(grid: List[str]) -> str:
        return lines(f"{len(grid)} {len(grid[0])}", *grid)

    def random_grid(h: int, w: int, p: float) -> List[str]:
        rows = ["".join("#" if rng.random() < p else "." for _ in range(w)) for _ in range(h)]
        rows[0] = "." + rows[0][1:]
        rows[-1] = rows[-1][:-1] + "."
        return rows

    snake = []
    for r in range(500):
        if r % 2 == 0:
            snake.append("." * 500)
        elif r % 4 == 1:
            snake.append("#" * 499 + ".")
        else:
            snake.append("." + "#" * 499)
    tests = [
        build(["."]),
        build(["#"]),
        build(["#.", ".."]),
        build(["..", ".#"]),
        build([".#.", "##.", "..."]),
        build(["." * 500 for _ in range(500)]),
        build(snake),
        build(random_grid(500, 500, 0.3)),
        build(random_grid(300, 400, 0.25)),
    ]
    return tests


def gen_abc904_e(rng: random.Random) -> List[str]:
    big = 10**9

    def build(n: int, edges: List[Tuple[int, int, int]]) -> str:
        return lines(f"{n} {len(edges)}", *(f"{u} {v} {w}" for u, v, w in edges))

    def random_connected(n: int, m: int, wmax: int) -> List[Tuple[int, int, int]]:
        order = list(range(2, n + 1))
        rng.shuffle(order)
        order = [1] + order
        edges = []
        for i in range(1, n):
            j = rng.randint(max(0, i - 5), i - 1)
            edges.append((order[j], order[i], rng.randint(1, wmax)))
        while len(edges) < m:
            u, v = rng.randint(1, n), rng.randint(1, n)
            if u != v:
                edges.append((u, v, rng.randint(1, wmax)))
        rng.shuffle(edges)
        return edges

    n_chain = 50000
    chain = [(i, i + 1, big) for i in range(1, n_chain)]
    rng.shuffle(chain)
    tests = [
        build(1, []),
        build(2, []),
        build(3, [(1, 2, 5), (1, 2, 3), (2, 3, 4), (1, 3, 10)]),
        build(4, [(1, 2, 1), (3, 4, 1)]),
        build(5, [(1, 2, big), (2, 3, big), (3, 4, big), (4, 5, big), (1, 5, 4 * big + 1)]),
        build(200, random_connected(200, 600, 100)),
        build(n_chain, chain),
        build(30000, random_connected(30000, 60000, big)),
    ]
    return tests


def gen_3003(rng: random.Random) -> List[List[Any]]:
    return [
        [[-5]],
        [[7]],
        [[-3, -1, -2]],
        [[1, 2, 3, 4]],
        [[5, -10, 5]],
        [[0, 0, 0]],
        [rand_ints(rng, 1000, -10000, 10000)],
        [[10000] * 100000],
        [rand_ints(rng, 100000, -10000, 9000)],
    ]


def gen_1904A(rng: random.Random) -> List[str]:
    big = 10**9
    tests = [lines("1 1"), lines(f"{big} {big}"), lines("999999937 999999929"), lines("6 1000000000")]
    tests.append(lines(f"{big} 999999999"))
    tests += [lines(f"{rng.randint(1, big)} {rng.randint(1, big)}") for _ in range(3)]
    g = rng.randint(1000, 100000)
    tests.append(lines(f"{g * rng.randint(1, 10000)} {g * rng.randint(1, 10000)}"))
    return tests


def gen_1905A(rng: random.Random) -> List[str]:
    m = 10**6
    return [
        count_list([7]),
        count_list([-m]),
        count_list([1, 1, 2]),
        count_list([-1, -2, -2]),
        count_list([m, -m]),
        count_list(rand_ints(rng, 1000, -m, m)),
        count_list([m] * 1000 + [m - 1]),
        count_list(rand_ints(rng, 60000, -m, m)),
    ]


def gen_abc905_a(rng: random.Random) -> List[str]:
    def build(words: List[str]) -> str:
        return lines(len(words), *words)

    tests = [
        build(["solo"]),
        build(["b", "a", "b", "a"]),
        build(["abc", "ab", "a", "abcd", "b"]),
        build(["zzz", "zz", "z", "y"]),
        build([rand_word(rng, 1, 10) for _ in range(1000)]),
        build([rand_word(rng, 1, 2, "ab") for _ in range(500)]),
        build([rand_word(rng, 1, 10) for _ in range(60000)]),
    ]
    return tests


def gen_1906B(rng: random.Random) -> List[str]:
    return [lines(n) for n in (1, 2, 3, 10, 100, 7919, 1000000, 4999999, 5000000)]


def gen_abc906_f(rng: random.Random) -> List[str]:
    def build(cap: int, items: List[Tuple[int, int]]) -> str:
        return lines(f"{len(items)} {cap}", *(f"{w} {v}" for w, v in items))

    big = 10**9
    tests = [
        build(1, [(2, 100)]),
        build(10, [(10, 5)]),
        build(5, [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]),
        build(100000, [(1000, big) for _ in range(100)]),
        build(50, [(rng.randint(1, 30), rng.randint(1, 100)) for _ in range(20)]),
        build(100000, [(rng.randint(1, 100000), rng.randint(1, big)) for _ in range(100)]),
        build(100000, [(rng.randint(500, 5000), rng.randint(1, big)) for _ in range(100)]),
        build(1, [(1, 3), (1, 7), (1, 5)]),
    ]
    return tests


def gen_3004(rng: random.Random) -> List[List[Any]]:
    def balanced(n_pairs: int) -> str:
        out: List[str] = []
        stack: List[str] = []
        opened = 0
        close_of = {"(": ")", "[": "]", "{": "}"}
        while opened < n_pairs or stack:
            if opened < n_pairs and (not stack or rng.random() < 0.5):
                ch = rng.choice("([{")
                stack.append(ch)
                out.append(ch)
                opened += 1
            else:
                out.append(close_of[stack.pop()])
        return "".join(out)

    big = balanced(5000)
    broken = big[:-1] + ("]" if big[-1] != "]" else ")")
    return [
        [""],
        ["("],
        [")("],
        ["([)]"],
        ["{[]}"],
        ["(" * 5000 + ")" * 5000],
        [big],
        [broken],
        ["()" * 4999 + "(("],
    ]


def gen_3005(rng: random.Random) -> List[List[Any]]:
    base = rand_word(rng, 500, 500, "abcd")
    mutated = list(base)
    for _ in range(40):
        mutated[rng.randrange(500)] = rng.choice("abcd")
    return [
        ["", ""],
        ["", "abc"],
        ["kitten", "sitting"],
        ["same", "same"],
        [base, "".join(mutated)],
        [rand_word(rng, 500, 500), rand_word(rng, 500, 500)],
        [rand_word(rng, 500, 500), ""],
        ["a" * 500, "b" * 499],
    ]


def gen_1907C(rng: random.Random) -> List[str]:
    def build(amount: int, coins: List[int]) -> str:
        return lines(f"{len(coins)} {amount}", ints(coins))

    return [
        build(0, [1]),
        build(3, [2]),
        build(6, [1, 3, 4]),
        build(10000, [1]),
        build(9999, [2, 4, 10000]),
        build(10000, [rng.randint(1, 10000) for _ in range(100)]),
        build(10000, [rng.randint(200, 400) for _ in range(100)]),
        build(7, [10000] * 3),
    ]


def gen_abc907_b(rng: random.Random) -> List[str]:
    big = 10**9
    return [
        count_list([1]),
        count_list([5] * 1000),
        count_list([-big, big, 0, -big, big]),
        count_list(list(range(1, 1001))),
        count_list(rand_ints(rng, 50000, 1, 1000)),
        count_list(rand_ints(rng, 50000, -big, big)),
    ]


def gen_abc908_a(rng: random.Random) -> List[str]:
    return [lines(y) for y in (1, 4, 100, 400, 1900, 2000, 2023, 2024, 9996, 9999)]


def gen_1908A(rng: random.Random) -> List[str]:
    big = 10**9
    return [
        count_list([1, 1]),
        count_list([5, 3]),
        count_list([7] * 10),
        count_list([big] * 4 + [1] * 4),
        count_list([big, big - 1, big - 2, big - 5]),
        count_list(rand_ints(rng, 1000, 1, 100)),
        count_list(rand_ints(rng, 60000, 1, big)),
    ]


# --------------------------------------------------------------------------------------------
# problem statements


ATCODER_TAIL = """
Input

{input_format}

Output

{output_format}

Constraints

{constraints}

{{example}}"""


def atcoder(body: str, input_format: str, output_format: str, constraints: str) -> str:
    return body.strip() + "\n" + ATCODER_TAIL.format(
        input_format=input_format.strip(), output_format=output_format.strip(), constraints=constraints.strip()
    )


def codeforces(body: str, input_format: str, output_format: str) -> str:
    return (
        body.strip()
        + "\n\nInput\n\n"
        + input_format.strip()
        + "\n\nOutput\n\n"
        + output_format.strip()
        + "\n\n{example}"
    )


def leetcode(body: str, constraints: str) -> str:
    return body.strip() + "\n\n{example}\n\nConstraints:\n\n" + constraints.strip()


PROBLEMS: List[Problem] = [
    Problem(
        "abc900_a", "Sum of Two", "atcoder", "abc900", "2023-05-06T00:00:00", "easy",
        atcoder(
            "You are given two integers A and B. Print the value of A + B.",
            "The input is given from Standard Input in the following format:\n\nA B",
            "Print A + B as an integer.",
            "- -10^9 \\leq A, B \\leq 10^9\n- All input values are integers.",
        ),
        public=[lines("3 5"), lines("-7 2")],
        private=gen_abc900_a,
    ),
    Problem(
        "1901A", "Largest Value", "codeforces", "1901", "2023-06-10T00:00:00", "easy",
        codeforces(
            "You are given a sequence of n integers x_1, x_2, ..., x_n. Find the largest of them.",
            "The first line contains a single integer n (1 <= n <= 2 * 10^5).\n"
            "The second line contains n integers x_1, ..., x_n (-10^9 <= x_i <= 10^9).",
            "Print one integer: the maximum of x_1, ..., x_n.",
        ),
        public=[lines(5, "3 -1 4 1 5"), lines(3, "-8 -2 -6")],
        private=gen_1901A,
        compressed=True,
    ),
    Problem(
        "abc901_b", "Reverse Words", "atcoder", "abc901", "2023-07-15T00:00:00", "easy",
        atcoder(
            "You are given a sentence S consisting of words separated by single spaces. "
            "Print the words of S in reverse order.",
            "The input is given from Standard Input in the following format:\n\nS",
            "Print the words of S in reverse order, separated by single spaces, on one line.",
            "- S consists of between 1 and 100 words, inclusive.\n"
            "- Each word is a non-empty string of lowercase English letters of length at most 26.\n"
            "- Consecutive words are separated by exactly one space; S has no leading or trailing spaces.",
        ),
        public=[lines("hello world foo"), lines("atcoder")],
        private=gen_abc901_b,
    ),
    Problem(
        "3001", "Count Pairs With Target Sum", "leetcode", "weekly-contest-360", "2023-08-20T00:00:00", "easy",
        leetcode(
            "You are given a 0-indexed integer array nums and an integer k.\n\n"
            "Return the number of pairs of indices (i, j) with 0 <= i < j < nums.length such that "
            "nums[i] + nums[j] == k.",
            "1 <= nums.length <= 1000\n-10^6 <= nums[i] <= 10^6\n-2 * 10^6 <= k <= 2 * 10^6",
        ),
        public=[[[1, 2, 3, 4, 3], 6], [[1, 1, 1], 2]],
        private=gen_3001,
        func_name="countPairs", params=[("nums", "List[int]"), ("k", "int")], returns="int",
    ),
    Problem(
        "3002", "Palindrome String", "leetcode", "weekly-contest-364", "2023-09-17T00:00:00", "easy",
        leetcode(
            "You are given a string s consisting of lowercase English letters and digits.\n\n"
            "Return true if s reads the same forward and backward, and false otherwise. "
            "The empty string is a palindrome.",
            "0 <= s.length <= 1000\ns consists only of lowercase English letters and digits.",
        ),
        public=[["racecar"], ["ab12"]],
        private=gen_3002,
        func_name="isPalindrome", params=[("s", "str")], returns="bool",
    ),
    Problem(
        "1902B", "Fibonacci Modulo", "codeforces", "1902", "2023-10-14T00:00:00", "medium",
        codeforces(
            "The Fibonacci numbers are defined by F(0) = 0, F(1) = 1 and F(k) = F(k - 1) + F(k - 2) "
            "for k >= 2.\n\nGiven n, compute F(n) modulo 1000000007 (10^9 + 7).",
            "The only line contains a single integer n (0 <= n <= 10^6).",
            "Print one integer: F(n) mod 1000000007.",
        ),
        public=[lines(10), lines(1)],
        private=gen_1902B,
    ),
    Problem(
        "abc902_c", "Range Sums", "atcoder", "abc902", "2023-11-11T00:00:00", "medium",
        atcoder(
            "You are given a sequence A = (A_1, A_2, ..., A_N) of length N and Q queries. "
            "The i-th query gives integers l_i and r_i; answer it with A_{l_i} + A_{l_i + 1} + ... + A_{r_i}.",
            "The input is given from Standard Input in the following format:\n\n"
            "N Q\nA_1 A_2 ... A_N\nl_1 r_1\nl_2 r_2\n\\vdots\nl_Q r_Q",
            "Print Q lines. The i-th line should contain the answer to the i-th query.",
            "- 1 \\leq N, Q \\leq 2 \\times 10^5\n- -10^9 \\leq A_i \\leq 10^9\n"
            "- 1 \\leq l_i \\leq r_i \\leq N\n- All input values are integers.",
        ),
        public=[lines("5 3", "1 2 3 4 5", "1 3", "2 5", "4 4")],
        private=gen_abc902_c,
        compressed=True,
    ),
    Problem(
        "1903C", "Longest Increasing", "codeforces", "1903", "2023-12-16T00:00:00", "hard",
        codeforces(
            "You are given an array a_1, a_2, ..., a_n. Find the length of its longest strictly "
            "increasing subsequence, that is, the largest k for which there are indices "
            "i_1 < i_2 < ... < i_k with a_{i_1} < a_{i_2} < ... < a_{i_k}.",
            "The first line contains a single integer n (1 <= n <= 2 * 10^5).\n"
            "The second line contains n integers a_1, ..., a_n (-10^9 <= a_i <= 10^9).",
            "Print one integer: the length of the longest strictly increasing subsequence.",
        ),
        public=[lines(8, "10 9 2 5 3 7 101 18"), lines(4, "2 2 2 2")],
        private=gen_1903C,
        compressed=True,
    ),
    Problem(
        "abc903_d", "Grid Escape", "atcoder", "abc903", "2024-01-20T00:00:00", "medium",
        atcoder(
            "There is a grid with H rows and W columns. The square at the i-th row from the top and the "
            "j-th column from the left is denoted (i, j); it is empty if the j-th character of S_i is "
            "'.', and a wall if it is '#'.\n\n"
            "Takahashi starts at (1, 1) and wants to reach (H, W). In one move he can go to an "
            "adjacent empty square (up, down, left or right) inside the grid. Find the minimum number "
            "of moves needed. If it is impossible, or if (1, 1) or (H, W) is a wall, print -1.",
            "The input is given from Standard Input in the following format:\n\nH W\nS_1\nS_2\n\\vdots\nS_H",
            "Print the minimum number of moves, or -1.",
            "- 1 \\leq H, W \\leq 500\n- S_i is a string of length W consisting of '.' and '#'.",
        ),
        public=[lines("3 3", "..#", "#..", "#.."), lines("2 2", ".#", "#.")],
        private=gen_abc903_d,
        compressed=True,
    ),
    Problem(
        "abc904_e", "Cheapest Route", "atcoder", "abc904", "2024-02-24T00:00:00", "hard",
        atcoder(
            "There is an undirected graph with N vertices numbered 1 to N and M edges. The i-th edge "
            "connects vertices u_i and v_i and has length w_i. The graph may contain multiple edges "
            "between the same pair of vertices and need not be connected.\n\n"
            "Find the length of a shortest path from vertex 1 to vertex N. If N cannot be reached, print -1.",
            "The input is given from Standard Input in the following format:\n\nN M\nu_1 v_1 w_1\n\\vdots\nu_M v_M w_M",
            "Print the shortest distance from vertex 1 to vertex N, or -1.",
            "- 1 \\leq N \\leq 10^5\n- 0 \\leq M \\leq 2 \\times 10^5\n- 1 \\leq u_i, v_i \\leq N, u_i \\neq v_i\n"
            "- 1 \\leq w_i \\leq 10^9\n- All input values are integers.",
        ),
        public=[lines("4 4", "1 2 1", "2 4 5", "1 3 2", "3 4 2"), lines("3 1", "1 2 7")],
        private=gen_abc904_e,
        compressed=True,
    ),
    Problem(
        "3003", "Maximum Subarray Sum", "leetcode", "weekly-contest-389", "2024-03-16T00:00:00", "medium",
        leetcode(
            "Given an integer array nums, find the non-empty contiguous subarray with the largest sum, "
            "and return its sum.",
            "1 <= nums.length <= 10^5\n-10^4 <= nums[i] <= 10^4",
        ),
        public=[[[-2, 1, -3, 4, -1, 2, 1, -5, 4]], [[-1]]],
        private=gen_3003,
        compressed=True,
        func_name="maxSubArray", params=[("nums", "List[int]")], returns="int",
    ),
    Problem(
        "1904A", "Gcd and Lcm", "codeforces", "1904", "2024-04-13T00:00:00", "easy",
        codeforces(
            "You are given two positive integers a and b. Print their greatest common divisor and "
            "their least common multiple.",
            "The only line contains two integers a and b (1 <= a, b <= 10^9).",
            "Print two integers separated by a space: gcd(a, b) and lcm(a, b). "
            "The least common multiple always fits in a signed 64-bit integer.",
        ),
        public=[lines("12 18"), lines("7 5")],
        private=gen_1904A,
    ),
    Problem(
        "1905A", "Average", "codeforces", "1905", "2024-05-18T00:00:00", "easy",
        codeforces(
            "You are given n integers x_1, x_2, ..., x_n. Print their arithmetic mean "
            "(x_1 + x_2 + ... + x_n) / n.",
            "The first line contains a single integer n (1 <= n <= 2 * 10^5).\n"
            "The second line contains n integers x_1, ..., x_n (-10^6 <= x_i <= 10^6).",
            "Print the mean as a decimal number. Your answer is accepted if its absolute error "
            "does not exceed 10^{-5}.",
        ),
        public=[lines(3, "1 2 4"), lines(2, "-3 4")],
        private=gen_1905A,
        compressed=True,
    ),
    Problem(
        "abc905_a", "Sorted Names", "atcoder", "abc905", "2024-06-22T00:00:00", "easy",
        atcoder(
            "You are given N names S_1, S_2, ..., S_N. Print them in lexicographical (dictionary) "
            "order. Equal names are printed as many times as they appear.",
            "The input is given from Standard Input in the following format:\n\nN\nS_1\nS_2\n\\vdots\nS_N",
            "Print N lines: the names in lexicographical order, one per line.",
            "- 1 \\leq N \\leq 10^5\n- Each S_i is a string of length between 1 and 10, inclusive, "
            "consisting of lowercase English letters.",
        ),
        public=[lines(3, "takahashi", "aoki", "snuke"), lines(2, "ab", "a")],
        private=gen_abc905_a,
        compressed=True,
    ),
    Problem(
        "1906B", "Prime Count", "codeforces", "1906", "2024-07-20T00:00:00", "medium",
        codeforces(
            "Count the prime numbers that do not exceed n. A prime is an integer greater than 1 "
            "whose only positive divisors are 1 and itself.",
            "The only line contains a single integer n (1 <= n <= 5 * 10^6).",
            "Print one integer: the number of primes p with p <= n.",
        ),
        public=[lines(10), lines(30)],
        private=gen_1906B,
    ),
    Problem(
        "abc906_f", "Knapsack", "atcoder", "abc906", "2024-08-17T00:00:00", "hard",
        atcoder(
            "There are N items. Item i has weight w_i and value v_i. Takahashi chooses some of the "
            "items (each at most once) so that their total weight is at most W. Find the maximum "
            "possible total value of the chosen items.",
            "The input is given from Standard Input in the following format:\n\nN W\nw_1 v_1\n\\vdots\nw_N v_N",
            "Print the maximum possible total value.",
            "- 1 \\leq N \\leq 100\n- 1 \\leq W \\leq 10^5\n- 1 \\leq w_i \\leq 10^5\n"
            "- 1 \\leq v_i \\leq 10^9\n- All input values are integers.",
        ),
        public=[lines("3 8", "3 30", "4 50", "5 60")],
        private=gen_abc906_f,
    ),
    Problem(
        "3004", "Valid Brackets", "leetcode", "weekly-contest-415", "2024-09-14T00:00:00", "easy",
        leetcode(
            "Given a string s containing just the characters '(', ')', '{', '}', '[' and ']', "
            "determine whether it is valid.\n\nA string is valid if every open bracket is closed by "
            "the same type of bracket, open brackets are closed in the correct order, and every "
            "close bracket has a matching open bracket. The empty string is valid.",
            "0 <= s.length <= 10^4\ns consists of parentheses only '()[]{}'.",
        ),
        public=[["()[]{}"], ["(]"]],
        private=gen_3004,
        func_name="isValid", params=[("s", "str")], returns="bool",
    ),
    Problem(
        "3005", "Edit Distance", "leetcode", "weekly-contest-420", "2024-10-19T00:00:00", "hard",
        leetcode(
            "Given two strings word1 and word2, return the minimum number of operations required to "
            "convert word1 into word2.\n\nYou have the following three operations permitted on a word:\n\n"
            "Insert a character\nDelete a character\nReplace a character",
            "0 <= word1.length, word2.length <= 500\nword1 and word2 consist of lowercase English letters.",
        ),
        public=[["horse", "ros"], ["intention", "execution"]],
        private=gen_3005,
        func_name="minDistance", params=[("word1", "str"), ("word2", "str")], returns="int",
    ),
    Problem(
        "1907C", "Coin Change", "codeforces", "1907", "2024-11-23T00:00:00", "medium",
        codeforces(
            "You have coins of n denominations c_1, c_2, ..., c_n, with an unlimited supply of each. "
            "Find the fewest number of coins whose values add up exactly to amount. If no combination "
            "of coins makes up that amount, print -1. Making amount 0 needs 0 coins.",
            "The first line contains two integers n and amount (1 <= n <= 100, 0 <= amount <= 10^4).\n"
            "The second line contains n integers c_1, ..., c_n (1 <= c_i <= 10^4).",
            "Print the fewest number of coins, or -1.",
        ),
        public=[lines("3 11", "1 2 5"), lines("1 3", "2")],
        private=gen_1907C,
    ),
    Problem(
        "abc907_b", "Distinct Values", "atcoder", "abc907", "2025-01-11T00:00:00", "easy",
        atcoder(
            "You are given a sequence of N integers A_1, A_2, ..., A_N. How many distinct values "
            "does it contain?",
            "The input is given from Standard Input in the following format:\n\nN\nA_1 A_2 ... A_N",
            "Print the number of distinct values among A_1, ..., A_N.",
            "- 1 \\leq N \\leq 2 \\times 10^5\n- -10^9 \\leq A_i \\leq 10^9\n- All input values are integers.",
        ),
        public=[lines(6, "3 1 4 1 5 3"), lines(1, "100")],
        private=gen_abc907_b,
        compressed=True,
    ),
    Problem(
        "abc908_a", "Leap Year", "atcoder", "abc908", "2025-02-15T00:00:00", "easy",
        atcoder(
            "In the Gregorian calendar, a year is a leap year if it is divisible by 4, except that "
            "years divisible by 100 are not leap years unless they are also divisible by 400.\n\n"
            "Given a year Y, determine whether it is a leap year.",
            "The input is given from Standard Input in the following format:\n\nY",
            "Print Yes if Y is a leap year, and No otherwise.",
            "- 1 \\leq Y \\leq 9999\n- Y is an integer.",
        ),
        public=[lines(2024), lines(1900)],
        private=gen_abc908_a,
    ),
    Problem(
        "1908A", "Balanced Teams", "codeforces", "1908", "2025-03-22T00:00:00", "medium",
        codeforces(
            "There are n players (n is even); the i-th has skill a_i. The coach sorts the skills in "
            "non-decreasing order, b_1 <= b_2 <= ... <= b_n, and forms n/2 teams: b_1 with b_n, b_2 "
            "with b_{n-1}, and so on. The strength of a team is the sum of its two skills.\n\n"
            "Print the difference between the strongest and the weakest team's strength.",
            "The first line contains a single even integer n (2 <= n <= 2 * 10^5).\n"
            "The second line contains n integers a_1, ..., a_n (1 <= a_i <= 10^9).",
            "Print one integer: the maximum team strength minus the minimum team strength.",
        ),
        public=[lines(6, "1 9 3 8 4 5")],
        private=gen_1908A,
        compressed=True,
    ),
]


# --------------------------------------------------------------------------------------------
# building the release


def to_stdin(problem: Problem, test: TestInput) -> str:
    """The text a program reads on stdin for this test."""
    if problem.functional:
        return "\n".join(json.dumps(arg) for arg in test)
    return str(test)


def run_reference(problem: Problem, stdin_text: str) -> str:
    """Run the Python reference solution and return its stdout."""
    script = SOLUTIONS_DIR / problem.question_id / "python.py"
    proc = subprocess.run(
        [sys.executable, str(script)],
        input=stdin_text.encode(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"reference for {problem.question_id} failed: {proc.stderr.decode()[-2000:]}")
    out = proc.stdout.decode()
    if problem.functional:
        return out.strip()  # json.dumps(result), no trailing newline, as in LCB
    return out


def build_cases(problem: Problem, tests: List[TestInput]) -> List[Dict[str, str]]:
    testtype = "functional" if problem.functional else "stdin"
    cases = []
    for test in tests:
        stdin_text = to_stdin(problem, test)
        cases.append({"input": stdin_text, "output": run_reference(problem, stdin_text), "testtype": testtype})
    return cases


def compress(json_string: str) -> str:
    """The official LCB release's encoding of private tests."""
    return base64.b64encode(zlib.compress(pickle.dumps(json_string, protocol=PICKLE_PROTOCOL))).decode()


def format_example(problem: Problem, case: Dict[str, str], test: TestInput) -> str:
    if problem.platform == "leetcode":
        args = ", ".join(f"{name} = {json.dumps(value)}" for (name, _), value in zip(problem.params, test))
        return f"Example 1:\n\nInput: {args}\nOutput: {case['output']}"
    if problem.platform == "atcoder":
        return f"Sample Input 1\n\n{case['input'].rstrip()}\n\nSample Output 1\n\n{case['output'].rstrip()}"
    return f"Example\n\nInput\n\n{case['input'].rstrip()}\n\nOutput\n\n{case['output'].rstrip()}"


def build_record(index: int, problem: Problem) -> Dict[str, str]:
    rng = random.Random(BASE_SEED + index)
    public_cases = build_cases(problem, problem.public)
    private_tests = problem.private(rng)
    private_cases = build_cases(problem, private_tests)
    private_json = json.dumps(private_cases)
    metadata = {"func_name": problem.func_name} if problem.functional else {}
    return {
        "question_title": problem.title,
        "question_content": problem.statement.replace(
            "{example}", format_example(problem, public_cases[0], problem.public[0])
        ),
        "platform": problem.platform,
        "question_id": problem.question_id,
        "contest_id": problem.contest_id,
        "contest_date": problem.contest_date,
        "starter_code": problem.starter_code(),
        "difficulty": problem.difficulty,
        "public_test_cases": json.dumps(public_cases),
        "private_test_cases": compress(private_json) if problem.compressed else private_json,
        "metadata": json.dumps(metadata),
    }


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output JSONL path")
    args = parser.parse_args(argv)
    records = []
    for index, problem in enumerate(PROBLEMS):
        record = build_record(index, problem)
        records.append(record)
        size = sum(len(v) for v in record.values())
        print(f"{problem.question_id:10s} {size / 1e6:7.3f} MB", file=sys.stderr)
    text = "".join(json.dumps(record) + "\n" for record in records)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {len(records)} problems, {len(text) / 1e6:.2f} MB to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
