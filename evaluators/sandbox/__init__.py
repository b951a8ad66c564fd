"""Django-free sandbox that compiles and runs untrusted programs in twelve languages (bubblewrap)."""

from __future__ import annotations

from .core import CompileResult, Limits, Program, RunResult, Sandbox, SandboxUnavailable
from .languages import LANGUAGES, Language
from .versions import toolchain_versions

__all__ = ["CompileResult", "LANGUAGES", "Language", "Limits", "Program", "RunResult", "Sandbox",
           "SandboxUnavailable", "toolchain_versions"]
