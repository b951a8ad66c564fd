"""Class-data sharing archives that start the Kotlin and Scala compilers, and JVM programs, warm.

A compiler JVM spends most of a short compile loading and verifying the compiler's own classes. A
dynamic CDS archive (``-XX:ArchiveClassesAtExit``) holds them pre-parsed; a later compile that names it
(``-XX:SharedArchiveFile``) maps it instead. The archive is only used when the JVM and the class path
are the very ones it was made with, so it is made *inside the sandbox* (the same ``/opt/toolchains``
paths and JDK as every compile) by compiling one small program, and kept read-only in
``.toolchains/cds/``. Nothing else changes: a missing or stale archive is ignored silently
(``-Xshare:auto``, CDS logging off) and the compile runs cold; the programs and verdicts are the same.

Programs get one too: a JVM test run spends much of its time loading the JDK's classes and the
language's runtime library (Scala's 5.9 MB scala-library.jar, Kotlin's stdlib). ``<language>-run.jsa`` is
a static archive of what a representative program of RUN_PROGRAMS loaded (``-XX:DumpLoadedClassList``,
then ``-Xshare:dump`` with only the runtime library on the class path, so that it matches every
program's class path, which starts with that library). It holds library classes only, never a program's.

C++ solutions nearly all start with ``#include <bits/stdc++.h>``, which g++ spends 1-3 s parsing. A
precompiled ``bits/stdc++.h.gch`` (made here with the very flags of the C++ compile, found first through
``-I{tc}/pch``) replaces that with a read; g++ checks that it matches the compile and otherwise reads the
header (a one-line ``#include_next`` of the real one), so the program and its binary are the same.

The same module installs the warm compilers' servers (used by evaluators.sandbox.resident) into
``.toolchains/compile-server``: CompileServer.java compiled, compile-server.js copied, stamped with
their sources' digest; a server built from other sources is never started.

``python -m evaluators.sandbox.warm`` (run by scripts/install-toolchains) makes the archives when the
JDK or a compiler changed since they were made, and the server when its source changed.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from . import languages as languages_module
from .command import COMPILE_SERVER_SOURCES, TOOLCHAINS, compile_server_digest, fill_command, fill_env
from .languages import CDS_ARCHIVE_FLAG, LANGUAGES, PROG_DIR, without_cds
from .limits import Limits
from .sandbox import Sandbox

ARCHIVE_DIR = TOOLCHAINS / "cds"
#: a small program per compiler, enough to load what compiling real solutions loads
PROGRAMS: dict[str, str] = {
    "java": "import java.util.*;\nimport java.util.stream.*;\npublic class Main {\n"
    "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
    "    List<Long> xs = new ArrayList<>();\n    while (in.hasNextLong()) xs.add(in.nextLong());\n"
    "    Map<Long, Long> m = xs.stream().collect(Collectors.groupingBy(x -> x % 3, Collectors.summingLong(x -> x)));\n"
    '    System.out.println(xs.stream().sorted().map(String::valueOf).collect(Collectors.joining(" "))'
    " + m.values().stream().mapToLong(Long::longValue).sum());\n  }\n}\n",
    "scala": "object Main {\n  def main(args: Array[String]): Unit = {\n"
    '    val xs = scala.io.StdIn.readLine().split(" ").map(_.toLong).toList\n'
    "    val m = xs.groupBy(_ % 3).map { case (k, v) => k -> v.sum }\n"
    '    println(xs.sorted.mkString(" ") + m.values.sum)\n  }\n}\n',
    "kotlin": 'fun main() {\n    val xs = readln().split(" ").map { it.toLong() }\n'
    "    val m = xs.groupBy { it % 3 }.mapValues { (_, v) -> v.sum() }\n"
    '    println(xs.sorted().joinToString(" ") + m.values.sum())\n}\n',
}


#: a program per JVM language that loads what solutions typically load (input parsing, collections,
#: sorting, lambdas, formatted output), and its input
RUN_PROGRAMS: dict[str, str] = {
    "java": "import java.io.*;\nimport java.util.*;\nimport java.util.stream.*;\n"
    "public class Main {\n  public static void main(String[] args) throws IOException {\n"
    "    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));\n"
    "    StringTokenizer st = new StringTokenizer(in.readLine());\n"
    "    List<Long> xs = new ArrayList<>();\n    while (st.hasMoreTokens()) xs.add(Long.parseLong(st.nextToken()));\n"
    "    Scanner sc = new Scanner(in.readLine());\n    long k = sc.nextLong();\n"
    "    Map<Long, Long> m = new HashMap<>();\n    for (long x : xs) m.merge(x % k, x, Long::sum);\n"
    "    PriorityQueue<Long> pq = new PriorityQueue<>(Comparator.reverseOrder());\n    pq.addAll(xs);\n"
    "    Deque<Long> dq = new ArrayDeque<>();\n    TreeMap<Long, Integer> tm = new TreeMap<>();\n"
    "    for (long x : xs) { dq.push(x); tm.put(x, tm.getOrDefault(x, 0) + 1); }\n"
    "    long[] arr = xs.stream().mapToLong(Long::longValue).toArray();\n    Arrays.sort(arr);\n"
    '    String joined = xs.stream().sorted().map(String::valueOf).collect(Collectors.joining(" "));\n'
    "    StringBuilder sb = new StringBuilder();\n    sb.append(joined).append('\\n');\n"
    '    sb.append(String.format("%d %.3f%n", pq.peek() + m.size() + dq.size() + tm.firstKey(), Math.sqrt(arr[0])));\n'
    "    PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));\n"
    "    out.print(sb);\n    out.flush();\n  }\n}\n",
    "kotlin": 'fun main() {\n    val xs = readln().split(" ").map { it.toLong() }\n    val k = '
    "readLine()!!.trim().toLong()\n"
    "    val m = xs.groupBy { it % k }.mapValues { (_, v) -> v.sum() }\n"
    "    val seen = HashMap<Long, Int>()\n    val stack = ArrayDeque<Long>()\n"
    "    for (x in xs) { seen[x] = (seen[x] ?: 0) + 1; stack.addLast(x) }\n"
    "    val arr = xs.toLongArray().also { it.sort() }\n    val sb = StringBuilder()\n"
    '    sb.appendLine(xs.sorted().joinToString(" "))\n'
    '    sb.appendLine("%d %.3f".format(m.values.sum() + seen.size + stack.size, Math.sqrt(arr[0].toDouble())))\n'
    "    print(sb)\n}\n",
    "scala": "import scala.collection.mutable\nimport scala.io.StdIn\n\nobject Main {\n"
    '  def main(args: Array[String]): Unit = {\n    val xs = StdIn.readLine().split(" ").map(_.toLong).toList\n'
    "    val k = StdIn.readLine().trim.toLong\n    val m = xs.groupBy(_ % k).map { case (r, v) => r -> v.sum }\n"
    "    val buf = mutable.ArrayBuffer.empty[Long]\n    val seen = mutable.HashMap.empty[Long, Int]\n"
    "    for (x <- xs) { buf += x; seen(x) = seen.getOrElse(x, 0) + 1 }\n"
    "    val sb = new StringBuilder\n    sb.append(xs.sorted.mkString(\" \")).append('\\n')\n"
    "    sb.append(f\"${m.values.sum + seen.size + buf.size}%d ${math.sqrt(xs.min.toDouble)}%.3f\").append('\\n')\n"
    "    print(sb)\n  }\n}\n",
}
RUN_INPUT = b"5 3 9 1 4 1 8\n3\n"


def _fingerprint() -> str:
    """What the archives depend on: the JDK and each compiler's version (and this module)."""
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    parts = [java] + [
        (TOOLCHAINS / name / ".version").read_text() if (TOOLCHAINS / name / ".version").is_file() else ""
        for name in ("kotlin", "scala")
    ]
    for module in (__file__, languages_module.__file__):  # the programs, and the compile commands
        parts.append(hashlib.sha256(Path(module).read_bytes()).hexdigest())
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


