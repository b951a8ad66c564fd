"""Django-free sandbox that compiles and runs untrusted programs in twelve languages (bubblewrap).

This is the package's public face: code outside it imports from here. How the package is split,
module by module, is in README.md beside this file; the data-analysis sandbox
(evaluators.sandbox.analysis) and the warm starts (evaluators.sandbox.warm) are modules of their own.
"""

from __future__ import annotations

from .command import TOOLCHAINS, fill_command, placeholders
from .jvm import jar_main_class
from .languages import JVM_RUN_FLAGS, JVM_TOOL_OPTS, KOTLINC, LANGUAGES, PROG_DIR, TOOLCHAIN_DIR, Language, without_cds
from .limits import Limits
from .programs import DataDir, Program
from .resident import Session
from .results import PROCESS_LIMIT_NOTE, CompileResult, RunResult, SandboxUnavailable
from .sandbox import Sandbox
from .versions import toolchain_versions

__all__ = [
    "JVM_RUN_FLAGS",
    "JVM_TOOL_OPTS",
    "KOTLINC",
    "LANGUAGES",
    "PROCESS_LIMIT_NOTE",
    "PROG_DIR",
    "TOOLCHAINS",
    "TOOLCHAIN_DIR",
    "CompileResult",
    "DataDir",
    "Language",
    "Limits",
    "Program",
    "RunResult",
    "Sandbox",
    "SandboxUnavailable",
    "Session",
    "fill_command",
    "jar_main_class",
    "placeholders",
    "toolchain_versions",
    "without_cds",
]
