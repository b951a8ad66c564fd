"""Sandboxed data analysis: a model's Python program run on a dataset mounted read-only at /data.

Benchmarks where a model analyses data with code (CausalPitfalls' code-assisted protocol) run the
program here: Debian's ``python3`` with the pinned numpy, pandas, scipy, statsmodels, scikit-learn,
matplotlib (on its Agg backend: a plot is drawn, never shown) and seaborn of ``analysis-requirements.txt`` (installed by
``scripts/install-toolchains`` into ``.toolchains/python-analysis`` and bound read-only), one BLAS/OpenMP thread, no
network, nothing installable, a wall and CPU time limit, a memory limit numpy can live with, and capped output. The
program is a fresh process in the same bubblewrap sandbox as the Multi-LCB programs.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .command import TOOLCHAINS
from .languages import DATA_DIR, TOOLCHAIN_DIR, Language
from .limits import Limits
from .programs import DataDir
from .results import SandboxUnavailable
from .sandbox import Sandbox

REQUIREMENTS: Path = Path(__file__).resolve().parent / "analysis-requirements.txt"
#: the libraries a program is told about and whose versions a score records (the rest are their dependencies)
ANALYSIS_PACKAGES: tuple[str, ...] = (
    "numpy",
    "pandas",
    "scipy",
    "statsmodels",
    "scikit-learn",
    "matplotlib",
    "seaborn",
)
#: the libraries' directory on the host and inside the sandbox
HOST_DIR: Path = TOOLCHAINS / "python-analysis"
SANDBOX_DIR: str = TOOLCHAIN_DIR + "/python-analysis"
_ONE_THREAD = dict.fromkeys(
    ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"), "1"
)

ANALYSIS_PYTHON: Language = Language(
    key="python-analysis",
    display_name="Python (numpy, pandas, scipy, statsmodels, scikit-learn, matplotlib, seaborn)",
    fence="python",
    source_name="main.py",
    compile_cmd=None,  # a syntax error is the program's output, shown to the model like any other error
    run_cmd=("python3", "-s", "{prog}/main.py"),
    version_cmd=("python3", "--version"),
    env={
        "PYTHONPATH": SANDBOX_DIR,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "JOBLIB_MULTIPROCESSING": "0",
        **_ONE_THREAD,
    },
    oom_markers=("MemoryError", "Unable to allocate"),
)

#: 2 GB of memory (numpy and pandas need room for their arrays; an address-space limit would break
#: them, the sandbox's cgroup does not), a minute of CPU, 64 KiB of output read back
ANALYSIS_LIMITS: Limits = Limits(
    wall_seconds=60.0, cpu_seconds=60.0, memory_mb=2048, processes=32, file_size_mb=16, output_bytes=64 * 1024
)


@dataclass(frozen=True)
class AnalysisRun:
    """What one analysis program did: ``status`` is the sandbox's (ok, runtime_error, timeout,
    memory_limit, output_limit); stdout and stderr as read back (capped)."""

    status: str
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def feedback(self, max_chars: int = 4000) -> str:
        """The program's result as a model reads it: its output, or why it failed with the end of
        its error output (where tracebacks say what went wrong), cut to ``max_chars``."""
        why = {
            "timeout": f"the program was stopped: it ran past the time limit of {ANALYSIS_LIMITS.wall_seconds:g} s",
            "memory_limit": f"the program was stopped: it used more than {ANALYSIS_LIMITS.memory_mb} MB of memory",
            "output_limit": f"the program was stopped: it printed more than {ANALYSIS_LIMITS.output_bytes // 1024} KiB",
            "runtime_error": "the program failed",
        }.get(self.status, "")
        out = _clip_head(self.stdout, max_chars)
        if self.ok:
            return out if out.strip() else "(the program printed nothing)"
        parts = [why + "."]
        if out.strip():
            parts.append("Output:\n" + out)
        if self.stderr.strip():
            parts.append("Error output (last lines):\n" + _clip_tail(self.stderr, max_chars // 2))
        return "\n".join(parts)


def _clip_head(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text) - limit} more characters cut)"


def _clip_tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"... ({len(text) - limit} characters cut)\n" + text[-limit:]


def analysis_unavailable() -> str | None:
    """Why sandboxed analysis cannot run on this machine (the libraries are not installed), or None."""
    if not (HOST_DIR / ".stamp").is_file():
        return (
            f"the analysis libraries are not installed at {HOST_DIR}: run scripts/install-toolchains "
            "(it installs evaluators/sandbox/analysis-requirements.txt)"
        )
    return None


def analysis_versions() -> dict[str, str]:
    """The pinned library versions (what a score depends on), read from the requirements file."""
    versions: dict[str, str] = {}
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*([A-Za-z0-9_.-]+)==([^\s#]+)", line)
        if match and match.group(1) in ANALYSIS_PACKAGES:
            versions[match.group(1)] = match.group(2)
    return versions


def run_analysis(
    sandbox: Sandbox, code: str, *, data: DataDir | None = None, limits: Limits = ANALYSIS_LIMITS
) -> AnalysisRun:
    """Run ``code`` once in the sandbox with the analysis libraries and ``data`` at /data.
    Raises SandboxUnavailable (an infrastructure error: the run is retried elsewhere) when the
    libraries are missing; a failing program is an AnalysisRun, never an exception."""
    missing = analysis_unavailable()
    if missing:
        raise SandboxUnavailable(missing)
    with sandbox.program(ANALYSIS_PYTHON, code) as program:
        result = program.run("", limits, data=data)
    return AnalysisRun(
        status=result.status, stdout=result.stdout, stderr=result.stderr, seconds=round(result.wall_seconds, 3)
    )


__all__ = [
    "ANALYSIS_LIMITS",
    "ANALYSIS_PYTHON",
    "DATA_DIR",
    "AnalysisRun",
    "DataDir",
    "analysis_unavailable",
    "analysis_versions",
    "run_analysis",
]
