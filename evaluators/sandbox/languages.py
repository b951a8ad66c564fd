"""The twelve Multi-LCB languages: file names, compile and run commands, version probes.

Commands are argument lists run *inside* the sandbox. Placeholders:
``{prog}`` the program directory (writable while compiling, read-only while running),
``{tc}`` the read-only project toolchain directory, ``{heap_mb}`` a heap size below the memory
limit for managed runtimes, ``{mem_mb}`` the memory limit itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PROG_DIR: str = "/prog"
#: where a program's read-only data (Program.run's ``data``) is mounted
DATA_DIR: str = "/data"
TOOLCHAIN_DIR: str = "/opt/toolchains"
SCALA_JARS: str = TOOLCHAIN_DIR + "/scala"
SCALA_LIBRARY: str = SCALA_JARS + "/scala-library.jar"
_SCALA_COMPILER_CP: str = ":".join(f"{SCALA_JARS}/scala-{part}.jar" for part in ("compiler", "library", "reflect"))
KOTLINC: str = TOOLCHAIN_DIR + "/kotlin/bin/kotlinc"
#: precompiled C++ headers, searched before the system's (evaluators.sandbox.warm makes them)
PCH_DIR: str = TOOLCHAIN_DIR + "/pch"
#: the compiler jar names the rest of the compiler's class path in its manifest
KOTLIN_COMPILER_JAR: str = TOOLCHAIN_DIR + "/kotlin/lib/kotlin-compiler.jar"
KOTLIN_STDLIB: str = TOOLCHAIN_DIR + "/kotlin/lib/kotlin-stdlib.jar"
TSC: str = "{tc}/node_modules/typescript/bin/tsc"

#: no -Xss: the JVM's own default thread stack, as Multi-LCB's harness runs programs
JVM_RUN_FLAGS: tuple[str, ...] = (
    "-Xmx{heap_mb}m",
    "-XX:+UseSerialGC",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=128m",
    "-XX:-UsePerfData",
    "-XX:TieredStopAtLevel=4",
)
#: compilers (kotlinc, scalac) are short-lived JVMs: the C1 compiler alone starts them faster (Scala's
#: compile of a sample solution: 3.26 s -> 2.62 s, Kotlin's: 5.64 s -> 5.15 s, idle, this machine kind)
JVM_TOOL_OPTS: str = "-Xmx{heap_mb}m -Xss16m -XX:+UseSerialGC -XX:-UsePerfData -XX:TieredStopAtLevel=1"
#: the flag naming a compiler's class-data sharing archive (evaluators.sandbox.warm makes them)
CDS_ARCHIVE_FLAG: str = "-XX:SharedArchiveFile="


#: what goes with an archive's flag: use it when it matches, and say nothing when it does not
_CDS_COMPANIONS: tuple[str, ...] = ("-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off")


def _cds(archive: str) -> str:
    """Start a JVM from a class-data sharing archive of evaluators.sandbox.warm when it exists and
    matches (a missing or stale one is ignored silently: the JVM starts cold, with the same result):
    ``<language>`` a compiler's own classes, ``<language>-run`` what programs load (the JDK's classes
    and the language's runtime library)."""
    return " ".join((f"{CDS_ARCHIVE_FLAG}{{tc}}/cds/{archive}.jsa", *_CDS_COMPANIONS))


