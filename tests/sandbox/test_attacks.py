"""Hostile programs: every attack must be contained, and the next normal program must still work."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from evaluators.sandbox import Limits, RunResult, Sandbox

SHORT = Limits(wall_seconds=3.0, cpu_seconds=3.0, memory_mb=256, processes=32, file_size_mb=8, output_bytes=1024 * 1024)
toolchains = pytest.mark.toolchains


def run(sandbox: Sandbox, language: str, source: str, stdin: str = "", limits: Limits = SHORT) -> RunResult:
    with sandbox.program(language, source) as prog:
        assert prog.compile_result.ok, prog.compile_result.output
        result = prog.run(stdin, limits)
    assert_healthy(sandbox)
    return result


def sandboxed_host_pids(sandbox: Sandbox) -> list[str]:
    """Live (non-zombie) host processes running as any uid this sandbox handed out, but for its warm
    compilers waiting for the next compile (tests/sandbox/test_warm_compilers.py checks those)."""
    resident = sandbox.warm_compilers.resident_uids() if sandbox.warm_compilers is not None else set()
    out = subprocess.run(["ps", "-eo", "uid=,stat=,pid=,args="], capture_output=True, text=True, check=True).stdout
    rows = [line.split(None, 3) for line in out.splitlines()]
    return [
        " ".join(r)
        for r in rows
        if len(r) >= 3 and int(r[0]) in sandbox.uids_used - resident and not r[1].startswith("Z")
    ]


def assert_healthy(sandbox: Sandbox) -> None:
    """No sandboxed process is left on the host, and a normal program runs normally."""
    deadline = time.monotonic() + 3
    while sandboxed_host_pids(sandbox) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandboxed_host_pids(sandbox) == []
    with sandbox.program("python", "print(sum(map(int, input().split())))\n") as prog:
        r = prog.run("2 3\n", Limits(wall_seconds=10))
        assert (r.status, r.stdout) == ("ok", "5\n"), r


# ------------------------------------------------------------------ network
NETWORK = {
    "python": (
        "import socket\nfor host, port in (('127.0.0.1', 5432), ('8.8.8.8', 53), ('localhost', 6379)):\n"
        "    try:\n        socket.create_connection((host, port), timeout=1)\n        print('CONNECTED')\n"
        "    except OSError:\n        print('blocked')\n"
    ),
    "cpp": (
        "#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <cstdio>\n"
        "int main(){int s=socket(AF_INET,SOCK_STREAM,0);sockaddr_in a{};a.sin_family=AF_INET;"
        'a.sin_port=htons(5432);inet_pton(AF_INET,"127.0.0.1",&a.sin_addr);'
        'puts(connect(s,(sockaddr*)&a,sizeof a)==0?"CONNECTED":"blocked");'
        'a.sin_port=htons(53);inet_pton(AF_INET,"8.8.8.8",&a.sin_addr);'
        'puts(connect(s,(sockaddr*)&a,sizeof a)==0?"CONNECTED":"blocked");}\n'
    ),
    "java": (
        "import java.net.*;\npublic class Main { public static void main(String[] a) {"
        ' try { new Socket("127.0.0.1", 5432); System.out.println("CONNECTED"); }'
        ' catch (Exception e) { System.out.println("blocked"); } } }\n'
    ),
    "javascript": (
        "const s = require('net').connect(5432, '127.0.0.1');\n"
        "s.on('connect', () => { console.log('CONNECTED'); process.exit(0); });\n"
        "s.on('error', () => console.log('blocked'));\n"
    ),
}


@toolchains
@pytest.mark.parametrize("language", sorted(NETWORK))
def test_network_is_unreachable(sandbox: Sandbox, language: str) -> None:
    r = run(sandbox, language, NETWORK[language], limits=Limits(wall_seconds=10))
    assert "CONNECTED" not in r.stdout
    assert "blocked" in r.stdout, r


# ------------------------------------------------------------------ fork bomb
FORK_BOMB = {
    "python": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "cpp": "#include <unistd.h>\nint main(){while(1)fork();}\n",
    "ruby": "loop { fork rescue nil }\n",
    "php": "<?php\nwhile (true) { @exec('sh -c \":(){ :|:& };:\"'); }\n",
}


@toolchains
@pytest.mark.parametrize("language", sorted(FORK_BOMB))
def test_fork_bomb_is_bounded(sandbox: Sandbox, language: str) -> None:
    t = time.monotonic()
    r = run(sandbox, language, FORK_BOMB[language])
    assert r.status in ("timeout", "runtime_error", "memory_limit"), r
    assert time.monotonic() - t < 20


# ------------------------------------------------------------------ memory bomb
MEMORY_BOMB = {
    "python": "x = []\nwhile True:\n    x.append(bytearray(16 << 20))\n",
    "cpp": (
        "#include <vector>\n#include <cstring>\n#include <cstdlib>\nint main(){std::vector<char*> v;"
        "while(1){char*p=(char*)malloc(16<<20);if(!p)return 7;memset(p,1,16<<20);v.push_back(p);}}\n"
    ),
    "java": (
        "import java.util.*;\npublic class Main { public static void main(String[] a) {"
        " List<long[]> l = new ArrayList<>(); while (true) l.add(new long[1 << 20]); } }\n"
    ),
    "javascript": "const a = [];\nwhile (true) a.push(new Array(1 << 20).fill(1.5));\n",
    "go": (
        "package main\nfunc main() { var l [][]byte; for { b := make([]byte, 16<<20);"
        " for i := range b { b[i] = 1 }; l = append(l, b) } }\n"
    ),
    "rust": "fn main() { let mut v: Vec<Vec<u8>> = Vec::new(); loop { v.push(vec![1u8; 16 << 20]); } }\n",
}


@toolchains
@pytest.mark.parametrize("language", sorted(MEMORY_BOMB))
def test_memory_bomb_reports_memory_limit(sandbox: Sandbox, language: str) -> None:
    limits = Limits(wall_seconds=15.0, cpu_seconds=15.0, memory_mb=256)
    r = run(sandbox, language, MEMORY_BOMB[language], limits=limits)
    assert r.status == "memory_limit", r


# ------------------------------------------------------------------ disk fill
DISK_FILL = {
    "python": "f = open('/tmp/big', 'wb')\nwhile True:\n    f.write(b'x' * (1 << 20))\n",
    "cpp": (
        "#include <cstdio>\n#include <cstring>\nstatic char b[1<<20];int main(){memset(b,1,sizeof b);"
        'FILE*f=fopen("big","wb");if(!f)return 5;while(fwrite(b,1,sizeof b,f)==sizeof b){}return 3;}\n'
    ),
}


@toolchains
@pytest.mark.parametrize("language", sorted(DISK_FILL))
def test_disk_fill_fails(sandbox: Sandbox, language: str) -> None:
    before = os.statvfs("/").f_bavail
    r = run(sandbox, language, DISK_FILL[language])
    assert r.status != "ok", r
    after = os.statvfs("/").f_bavail
    assert (before - after) * os.statvfs("/").f_frsize < 200 * 1024 * 1024


# ------------------------------------------------------------------ huge output
HUGE_OUTPUT = {
    "python": "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n",
    "cpp": '#include <cstdio>\nint main(){while(1)puts("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");}\n',
    "java": 'public class Main { public static void main(String[] a) { while (true) System.out.print("yyyyyyyy\\n"); '
    "} }\n",
    "javascript": "const s = 'y'.repeat(65536);\nfunction f() { while (process.stdout.write(s)) {} "
    "process.stdout.once('drain', f); }\nf();\n",
}


@toolchains
@pytest.mark.parametrize("language", sorted(HUGE_OUTPUT))
def test_huge_output_is_capped(sandbox: Sandbox, language: str) -> None:
    r = run(sandbox, language, HUGE_OUTPUT[language], limits=Limits(wall_seconds=10, output_bytes=1 << 20))
    assert r.status == "output_limit", r
    assert len(r.stdout.encode()) <= 1 << 20


# ------------------------------------------------------------------ host files and secrets
SNOOP_PY = """
import os
paths = ['/etc/shadow', '/root/.bashrc', '/work/main/pyproject.toml', '/work/main/.venv/bin/python',
         '/home', '/root', '/work', '/proc/1/environ', '/sys/fs/cgroup/memory']
