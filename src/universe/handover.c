/*
 * handover.c - "auto" on the unbounded plane: start on the sparse engine and hand the
 * universe to HashLife when HashLife proves faster.  Golly's multi-state families
 * (Generations, History, Super) do the same from the grow engine, the cells moving as a
 * pattern instead of 64x64 tiles; the text below says "sparse" for either.
 *
 * Neither engine wins everywhere.  A young soup or a methuselah churns: most of its area
 * changes every generation, HashLife finds nothing to reuse and runs 10 to 100 times slower
 * than the sparse engine's SIMD tiles.  Once the ash has settled (still lifes, oscillators,
 * gliders flying apart), the sparse engine still pays every generation for each oscillator,
 * while HashLife leaps 2^k generations for the price of a few hash lookups.  Where the
 * switch pays off depends on the pattern, so it is measured, not guessed:
 *
 *   - the sparse engine runs in chunks of about CHUNK_SECONDS, each timed: its rate R_s in
 *     generations per second;
 *   - now and then (see below) a trial: the cells move to a fresh HashLife as 64x64 tiles
 *     (each_tile / put_tile: no dense copy of the bounding box, so gliders far apart cost
 *     nothing), which steps 2^10, 2^11, ... generations with a deadline.  HashLife pays
 *     up front (the transfer, and a first leap that fills its memo from nothing) and then
 *     gets cheaper per generation as its leaps grow, so the test is the rate of its latest
 *     leap: as soon as one leap of at least the second runs faster than R_s, the universe
 *     stays on HashLife for good (what it paid up front is spent either way).  If the
 *     deadline passes first, the cells move back (the generations HashLife completed are
 *     kept) and the sparse engine goes on;
 *   - a trial happens when the sparse engine has run NEXT_TRIAL seconds since the last one,
 *     a time that doubles after each failed trial, or earlier when R_s has doubled since the
 *     last trial (the pattern is settling).  Its budget (the deadline) is what is left of
 *     TRIAL_SHARE of all sparse time so far after the trials before it, so that failed
 *     trials cost at most that share of the run however long the pattern keeps churning,
 *     and at most REST_SHARE of the time the sparse engine would still need, so that a
 *     short run risks little.  A failed trial doubles the budget the next one needs: the
 *     first leap did not fit in it, and a trial that cannot fit it again is not tried;
 *   - no trial with fewer than TRIAL_MIN_GENS generations to go: HashLife needs long leaps;
 *     and never two trials without a sparse chunk between them.  But the multi-state
 *     families (cells moved as a pattern) get one short trial in a run of fewer: after the
 *     first timed chunk, when at least SHORT_MIN_GENS generations are to go and at most
 *     SHORT_MAX_POP cells are alive (the move costs next to nothing), HashLife is asked for
 *     the whole rest in one step with a budget of REST_SHARE of the time the grow engine
 *     would need at its first chunk's rate, but at least SHORT_BUDGET (a young pattern
 *     grows, so that estimate is low), and keeps the universe if it gets there.  Golly's
 *     collection has many small, regular Generations patterns (spirals, Sierpinski
 *     fronts, ships) that HashLife runs 5 to 50 times faster than any engine that
 *     visits every cell, and people run them for a few thousand generations.
 *
 * Once on HashLife the universe stays there; a pattern that starts to churn again after
 * settling is left to HashLife (rare in practice, and not measured here).
 *
 * For tests, WL_HANDOVER=hashlife makes every trial succeed and WL_HANDOVER=back makes every
 * trial fail after HashLife's first leap, with a trial after every sparse chunk when
 * TRIAL_MIN_GENS generations are to go and no deadline: both paths run on any machine,
 * whatever the timings.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SECONDS 0.02    /* length of a timed chunk of the sparse engine */
#define FIRST_TRIAL 0.05      /* sparse seconds before the first trial */
#define TRIAL_SHARE 0.25      /* all trials together: at most this share of the sparse time */
#define REST_SHARE 0.25       /* one trial: at most this share of the sparse time left */
#define TRIAL_MIN_SECONDS 0.01 /* the smallest trial; doubles after each failed one */
#define TRIAL_MIN_GENS 2048   /* generations to go for a trial */
#define TRIAL_FIRST_EXP 10    /* HashLife's first leap: 2^10 generations */
#define SETTLING_MIN_SECONDS 0.02 /* sparse seconds before a trial for a doubled rate */
#define SHORT_MAX_POP 65536   /* a short trial's largest population (multi-state) */
#define SHORT_MIN_GENS 64     /* a short trial's fewest generations to go */
#define SHORT_BUDGET 0.01     /* and its least budget in seconds */

