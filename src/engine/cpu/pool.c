/*
 * pool.c - a persistent pool of worker threads for the CPU engine.
 *
 * The threads are created once with the universe and sleep on a condition variable
 * between jobs.  cpu_pool_run() publishes a job (function + argument) under a new epoch
 * number, runs its own share as thread 0, and waits until every worker has finished: the
 * return of cpu_pool_run is the one barrier per job.  Jobs are coarse (a generation or a
 * k-generation pass over many tiles), so a mutex/condvar handshake (microseconds) is
 * negligible next to the work.
 */
#include "cpu_internal.h"

#include <pthread.h>
#include <stdlib.h>

struct cpu_pool {
    int n;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned long epoch;
    int pending; /* workers still running the current job */
    int quit;
    cpu_task_fn fn;
    void *arg;
};

typedef struct worker_arg {
    cpu_pool *p;
    int tid;
} worker_arg;

static void *worker(void *v) {
    worker_arg *wa = v;
    cpu_pool *p = wa->p;
    int tid = wa->tid;
    free(wa);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->epoch == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit) break;
        seen = p->epoch;
        cpu_task_fn fn = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->lock);
        fn(arg, tid, p->n);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

cpu_pool *cpu_pool_create(int n) {
    if (n < 1) n = 1;
    cpu_pool *p = wl_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = n;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->threads = wl_calloc((size_t)n, sizeof *p->threads);
    if (!p->threads) {
        cpu_pool_destroy(p);
        return NULL;
    }
    for (int i = 1; i < n; i++) {
        worker_arg *wa = wl_malloc(sizeof *wa);
        if (!wa) {
            p->n = i;
            cpu_pool_destroy(p);
            return NULL;
        }
        wa->p = p;
        wa->tid = i;
        if (pthread_create(&p->threads[i], NULL, worker, wa) != 0) {
            free(wa);
            p->n = i;
            cpu_pool_destroy(p);
            wl_error(WL_ERR_NOMEM, "cpu engine: cannot start worker thread %d", i);
            return NULL;
        }
    }
    return p;
}

int cpu_pool_size(const cpu_pool *p) { return p->n; }

void cpu_pool_run(cpu_pool *p, cpu_task_fn fn, void *arg) {
    if (p->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->pending = p->n - 1;
    p->epoch++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    fn(arg, 0, p->n);
    pthread_mutex_lock(&p->lock);
    while (p->pending) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void cpu_pool_destroy(cpu_pool *p) {
    if (!p) return;
    if (p->threads) {
        pthread_mutex_lock(&p->lock);
        p->quit = 1;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
        for (int i = 1; i < p->n; i++) pthread_join(p->threads[i], NULL);
        free(p->threads);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p);
}