for p in paths:
    try:
        if os.path.isdir(p):
            print(p, 'LISTED', os.listdir(p))
        else:
            print(p, 'READ', open(p, 'rb').read(40))
    except OSError as e:
        print(p, 'denied', type(e).__name__)
print('ENV', sorted(os.environ))
print('SECRET', os.environ.get('LEADERBOARD_SECRET'))
print('UID', os.getuid())
"""


def test_host_files_and_secrets_are_invisible(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEADERBOARD_SECRET", "xyz-top-secret")
    r = run(sandbox, "python", SNOOP_PY, limits=Limits(wall_seconds=10))
    assert r.status == "ok", r
    assert "xyz-top-secret" not in r.stdout and "SECRET None" in r.stdout
    for p in (
        "/etc/shadow",
        "/root/.bashrc",
        "/work/main/pyproject.toml",
        "/work/main/.venv/bin/python",
        "/home",
        "/root",
        "/work",
        "/sys/fs/cgroup/memory",
    ):
        assert f"{p} denied" in r.stdout, r.stdout
    assert "READ" not in r.stdout.replace("/proc/1/environ READ", "")
    env_line = next(line for line in r.stdout.splitlines() if line.startswith("ENV"))
    assert "LEADERBOARD_SECRET" not in env_line


@toolchains
def test_cpp_cannot_read_shadow(sandbox: Sandbox) -> None:
    src = (
        '#include <fstream>\n#include <iostream>\nint main(){std::ifstream f("/etc/shadow");'
        'std::cout<<(f.good()?"OPEN":"denied")<<std::endl;}\n'
    )
    assert run(sandbox, "cpp", src).stdout.strip() == "denied"


# ------------------------------------------------------------------ writes outside the work dir
WRITE_PY = """
import os
for p in ['/usr/evil', '/etc/evil', '/prog/evil', '/opt/toolchains/evil', '/evil', '/prog/main.py']:
    try:
        open(p, 'a').write('x')
        print(p, 'WROTE')
    except OSError:
        print(p, 'denied')
