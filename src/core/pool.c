/*
 * pool.c - a persistent pool of worker threads (the CPU and sparse engines).
 *
 * The threads are created once with the universe.  wl_pool_run() publishes a job
 * (function + argument) under a new epoch number, runs its own share as thread 0, and
 * waits until every worker has finished: the return of wl_pool_run is the one barrier per
 * job.
 *
 * Jobs come in two sizes: a k-generation pass over a large grid (milliseconds), and one
 * generation of the sparse engine's active tiles (microseconds, thousands of times a
 * second).  A mutex/condition-variable handshake costs some tens of microseconds per job
 * (a sleeping thread must be woken by the kernel), which would eat the small jobs whole.
 * So both sides spin first: a worker that finished a job watches the epoch for SPIN_NS
 * before it goes to sleep on the condition variable, and the caller watches the count of
 * unfinished workers for as long before it sleeps too.  Back-to-back small jobs then cost
 * a few hundred nanoseconds of cache-line traffic; a pool left idle sleeps after
 * SPIN_SECONDS and costs nothing.  Sleeping is announced under the mutex (sleepers, waiting)
 * before the re-check, so no wake-up is lost.
 *
 * A pool may be told to use fewer of its threads for a while (wl_pool_set_active: the
 * "auto" engine's race shares the cores with HashLife): the workers beyond that number take no
 * part in jobs and sleep on a condition variable of their own, without spinning, until
 * they are needed again, so that they leave their cores alone.
 *
 * Jobs whose parts any thread may take (wl_pool_run_any: the tile driver's passes, which
 * deal their tiles from a common counter) do not wait for workers that are late: each
 * worker takes a seat in such a job before it runs it, and the calling thread, once it has
 * run out of parts, closes the seats still open and waits only for the workers that took
 * one.  A worker that is slow to wake, or whose core another program holds, then costs
 * the job nothing; before, each pass waited for it (on the dev VM's two vCPUs, with
 * another process busy on one, a small Generations pattern's 140 passes took 20-30 ms
 * instead of 3-4).  The seats word carries the job's number, so a worker that wakes after
 * its job closed cannot take a seat in the next one by mistake.
 *
 * The workers start with the first job, not with the pool: most runs of small patterns
 * never give the pool a job, and starting and joining fifteen threads cost each command
 * about 1.9 ms on the GPU machine's sixteen cores (a run to generation 0: 4.3 ms against
 * 2.4 ms on one thread).  A worker that cannot be started leaves its share to the calling
 * thread, which runs those shares one after another (the jobs are shares of independent
 * work, dealt out by thread number or taken from a common counter).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define SPIN_SECONDS 2e-4 /* how long a thread spins before it sleeps */

struct wl_pool {
    int n;
    int running;  /* workers 1 .. running - 1 have threads (0: none started yet) */
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t wake, done, park;
    unsigned long epoch; /* atomic: the job's number << 16 | its number of threads */
    int active;          /* threads that take part in jobs (wl_pool_set_active: atomic,
                            written under lock between jobs) */
    unsigned long park_epoch; /* the epoch when `active` last grew (under lock) */
    int pending;         /* atomic: workers still running the current job */
    uint64_t seats;      /* atomic: the job's number << 17 | 1 << 16 for wl_pool_run_any's
                            jobs | the seats still open in it (see the top) */
    int sleepers;        /* workers asleep on `wake` (under lock) */
    int waiting;         /* the caller is asleep on `done` (under lock) */
    int quit;
    long lag_ns;         /* tests (WL_POOL_LAG=ns): workers pause that long between seeing a
                            job and looking at its seats, as a descheduled worker would */
    wl_task_fn fn;
    void *arg;
};

