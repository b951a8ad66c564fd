"""CausalPitfalls: statistical causal-inference pitfalls, answered directly or through sandboxed code.

``release`` imports the released challenge folders (questions, answer keys, rubrics, CSVs), filling
questions and rubrics from the answer keys and naming what stays unfilled, ``card`` says on the page
how the protocol differs from the authors' (the method card), ``scm`` draws the sample's datasets from seeded structural
causal models (``data/make_sample.py`` writes them in the released layout), ``prompts`` holds both protocols'
prompts and the rubric judge's, and ``evaluator`` ties them to the platform: the direct and the
code-assisted leaderboards, the latter a two-turn conversation around the data sandbox.
"""
