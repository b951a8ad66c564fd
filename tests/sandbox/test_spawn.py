"""No scoring path forks the scoring process: sandboxes are started by the launcher (launch.c) with
vfork+exec, whose cost does not grow with the caller's memory, never by a fork with a preexec_fn.

Two independent witnesses, each shown able to fail by a control that does fork:
- ``os.register_at_fork``: Python calls it for ``os.fork`` and for every ``subprocess`` child
  started with a ``preexec_fn`` (the old path);
- the kernel's page-fault count: a fork write-protects every page of the parent for copy-on-write, so
  writing to a large buffer afterwards faults once per page; after a vfork (the child shares the
  parent's memory until it execs) nothing is write-protected and the writes do not fault.
"""

from __future__ import annotations

import mmap
import os
import re
import resource
import subprocess
from collections.abc import Callable, Iterator

import pytest

from evaluators.core.types import Item, Prediction
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.sandbox import Limits, Sandbox, SandboxUnavailable
from evaluators.sandbox.linux import LAUNCHER_SOURCE, Launcher

pytestmark = pytest.mark.toolchains

PAGES = 32768  # 128 MiB of 4 KiB pages
PAGE = mmap.PAGESIZE

FORKS: list[int] = []
os.register_at_fork(before=lambda: FORKS.append(1))


class Witness:
    """A 128 MiB buffer, touched page by page; ``faults()`` writes every page again and says how many
    page faults that took (about one per page after a fork, about none otherwise)."""

    def __init__(self) -> None:
        self.buffer = mmap.mmap(
            -1, PAGES * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
        )  # private: copied on write after a fork
        self.buffer.madvise(mmap.MADV_NOHUGEPAGE)  # one fault per 4 KiB page, not per 2 MiB
        self._touch()

    def _touch(self) -> None:
        for page in range(PAGES):
            self.buffer[page * PAGE] = 1

    def faults(self) -> int:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        self._touch()
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def observed(action: Callable[[], object]) -> tuple[int, int]:
    """(forks Python saw, page faults writing the buffer afterwards) around ``action``."""
    witness = Witness()
    witness.faults()  # settle: the buffer is fully mapped and writable
    FORKS.clear()
    action()
    return len(FORKS), witness.faults()


def test_the_witnesses_see_a_fork_with_a_preexec_fn() -> None:
    """The controls: the old way of starting bwrap (Popen with a preexec_fn) and a plain os.fork."""
    forks, faults = observed(lambda: subprocess.run(["/bin/true"], preexec_fn=lambda: None, check=True))
    assert forks == 1 and faults > PAGES * 0.9

    def fork_and_reap() -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    forks, faults = observed(fork_and_reap)
    assert forks == 1 and faults > PAGES * 0.9


@pytest.fixture(scope="module")
def scorer() -> Iterator[MultiLCBEvaluator]:
    yield MultiLCBEvaluator(time_limit_seconds=5.0, sandbox_factory=Sandbox)


def item(language: str) -> Item:
    tests = [
        {"input": f"{a} {b}\n", "output": f"{a + b}\n", "testtype": "stdin"} for a, b in ((1, 2), (40, 2), (-5, 5))
    ]
    return Item(
        id=f"ab-{language}",
        slices={"language": language},
        payload={"language": language, "public_test_cases": tests[:1], "private_test_cases": tests[1:]},
    )


PROGRAMS = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": '#include <cstdio>\nint main(){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);}\n',
}


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_scoring_an_item_forks_nothing(scorer: MultiLCBEvaluator, language: str) -> None:
    """A sample compiled and run on three tests, another that does not compile: the sandbox set-up,
    the compile, the session and its supervisor, all without a fork of this process."""
    scorer.sandbox()  # made outside the witness (its set-up threads and probe are checked below)
    results = []

    def score() -> None:
        good = f"```{language}\n{PROGRAMS[language]}```\n"
        bad = f"```{language}\nthis is not a program (\n```\n"
        predictions = [
            Prediction(item_id=f"ab-{language}", sample_index=0, output=good),
            Prediction(item_id=f"ab-{language}", sample_index=1, output=bad),
        ]
        results.append(scorer.score_item(item(language), predictions))

    forks, faults = observed(score)
    verdicts = [sample["verdict"] for sample in results[0].detail["samples"]]
    assert verdicts == ["passed", "compile_error"]
    assert forks == 0
    assert faults < PAGES * 0.1, f"{faults} page faults: the scoring process was forked"


def test_setting_up_a_sandbox_forks_nothing(tmp_path) -> None:
    """The sandbox's own set-up: the launcher's build (a fresh cache directory), the probe, a single run."""
    made: list[Sandbox] = []
    forks, faults = observed(lambda: made.append(Sandbox(base_dir=tmp_path, warm_compilers=False)))
    assert forks == 0 and faults < PAGES * 0.1
    with made[0].program("cpp", PROGRAMS["cpp"]) as program:
        outcome = []
        forks, faults = observed(lambda: outcome.append(program.run("2 3\n", Limits(wall_seconds=10))))
        assert outcome[0].stdout == "5\n"
        assert forks == 0 and faults < PAGES * 0.1


