"""The scripted model of bench/bench_causal.py, in its own process: prints its base URL, then answers
CausalPitfalls' code-assisted turns after DELAY_S seconds each (a program that reads the dataset with
pandas and fits one regression with statsmodels, then a final answer quoting its output)."""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.openai_server import OpenAIServer, Reply

PROGRAM = """import pandas as pd, statsmodels.formula.api as smf
df = pd.read_csv('/data/{csv}')
cols = list(df.columns)
fit = smf.ols(f'{{cols[-1]}} ~ ' + ' + '.join(cols[:-1]), data=df).fit()
print(fit.params.round(3).to_string())
"""


def main() -> None:
    delay = float(sys.argv[1])

    def handler(request: dict) -> Reply:
        prompt = request["messages"][-1]["content"]
        found = re.search(r"/data/(\S+\.csv)", prompt)
        if found and "Write one Python program" in prompt:
            reply = Reply(text="```python\n" + PROGRAM.format(csv=found.group(1)) + "```")
        else:
            reply = Reply(text="Final answer: the adjusted estimate above, with its sign.")
        reply.delay_s = delay
        return reply

    server = OpenAIServer(handler).start()
    print(server.base_url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
