/*
 * pool.c - a persistent pool of worker threads (the CPU and sparse engines).
 *
 * The threads are created once with the universe and sleep on a condition variable
 * between jobs.  wl_pool_run() publishes a job (function + argument) under a new epoch
 * number, runs its own share as thread 0, and waits until every worker has finished: the
 * return of wl_pool_run is the one barrier per job.  Jobs are coarse (a generation or a
 * k-generation pass over many tiles), so a mutex/condvar handshake (microseconds) is
 * negligible next to the work.
 */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

struct wl_pool {
    int n;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned long epoch;
    int pending; /* workers still running the current job */
    int quit;
    wl_task_fn fn;
    void *arg;
};

typedef struct worker_arg {
    wl_pool *p;
    int tid;
} worker_arg;

static void *worker(void *v) {
    worker_arg *wa = v;
    wl_pool *p = wa->p;
    int tid = wa->tid;
    free(wa);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->epoch == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit) break;
        seen = p->epoch;
        wl_task_fn fn = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->lock);
        fn(arg, tid, p->n);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

wl_pool *wl_pool_create(int n) {
    if (n < 1) n = 1;
    wl_pool *p = wl_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = n;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->threads = wl_calloc((size_t)n, sizeof *p->threads);
    if (!p->threads) {
        wl_pool_destroy(p);
        return NULL;
    }
    for (int i = 1; i < n; i++) {
        worker_arg *wa = wl_malloc(sizeof *wa);
        if (!wa) {
            p->n = i;
            wl_pool_destroy(p);
            return NULL;
        }
        wa->p = p;
        wa->tid = i;
        if (pthread_create(&p->threads[i], NULL, worker, wa) != 0) {
            free(wa);
            p->n = i;
            wl_pool_destroy(p);
            wl_error(WL_ERR_NOMEM, "cpu engine: cannot start worker thread %d", i);
            return NULL;
        }
    }
    return p;
}

int wl_pool_size(const wl_pool *p) { return p->n; }

void wl_pool_run(wl_pool *p, wl_task_fn fn, void *arg) {
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

void wl_pool_destroy(wl_pool *p) {
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