struct wl_handover {
    wl_config cfg;                  /* the universe's (its poll callback is the user's) */
    wl_config second_cfg;           /* HashLife's: polls through ho_poll */
    const wl_engine_ops *first;     /* sparse */
    const wl_engine_ops *second;    /* hashlife */
    const char *first_kernel;
    int by_pattern;                 /* cells move as a pattern (multi-state), not as tiles */
    int on_second;                  /* the universe is on HashLife for good */
    int never;                      /* HashLife cannot take this universe: no more trials */
    int force;                      /* WL_HANDOVER: 1 = trials succeed, 2 = they fail */
    double since;                   /* sparse seconds since the last trial */
    double sparse_total;            /* sparse seconds in all */
    double trials_total;            /* seconds of trials in all */
    double min_budget;              /* the next trial's budget must be at least this */
    double next_trial;              /* trial when since reaches this */
    double rate;                    /* the sparse engine's rate in its last chunk */
    double trial_rate;              /* the sparse rate at the last failed trial (0: none) */
    uint64_t chunk;                 /* generations of the next timed chunk */
    int tried;                      /* a trial was the last thing done (no second one yet) */
    int short_tried;                /* the short trial (multi-state, few generations) ran */
    double deadline;                /* wl_clock() at which a trial gives up (0: none) */
    int deadline_hit;
};

/* HashLife's poll: the user's interruption, or the trial's deadline. */
static int ho_poll(void *user) {
    wl_handover *h = user;
    if (h->cfg.poll && h->cfg.poll(h->cfg.poll_user)) return 1;
    if (h->deadline > 0 && wl_clock() >= h->deadline) {
        h->deadline_hit = 1;
        return 1;
    }
    return 0;
}

wl_handover *wl_handover_new(const wl_config *cfg, const wl_engine_ops *first,
                             const char *first_kernel) {
    const wl_engine_ops *second = wl_engine_find("hashlife");
    if (cfg->topology != WL_TOPOLOGY_PLANE || !second || first == second ||
        wl_engine_check(second, cfg) != WL_OK) {
        wl_clear_error();
        return NULL;
    }
    int tiles = first->each_tile && first->put_tile && second->each_tile && second->put_tile &&
                wl_rule_states(&cfg->rule) == 2;
    int patterns = first->store_pattern && first->load_pattern && second->store_pattern &&
                   second->load_pattern;
    if (!tiles && !patterns) return NULL;
    wl_handover *h = calloc(1, sizeof *h);
    if (!h) return NULL; /* auto then stays on the first engine */
    h->cfg = *cfg;
    h->second_cfg = *cfg;
    h->second_cfg.engine = second->name;
    h->second_cfg.kernel = "default";
    h->second_cfg.poll = ho_poll;
    h->second_cfg.poll_user = h;
    h->first = first;
    h->second = second;
    h->first_kernel = first_kernel;
    h->by_pattern = !tiles;
    const char *force = getenv("WL_HANDOVER");
    h->force = !force ? 0 : strcmp(force, "hashlife") == 0 ? 1 : strcmp(force, "back") == 0 ? 2 : 0;
    wl_handover_reset(h);
    return h;
}

void wl_handover_free(wl_handover *h) { free(h); }

void wl_handover_reset(wl_handover *h) {
    h->on_second = h->never = 0;
    h->since = h->rate = h->trial_rate = h->sparse_total = h->trials_total = 0;
    h->min_budget = TRIAL_MIN_SECONDS;
    h->next_trial = FIRST_TRIAL;
    h->chunk = 64;
    h->tried = h->short_tried = 0;
    h->deadline = 0;
}

typedef struct {
    const wl_engine_ops *to;
    void *ctx;
} mover;

static wl_status put(void *arg, int64_t tx, int64_t ty, const uint64_t *rows) {
    const mover *m = arg;
    return m->to->put_tile(m->ctx, tx, ty, rows);
}

wl_status wl_handover_move(const wl_engine_ops *from, void *from_ctx, const wl_engine_ops *to,
                           void *to_ctx, int by_pattern) {
    if (by_pattern) {
        wl_pattern *p = NULL;
        wl_status s = from->store_pattern(from_ctx, &p);
        if (!s) s = to->load_pattern(to_ctx, p);
        wl_pattern_free(p);
        return s;
    }
    mover m = {to, to_ctx};
    return from->each_tile(from_ctx, put, &m);
}