def test_a_failed_set_up_is_the_platforms_error_with_the_launchers_reason(tmp_path) -> None:
    """The launcher reports why it could not set a run up (here: a cgroup that does not exist), and
    the caller raises it; nothing is started."""
    launcher = Launcher(tmp_path)
    with pytest.raises(OSError, match=re.escape("sandbox launcher: cannot join the cgroup /nonexistent/cgroup.procs")):
        launcher.popen(
            ["/bin/true"],
            netns_fd=None,
            mntns_fd=None,
            cgroup_procs=("/nonexistent/cgroup.procs",),
            rlimits=(),
            uid=None,
        )
    proc = launcher.popen(
        ["/bin/sh", "-c", "ulimit -n; umask"],
        netns_fd=None,
        mntns_fd=None,
        cgroup_procs=(),
        rlimits=((resource.RLIMIT_NOFILE, (77, 77)),),
        uid=None,
    )
    out, _ = proc.communicate()
    assert out.split() == [b"77", b"0022"]


def test_a_launcher_someone_else_could_have_written_is_not_used(tmp_path) -> None:
    """The cached binary is used only from a directory that only this user can write."""
    os.chmod(tmp_path, 0o777)
    launcher = Launcher(tmp_path)
    assert not launcher.path.startswith(str(tmp_path))
    assert os.path.basename(launcher.path).startswith("launch-") and LAUNCHER_SOURCE.name == "launch.c"


def test_no_compiler_is_a_clear_refusal(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("evaluators.sandbox.linux.C_COMPILERS", ("/nonexistent/cc",))
    with pytest.raises(SandboxUnavailable, match="no C compiler"):
        Sandbox(base_dir=tmp_path, warm_compilers=False)


#: prints what the supervisor's launcher set up for a compiled test, as the program sees it
SETUP_PROBE = r"""
#include <cstdio>
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>
int main() {
    char cwd[256], oom[16] = {0};
    FILE *f = fopen("/proc/self/oom_score_adj", "r");
    if (f) { fscanf(f, "%15s", oom); fclose(f); }
    int fds = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; (e = readdir(d)) != nullptr;) if (e->d_name[0] != '.') fds++;
    closedir(d);
    struct rlimit cpu, fsize;
    getrlimit(RLIMIT_CPU, &cpu);
    getrlimit(RLIMIT_FSIZE, &fsize);
    printf("%s %s %d %d %llu %llu\n", getcwd(cwd, sizeof cwd), oom, getsid(0) == getpid(), fds - 1,
           (unsigned long long)cpu.rlim_cur, (unsigned long long)fsize.rlim_cur);
}
"""


def test_a_compiled_test_is_set_up_by_the_launcher_in_the_sandbox(sandbox: Sandbox) -> None:
    """Inside the sandbox the supervisor starts each compiled test with spawn.so (a vfork whose child
    sets the test up and execs it) instead of forking itself: the test still gets /tmp as its
    directory, is the first to be OOM-killed, leads a session of its own, holds only its three
    standard descriptors (the opendir's aside) and has its limits (3 s of CPU: soft 3; 5 MiB files)."""
    with sandbox.program("cpp", SETUP_PROBE) as program:
        assert program.compile_result.ok, program.compile_result.output
        with program.session(Limits(wall_seconds=10, cpu_seconds=3, file_size_mb=5)) as session:
            first, second = session.run(""), session.run("")
    assert first.stdout == second.stdout == f"/tmp 1000 1 3 3 {5 << 20}\n", first


#: the same probe as a Python program (forked from the warm Python, set up by spawn.so's set_up_test)
PY_SETUP_PROBE = """import os, resource
oom = open('/proc/self/oom_score_adj').read().strip()
fds = len(os.listdir('/proc/self/fd')) - 1
print(os.getcwd(), oom, int(os.getsid(0) == os.getpid()), fds, resource.getrlimit(resource.RLIMIT_CPU)[0],
      resource.getrlimit(resource.RLIMIT_FSIZE)[0])
"""


def test_a_python_test_is_set_up_as_a_compiled_one(sandbox: Sandbox) -> None:
    """A fork of the warm Python gets the same set-up: /tmp, the first to be OOM-killed (its /proc/self
    is its own once it is dumpable again, so it can say so), its own session, three descriptors
    (the listdir's aside), its limits."""
    with sandbox.program("python", PY_SETUP_PROBE) as program:
        assert program.compile_result.ok, program.compile_result.output
        with program.session(Limits(wall_seconds=10, cpu_seconds=3, file_size_mb=5)) as session:
            first, second = session.run(""), session.run("")
    assert first.stdout == second.stdout == f"/tmp 1000 1 3 3 {5 << 20}\n", first


def test_without_the_spawn_library_tests_are_set_up_the_same(tmp_path, monkeypatch) -> None:
    """Where spawn.so cannot be built, the supervisor falls back on the launcher for compiled tests and
    on the interpreter's own calls for Python's: the same set-up."""
    broken = tmp_path / "spawn.c"
    broken.write_text("this is not C\n")
    monkeypatch.setattr("evaluators.sandbox.linux.SPAWN_SOURCE", broken)
    own = Sandbox(base_dir=tmp_path / "base", warm_compilers=False)
    assert own.host.launcher.library is None
    for language, probe in (("cpp", SETUP_PROBE), ("python", PY_SETUP_PROBE)):
        with own.program(language, probe) as program:
            assert program.compile_result.ok, program.compile_result.output
            with program.session(Limits(wall_seconds=10, cpu_seconds=3, file_size_mb=5)) as session:
                first, second = session.run(""), session.run("")
        # the launcher sets the OOM score itself; a fork of the warm Python once it is dumpable again
        assert first.stdout == second.stdout == f"/tmp 1000 1 3 3 {5 << 20}\n", (language, first)
