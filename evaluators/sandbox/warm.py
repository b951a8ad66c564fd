"""Class-data sharing archives that start the Kotlin and Scala compilers warm.

A compiler JVM spends most of a short compile loading and verifying the compiler's own classes. A
dynamic CDS archive (``-XX:ArchiveClassesAtExit``) holds them pre-parsed; a later compile that names it
(``-XX:SharedArchiveFile``) maps it instead. The archive is only used when the JVM and the class path
are the very ones it was made with, so it is made *inside the sandbox* (the same ``/opt/toolchains``
paths and JDK as every compile) by compiling one small program, and kept read-only in
``.toolchains/cds/``. Nothing else changes: a missing or stale archive is ignored silently
(``-Xshare:auto``, CDS logging off) and the compile runs cold; the programs and verdicts are the same.

``python -m evaluators.sandbox.warm`` (run by scripts/install-toolchains) makes the archives when the
JDK or a compiler changed since they were made.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import replace

from .core import TOOLCHAINS, Sandbox
from .languages import CDS_ARCHIVE_FLAG, LANGUAGES

ARCHIVE_DIR = TOOLCHAINS / "cds"
#: a small program per compiler, enough to load what compiling real solutions loads
PROGRAMS: dict[str, str] = {
    "scala": "object Main {\n  def main(args: Array[String]): Unit = {\n"
             "    val xs = scala.io.StdIn.readLine().split(\" \").map(_.toLong).toList\n"
             "    val m = xs.groupBy(_ % 3).map { case (k, v) => k -> v.sum }\n"
             "    println(xs.sorted.mkString(\" \") + m.values.sum)\n  }\n}\n",
    "kotlin": "fun main() {\n    val xs = readln().split(\" \").map { it.toLong() }\n"
              "    val m = xs.groupBy { it % 3 }.mapValues { (_, v) -> v.sum() }\n"
              "    println(xs.sorted().joinToString(\" \") + m.values.sum())\n}\n",
}


def _fingerprint() -> str:
    """What the archives depend on: the JDK and each compiler's version (and this module)."""
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    parts = [java] + [(TOOLCHAINS / name / ".version").read_text() if (TOOLCHAINS / name / ".version").is_file() else ""
                      for name in ("kotlin", "scala")]
    parts.append(hashlib.sha256(open(__file__, "rb").read()).hexdigest())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _dump_command(language: str) -> tuple[tuple[str, ...] | None, dict[str, str]]:
    """The language's compile command and environment, dumping an archive to the program directory
    instead of using one."""
    lang = LANGUAGES[language]
    dump = f"-XX:ArchiveClassesAtExit={{prog}}/{language}.jsa"

    def swap(text: str) -> str:
        return " ".join(dump if part.startswith(CDS_ARCHIVE_FLAG) else part for part in text.split(" "))

    cmd = None if lang.compile_cmd is None else tuple(swap(part) for part in lang.compile_cmd)
    env = {key: swap(value) for key, value in lang.compile_env.items()}
    return cmd, env


def build_archives(sandbox: Sandbox | None = None, *, force: bool = False) -> dict[str, str]:
    """Make the archives that are missing or stale; returns what happened per language."""
    fingerprint = _fingerprint()
    stamp = ARCHIVE_DIR / ".stamp"
    if not force and stamp.is_file() and stamp.read_text() == fingerprint and \
            all((ARCHIVE_DIR / f"{language}.jsa").is_file() for language in PROGRAMS):
        return {language: "up to date" for language in PROGRAMS}
    sandbox = sandbox or Sandbox()
    ARCHIVE_DIR.mkdir(exist_ok=True)
    ARCHIVE_DIR.chmod(0o755)
    done: dict[str, str] = {}
    for language, source in PROGRAMS.items():
        if not (TOOLCHAINS / language).is_dir():
            done[language] = "toolchain not installed"
            continue
        cmd, env = _dump_command(language)
        dumping = replace(LANGUAGES[language], compile_cmd=cmd, compile_env=env)
        with sandbox.program(dumping, source) as program:
            made = program.prog_dir / f"{language}.jsa"
            if not program.compile_result.ok or not made.is_file():
                done[language] = f"not made ({program.compile_result.status}: {program.compile_result.output[:300]})"
                continue
            target = ARCHIVE_DIR / f"{language}.jsa"
            shutil.copyfile(made, target.with_suffix(".tmp"))
            target.with_suffix(".tmp").chmod(0o444)
            target.with_suffix(".tmp").replace(target)
            done[language] = f"made ({target.stat().st_size // (1024 * 1024)} MB in {program.compile_result.seconds:.1f} s)"
    stamp.write_text(fingerprint)
    return done


def main() -> None:
    for language, outcome in build_archives(force="--force" in sys.argv).items():
        print(f"[warm] {language}: {outcome}", file=sys.stderr)


if __name__ == "__main__":
    main()