open('/tmp/ok', 'w').write('fine')
open('local', 'w').write('fine')
print('tmp ok')
"""


def test_writes_outside_work_dir_fail(sandbox: Sandbox) -> None:
    r = run(sandbox, "python", WRITE_PY)
    assert r.status == "ok", r
    assert "WROTE" not in r.stdout and "tmp ok" in r.stdout
    assert not os.path.exists("/usr/evil") and not os.path.exists("/etc/evil")


def test_each_run_gets_a_fresh_work_dir(sandbox: Sandbox) -> None:
    src = "import os\nprint(os.path.exists('mark'))\nopen('mark', 'w').write('1')\n"
    with sandbox.program("python", src) as prog:
        assert prog.run("", SHORT).stdout == "False\n"
        assert prog.run("", SHORT).stdout == "False\n"


# ------------------------------------------------------------------ killing other processes
KILL_ALL = {
    "python": "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError as e:\n    "
    "print(e)\nprint('alive')\n",
    "cpp": '#include <signal.h>\n#include <cstdio>\nint main(){kill(-1,SIGKILL);kill(1,SIGKILL);puts("alive");}\n',
}


@toolchains
@pytest.mark.parametrize("language", sorted(KILL_ALL))
def test_kill_minus_one_does_not_touch_host(sandbox: Sandbox, language: str) -> None:
    victim = subprocess.Popen(["sleep", "60"])
    try:
        run(sandbox, language, KILL_ALL[language])
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


# ------------------------------------------------------------------ hangs
HANG = {
    "python": "import time\ntime.sleep(10**6)\n",
    "cpp": "#include <unistd.h>\nint main(){while(1)pause();}\n",
    "java": "public class Main { public static void main(String[] a) throws Exception { Thread.sleep(1000000000L); } "
    "}\n",
    "javascript": "setInterval(() => {}, 1000);\n",
    "go": 'package main\nimport "time"\nfunc main() { time.Sleep(time.Hour) }\n',
    "ruby": "sleep\n",
}
SPIN = {
    "python": "while True:\n    pass\n",
    "cpp": "int main(){volatile unsigned long x=0;while(1)x++;}\n",
    "rust": "fn main() { let mut x: u64 = 0; loop { x = std::hint::black_box(x.wrapping_add(1)); } }\n",
    "php": "<?php\nwhile (true) {}\n",
    "javascript": "while (true) {}\n",
}


@toolchains
@pytest.mark.parametrize("language", sorted(HANG))
def test_sleep_forever_times_out(sandbox: Sandbox, language: str) -> None:
    limits = Limits(wall_seconds=2.0, cpu_seconds=2.0)
    r = run(sandbox, language, HANG[language], limits=limits)
    assert r.status == "timeout", r
    assert r.wall_seconds < 4.0


@toolchains
@pytest.mark.parametrize("language", sorted(SPIN))
def test_busy_loop_times_out(sandbox: Sandbox, language: str) -> None:
    limits = Limits(wall_seconds=3.0, cpu_seconds=2.0)
    r = run(sandbox, language, SPIN[language], limits=limits)
    assert r.status == "timeout", r
    assert r.wall_seconds < 5.0


def test_background_child_is_killed_with_the_run(sandbox: Sandbox) -> None:
    src = "import subprocess\nsubprocess.Popen(['sleep', '1000'], start_new_session=True)\nprint('spawned')\n"
    r = run(sandbox, "python", src)
    assert r.stdout == "spawned\n"


# ------------------------------------------------------------------ not what it claims
@toolchains
def test_disguised_sources(sandbox: Sandbox) -> None:
    with sandbox.program("cpp", "#!/bin/sh\nrm -rf / --no-preserve-root\n") as prog:
        assert prog.compile_result.status == "compile_error"
    with sandbox.program("cpp", "\x7fELF\x02\x01\x01\x00garbage\x00\xff") as prog:
        assert prog.compile_result.status == "compile_error"
    with sandbox.program("go", "#!/bin/bash\necho hi\n") as prog:
        assert prog.compile_result.status == "compile_error"
    with sandbox.program("java", "public class NotMain { public static void main(String[] a) {} }\n") as prog:
        assert prog.compile_result.status == "compile_error"
    assert_healthy(sandbox)


def test_python_with_binary_bytes(sandbox: Sandbox) -> None:
    with sandbox.program("python", "print(1)\n\x00\x01\x02\udcff\x7fELF") as prog:
        assert prog.compile_result.status == "compile_error"
    assert_healthy(sandbox)


# ------------------------------------------------------------------ concurrent runs, namespaces, capabilities
LISTENER = """
import socket, time
got = []
abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
abstract.bind('\\0llm-sandbox-crosstalk')
abstract.listen(8)
abstract.settimeout(0.2)
# sanity: the abstract socket works inside this run's own namespace
probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
probe.connect('\\0llm-sandbox-crosstalk')
abstract.accept()[0].close()
probe.close()
print('self-connect ok', flush=True)
tcp = None
try:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(('127.0.0.1', 47123))
    tcp.listen(8)
    tcp.settimeout(0.2)
    print('tcp listening')
