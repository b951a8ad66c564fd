"""The system calls a sandboxed process may make: the table confine.py builds the seccomp filter from.

Default deny: a call is allowed only when it is named in ``ALLOWED`` (grouped, one reason per group);
every other call fails with EPERM, but for ``NOT_HERE``, which fails with ENOSYS, as on a kernel without
it, because the runtimes probe for these and fall back on ENOSYS (glibc's ``posix_spawn`` and
``pthread_create`` use ``clone3`` and retry with ``clone`` on ENOSYS alone; libuv, in Node, falls back
from io_uring). ``clone`` is allowed without any namespace flag (``CLONE_NAMESPACES``): ``clone3``
passes its flags in memory, which a filter cannot read, so it is refused and the flags register of
``clone`` is checked instead.

Found by tracing (confine.TRACE: refused calls allowed and logged, the kernel's log read afterwards) the
reference A+B programs of the twelve languages, their compiles cold and warm, the warm Python, the
data sandbox's analysis libraries (a seaborn plot) and the attack suite, then checked against DMOJ's
per-language allowlists and nsjail's policies. What stays refused, with why (the usual routes of
kernel exploits, or of reaching out of the sandbox), is ``REFUSED``: documentation, since everything
not allowed is refused.

Stdlib only and free of imports: each Sandbox installs it beside its private copy of supervisor.py
(host.SUPERVISOR_FILES).
"""

from __future__ import annotations

# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
#: the calls a sandboxed process may make, by reason
ALLOWED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ('memory: the allocator, the JIT compilers (JVM, V8, Mono) and the garbage collectors',
     ('brk', 'mmap', 'munmap', 'mprotect', 'mremap', 'madvise', 'msync', 'mincore', 'mlock', 'munlock',
      'membarrier', 'memfd_create', 'get_mempolicy', 'set_mempolicy', 'mbind', 'pkey_alloc', 'pkey_free',
      'pkey_mprotect')),
    ("files and descriptors: the program's own files (/tmp, /prog) and the read-only toolchains",
     ('read', 'write', 'readv', 'writev', 'pread64', 'pwrite64', 'preadv', 'pwritev', 'preadv2',
      'pwritev2', 'open', 'openat', 'creat', 'close', 'close_range', 'lseek', 'stat', 'fstat', 'lstat',
      'newfstatat', 'statx', 'access', 'faccessat', 'faccessat2', 'readlink', 'readlinkat', 'getdents',
      'getdents64', 'getcwd', 'chdir', 'fchdir', 'mkdir', 'mkdirat', 'rmdir', 'unlink', 'unlinkat',
      'rename', 'renameat', 'renameat2', 'link', 'linkat', 'symlink', 'symlinkat', 'chmod', 'fchmod',
      'fchmodat', 'chown', 'fchown', 'lchown', 'fchownat', 'truncate', 'ftruncate', 'fallocate', 'fsync',
      'fdatasync', 'flock', 'fcntl', 'dup', 'dup2', 'dup3', 'pipe', 'pipe2', 'sendfile',
      'copy_file_range', 'splice', 'tee', 'utime', 'utimes', 'utimensat', 'futimesat', 'umask', 'statfs',
      'fstatfs', 'fadvise64', 'readahead', 'ioctl', 'mknod', 'mknodat', 'getxattr', 'lgetxattr',
      'fgetxattr', 'listxattr', 'llistxattr', 'flistxattr', 'inotify_init', 'inotify_init1',
      'inotify_add_watch', 'inotify_rm_watch')),
    ("processes and threads: a program's own children and threads (clone's namespace flags are refused below)",
     ('fork', 'vfork', 'execve', 'execveat', 'exit', 'exit_group', 'wait4', 'waitid', 'set_tid_address',
      'set_robust_list', 'get_robust_list', 'futex', 'rseq', 'arch_prctl', 'prctl', 'getpid', 'getppid',
      'gettid', 'getpgrp', 'getpgid', 'setpgid', 'getsid', 'setsid', 'sched_yield', 'sched_getaffinity',
      'sched_setaffinity', 'sched_getparam', 'sched_setparam', 'sched_getscheduler', 'sched_setscheduler',
      'sched_get_priority_max', 'sched_get_priority_min', 'sched_rr_get_interval', 'getpriority',
      'setpriority', 'getrlimit', 'setrlimit', 'prlimit64', 'getrusage', 'times', 'pidfd_open',
      'pidfd_send_signal')),
    ('signals: to the program itself and its own processes (init and the warm Python ignore them)',
     ('kill', 'tkill', 'tgkill', 'rt_sigqueueinfo', 'rt_tgsigqueueinfo', 'rt_sigaction', 'rt_sigprocmask',
      'rt_sigreturn', 'rt_sigpending', 'rt_sigtimedwait', 'rt_sigsuspend', 'sigaltstack', 'pause',
      'alarm')),
    ('time and clocks',
     ('nanosleep', 'clock_nanosleep', 'clock_gettime', 'clock_getres', 'gettimeofday', 'time',
      'getitimer', 'setitimer', 'timer_create', 'timer_settime', 'timer_gettime', 'timer_getoverrun',
      'timer_delete', 'timerfd_create', 'timerfd_settime', 'timerfd_gettime')),
    ("waiting for events: the runtimes' event loops (Node, Go, the JVM)",
     ('poll', 'ppoll', 'select', 'pselect6', 'epoll_create', 'epoll_create1', 'epoll_ctl', 'epoll_wait',
      'epoll_pwait', 'epoll_pwait2', 'eventfd', 'eventfd2', 'signalfd', 'signalfd4')),
    ("sockets: local ones only (the network namespace is empty), the warm Python's and compilers' pipes",
     ('socket', 'socketpair', 'connect', 'bind', 'listen', 'accept', 'accept4', 'getsockname',
      'getpeername', 'setsockopt', 'getsockopt', 'sendto', 'recvfrom', 'sendmsg', 'recvmsg', 'sendmmsg',
      'recvmmsg', 'shutdown')),
    ("System V and POSIX IPC: the sandbox's own IPC namespace, emptied between tests",
     ('shmget', 'shmat', 'shmdt', 'shmctl', 'semget', 'semop', 'semtimedop', 'semctl', 'msgget', 'msgsnd',
      'msgrcv', 'msgctl', 'mq_open', 'mq_unlink', 'mq_timedsend', 'mq_timedreceive', 'mq_notify',
      'mq_getsetattr')),
    ("capabilities: read, or given up (a session's supervisor alone holds one; no exec grants any)",
     ('capget', 'capset')),
    ('identity and the machine: read-only questions',
     ('uname', 'sysinfo', 'getuid', 'geteuid', 'getgid', 'getegid', 'getresuid', 'getresgid', 'getgroups',
      'getrandom', 'getcpu', 'restart_syscall')),
)
# fmt: on

# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
#: what is refused on purpose, by reason (everything not in ALLOWED is refused; these are named so that
#: the reasons are written down; tests/sandbox/test_kernel_surface.py tries the usual routes)
REFUSED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("another process's memory or descriptors (a test's own children included)",
     ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "process_madvise", "kcmp")),
    ("new namespaces: a user namespace gives every capability inside it, the door to most kernel bugs "
     "(clone with a namespace flag is refused too; clone3 fails with ENOSYS)",
     ("unshare", "setns", "clone3")),
    ("the kernel's large attack surfaces no program needs",
     ("io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open", "userfaultfd",
      "add_key", "request_key", "keyctl")),
    ("mounts and the root",
     ("mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen", "fsconfig",
      "fsmount", "fspick", "mount_setattr")),
    ("the machine's own state: modules, reboot, clock, swap, accounting, the kernel log",
     ("init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
      "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "swapon", "swapoff", "acct",
      "quotactl", "syslog", "iopl", "ioperm", "vhangup")),
    ("files by handle, around the mount table",
     ("open_by_handle_at", "name_to_handle_at", "fanotify_init")),
)
# fmt: on
#: refused with ENOSYS instead of EPERM: the runtimes probe for them and fall back on ENOSYS
NOT_HERE: tuple[str, ...] = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
#: clone's flags that create a namespace (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET;
#: CLONE_NEWTIME is clone3's and unshare's only: in clone's flags 0x80 is part of the exit signal)
CLONE_NAMESPACES: int = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
#: the audit architecture seccomp reports, per machine: the calls of any other (a 32-bit ``int 0x80``,
#: x32 with its number's bit 30) are refused
AUDIT_ARCH: dict[str, int] = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
#: system call numbers (from the kernel's uapi headers)
_X86_64: dict[str, int] = {
    'read': 0, 'write': 1, 'open': 2, 'close': 3, 'stat': 4, 'fstat': 5, 'lstat': 6, 'poll': 7, 'lseek': 8,
    'mmap': 9, 'mprotect': 10, 'munmap': 11, 'brk': 12, 'rt_sigaction': 13, 'rt_sigprocmask': 14,
    'rt_sigreturn': 15, 'ioctl': 16, 'pread64': 17, 'pwrite64': 18, 'readv': 19, 'writev': 20, 'access': 21,
    'pipe': 22, 'select': 23, 'sched_yield': 24, 'mremap': 25, 'msync': 26, 'mincore': 27, 'madvise': 28,
    'shmget': 29, 'shmat': 30, 'shmctl': 31, 'dup': 32, 'dup2': 33, 'pause': 34, 'nanosleep': 35,
    'getitimer': 36, 'alarm': 37, 'setitimer': 38, 'getpid': 39, 'sendfile': 40, 'socket': 41, 'connect': 42,
    'accept': 43, 'sendto': 44, 'recvfrom': 45, 'sendmsg': 46, 'recvmsg': 47, 'shutdown': 48, 'bind': 49,
    'listen': 50, 'getsockname': 51, 'getpeername': 52, 'socketpair': 53, 'setsockopt': 54, 'getsockopt': 55,
    'clone': 56, 'fork': 57, 'vfork': 58, 'execve': 59, 'exit': 60, 'wait4': 61, 'kill': 62, 'uname': 63,
    'semget': 64, 'semop': 65, 'semctl': 66, 'shmdt': 67, 'msgget': 68, 'msgsnd': 69, 'msgrcv': 70,
    'msgctl': 71, 'fcntl': 72, 'flock': 73, 'fsync': 74, 'fdatasync': 75, 'truncate': 76, 'ftruncate': 77,
    'getdents': 78, 'getcwd': 79, 'chdir': 80, 'fchdir': 81, 'rename': 82, 'mkdir': 83, 'rmdir': 84,
    'creat': 85, 'link': 86, 'unlink': 87, 'symlink': 88, 'readlink': 89, 'chmod': 90, 'fchmod': 91,
    'chown': 92, 'fchown': 93, 'lchown': 94, 'umask': 95, 'gettimeofday': 96, 'getrlimit': 97,
    'getrusage': 98, 'sysinfo': 99, 'times': 100, 'getuid': 102, 'getgid': 104, 'geteuid': 107,
    'getegid': 108, 'setpgid': 109, 'getppid': 110, 'getpgrp': 111, 'setsid': 112, 'getgroups': 115,
    'getresuid': 118, 'getresgid': 120, 'getpgid': 121, 'getsid': 124, 'capget': 125, 'capset': 126,
    'rt_sigpending': 127, 'rt_sigtimedwait': 128, 'rt_sigqueueinfo': 129, 'rt_sigsuspend': 130,
    'sigaltstack': 131, 'utime': 132, 'mknod': 133, 'statfs': 137, 'fstatfs': 138, 'getpriority': 140,
    'setpriority': 141, 'sched_setparam': 142, 'sched_getparam': 143, 'sched_setscheduler': 144,
    'sched_getscheduler': 145, 'sched_get_priority_max': 146, 'sched_get_priority_min': 147,
    'sched_rr_get_interval': 148, 'mlock': 149, 'munlock': 150, 'prctl': 157, 'arch_prctl': 158,
    'setrlimit': 160, 'gettid': 186, 'readahead': 187, 'getxattr': 191, 'lgetxattr': 192, 'fgetxattr': 193,
    'listxattr': 194, 'llistxattr': 195, 'flistxattr': 196, 'tkill': 200, 'time': 201, 'futex': 202,
    'sched_setaffinity': 203, 'sched_getaffinity': 204, 'epoll_create': 213, 'getdents64': 217,
    'set_tid_address': 218, 'restart_syscall': 219, 'semtimedop': 220, 'fadvise64': 221, 'timer_create': 222,
    'timer_settime': 223, 'timer_gettime': 224, 'timer_getoverrun': 225, 'timer_delete': 226,
    'clock_gettime': 228, 'clock_getres': 229, 'clock_nanosleep': 230, 'exit_group': 231, 'epoll_wait': 232,
    'epoll_ctl': 233, 'tgkill': 234, 'utimes': 235, 'mbind': 237, 'set_mempolicy': 238, 'get_mempolicy': 239,
    'mq_open': 240, 'mq_unlink': 241, 'mq_timedsend': 242, 'mq_timedreceive': 243, 'mq_notify': 244,
    'mq_getsetattr': 245, 'waitid': 247, 'inotify_init': 253, 'inotify_add_watch': 254,
    'inotify_rm_watch': 255, 'openat': 257, 'mkdirat': 258, 'mknodat': 259, 'fchownat': 260, 'futimesat': 261,
    'newfstatat': 262, 'unlinkat': 263, 'renameat': 264, 'linkat': 265, 'symlinkat': 266, 'readlinkat': 267,
    'fchmodat': 268, 'faccessat': 269, 'pselect6': 270, 'ppoll': 271, 'set_robust_list': 273,
    'get_robust_list': 274, 'splice': 275, 'tee': 276, 'utimensat': 280, 'epoll_pwait': 281, 'signalfd': 282,
    'timerfd_create': 283, 'eventfd': 284, 'fallocate': 285, 'timerfd_settime': 286, 'timerfd_gettime': 287,
    'accept4': 288, 'signalfd4': 289, 'eventfd2': 290, 'epoll_create1': 291, 'dup3': 292, 'pipe2': 293,
    'inotify_init1': 294, 'preadv': 295, 'pwritev': 296, 'rt_tgsigqueueinfo': 297, 'recvmmsg': 299,
    'prlimit64': 302, 'sendmmsg': 307, 'getcpu': 309, 'renameat2': 316, 'getrandom': 318, 'memfd_create': 319,
    'execveat': 322, 'membarrier': 324, 'copy_file_range': 326, 'preadv2': 327, 'pwritev2': 328,
    'pkey_mprotect': 329, 'pkey_alloc': 330, 'pkey_free': 331, 'statx': 332, 'rseq': 334,
    'pidfd_send_signal': 424, 'io_uring_setup': 425, 'io_uring_enter': 426, 'io_uring_register': 427,
    'pidfd_open': 434, 'clone3': 435, 'close_range': 436, 'faccessat2': 439, 'epoll_pwait2': 441,
}
# fmt: on
# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
_AARCH64: dict[str, int] = {
    'getxattr': 8, 'lgetxattr': 9, 'fgetxattr': 10, 'listxattr': 11, 'llistxattr': 12, 'flistxattr': 13,
    'getcwd': 17, 'eventfd2': 19, 'epoll_create1': 20, 'epoll_ctl': 21, 'epoll_pwait': 22, 'dup': 23,
    'dup3': 24, 'fcntl': 25, 'inotify_init1': 26, 'inotify_add_watch': 27, 'inotify_rm_watch': 28,
    'ioctl': 29, 'flock': 32, 'mknodat': 33, 'mkdirat': 34, 'unlinkat': 35, 'symlinkat': 36, 'linkat': 37,
    'renameat': 38, 'statfs': 43, 'fstatfs': 44, 'truncate': 45, 'ftruncate': 46, 'fallocate': 47,
    'faccessat': 48, 'chdir': 49, 'fchdir': 50, 'fchmod': 52, 'fchmodat': 53, 'fchownat': 54, 'fchown': 55,
    'openat': 56, 'close': 57, 'pipe2': 59, 'getdents64': 61, 'lseek': 62, 'read': 63, 'write': 64,
    'readv': 65, 'writev': 66, 'pread64': 67, 'pwrite64': 68, 'preadv': 69, 'pwritev': 70, 'sendfile': 71,
    'pselect6': 72, 'ppoll': 73, 'signalfd4': 74, 'splice': 76, 'tee': 77, 'readlinkat': 78, 'newfstatat': 79,
    'fstat': 80, 'fsync': 82, 'fdatasync': 83, 'timerfd_create': 85, 'timerfd_settime': 86,
    'timerfd_gettime': 87, 'utimensat': 88, 'capget': 90, 'capset': 91, 'exit': 93, 'exit_group': 94,
    'waitid': 95, 'set_tid_address': 96, 'futex': 98, 'set_robust_list': 99, 'get_robust_list': 100,
    'nanosleep': 101, 'getitimer': 102, 'setitimer': 103, 'timer_create': 107, 'timer_gettime': 108,
    'timer_getoverrun': 109, 'timer_settime': 110, 'timer_delete': 111, 'clock_gettime': 113,
    'clock_getres': 114, 'clock_nanosleep': 115, 'sched_setparam': 118, 'sched_setscheduler': 119,
    'sched_getscheduler': 120, 'sched_getparam': 121, 'sched_setaffinity': 122, 'sched_getaffinity': 123,
    'sched_yield': 124, 'sched_get_priority_max': 125, 'sched_get_priority_min': 126,
    'sched_rr_get_interval': 127, 'restart_syscall': 128, 'kill': 129, 'tkill': 130, 'tgkill': 131,
    'sigaltstack': 132, 'rt_sigsuspend': 133, 'rt_sigaction': 134, 'rt_sigprocmask': 135,
    'rt_sigpending': 136, 'rt_sigtimedwait': 137, 'rt_sigqueueinfo': 138, 'rt_sigreturn': 139,
    'setpriority': 140, 'getpriority': 141, 'getresuid': 148, 'getresgid': 150, 'times': 153, 'setpgid': 154,
    'getpgid': 155, 'getsid': 156, 'setsid': 157, 'getgroups': 158, 'uname': 160, 'getrlimit': 163,
    'setrlimit': 164, 'getrusage': 165, 'umask': 166, 'prctl': 167, 'getcpu': 168, 'gettimeofday': 169,
    'getpid': 172, 'getppid': 173, 'getuid': 174, 'geteuid': 175, 'getgid': 176, 'getegid': 177,
    'gettid': 178, 'sysinfo': 179, 'mq_open': 180, 'mq_unlink': 181, 'mq_timedsend': 182,
    'mq_timedreceive': 183, 'mq_notify': 184, 'mq_getsetattr': 185, 'msgget': 186, 'msgctl': 187,
    'msgrcv': 188, 'msgsnd': 189, 'semget': 190, 'semctl': 191, 'semtimedop': 192, 'semop': 193,
    'shmget': 194, 'shmctl': 195, 'shmat': 196, 'shmdt': 197, 'socket': 198, 'socketpair': 199, 'bind': 200,
    'listen': 201, 'accept': 202, 'connect': 203, 'getsockname': 204, 'getpeername': 205, 'sendto': 206,
    'recvfrom': 207, 'setsockopt': 208, 'getsockopt': 209, 'shutdown': 210, 'sendmsg': 211, 'recvmsg': 212,
    'readahead': 213, 'brk': 214, 'munmap': 215, 'mremap': 216, 'clone': 220, 'execve': 221, 'mmap': 222,
    'fadvise64': 223, 'mprotect': 226, 'msync': 227, 'mlock': 228, 'munlock': 229, 'mincore': 232,
    'madvise': 233, 'mbind': 235, 'get_mempolicy': 236, 'set_mempolicy': 237, 'rt_tgsigqueueinfo': 240,
    'accept4': 242, 'recvmmsg': 243, 'wait4': 260, 'prlimit64': 261, 'sendmmsg': 269, 'renameat2': 276,
    'getrandom': 278, 'memfd_create': 279, 'execveat': 281, 'membarrier': 283, 'copy_file_range': 285,
    'preadv2': 286, 'pwritev2': 287, 'pkey_mprotect': 288, 'pkey_alloc': 289, 'pkey_free': 290, 'statx': 291,
    'rseq': 293, 'pidfd_send_signal': 424, 'io_uring_setup': 425, 'io_uring_enter': 426,
    'io_uring_register': 427, 'pidfd_open': 434, 'clone3': 435, 'close_range': 436, 'faccessat2': 439,
    'epoll_pwait2': 441,
}
# fmt: on

#: the numbers of the calls above, per machine (its own table: aarch64 has none of the older calls, such
#: as open or fork, that glibc there never makes)
NUMBERS: dict[str, dict[str, int]] = {"x86_64": _X86_64, "aarch64": _AARCH64}
