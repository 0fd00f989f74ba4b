/* hk_gpulock.h: the GPU lock's protocol, shared by the server (server/measure/measure.c),
 * the benchmark programs (hk_harness.h) and the tests, so all of them run the same code.
 * Header-only, plain C (C11 and C++), POSIX only.
 *
 * Two files per GPU: the lock (measure_gpu_lock_path) and its turnstile (the same path with
 * HK_GPULOCK_TURN_SUFFIX). Programs that run kernels but time nothing hold the lock shared
 * (readers); a program's timed loop holds it exclusively (a writer). flock(2) locks belong
 * to an open file description, so a server opens the files anew for each program, takes
 * the lock shared and hands both descriptors to the program (HK_GPULOCK_ENV), which turns
 * its shared lock into the exclusive one around its timed loop and back.
 *
 * flock's conversion is not atomic (the old lock is dropped first) and gives no writer
 * preference, hence the turnstile: every acquisition passes through it (held exclusively
 * only while waiting for the lock itself), and a writer keeps it while it waits, so readers
 * that come after a waiting writer queue behind it and a stream of readers cannot starve
 * it. A writer first drops its shared lock and only then waits for the turnstile: holding
 * the lock while waiting there would deadlock two writers (one holds the turnstile and
 * waits for the others' shared locks to go, the other holds its shared lock and waits for
 * the turnstile). Nobody waits for the turnstile while holding the lock, and a holder of
 * the lock never needs the turnstile to let go of it, so there is no cycle. */
#ifndef HK_GPULOCK_H
#define HK_GPULOCK_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* "LOCK,TURN[,NOTE]": the descriptors a server hands to the program it starts. NOTE, when
 * present, is a socket on which the program says when it starts ('w') and stops ('g')
 * waiting for the exclusive lock, so that the server does not count that wait against the
 * program's time limit. */
#define HK_GPULOCK_ENV "HK_GPU_LOCK_FD"
#define HK_GPULOCK_TURN_SUFFIX ".turn"

/* Descriptors of one holder; -1 where none. Owned by whoever opened them. */
typedef struct hk_gpulock {
    int lock_fd;
    int turn_fd;
    int note_fd;
} hk_gpulock;

/* flock(2), retried when a signal interrupts a blocking wait. 0 or -1 (errno). */
static inline int hk_gpulock_flock(int fd, int op)
{
    int r;
    while ((r = flock(fd, op)) != 0 && errno == EINTR && !(op & LOCK_NB)) {
    }
    return r;
}

/* One non-blocking step of taking the lock with op (LOCK_SH for a reader, LOCK_EX for a
 * whole-process writer) through the turnstile, for a caller that polls so that it can stop
 * and count its wait. *turn_held (0 at the first call) carries the turnstile between
 * steps. 1: the lock is held (turnstile released); 0: not yet, call again or give up with
 * hk_gpulock_abandon; -1: an error, nothing held. */
static inline int hk_gpulock_try(const hk_gpulock *l, int op, int *turn_held)
{
    if (!*turn_held) {
        if (flock(l->turn_fd, LOCK_EX | LOCK_NB) != 0)
            return errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        *turn_held = 1;
    }
    if (flock(l->lock_fd, op | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        flock(l->turn_fd, LOCK_UN);
        *turn_held = 0;
        return -1;
    }
    flock(l->turn_fd, LOCK_UN);
    *turn_held = 0;
    return 1;
}

/* Gives up an unfinished hk_gpulock_try (releases the turnstile if it was held). */
static inline void hk_gpulock_abandon(const hk_gpulock *l, int *turn_held)
{
    if (*turn_held)
        flock(l->turn_fd, LOCK_UN);
    *turn_held = 0;
}

/* A blocking reader's acquisition (tests; the server polls with hk_gpulock_try). 0 or -1
 * (nothing held). */
static inline int hk_gpulock_shared(const hk_gpulock *l)
{
    if (hk_gpulock_flock(l->turn_fd, LOCK_EX) != 0)
        return -1;
    int r = hk_gpulock_flock(l->lock_fd, LOCK_SH);
    flock(l->turn_fd, LOCK_UN);
    return r;
}

/* Says c ('w': waiting, 'g': done waiting) on the note socket, if any. Never raises
 * SIGPIPE, never blocks; a note that cannot be sent is dropped. */
static inline void hk_gpulock_note(const hk_gpulock *l, char c)
{
    if (l->note_fd >= 0)
        (void)send(l->note_fd, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Turns the shared lock this holder has into the exclusive one, queued as a writer (see
 * the top of this file). Blocks until it has it. 0 or -1: an error, after which nothing is
 * held. */
static inline int hk_gpulock_upgrade(const hk_gpulock *l)
{
    int r = -1;
    hk_gpulock_note(l, 'w');
    if (hk_gpulock_flock(l->lock_fd, LOCK_UN) != 0 || hk_gpulock_flock(l->turn_fd, LOCK_EX) != 0)
        goto out;
    r = hk_gpulock_flock(l->lock_fd, LOCK_EX);
    flock(l->turn_fd, LOCK_UN);
out:
    hk_gpulock_note(l, 'g');
    return r;
}

/* Turns the exclusive lock back into a shared one. It skips the turnstile: nobody holds
 * the lock while it is exclusive, so the shared lock is granted at once (a non-atomic
 * conversion may let a waiting writer in first; then this waits for it). 0 or -1. */
static inline int hk_gpulock_downgrade(const hk_gpulock *l)
{
    return hk_gpulock_flock(l->lock_fd, LOCK_SH);
}

/* Whether fd is an open descriptor of a regular file (the lock and the turnstile). */
static inline int hk_gpulock_fd_is_file(int fd)
{
    struct stat st;
    return fd > 2 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* Parses a non-negative descriptor number of at most 9 digits ending at a ',' or the end;
 * advances *s past it. -1 when malformed. */
static inline int hk_gpulock_parse_fd(const char **s)
{
    const char *p = *s;
    int v = 0, n = 0;
    while (*p >= '0' && *p <= '9' && n < 9) {
        v = v * 10 + (*p++ - '0');
        n++;
    }
    if (!n || (*p && *p != ','))
        return -1;
    *s = *p ? p + 1 : p;
    return v;
}

/* The lock a server handed to this program (HK_GPULOCK_ENV). 1 when it names an open
 * lock and turnstile (and, optionally, a note socket); 0 otherwise (unset, malformed,
 * closed or wrong descriptors: the program then times without the lock, as a program run
 * by hand does). *l is all -1 when 0. */
static inline int hk_gpulock_from_env(hk_gpulock *l)
{
    l->lock_fd = l->turn_fd = l->note_fd = -1;
    const char *s = getenv(HK_GPULOCK_ENV);
    if (!s || !*s)
        return 0;
    int lock = hk_gpulock_parse_fd(&s);
    int turn = lock >= 0 ? hk_gpulock_parse_fd(&s) : -1;
    int note = turn >= 0 && *s ? hk_gpulock_parse_fd(&s) : -1;
    if (*s || !hk_gpulock_fd_is_file(lock) || !hk_gpulock_fd_is_file(turn) || lock == turn)
        return 0;
    l->lock_fd = lock;
    l->turn_fd = turn;
    struct stat st;
    if (note > 2 && note != lock && note != turn && fstat(note, &st) == 0 && S_ISSOCK(st.st_mode))
        l->note_fd = note;
    return 1;
}

#endif
