/* The supervisor's way to start a test inside a sandbox, loaded into it with ctypes (supervisor.py).
 *
 * spawn_test starts a compiled test with vfork: the child shares the supervisor's memory only until
 * it execs (the supervisor is suspended meanwhile, and nothing of it is copied), is the first to be
 * OOM-killed, sets the test's rlimits, enters its working directory, makes the test's pipes
 * its 0/1/2 in a session of its own, closes every other descriptor and execs the program (PATH lookup
 * in the test's environment). What posix_spawn of the launcher (launch.c -x) did, without exec'ing the
 * launcher first: that second exec cost as much CPU as the test itself (0.57 ms of 1.24 per A+B test
 * on this machine).
 *
 * set_up_test is the same set-up in a fork of the warm Python (before it runs the program as
 * __main__), in one call instead of a dozen calls of the interpreter, each of which writes to pages
 * the fork shares with its parent; it also gives the test back the signal dispositions the warm
 * Python had before ignore_signals.
 *
 * A failure of the set-up or of the exec is written on the test's stderr and the child exits 127: the
 * test fails as it would have with the launcher ("sandbox launcher: cannot start X: reason").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* write "sandbox launcher: WHAT DETAIL: strerror(err)" on fd 2 and exit 127 (no stdio: async-signal-safe) */
static void fail(const char *what, const char *detail, int err) {
    char message[600];
    int n = snprintf(message, sizeof message, "sandbox launcher: %s%s%s: %s\n", what, detail ? " " : "",
                     detail ? detail : "", strerror(err));
    if (n > 0) {
        ssize_t ignored = write(2, message, (size_t)n < sizeof message ? (size_t)n : sizeof message - 1);
        (void)ignored;
    }
    _exit(127);
}

/* the test's streams, session, limits, OOM score and directory; -errno and the step that failed */
static int set_up(const int fds[3], int n_limits, const int *resources, const long long *soft,
                  const long long *hard, const char *dir, const char **failed) {
    if (setsid() < 0) { *failed = "cannot start a session"; return -errno; }
    for (int target = 0; target < 3; target++) {
        if (fds[target] == target) {  /* dup2 onto itself keeps close-on-exec */
            if (fcntl(target, F_SETFD, 0) != 0) { *failed = "cannot pass a pipe"; return -errno; }
        } else if (dup2(fds[target], target) != target) {
            *failed = "cannot pass a pipe";
            return -errno;
        }
    }
    for (int r = 0; r < n_limits; r++) {
        struct rlimit limit = {soft[r] < 0 ? RLIM_INFINITY : (rlim_t)soft[r], hard[r] < 0 ? RLIM_INFINITY : (rlim_t)hard[r]};
        if (setrlimit(resources[r], &limit) != 0) { *failed = "cannot set an rlimit"; return -errno; }
    }
    if (dir != NULL && chdir(dir) != 0) { *failed = "cannot enter"; return -errno; }
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
        struct rlimit files;
        rlim_t top = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY ? files.rlim_cur : 65536;
        for (rlim_t fd = 3; fd < top; fd++)
            close((int)fd);
    }
    return 0;
}

/* The warm Python's signal dispositions before ignore_signals, given back to each test it forks. */
static struct sigaction saved_actions[NSIG];
static char saved[NSIG];

/* In the warm Python, once: ignore every signal a test can send it (all but SIGKILL and SIGSTOP, which
 * no process can ignore, and SIGCHLD, whose wait it needs), so that none kills or stops it and none is
 * queued for it either (the kernel drops an ignored signal when it is sent; a blocked one would wait,
 * counted against the uid's pending signals, which the next test shares). The number ignored. */
int ignore_signals(void) {
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    int n = 0;
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP || sig == SIGCHLD) continue;
        /* glibc's own signals (the first real-time ones) fail with EINVAL: left as they are */
        saved[sig] = sigaction(sig, &ignore, &saved_actions[sig]) == 0 && saved_actions[sig].sa_handler != SIG_IGN;
        n += saved[sig];
    }
    return n;
}

/* In a fork of the warm Python: its signals back (see ignore_signals), set_up, the process dumpable
 * again (as an exec makes a program: only then is /proc/self its own, so only then can it write its
 * OOM score), and the first to be OOM-killed; 0, or -errno with the failed step on the test's stderr
 * (the caller exits). */