def without_cds(command: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``command`` without the archive _cds added (the JVM starts from the JDK's own archive)."""
    return tuple(part for part in command if not part.startswith(CDS_ARCHIVE_FLAG) and part not in _CDS_COMPANIONS)


def _jvm_run(language: str, classpath: str, main: str, *extra: str) -> tuple[str, ...]:
    return ("java", *JVM_RUN_FLAGS, *extra, *_cds(f"{language}-run").split(), "-cp", classpath, main)


@dataclass(frozen=True)
class Language:
    """How one language is compiled, run and identified."""

    key: str
    display_name: str
    fence: str
    source_name: str
    compile_cmd: tuple[str, ...] | None
    run_cmd: tuple[str, ...]
    version_cmd: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    compile_env: dict[str, str] = field(default_factory=dict)
    #: stderr fragments a runtime prints when its own heap limit (set below the cgroup limit) is hit
    oom_markers: tuple[str, ...] = ()
    #: directories that must exist in the program dir before compiling
    mkdirs: tuple[str, ...] = ()
    #: compile succeeded only if this file (relative to the program dir) exists afterwards
    artifact: str | None = None
    #: the rule a program must follow for the runtime to start it, as a sentence (told to the user when
    #: a compile shows it broken: no artifact, no entry point, or the compiler's error matching ``rule_broken``)
    entry_rule: str | None = None
    #: a regular expression matching the compiler's error for a program that broke ``entry_rule``
    rule_broken: str | None = None
    #: the artifact is a jar that must name its entry point (kotlinc writes Main-Class only for a main)
    jar_main_class: bool = False
    #: runs are forked from a warm /usr/bin/python3 with the standard library loaded instead of starting
    #: one (the supervisor's zygote); only where run_cmd is that same interpreter on the program file
    warm_python: bool = False
    #: the compiler in compile_cmd that a warm compiler (evaluators.sandbox.resident) can keep loaded: a JVM
    #: compiler's main class (compile_cmd ``java <flags> [-cp <class path>] <compiler_main> <arguments>``)
    #: or tsc's script (``node <flags> <compiler_main> <arguments>``)
    compiler_main: str | None = None
    #: the compile only checks the source and writes nothing (Python's syntax check): when the run's
    #: limits are known (``Sandbox.program(..., run_limits=)``), it runs as the first request of the
    #: program's own session, not in a sandbox of its own
    check_in_session: bool = False


def _l(*args: str) -> tuple[str, ...]:
    return tuple(args)


LANGUAGES: dict[str, Language] = {
    "python": Language(
        key="python",
        display_name="Python",
        fence="python",
        source_name="main.py",
        # the syntax check prints the error as the interpreter would for the program itself: its own
        # file, line and caret, without this command's frames (<string>, ast.py)
        compile_cmd=_l(
            "python3",
            "-c",
            "import ast,sys,traceback\n"
            "try:\n ast.parse(open(sys.argv[1],'rb').read(),sys.argv[1])\n"
            "except (SyntaxError,ValueError) as e:\n"
            " sys.stderr.write(''.join(traceback.format_exception_only(e)));sys.exit(1)",
            "{prog}/main.py",
        ),
        run_cmd=_l("python3", "{prog}/main.py"),
        warm_python=True,
        check_in_session=True,
        version_cmd=_l("python3", "--version"),
        env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"},
        oom_markers=("MemoryError",),
    ),
    "cpp": Language(
        key="cpp",
        display_name="C++",
        fence="cpp",
        source_name="main.cpp",
        # {tc}/pch holds bits/stdc++.h precompiled with these very flags (evaluators.sandbox.warm): the
        # same header, parsed once at install instead of in every compile; without it, the header itself.
        # Multi-LCB's flags: -std=c++17 -mcmodel=medium and no optimisation
        compile_cmd=_l(
            "g++", "-std=c++17", "-mcmodel=medium", "-pipe", "-I" + PCH_DIR, "-o", "{prog}/main", "{prog}/main.cpp"
        ),
        run_cmd=_l("{prog}/main"),
        version_cmd=_l("g++", "--version"),
        oom_markers=("std::bad_alloc",),
        artifact="main",
    ),
    "java": Language(
        key="java",
        display_name="Java",
        fence="java",
        source_name="Main.java",
        # what the javac launcher runs; the class path named (javac's default is the working directory)
        compile_cmd=_l(
            "java",
            *JVM_TOOL_OPTS.split(),
            *_cds("java").split(),
            "com.sun.tools.javac.Main",
            "-cp",
            "{prog}",
            "-encoding",
            "UTF-8",
            "-d",
            "{prog}",
            "{prog}/Main.java",
        ),
        compiler_main="com.sun.tools.javac.Main",
        run_cmd=_jvm_run("java", "{prog}", "Main", "-ea"),  # assertions on, as Multi-LCB runs Java
        version_cmd=_l("java", "-version"),
        oom_markers=("java.lang.OutOfMemoryError",),
        artifact="Main.class",
        entry_rule="Java programs must declare `public class Main` with `public static void main(String[] args)`",
        rule_broken=r"error: class \w+ is public, should be declared in a file named \w+\.java",
    ),
    "csharp": Language(
        key="csharp",
        display_name="C#",
        fence="csharp",
        source_name="main.cs",
        compile_cmd=_l("mcs", "-out:{prog}/main.exe", "{prog}/main.cs"),  # Multi-LCB's: no -optimize+
        run_cmd=_l("mono", "{prog}/main.exe"),
        version_cmd=_l("mcs", "--version"),
        env={"MONO_GC_PARAMS": "max-heap-size={heap_mb}m"},
        oom_markers=("System.OutOfMemoryException", "Out of memory"),
        artifact="main.exe",
    ),
    "go": Language(
        key="go",
        display_name="Go",
        fence="go",
        source_name="main.go",
        compile_cmd=_l("go", "build", "-o", "{prog}/main", "{prog}/main.go"),
        run_cmd=_l("{prog}/main"),
        version_cmd=_l("go", "version"),
        compile_env={
            "GO111MODULE": "off",
            "GOCACHE": "/gocache",
            "GOPATH": "/tmp/gopath",
            "CGO_ENABLED": "0",
            "GOTOOLCHAIN": "local",
            "GOFLAGS": "",
            "GOPROXY": "off",
            "GOTELEMETRY": "off",
        },
        oom_markers=("fatal error: runtime: out of memory",),
        artifact="main",
    ),
    "rust": Language(
        key="rust",
        display_name="Rust",
        fence="rust",
        source_name="main.rs",
        # Multi-LCB's: no -O (a debug build, overflow checks on) and rustc's default edition (2015)
        compile_cmd=_l("rustc", "-o", "{prog}/main", "{prog}/main.rs"),
        run_cmd=_l("{prog}/main"),
        version_cmd=_l("rustc", "--version"),
        oom_markers=("memory allocation of",),
        artifact="main",
    ),
    "javascript": Language(
        key="javascript",
        display_name="JavaScript",
        fence="javascript",
        source_name="main.js",
        compile_cmd=_l("node", "--check", "{prog}/main.js"),
        run_cmd=_l(
            "node", "--max-old-space-size={heap_mb}", "{prog}/main.js"
        ),  # V8's own stack size, as Multi-LCB runs it
        version_cmd=_l("node", "--version"),
        oom_markers=("JavaScript heap out of memory",),
    ),
    "typescript": Language(
        key="typescript",
        display_name="TypeScript",
        fence="typescript",
        source_name="main.ts",
        compile_cmd=_l(
            "node",
            "--max-old-space-size={heap_mb}",
            TSC,
            "--noCheck",
            "--target",
            "es2022",
            "--module",
            "commonjs",
            "--skipLibCheck",
            "--outDir",
            "{prog}/out",
            "{prog}/main.ts",
        ),
        compiler_main=TSC,
        run_cmd=_l("node", "--max-old-space-size={heap_mb}", "{prog}/out/main.js"),
        version_cmd=_l("node", TSC, "--version"),
        oom_markers=("JavaScript heap out of memory",),
        artifact="out/main.js",
    ),
    "ruby": Language(
        key="ruby",
        display_name="Ruby",
        fence="ruby",
        source_name="main.rb",
        compile_cmd=_l("ruby", "-c", "{prog}/main.rb"),
        run_cmd=_l("ruby", "{prog}/main.rb"),
        version_cmd=_l("ruby", "--version"),
        oom_markers=("failed to allocate memory", "NoMemoryError"),
    ),
    "php": Language(
        key="php",
        display_name="PHP",
        fence="php",
        source_name="main.php",
        compile_cmd=_l("php", "-l", "{prog}/main.php"),
        run_cmd=_l("php", "-d", "memory_limit={heap_mb}M", "{prog}/main.php"),
        version_cmd=_l("php", "--version"),
        oom_markers=("Allowed memory size of",),
    ),
    "kotlin": Language(
        key="kotlin",
        display_name="Kotlin",
        fence="kotlin",
        source_name="main.kt",
        # what bin/kotlinc runs, without its launcher script; the jar holds the program only, and runs
        # start the Main-Class its manifest names ({main}) with the shared standard library
        compile_cmd=_l(
            "java",
            *JVM_TOOL_OPTS.split(),
            *_cds("kotlin").split(),
            "-cp",
            KOTLIN_COMPILER_JAR,
            "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
            "{prog}/main.kt",
            "-nowarn",
            "-d",
            "{prog}/main.jar",
        ),
        compiler_main="org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
        run_cmd=_jvm_run("kotlin", KOTLIN_STDLIB + ":{prog}/main.jar", "{main}"),
        version_cmd=_l(KOTLINC, "-version"),
        oom_markers=("java.lang.OutOfMemoryError",),
        artifact="main.jar",
        entry_rule="Kotlin programs must declare a top-level `fun main()` (or `fun main(args: Array<String>)`)",
        jar_main_class=True,
    ),
    "scala": Language(
        key="scala",
        display_name="Scala",
        fence="scala",
        source_name="main.scala",
        compile_cmd=_l(
            "java",
            *JVM_TOOL_OPTS.split(),
            *_cds("scala").split(),
            "-cp",
            _SCALA_COMPILER_CP,
            "scala.tools.nsc.Main",
            "-usejavacp",
            "-nowarn",
            "-d",
            "{prog}/out",
            "{prog}/main.scala",
        ),
        compiler_main="scala.tools.nsc.Main",
        run_cmd=_jvm_run("scala", SCALA_LIBRARY + ":{prog}/out", "Main"),
        version_cmd=_l("java", "-cp", _SCALA_COMPILER_CP, "scala.tools.nsc.Main", "-version"),
        oom_markers=("java.lang.OutOfMemoryError",),
        mkdirs=("out",),
        artifact="out/Main.class",
        entry_rule=(
            "Scala programs must declare `object Main` (an object, not a class) with "
            "`def main(args: Array[String]): Unit`, or `object Main extends App`"
        ),
    ),
}