def _install(made: Path, name: str) -> str:
    """Copy an archive made in a program directory into ARCHIVE_DIR, read-only, atomically."""
    target = ARCHIVE_DIR / f"{name}.jsa"
    shutil.copyfile(made, target.with_suffix(".tmp"))
    target.with_suffix(".tmp").chmod(0o444)
    target.with_suffix(".tmp").replace(target)
    return f"made ({target.stat().st_size // (1024 * 1024)} MB)"


def _compiler_archive(sandbox: Sandbox, language: str) -> str:
    """Dump the compiler's classes when a cold compile of PROGRAMS[language] exits."""
    cmd, env = _dump_command(language)
    dumping = replace(LANGUAGES[language], compile_cmd=cmd, compile_env=env)
    with sandbox.program(dumping, PROGRAMS[language]) as program:
        made = program.prog_dir / f"{language}.jsa"
        if not program.compile_result.ok or not made.is_file():
            return f"not made ({program.compile_result.status}: {program.compile_result.output[:300]})"
        return _install(made, language)


def _run_archive(sandbox: Sandbox, language: str) -> str:
    """Run RUN_PROGRAMS[language] listing the classes it loads, then dump those of them that the JDK and
    the runtime library hold; both steps run in the sandbox, where the paths are the runs' own."""
    lang = LANGUAGES[language]
    limits = Limits(wall_seconds=120.0, cpu_seconds=120.0, memory_mb=2048, processes=64)
    with sandbox.program(language, RUN_PROGRAMS[language]) as program:
        if not program.compile_result.ok:
            return f"not made (the sample did not compile: {program.compile_result.output[:300]})"
        for path in [program.prog_dir, *program.prog_dir.rglob("*")]:
            path.chmod(0o777 if path.is_dir() else 0o666)
        (program.prog_dir / "empty").mkdir(mode=0o777)
        argv = fill_command(lang.run_cmd, limits, main=program.main_class or "")
        listing = list(without_cds(argv))
        listing.insert(1, f"-XX:DumpLoadedClassList={PROG_DIR}/classes.lst")
        library = [entry for entry in argv[argv.index("-cp") + 1].split(":") if not entry.startswith(PROG_DIR)]
        dump = [
            "java",
            "-Xshare:dump",
            f"-XX:SharedClassListFile={PROG_DIR}/classes.lst",
            f"-XX:SharedArchiveFile={PROG_DIR}/run.jsa",
            "-Xlog:cds=off",
            "-Xlog:cds+dynamic=off",
            "-cp",
            ":".join(library) or f"{PROG_DIR}/empty",
        ]
        for cmd, stdin in ((listing, RUN_INPUT), (dump, b"")):
            raw = sandbox.execute(
                cmd,
                limits=limits,
                prog_dir=program.prog_dir,
                writable_prog=True,
                stdin=stdin,
                env=fill_env(lang.env, limits),
                extra_binds=(),
                cwd=PROG_DIR,
            )
            if raw.exit_code != 0:
                return f"not made ({cmd[1]} exited {raw.exit_code}: {(raw.stdout + raw.stderr)[:300]!r})"
        return _install(program.prog_dir / "run.jsa", f"{language}-run")