typedef struct worker_arg {
    wl_pool *p;
    int tid;
} worker_arg;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Spins until *v differs from `old` or SPIN_SECONDS pass; returns whether it changed. */
static int spin_ulong(const unsigned long *v, unsigned long old) {
    double t0 = 0;
    for (unsigned i = 0;; i++) {
        if (__atomic_load_n(v, __ATOMIC_ACQUIRE) != old) return 1;
        cpu_relax();
        if ((i & 255) == 255) {
            double t = wl_clock();
            if (t0 == 0) t0 = t;
            else if (t - t0 > SPIN_SECONDS) return 0;
        }
    }
}

/* Spins until *v is zero or SPIN_SECONDS pass; returns whether it is. */
static int spin_zero(const int *v) {
    double t0 = 0;
    for (unsigned i = 0;; i++) {
        if (__atomic_load_n(v, __ATOMIC_ACQUIRE) == 0) return 1;
        cpu_relax();
        if ((i & 255) == 255) {
            double t = wl_clock();
            if (t0 == 0) t0 = t;
            else if (t - t0 > SPIN_SECONDS) return 0;
        }
    }
}

static void *worker(void *v) {
    worker_arg *wa = v;
    wl_pool *p = wa->p;
    int tid = wa->tid;
    free(wa);
    unsigned long seen = 0;
    for (;;) {
        if (tid >= __atomic_load_n(&p->active, __ATOMIC_ACQUIRE)) { /* parked (see the top) */
            pthread_mutex_lock(&p->lock);
            while (!p->quit && tid >= p->active) pthread_cond_wait(&p->park, &p->lock);
            seen = p->park_epoch; /* (jobs from then on include it) */
            pthread_mutex_unlock(&p->lock);
            if (__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE)) break;
            continue;
        }
        if (!spin_ulong(&p->epoch, seen)) {
            pthread_mutex_lock(&p->lock);
            p->sleepers++;
            while (!p->quit && __atomic_load_n(&p->epoch, __ATOMIC_ACQUIRE) == seen)
                pthread_cond_wait(&p->wake, &p->lock);
            p->sleepers--;
            pthread_mutex_unlock(&p->lock);
        }
        if (__atomic_load_n(&p->quit, __ATOMIC_ACQUIRE)) break;
        seen = __atomic_load_n(&p->epoch, __ATOMIC_ACQUIRE);
        const int n = (int)(seen & 0xFFFF);
        if (tid >= n) continue; /* a job without it (it parks at the top) */
        if (p->lag_ns) nanosleep(&(struct timespec){0, p->lag_ns}, NULL);
        uint64_t s = __atomic_load_n(&p->seats, __ATOMIC_ACQUIRE);
        if (s >> 17 != seen >> 16) continue; /* a later job's: an "any" job that closed */
        if (s >> 16 & 1) { /* an "any" job: a seat, or none left (closed) */
            while ((s & 0xFFFF) && !__atomic_compare_exchange_n(&p->seats, &s, s - 1, 0,
                                                                __ATOMIC_ACQ_REL,
                                                                __ATOMIC_ACQUIRE))
                if (s >> 17 != seen >> 16) break;
            if (s >> 17 != seen >> 16 || !(s & 0xFFFF)) continue;
        }
        p->fn(p->arg, tid, n);
        if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_ACQ_REL) == 0) {
            pthread_mutex_lock(&p->lock);
            if (p->waiting) pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

wl_pool *wl_pool_create(int n) {
    if (n < 1) n = 1;
    if (n > 0xFFFF) n = 0xFFFF; /* (the epoch's low bits hold a job's threads) */
    wl_pool *p = wl_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = p->active = n;
    const char *lag = getenv("WL_POOL_LAG");
    p->lag_ns = lag ? atol(lag) % 1000000000 : 0;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_cond_init(&p->park, NULL);
    p->threads = wl_calloc((size_t)n, sizeof *p->threads);
    if (!p->threads) {
        wl_pool_destroy(p);
        return NULL;
    }
    return p;
}

/* Starts the workers (the first job); those that cannot be started are left to the
 * calling thread. */
static void start_workers(wl_pool *p) {
    p->running = 1;
    const char *lim = getenv("WL_POOL_START"); /* tests: start at most n - 1 workers */
    const int want = lim ? atoi(lim) : 0, most = want >= 1 && want < p->n ? want : p->n;
    for (int i = 1; i < most; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (!wa) break;
        wa->p = p;
        wa->tid = i;
        if (pthread_create(&p->threads[i], NULL, worker, wa) != 0) {
            free(wa);
            break;
        }
        p->running = i + 1;
    }
}

int wl_pool_size(const wl_pool *p) { return p->n; }

int wl_pool_active(const wl_pool *p) { return __atomic_load_n(&p->active, __ATOMIC_RELAXED); }

void wl_pool_set_active(wl_pool *p, int n) {
    if (n < 1 || n > p->n) n = p->n;
    pthread_mutex_lock(&p->lock);
    if (n > p->active) {
        p->park_epoch = __atomic_load_n(&p->epoch, __ATOMIC_ACQUIRE);
        pthread_cond_broadcast(&p->park);
    }
    __atomic_store_n(&p->active, n, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&p->lock);
}

static void run_job(wl_pool *p, wl_task_fn fn, void *arg, int any) {
    const int n = wl_pool_active(p);
    if (n == 1) {
        fn(arg, 0, 1);
        return;
    }
    if (!p->running) start_workers(p);
    p->fn = fn;
    p->arg = arg;
    const int workers = (p->running < n ? p->running : n) - 1;
    __atomic_store_n(&p->pending, workers, __ATOMIC_RELAXED);
    const unsigned long e = __atomic_load_n(&p->epoch, __ATOMIC_RELAXED);
    const unsigned long epoch = ((e >> 16) + 1) << 16 | (unsigned long)n;
    __atomic_store_n(&p->seats,
                     (uint64_t)(epoch >> 16) << 17 | (uint64_t)(any != 0) << 16 | (uint64_t)workers,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&p->epoch, epoch, __ATOMIC_RELEASE);
    pthread_mutex_lock(&p->lock);
    if (p->sleepers) pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    fn(arg, 0, n);
    for (int i = p->running; i < n; i++) fn(arg, i, n); /* (workers that did not start) */
    if (any) { /* closed: the workers without a seat take no part */
        uint64_t s = __atomic_load_n(&p->seats, __ATOMIC_ACQUIRE);
        while ((s & 0xFFFF) && !__atomic_compare_exchange_n(&p->seats, &s, s & ~(uint64_t)0xFFFF, 0,
                                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        }
        if (s & 0xFFFF) __atomic_sub_fetch(&p->pending, (int)(s & 0xFFFF), __ATOMIC_ACQ_REL);
    }
    if (spin_zero(&p->pending)) return;
    pthread_mutex_lock(&p->lock);
    p->waiting = 1;
    while (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE)) pthread_cond_wait(&p->done, &p->lock);
    p->waiting = 0;
    pthread_mutex_unlock(&p->lock);
}

void wl_pool_run(wl_pool *p, wl_task_fn fn, void *arg) { run_job(p, fn, arg, 0); }

void wl_pool_run_any(wl_pool *p, wl_task_fn fn, void *arg) { run_job(p, fn, arg, 1); }

void wl_pool_destroy(wl_pool *p) {
    if (!p) return;
    if (p->threads) {
        pthread_mutex_lock(&p->lock);
        __atomic_store_n(&p->quit, 1, __ATOMIC_RELEASE);
        __atomic_add_fetch(&p->epoch, (unsigned long)1 << 16, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&p->wake);
        pthread_cond_broadcast(&p->park);
        pthread_mutex_unlock(&p->lock);
        for (int i = 1; i < p->running; i++) pthread_join(p->threads[i], NULL);
        free(p->threads);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->park);
    free(p);
}
