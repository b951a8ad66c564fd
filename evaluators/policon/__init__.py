"""PoliCon: drafting consensus resolutions that parties with given stances and seat shares would pass.

``release`` imports the released ``task_datas/<party count>/<topic>.json`` layout, ``prompts`` writes
the five objectives' prompts and the judge's, ``voting`` applies the pass rules in exact integer
arithmetic, and ``evaluator`` ties them to the platform (a judge votes once per party).
"""