def build_archives(sandbox: Sandbox | None = None, *, force: bool = False) -> dict[str, str]:
    """Make the archives that are missing or stale; returns what happened per archive."""
    fingerprint = _fingerprint()
    stamp = ARCHIVE_DIR / ".stamp"
    names = [*PROGRAMS, *(f"{language}-run" for language in RUN_PROGRAMS)]
    if (
        not force
        and stamp.is_file()
        and stamp.read_text() == fingerprint
        and all((ARCHIVE_DIR / f"{name}.jsa").is_file() for name in names)
    ):
        return dict.fromkeys(names, "up to date")
    sandbox = sandbox or Sandbox(warm_compilers=False)  # a compiler's archive is dumped when a cold compiler exits
    ARCHIVE_DIR.mkdir(exist_ok=True)
    ARCHIVE_DIR.chmod(0o755)
    done: dict[str, str] = {}
    for language in PROGRAMS:
        installed = language == "java" or (TOOLCHAINS / language).is_dir()
        done[language] = _compiler_archive(sandbox, language) if installed else "toolchain not installed"
    for language in RUN_PROGRAMS:
        installed = language == "java" or (TOOLCHAINS / language).is_dir()
        done[f"{language}-run"] = _run_archive(sandbox, language) if installed else "toolchain not installed"
    stamp.write_text(fingerprint)
    return done