int set_up_test(const int fds[3], int n_limits, const int *resources, const long long *soft,
                const long long *hard, const char *dir) {
    for (int sig = 1; sig < NSIG; sig++)  /* the program's signals, as before ignore_signals */
        if (saved[sig]) sigaction(sig, &saved_actions[sig], NULL);
    const char *failed = NULL;
    int rc = set_up(fds, n_limits, resources, soft, hard, dir, &failed);
    if (rc != 0) {
        char message[300];
        int n = snprintf(message, sizeof message, "sandbox launcher: %s: %s\n", failed, strerror(-rc));
        if (n > 0) {
            ssize_t ignored = write(2, message, (size_t)n < sizeof message ? (size_t)n : sizeof message - 1);
            (void)ignored;
        }
        return rc;
    }
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom >= 0) {  /* best effort, as the launcher's: a kernel without it still runs the test */
        ssize_t ignored = write(oom, "1000", 4);
        (void)ignored;
        close(oom);
    }
    return 0;
}

/* execvpe with the PATH of envp (not of this process), as execvp in the launcher did with its own */
static void exec_in_path(const char *file, char *const argv[], char *const envp[]) {
    if (strchr(file, '/') != NULL) {
        execve(file, argv, envp);
        fail("cannot start", file, errno);
    }
    const char *path = "/usr/local/bin:/usr/bin:/bin";
    for (char *const *e = envp; *e != NULL; e++)
        if (strncmp(*e, "PATH=", 5) == 0) { path = *e + 5; break; }
    int last = ENOENT;
    char candidate[PATH_MAX];
    while (1) {
        const char *end = strchrnul(path, ':');
        size_t len = (size_t)(end - path);
        int n = len == 0 ? snprintf(candidate, sizeof candidate, "%s", file)
                         : snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, path, file);
        if (n > 0 && (size_t)n < sizeof candidate) {
            execve(candidate, argv, envp);
            if (errno != ENOENT && errno != ENOTDIR) last = errno;
            if (errno == EACCES) last = EACCES;
        }
        if (*end == '\0') break;
        path = end + 1;
    }
    fail("cannot start", file, last);
}

/* Start a compiled test (see above); its pid, or -errno when vfork itself failed. ``caught``: the
 * signals this process has handlers for (reset to the default in the child before anything can be
 * delivered to it, so that no handler of the caller runs in its memory).
 *
 * The vfork child shares the supervisor's memory, which is not dumpable, so /proc/self is not its
 * own and it cannot write its OOM score: the supervisor's own score (oom_fd, its
 * /proc/self/oom_score_adj, opened before it made itself non-dumpable) is 1000 while the child is
 * created, which inherits it, and ``restore`` again afterwards (no test runs meanwhile). */
pid_t spawn_test(const char *file, char *const argv[], char *const envp[], const int fds[3], int n_limits,
                 const int *resources, const long long *soft, const long long *hard, const char *dir,
                 int oom_fd, const char *restore, const int *caught, int n_caught) {
    sigset_t all, old;
    /* volatile: the vfork child runs on this stack, and what sits in registers may not survive it */
    volatile int raised = oom_fd >= 0 && pwrite(oom_fd, "1000", 4, 0) == 4;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* no handler of the supervisor's runs in the child */
    pid_t pid = vfork();
    if (pid == 0) {
        /* the signal dispositions are the child's own (no CLONE_SIGHAND): the caught ones (the
         * caller's list: its interpreter's handlers) back to default, ignored ones stay ignored as
         * posix_spawn leaves them */
        for (int c = 0; c < n_caught; c++) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_handler = SIG_DFL;
            sigaction(caught[c], &action, NULL);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        const char *failed = NULL;
        int rc = set_up(fds, n_limits, resources, soft, hard, dir, &failed);
        if (rc != 0) fail(failed, NULL, -rc);
        exec_in_path(file, argv, envp);
        _exit(127);
    }
    int err = errno;
    if (raised) {
        ssize_t ignored = pwrite(oom_fd, restore, strlen(restore), 0);
        (void)ignored;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return pid < 0 ? -err : pid;
}
