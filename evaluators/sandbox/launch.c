/* The sandbox's launcher: the set-up between starting a process and ``exec bwrap``, done here instead
 * of in a forked copy of the scoring process (subprocess's preexec_fn). The scoring process starts
 * this program with vfork+exec (subprocess.Popen without preexec_fn), which costs the same whatever
 * its size; a fork copies its page tables (180 ms at 2 GB) and stalls its other threads meanwhile.
 *
 * Built by evaluators.sandbox.linux (Launcher) with the host's C compiler, once per source digest.
 *
 *   launch [-e FD] [-c CGROUP_PROCS]... [-n NETNS_FD] [-m MNTNS_FD] [-t TARGET:BYTES]...
 *          [-y TARGET:OPTIONS]... [-r RESOURCE:SOFT:HARD]... [-u UID -k LAST_CAP] [-o OOM_SCORE_ADJ]
 *          [-d DIR] [-x] -- PROGRAM ARG...
 *
 * Inside a sandbox, where its spawn library (spawn.c) is missing, the supervisor (supervisor.py) starts each
 * compiled test the same way
 * (posix_spawn of its copy of this program, which sets the test's rlimits, makes it the first to be
 * OOM-killed (-o), enters its working directory (-d), closes every descriptor above 2 (-x) and execs
 * it), instead of forking itself; PROGRAM is looked up in PATH as execvp does.
 *
 * In this order (what linux.make_preexec did in the forked child): join the run's cgroups (our pid
 * into each cgroup.procs), the pooled empty network namespace and the staging mount namespace while
 * still root, then (-t, -y) a mount namespace of the run's own, copied from the staging one, with
 * the run's tmpfs mounts (-t: /tmp and /dev/shm, owned by root, mode 1777, BYTES large) and overlays
 * (-y: a Go compile's cache) mounted by root on staged mount points, so that bwrap binds them from
 * there instead of mounting them inside the run's user namespace, where a tmpfs is owned by the run's
 * host uid and the mount table prints it (``uid=<host uid>``); a umask that leaves compiled programs readable by the uid that runs them, the
 * rlimits, then (-u) drop the capability bounding set, the groups, the gid and the uid, clear the
 * ambient capabilities and (-u) every remaining capability set, and exec PROGRAM. The namespace
 * descriptors are closed before the exec. A failure is written to the error descriptor (-e, made
 * close-on-exec here, so that it reaches EOF at the exec; stderr without -e) and the launcher exits
 * 127: the scoring process raises it as an OSError, as it did for a failed preexec_fn; a test's
 * failure to start is on its stderr, a runtime error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_CGROUPS 8
#define MAX_RLIMITS 16
#define MAX_MOUNTS 8

static int err_fd = 2;

static void fail(const char *what, const char *detail) {
    char message[512];
    int saved = errno;
    int n = snprintf(message, sizeof message, "sandbox launcher: %s%s%s: %s", what, detail ? " " : "",
                     detail ? detail : "", strerror(saved));
    if (n > 0) {
        ssize_t ignored = write(err_fd, message, (size_t)n < sizeof message ? (size_t)n : sizeof message - 1);
        (void)ignored;
    }
    _exit(127);
}

static long long number(const char *text, const char *what) {
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0') {
        errno = EINVAL;
        fail(what, text);
    }
    return value;
}

/* -t TARGET:BYTES, a tmpfs owned by root (mode 1777: the run's uid writes there); -y TARGET:OPTIONS,
 * an overlay (lowerdir=...,upperdir=...,workdir=...) */
static void mount_one(char kind, const char *spec) {
    char target[512];
    const char *colon = strchr(spec, ':');
    if (colon == NULL || (size_t)(colon - spec) >= sizeof target) { errno = EINVAL; fail("bad mount", spec); }
    memcpy(target, spec, (size_t)(colon - spec));
    target[colon - spec] = '\0';
    if (kind == 't') {
        char options[64];
        snprintf(options, sizeof options, "mode=1777,size=%lld", number(colon + 1, "-t"));
        if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) fail("cannot mount a tmpfs on", target);
    } else if (mount("overlay", target, "overlay", MS_NOSUID | MS_NODEV, colon + 1) != 0) {
        fail("cannot mount an overlay on", target);
    }
}