except OSError as e:
    print('tcp bind failed', type(e).__name__)
    tcp = None
end = time.monotonic() + 3.0
while time.monotonic() < end:
    for s in (abstract, tcp):
        if s is None:
            continue
        try:
            s.accept()
            got.append('ACCEPTED')
        except OSError:
            pass
print('listener', got or 'nobody')
"""
CONNECTOR = """
import socket, time
hits = []
end = time.monotonic() + 3.0
while time.monotonic() < end:
    for family, addr in ((socket.AF_UNIX, '\\0llm-sandbox-crosstalk'), (socket.AF_INET, ('127.0.0.1', 47123))):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(0.2)
        try:
            s.connect(addr)
            hits.append('CONNECTED')
        except OSError:
            pass
        finally:
            s.close()
    time.sleep(0.05)
print('connector', hits or 'nothing')
"""


def test_concurrent_runs_cannot_talk(sandbox: Sandbox) -> None:
    """Two programs running at the same time get separate network namespaces: no abstract unix
    socket, no loopback TCP between them (the namespace pool never hands one out twice)."""
    from concurrent.futures import ThreadPoolExecutor

    limits = Limits(wall_seconds=10.0, cpu_seconds=10.0)
    with (
        sandbox.program("python", LISTENER) as lp,
        sandbox.program("python", CONNECTOR) as cp,
        ThreadPoolExecutor(2) as pool,
    ):
        fl = pool.submit(lp.run, "", limits)
        fc = pool.submit(cp.run, "", limits)
        rl, rc = fl.result(), fc.result()
    assert rl.status == "ok" and rc.status == "ok", (rl, rc)
    assert "self-connect ok" in rl.stdout, rl
    assert "listener nobody" in rl.stdout, rl
    assert "connector nothing" in rc.stdout, rc
    assert_healthy(sandbox)


CAPS_PY = """
import os
status = dict(line.split(':\\t') for line in open('/proc/self/status').read().splitlines() if ':\\t' in line)
for key in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs'):
    print(key, status.get(key, '?').strip())
print('NET', os.readlink('/proc/self/ns/net'))
"""


def test_no_capabilities_and_private_netns(sandbox: Sandbox) -> None:
    r = run(sandbox, "python", CAPS_PY)
    assert r.status == "ok", r
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    for key in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(lines[key], 16) == 0, r.stdout
    assert lines["NoNewPrivs"] == "1", r.stdout
    assert lines["NET"] != os.readlink("/proc/self/ns/net"), r.stdout