/* A fresh context of engine e holding the cells of (from, from_ctx); NULL on failure. */
static void *copy_into(const wl_handover *h, const wl_engine_ops *e, const wl_config *cfg,
                       const char *kernel, const wl_engine_ops *from, void *from_ctx) {
    void *ctx = NULL;
    if (e->create(cfg, kernel, &ctx)) return NULL;
    if (wl_handover_move(from, from_ctx, e, ctx, h->by_pattern)) {
        e->destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* HashLife steps n generations of a trial: *d done (added to *adv), *rate their rate. */
static wl_status leap(const wl_handover *h, void *hc, uint64_t n, uint64_t *adv, uint64_t *d,
                      double *rate) {
    double t0 = wl_clock();
    wl_status s = h->second->step(hc, n, d);
    *adv += *d;
    double dt = wl_clock() - t0;
    *rate = (double)*d / (dt > 1e-9 ? dt : 1e-9);
    return s;
}

/* One trial (see the top): advances *adv generations (of at most left) and leaves the
 * universe on HashLife (h->on_second) or on the sparse engine.  Fails only when the user
 * interrupted (the universe is then consistent at *adv). */
static wl_status trial(wl_handover *h, const wl_engine_ops **ops, void **ctx, uint64_t left,
                       uint64_t *adv, double budget) {
    *adv = 0;
    double t0 = wl_clock();
    void *hc = copy_into(h, h->second, &h->second_cfg, "default", *ops, *ctx);
    if (!hc) { /* HashLife refuses the rule, the coordinates or the memory: stay */
        if (h->cfg.verbose)
            fprintf(stderr, "warplife: auto: staying on %s (hashlife: %s)\n", h->first->name,
                    wl_last_error());
        wl_clear_error();
        h->never = 1;
        return WL_OK;
    }
    h->deadline = h->force ? 0 : t0 + budget;
    h->deadline_hit = 0;
    wl_status s = WL_OK;
    double hrate = 0; /* the rate of HashLife's latest leap */
    int win = 0;
    if (left < TRIAL_MIN_GENS) { /* the short trial: the whole rest, or back */
        uint64_t d = 0;
        s = leap(h, hc, left, adv, &d, &hrate);
        win = !s && (h->force ? h->force == 1 : d == left);
    } else {
        for (int b = TRIAL_FIRST_EXP; b < 63 && ((uint64_t)1 << b) <= left - *adv; b++) {
            uint64_t d = 0;
            s = leap(h, hc, (uint64_t)1 << b, adv, &d, &hrate);
            if (s) break;
            win = h->force ? h->force == 1 : b > TRIAL_FIRST_EXP && hrate >= h->rate;
            if (win || h->force) break;
        }
    }
    h->deadline = 0;
    int interrupted = s == WL_ERR_INTERRUPTED && !h->deadline_hit;
    if (s && !interrupted) wl_clear_error(); /* deadline, or HashLife out of memory */
    if (!s && win) {
        if (h->cfg.verbose)
            fprintf(stderr, "warplife: auto: handing the pattern from %s to hashlife (%.3g "
                            "against %.3g generations/s after a %.3f s trial)\n",
                    h->first->name, hrate, h->rate, wl_clock() - t0);
        (*ops)->destroy(*ctx);
        *ops = h->second;
        *ctx = hc;
        h->on_second = 1;
        return WL_OK;
    }
    if (interrupted && *adv) { /* HashLife holds the newest state: keep it */
        (*ops)->destroy(*ctx);
        *ops = h->second;
        *ctx = hc;
        h->on_second = 1;
        return s;
    }
    if (*adv) { /* back to a fresh sparse engine, at the generation HashLife reached */
        void *fc = copy_into(h, h->first, &h->cfg, h->first_kernel, h->second, hc);
        if (!fc) { /* no memory for the way back: HashLife keeps the universe */
            wl_clear_error();
            (*ops)->destroy(*ctx);
            *ops = h->second;
            *ctx = hc;
            h->on_second = 1;
            return WL_OK;
        }
        (*ops)->destroy(*ctx);
        *ctx = fc;
    }
    h->second->destroy(hc);
    if (h->cfg.verbose)
        fprintf(stderr, "warplife: auto: %s stays (hashlife's last leap ran at %.3g "
                        "generations/s in a %.3f s trial, %s at %.3g)\n",
                h->first->name, hrate, wl_clock() - t0, h->first->name, h->rate);
    h->trial_rate = h->rate;
    h->since = 0;
    h->next_trial *= 2;
    h->min_budget = 2 * budget;
    h->trials_total += wl_clock() - t0;
    return interrupted ? s : WL_OK;
}

/* Whether a multi-state run of fewer than TRIAL_MIN_GENS generations to go is worth a
 * short trial (see the top): enough generations, few cells. */
static int short_pays(const wl_engine_ops *ops, void *ctx, uint64_t left) {
    if (left < SHORT_MIN_GENS) return 0;
    wl_bigint pop;
    if (!ops->population || ops->population(ctx, &pop)) {
        wl_clear_error();
        return 0;
    }
    uint64_t v;
    return wl_bigint_to_u64(&pop, &v) && v <= SHORT_MAX_POP;
}

wl_status wl_handover_step(wl_handover *h, const wl_engine_ops **ops, void **ctx, uint64_t n,
                           uint64_t *done) {
    *done = 0;
    while (*done < n) {
        uint64_t left = n - *done, d = 0;
        wl_status s;
        if (h->on_second || h->never) {
            s = (*ops)->step(*ctx, left, &d);
            *done += d;
            return s;
        }
        int settling = h->trial_rate > 0 && h->rate >= 2 * h->trial_rate &&
                       h->since >= SETTLING_MIN_SECONDS;
        /* what a trial may cost: the unspent share of the sparse time so far, and a share
         * of the time the sparse engine would still need */
        double budget = TRIAL_SHARE * h->sparse_total - h->trials_total;
        if (h->rate > 0 && budget > REST_SHARE * (double)left / h->rate)
            budget = REST_SHARE * (double)left / h->rate;
        int short_trial = h->by_pattern && left < TRIAL_MIN_GENS && !h->short_tried &&
                          !h->tried && h->rate > 0 && short_pays(*ops, *ctx, left);
        if (short_trial ||
            (left >= TRIAL_MIN_GENS && !h->tried &&
             (h->force || ((h->since >= h->next_trial || settling) && budget >= h->min_budget)))) {
            h->short_tried |= short_trial;
            if (short_trial) {
                budget = REST_SHARE * (double)left / h->rate;
                if (budget < SHORT_BUDGET) budget = SHORT_BUDGET;
            }
            h->tried = 1;
            s = trial(h, ops, ctx, left, &d, budget);
            *done += d;
            if (s) return s;
            continue;
        }
        uint64_t c = left < h->chunk ? left : h->chunk;
        h->tried = 0;
        double t0 = wl_clock();
        s = (*ops)->step(*ctx, c, &d);
        double dt = wl_clock() - t0;
        *done += d;
        if (s) return s;
        h->since += dt;
        h->sparse_total += dt;
        h->rate = (double)c / (dt > 1e-9 ? dt : 1e-9);
        if (dt < CHUNK_SECONDS / 2 && h->chunk < ((uint64_t)1 << 40))
            h->chunk *= 2;
        else if (dt > 2 * CHUNK_SECONDS && h->chunk > 16)
            h->chunk /= 2;
    }
    return WL_OK;
}

void wl_handover_stay(wl_handover *h) { h->never = 1; }

wl_status wl_handover_restart(wl_handover *h, const wl_engine_ops **ops, void **ctx) {
    if (*ops != h->first) {
        void *fc = NULL;
        wl_status s = h->first->create(&h->cfg, h->first_kernel, &fc);
        if (s) return s;
        (*ops)->destroy(*ctx);
        *ops = h->first;
        *ctx = fc;
    }
    wl_handover_reset(h);
    return WL_OK;
}

wl_status wl_handover_load_file(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                                const char *path) {
    if (!h->second->load_file) return WL_ERR_UNSUPPORTED;
    void *hc = NULL;
    wl_status s = h->second->create(&h->second_cfg, "default", &hc);
    if (!s) s = h->second->load_file(hc, path);
    if (s) {
        if (hc) h->second->destroy(hc);
        return s;
    }
    (*ops)->destroy(*ctx);
    *ops = h->second;
    *ctx = hc;
    h->on_second = 1;
    return WL_OK;
}

const char *wl_handover_kernel(const wl_handover *h, const wl_engine_ops *ops) {
    return ops == h->first ? h->first_kernel : "default";
}