int main(int argc, char **argv) {
    const char *cgroups[MAX_CGROUPS];
    int n_cgroups = 0, n_rlimits = 0, netns = -1, mntns = -1, last_cap = -1, i;
    long long uid = -1;
    const char *oom_score_adj = NULL, *dir = NULL;
    int close_others = 0;
    struct { int resource; rlim_t soft, hard; } rlimits[MAX_RLIMITS];
    struct { char kind; const char *spec; } mounts[MAX_MOUNTS];
    int n_mounts = 0;
    for (i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(flag, "-x") == 0) {
            close_others = 1;
            continue;
        }
        if (i + 1 >= argc || flag[0] != '-' || flag[1] == '\0' || flag[2] != '\0') {
            errno = EINVAL;
            fail("bad argument", flag);
        }
        const char *value = argv[++i];
        switch (flag[1]) {
        case 'e': err_fd = (int)number(value, "-e"); break;
        case 'c':
            if (n_cgroups == MAX_CGROUPS) { errno = E2BIG; fail("too many cgroups", value); }
            cgroups[n_cgroups++] = value;
            break;
        case 'n': netns = (int)number(value, "-n"); break;
        case 'm': mntns = (int)number(value, "-m"); break;
        case 'u': uid = number(value, "-u"); break;
        case 'k': last_cap = (int)number(value, "-k"); break;
        case 'o': oom_score_adj = value; break;
        case 'd': dir = value; break;
        case 't':
        case 'y':
            if (n_mounts == MAX_MOUNTS) { errno = E2BIG; fail("too many mounts", value); }
            mounts[n_mounts].kind = flag[1];
            mounts[n_mounts++].spec = value;
            break;
        case 'r': {
            char copy[96], *soft, *hard;
            if (n_rlimits == MAX_RLIMITS || strlen(value) >= sizeof copy) { errno = E2BIG; fail("bad rlimit", value); }
            strcpy(copy, value);
            soft = strchr(copy, ':');
            hard = soft ? strchr(soft + 1, ':') : NULL;
            if (!soft || !hard) { errno = EINVAL; fail("bad rlimit", value); }
            *soft++ = '\0';
            *hard++ = '\0';
            long long s = number(soft, "rlimit"), h = number(hard, "rlimit");
            rlimits[n_rlimits].resource = (int)number(copy, "rlimit");
            rlimits[n_rlimits].soft = s < 0 ? RLIM_INFINITY : (rlim_t)s;
            rlimits[n_rlimits].hard = h < 0 ? RLIM_INFINITY : (rlim_t)h;
            n_rlimits++;
            break;
        }
        default: errno = EINVAL; fail("unknown flag", flag);
        }
    }
    if (i >= argc) {
        errno = EINVAL;
        fail("no program to start", NULL);
    }
    if (err_fd != 2 && fcntl(err_fd, F_SETFD, FD_CLOEXEC) != 0) fail("error descriptor", NULL);

    char pid[32];
    int pid_len = snprintf(pid, sizeof pid, "%d", (int)getpid());
    for (int c = 0; c < n_cgroups; c++) {
        int fd = open(cgroups[c], O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, pid, (size_t)pid_len) != pid_len) fail("cannot join the cgroup", cgroups[c]);
        close(fd);
    }
    if (netns >= 0) {
        if (setns(netns, CLONE_NEWNET) != 0) fail("cannot join the network namespace", NULL);
        close(netns);
    }
    if (mntns >= 0) {
        if (setns(mntns, CLONE_NEWNS) != 0) fail("cannot join the staging mount namespace", NULL);
        close(mntns);
    }
    if (n_mounts > 0 && unshare(CLONE_NEWNS) != 0) fail("cannot make the run's mount namespace", NULL);
    for (int m = 0; m < n_mounts; m++) mount_one(mounts[m].kind, mounts[m].spec);
    umask(022);
    for (int r = 0; r < n_rlimits; r++) {
        struct rlimit limit = {rlimits[r].soft, rlimits[r].hard};
        if (setrlimit(rlimits[r].resource, &limit) != 0) fail("cannot set an rlimit", NULL);
    }
    if (uid >= 0) {
        if (last_cap < 0) { errno = EINVAL; fail("-u needs -k", NULL); }
        for (int cap = 0; cap <= last_cap; cap++)
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) fail("cannot drop a bounding capability", NULL);
        if (setgroups(0, NULL) != 0) fail("cannot clear the groups", NULL);
        if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0) fail("cannot set the gid", NULL);
        if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) fail("cannot set the uid", NULL);
    }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (uid >= 0) {
        struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct none[2];
        memset(none, 0, sizeof none);
        if (syscall(SYS_capset, &header, none) != 0) fail("cannot clear the capabilities", NULL);
    }
    if (oom_score_adj != NULL) {  /* best effort, as before: a kernel without it still runs the test */
        int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t ignored = write(fd, oom_score_adj, strlen(oom_score_adj));
            (void)ignored;
            close(fd);
        }
    }
    if (dir != NULL && chdir(dir) != 0) fail("cannot enter", dir);
    if (close_others) {  /* all but the error descriptor (close-on-exec already) */
        unsigned keep = err_fd > 2 ? (unsigned)err_fd : ~0U;
        if ((keep > 3 && syscall(SYS_close_range, 3U, keep - 1, 0U) != 0) ||
            (keep != ~0U && syscall(SYS_close_range, keep + 1, ~0U, 0U) != 0)) {
            struct rlimit files;
            rlim_t top = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY ? files.rlim_cur : 65536;
            for (rlim_t fd = 3; fd < top; fd++)
                if (fd != (rlim_t)err_fd) close((int)fd);
        }
    }
    execvp(argv[i], &argv[i]);
    fail("cannot start", argv[i]);
    return 127;
}
