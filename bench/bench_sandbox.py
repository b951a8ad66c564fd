"""Sandbox overhead: per-test time of sandboxed runs vs plain subprocess runs (Python and C++)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluators.sandbox import Limits, Sandbox, toolchain_versions  # noqa: E402

N = 50
PROGRAMS: dict[str, str] = {
    "python": "a, b = map(int, input().split())\nprint(sum(i * i for i in range(a, b)) % 1000003)\n",
    "cpp": ("#include <cstdio>\nint main(){long long a,b,s=0;scanf(\"%lld %lld\",&a,&b);"
            "for(long long i=a;i<b;i++)s=(s+i*i)%1000003;printf(\"%lld\\n\",s);}\n"),
}
STDIN = "1 200000\n"


def plain(language: str, src: str) -> list[float]:
    with tempfile.TemporaryDirectory() as d:
        if language == "python":
            (Path(d) / "main.py").write_text(src)
            cmd = ["/usr/bin/python3", f"{d}/main.py"]
        else:
            (Path(d) / "main.cpp").write_text(src)
            subprocess.run(["g++", "-O2", "-std=gnu++17", "-o", f"{d}/main", f"{d}/main.cpp"], check=True)
            cmd = [f"{d}/main"]
        times = []
        for _ in range(N):
            t = time.perf_counter()
            subprocess.run(cmd, input=STDIN.encode(), capture_output=True, check=True, timeout=15)
            times.append(time.perf_counter() - t)
        return times


def sandboxed(sandbox: Sandbox, language: str, src: str) -> list[float]:
    with sandbox.program(language, src) as prog:
        assert prog.compile_result.ok, prog.compile_result.output
        times = []
        for _ in range(N):
            t = time.perf_counter()
            r = prog.run(STDIN, Limits(wall_seconds=15))
            times.append(time.perf_counter() - t)
            assert r.status == "ok", r
        return times


def main() -> None:
    sandbox = Sandbox()
    rows = []
    for language, src in PROGRAMS.items():
        p = statistics.median(plain(language, src))
        s = statistics.median(sandboxed(sandbox, language, src))
        rows.append({"language": language, "tests": N, "plain_median_s": round(p, 4),
                     "sandbox_median_s": round(s, 4), "ratio": round(s / p, 2),
                     "sandbox_execs_per_s": round(1 / s, 1), "plain_execs_per_s": round(1 / p, 1)})
    out = {"rows": rows, "uses_cgroups": sandbox.uses_cgroups,
           "versions": {k: v for k, v in toolchain_versions().items() if k in PROGRAMS},
           "note": "2-core shared machine; per-test wall time incl. process start, cgroup setup and teardown"}
    res = REPO / "bench" / "results"
    res.mkdir(parents=True, exist_ok=True)
    (res / "sandbox.json").write_text(json.dumps(out, indent=2) + "\n")
    md = ["| language | tests | plain median (s) | sandbox median (s) | ratio | sandbox execs/s |",
          "|---|---|---|---|---|---|"]
    md += [f"| {r['language']} | {r['tests']} | {r['plain_median_s']} | {r['sandbox_median_s']} | "
           f"{r['ratio']}x | {r['sandbox_execs_per_s']} |" for r in rows]
    (res / "sandbox.md").write_text("# Sandbox overhead\n\n" + "\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