def build_compile_server(*, force: bool = False) -> str:
    """Compile CompileServer.java (javac, on the host: it is the project's own code) and copy
    compile-server.js beside it, unless what is there was made from these very sources."""
    target = TOOLCHAINS / "compile-server"
    digest = compile_server_digest()
    stamp = target / ".source-sha256"
    if not force and stamp.is_file() and stamp.read_text().strip() == digest:
        return "up to date"
    building = Path(str(target) + ".tmp")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    java = [source for source in COMPILE_SERVER_SOURCES if source.suffix == ".java"]
    made = subprocess.run(
        ["javac", "-encoding", "UTF-8", "--release", "17", "-d", str(building), *map(str, java)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        return f"not built (javac: {(made.stdout + made.stderr).strip()[:500]}): compiles stay cold"
    for source in COMPILE_SERVER_SOURCES:
        if source.suffix == ".js":
            shutil.copyfile(source, building / source.name)
    (building / ".source-sha256").write_text(digest)
    for path in [building, *building.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o444)
    shutil.rmtree(target, ignore_errors=True)
    building.replace(target)
    return "built"


def build_precompiled_headers(*, force: bool = False) -> str:
    """Precompile bits/stdc++.h with the C++ compile's own flags unless that was done for this g++."""
    target = TOOLCHAINS / "pch"
    lang = LANGUAGES["cpp"]
    assert lang.compile_cmd is not None
    flags = [part for part in lang.compile_cmd[1 : lang.compile_cmd.index("-o")] if not part.startswith("-I")]
    version = subprocess.run([lang.compile_cmd[0], "--version"], capture_output=True, text=True).stdout
    digest = hashlib.sha256("\n".join([version, *flags]).encode()).hexdigest()
    stamp = target / ".stamp"
    if not force and stamp.is_file() and stamp.read_text().strip() == digest:
        return "up to date"
    building = Path(str(target) + ".tmp")
    shutil.rmtree(building, ignore_errors=True)
    (building / "bits").mkdir(parents=True)
    header = building / "bits" / "stdc++.h"
    header.write_text("#include_next <bits/stdc++.h>\n")
    made = subprocess.run(
        [lang.compile_cmd[0], *flags, f"-I{building}", "-w", "-x", "c++-header", str(header), "-o", f"{header}.gch"],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        return f"not made (g++: {(made.stdout + made.stderr).strip()[:500]}): the header is parsed in every compile"
    stamp_file = building / ".stamp"
    stamp_file.write_text(digest)
    for path in [building, *building.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o444)
    shutil.rmtree(target, ignore_errors=True)
    building.replace(target)
    return f"made ({(target / 'bits' / 'stdc++.h.gch').stat().st_size // (1024 * 1024)} MB)"


def main() -> None:
    force = "--force" in sys.argv
    print(f"[warm] compile server: {build_compile_server(force=force)}", file=sys.stderr)
    print(f"[warm] C++ precompiled header: {build_precompiled_headers(force=force)}", file=sys.stderr)
    for language, outcome in build_archives(force=force).items():
        print(f"[warm] {language}: {outcome}", file=sys.stderr)


if __name__ == "__main__":
    main()
