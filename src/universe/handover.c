/*
 * handover.c - "auto" on the unbounded plane: start on the sparse engine and hand the
 * universe to HashLife when HashLife proves faster.  Golly's multi-state families
 * (Generations, History, Super) do the same from the grow engine, the cells moving as a
 * pattern instead of 64x64 tiles; the text below says "sparse" for either.
 *
 * Neither engine wins everywhere.  A young soup or a methuselah churns: most of its area
 * changes every generation, HashLife finds nothing to reuse and runs 10 to 100 times slower
 * than the sparse engine's SIMD tiles.  Guns, rakes, breeders and puffers built of parts
 * that repeat, and ash that has settled, are the other way round: HashLife leaps 2^k
 * generations for the price of a few hash lookups (Golly's Life folders to 20000
 * generations: HashLife 5 to 100 times faster on most of the engineered patterns).  Which
 * one a pattern is cannot be told from its cells, nor from either engine's first rate (a
 * constructor starts regular and grows chaotic; a breeder's sparse rate falls as it
 * grows), so the two race, and the leader keeps the universe:
 *
 *   - the sparse engine runs in chunks of about CHUNK_SECONDS, each timed: its rate R_s in
 *     generations per second;
 *   - a race: the cells move to a fresh HashLife as 64x64 tiles (each_tile / put_tile: no
 *     dense copy of the bounding box), which then leaps 2^8, 2^9, ... generations from
 *     there (a first leap of 2^10 made a soup's failed race cost 20 ms more), in turns
 *     between the sparse engine's chunks.  Each chunk earns HashLife share / (1 - share)
 *     of its time as credit; a turn runs its current leap until the leap is done or the
 *     credit is spent (the deadline), and a leap cut short is taken up again at the next
 *     turn, through what it already computed in HashLife's memo.  The share starts at
 *     RACE_SHARE (EARLY_SHARE in an early race).  After each leap done, HashLife's time to
 *     the target is estimated as if the cost of its leaps went on growing as it did from
 *     the leap before (hashlife_to_go: a churning pattern's leaps cost twice the one
 *     before, a regular one's about the same), against the sparse engine's time to it,
 *     (target - now) / R_s.  The share doubles (up to RACE_SHARE_MAX) after a leap that
 *     ran at least at R_s (HashLife may then chase at once, for the time the lag takes it
 *     at that rate) or whose estimate is under half the sparse engine's, and halves (down
 *     to RACE_SHARE_MIN) when it is over twice that.  It also halves once a leap under way has
 *     cost HashLife twice the time the sparse engine needs for as many generations, and
 *     four times the leap before (and at each doubling of that), and when a race starts
 *     over without a leap done since the last start and its leap had been that slow, so a
 *     race that HashLife is losing costs a few percent, and one it is winning goes its way
 *     quickly.  A race's first leap builds HashLife's squares of the whole pattern, which
 *     the later leaps reuse, so it is not judged like the others.  An early race's keeps
 *     its share until it is done: on the Turing machine it takes 60-90 ms for 256
 *     generations, ten times the sparse engine's time, and the next 16000 generations take
 *     HashLife less than that again, so halving on its rate left the pattern on sparse at
 *     4x HashLife's time.  Another two-state race's counts as slow only past FIRST_BUDGET
 *     of the sparse engine's time to the target as well, (target - now) / R_s (Golly's
 *     high-bandwidth-telegraph, 133K cells: 0.35 s for its first 2^8 generations, then
 *     ever faster leaps, against 10^4 generations a second on the sparse engine): a long
 *     run is worth that much, and a young soup's budget shrinks as it settles;
 *   - HashLife takes the universe over when a leap brings it from behind to level with
 *     the sparse engine or ahead of it, at a rate of at least R_s (a leap made while the
 *     sparse engine waited wins nothing), or to the target;
 *   - after that its leaps are watched: each gets WATCH_SLACK times what the sparse engine
 *     would need for as many generations at its last R_s.  A leap that runs past that is
 *     dropped and the universe goes back to a fresh sparse engine (line puffers, whose ash
 *     grows chaotic: HashLife's first leaps are quick, its later ones ever slower), unless
 *     the population has grown more than WATCH_GROWTH times since HashLife took it: R_s
 *     was measured on a pattern that small, and a breeder run to 2^30 has 10^14 cells by
 *     the time its last, short leaps come, more than any engine but HashLife can hold;
 *   - a race starts after FIRST_RACE seconds of sparse time (later while a busy sparse
 *     engine's rate is still rising: see settling), or after the first chunk for
 *     a pattern that early_pays (a population of EARLY_MIN_POP to EARLY_MAX_POP, not packed
 *     in its box: mostly built patterns, and not a methuselah, whose whole run is shorter
 *     than a race, nor a large soup), and starts over from the universe as it is (keeping
 *     HashLife's memo and its leaps' size) when R_s has doubled since it started (the
 *     pattern is settling; an early race counts from the chunk after its start, since the
 *     first chunk runs cold, at a third to a fifth of the rate of the next).  A race lasts
 *     at most one call (cells may be edited between calls); the next call's waits twice as
 *     long;
 *   - no race with fewer than TRIAL_MIN_GENS generations to go: HashLife needs long leaps.
 *     But the multi-state families (cells moved as a pattern) get one short trial in a run
 *     of fewer: after the first timed chunk, when at least SHORT_MIN_GENS generations are
 *     to go and at most SHORT_MAX_POP cells are alive (the move costs next to nothing),
 *     HashLife is asked for the whole rest in one step with a budget of REST_SHARE of the
 *     time the grow engine would need at its first chunk's rate, but at least SHORT_BUDGET
 *     (a young pattern grows, so that estimate is low), and keeps the universe if it gets
 *     there.  Golly's collection has many small, regular Generations patterns (spirals,
 *     Sierpinski fronts, ships) that HashLife runs 5 to 50 times faster than any engine
 *     that visits every cell, and people run them for a few thousand generations.  On two
 *     cores (below) the short trial is a race instead, from the first chunk on, its leaps
 *     the largest powers of two to the target: grow goes on at its own speed beside it
 *     (the trial's least budget had cost the patterns HashLife loses 5-10 ms each, about
 *     twice grow's whole time on Golly's small ones), and HashLife takes over as soon as it
 *     gets there (a winner then pays 1-4 ms more than the trial took on Golly's small
 *     patterns: beside grow, whose grid streams through the cache its table needs,
 *     HashLife's 5 ms take 8-12).
 *
 * Races replaced trials (HashLife on a fresh copy for a budget of a quarter of the sparse
 * time so far, its work thrown away when the budget ran out): a breeder's first leap did
 * not fit such budgets, which doubled too slowly, and Golly's engineered patterns ran
 * 5 to 50 times longer on `auto` than on HashLife.
 *
 * For tests, WL_HANDOVER=hashlife makes HashLife win every race at its first leap (running
 * level first), WL_HANDOVER=back brings its cells back to a fresh sparse engine after its
 * first leap instead, and WL_HANDOVER=bounce makes it win, then treats its first watched
 * leap as too slow (the way back), then lets it win again: with a race after every sparse
 * chunk when TRIAL_MIN_GENS generations are to go, and no deadlines, every path runs on
 * any machine, whatever the timings; WL_HANDOVER_GROWTH=n sets WATCH_GROWTH.
 *
 * Two cores.  Everything above takes turns on one core.  Where the universe may use two
 * threads or more (WL_HANDOVER_CONCURRENT=0 / 1 turns this off / on), a race runs HashLife
 * beside the sparse engine instead: each engine gets half the threads (set_threads; the
 * sparse engine cuts its bands again for its share, HashLife steps on its share), and a
 * thread of the handover's own, the racer, moves the cells into HashLife (from a copy of
 * the tiles made at the start: a 2048^2 soup's took the sparse engine 4 to 14 ms on the dev
 * VM when it waited for HashLife to take them) and leaps on HashLife's copy from 2^rexp on,
 * each leap twice the one before, to the target, while the sparse engine's chunks go on
 * (their length drawn to RACE_CHUNK_SECONDS, so that the racer is looked at often).  After
 * each chunk the handover takes in what the racer did; when HashLife has drawn level with
 * the sparse engine or got ahead of it, its leap under way stops where it is and it takes
 * the universe over, with all the threads.  A racer that gets to the step's target does
 * not wait for the chunk under way: the first engine polls through the handover
 * (ho_first_poll), which then cuts its step short, at a consistent generation, as an
 * interruption would (a chunk of a growing pattern overshoots its planned length, and the
 * short race's winners waited 3-9 ms for it).  No shares and no credit: a pattern that is
 * HashLife's wins at the speed of HashLife on its cores (Golly's guns and rakes to 20000:
 * 1.4-2.6x faster than the turns on the dev VM's two cores, 1.6-2.2x on 16,
 * docs/BENCHMARKS.md), and one that is not costs the sparse engine the threads it gave
 * away, which is nothing where it runs on one thread (a methuselah, most built patterns).
 * Where it keeps more than CONC_THREADED threads busy (measured before the race, in CPU
 * time a second: a soup, a big pattern), HashLife's time is judged after conc_budget x
 * FIRST_BUDGET of the sparse engine's time to the target: while its own time to the target,
 * at its rate so far, is over twice the sparse engine's, it pauses (its memo kept, the
 * threads back to the sparse engine) and starts over, from the universe as it is, after
 * twice the sparse time of the last pause, with twice the budget.  Forced races
 * (WL_HANDOVER) take one leap of the racer at a time, waited for, and the sparse chunk
 * beside it stops halfway to the step's end, so that the same paths run on two cores,
 * whatever the timings.
 */
#include "internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SECONDS 0.02    /* length of a timed chunk of the sparse engine */
#define RACE_CHUNK_SECONDS 0.004 /* and while HashLife races beside it (two cores) */
#define CONC_THREADED 1.3     /* a sparse engine busier than this many threads pays for
                                 HashLife's threads (two cores) */
#define SETTLE_RISE 1.5       /* a busy sparse engine whose rate rose this much in the
                                 second half of a wait for a race waits longer (settling) */
#define FIRST_RACE 0.05       /* sparse seconds before the first race (see early_pays) */
#define REST_SHARE 0.25       /* the short trial's budget: this share of grow's time left */
#define TRIAL_MIN_GENS 2048   /* generations to go for a race (fewer: the short trial) */
#define FIRST_EXP 8           /* a race's first leap: 2^8 generations, which may take */
#define FIRST_BUDGET 0.1      /* this share of the sparse time to the target before it
                                 counts as slow (two-state races) */
#define SETTLING_MIN_SECONDS 0.02 /* sparse seconds before a race starts over (settling) */
#define SHORT_MAX_POP 65536   /* a short trial's largest population (multi-state) */
#define SHORT_MIN_GENS 64     /* a short trial's fewest generations to go */
#define SHORT_BUDGET 0.01     /* and its least budget in seconds */
#define RACE_SHARE 0.2        /* a race: HashLife's first share of the time (an early one's:
                                 EARLY_SHARE), */
#define RACE_SHARE_MIN 0.03   /* its least (halved while its leaps are slow), */
#define RACE_SHARE_MAX 0.9    /* its most (doubled while they are fast) */
#define RACE_SLICE 0.001      /* the shortest time HashLife is given at once (seconds) */
#define EARLY_MIN_POP 200     /* a race from the first chunk: population at least, */
#define EARLY_MAX_POP 100000  /* at most, */
#define EARLY_MAX_DENSITY 0.2 /* and live cells / bounding box at most (a young blob) */
#define EARLY_SHARE (1.0 / 3) /* its first share (a built pattern is more likely HashLife's), */
#define EARLY_CREDIT 0.003    /* and its first turn (seconds) */
#define WATCH_SLACK 2.0       /* after a race, each leap of HashLife's gets twice the time
                                 the sparse engine would have needed, */
#define WATCH_MIN_SECONDS 0.005 /* but at least this, or the universe goes back */
#define WATCH_GROWTH 16       /* and it goes back only while its population is at most this
                                 many times what it was when HashLife took it */

struct wl_handover {
    wl_config cfg;                  /* the universe's (its poll callback is the user's) */
    wl_config second_cfg;           /* HashLife's: polls through ho_poll */
    wl_config first_cfg;            /* the first engine's: polls through ho_first_poll on
                                       two cores (a racer that got to the target cuts the
                                       first engine's step short) */
    const wl_engine_ops *first;     /* sparse */
    const wl_engine_ops *second;    /* hashlife */
    const char *first_kernel;
    int by_pattern;                 /* cells move as a pattern (multi-state), not as tiles */
    int on_second;                  /* the universe is on HashLife for good */
    int never;                      /* HashLife cannot take this universe: no more races */
    int force;                      /* WL_HANDOVER (see the top): 1 hashlife, 2 back, 3 bounce */
    int bounced;                    /* WL_HANDOVER=bounce: the universe came back once */
    double since;                   /* sparse seconds since the last race started */
    double rate_mid;                /* the sparse rate when `since` passed half of
                                       next_race (see settling), recorded while mid_next
                                       was next_race and `since` was mid_since */
    double mid_next, mid_since;
    double next_race;               /* a race starts when since reaches this */
    double rate;                    /* the sparse engine's rate in its last chunk */
    uint64_t chunk;                 /* generations of the next timed chunk */
    int tried;                      /* a turn or a trial was the last thing done: a sparse
                                       chunk first (forced races: one turn a chunk) */
    int short_tried;                /* the short trial (multi-state, few generations) ran */
    double deadline;                /* wl_clock() at which HashLife stops (0: none) */
    int deadline_hit;
    /* the race (within one wl_handover_step call): HashLife on a copy of the universe,
     * `lag` generations behind it (ahead of it when negative) */
    void *rc;                       /* HashLife's context (NULL: no race) */
    int64_t lag;
    int rexp;                       /* its next leap: 2^rexp generations */
    double share;                   /* its share of the time */
    double credit;                  /* seconds it may run now */
    double race_rate;               /* the sparse rate when it started (settling: it starts
                                       over from the universe as it is) */
    double race_time;               /* seconds it ran */
    int leaps;                      /* leaps it completed since it (re)started */
    int first_free;                 /* an early race before its first leap is done: the
                                       share does not halve (that leap carries HashLife's
                                       start, which later leaps reuse) */
    double leap_time;               /* seconds it spent on its current leap so far */
    double prev_leap;               /* seconds its last completed leap took (0: none yet) */
    double slow_mark;               /* its share halves when leap_time passes this many times
                                       twice the sparse engine's time for the leap */
    int early_done;                 /* the first chunk's look for an early race was made */
    int watching;                   /* on HashLife after a race: its leaps are timed */
    double watch_rate;              /* the sparse rate they must keep up with */
    uint64_t watch_pop;             /* the population when HashLife took the universe (0:
                                       unknown) */
    uint64_t growth;                /* WATCH_GROWTH (WL_HANDOVER_GROWTH for tests) */
    /* a race on two cores (see "Two cores"): HashLife's leaps on a thread of their own */
    int conc;                       /* races run so */
    int sparse_threads;             /* the sparse engine's threads meanwhile, */
    int hl_threads;                 /* and HashLife's (half of the universe's each) */
    int racer_up;                   /* the racer thread runs */
    pthread_t racer;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* under mu: the racer's job (see racer_main) */
    int job;                        /* JOB_IDLE, _ASKED, _RUNNING, _DONE */
    int64_t job_way;                /* generations to go */
    int job_one;                    /* one leap only */
    int job_exp;                    /* the next leap: 2^job_exp generations */
    uint64_t job_total;             /* generations done */
    double job_time;                /* the seconds they took */
    wl_status job_s;                /* how the last leap ended */
    int quit;                       /* the racer ends */
    int stop;                       /* atomic: the leap under way stops */
    int arrived;                    /* atomic: the racer got to its job's target (cleared with
                                       each job; ho_first_poll looks only while one is asked) */
    int cut;                        /* the first engine's step stopped for that */
    /* the cells HashLife is to take before its first leap (race_start on two cores: the
     * racer moves them in, so that the sparse engine does not wait for it) */
    int pending;                    /* there are some */
    int pending_clear;              /* HashLife's cells are cleared first (a race over) */
    struct ho_tile *snap;           /* the tiles, */
    size_t nsnap, snap_cap;
    wl_pattern *snap_pat;           /* or the pattern (multi-state) */
    /* the main thread's */
    int asked;                      /* the racer was set going and not yet seen stopped */
    uint64_t seen;                  /* job_total at the last look, */
    double seen_time;               /* and job_time */
    double race_base;               /* race_time when it was set going */
    double go_time;                 /* wl_clock() then */
    int paused;                     /* the racer waits (its core back to the sparse engine)
                                       until the race starts over, memo kept */
    double cpu_ratio;               /* the sparse engine's CPU seconds a second in its last
                                       chunk outside a race: the threads it keeps busy */
    double conc_budget;             /* HashLife's progress is judged once its seconds pass
                                       this many times FIRST_BUDGET of the sparse engine's
                                       time to the target (a sparse engine that lost a busy
                                       thread to it; INFINITY: never) */
};

enum { JOB_IDLE, JOB_ASKED, JOB_RUNNING, JOB_DONE };

/* A tile of the universe, kept for HashLife (see `pending`). */
typedef struct ho_tile {
    int64_t tx, ty;
    uint64_t rows[WL_TILE];
} ho_tile;

/* Forgets the cells kept for HashLife. */
static void snap_free(wl_handover *h) {
    free(h->snap);
    h->snap = NULL;
    h->nsnap = h->snap_cap = 0;
    wl_pattern_free(h->snap_pat);
    h->snap_pat = NULL;
    h->pending = 0;
}

static wl_status snap_tile(void *arg, int64_t tx, int64_t ty, const uint64_t *rows) {
    wl_handover *h = arg;
    if (h->nsnap == h->snap_cap) {
        size_t cap = h->snap_cap ? 2 * h->snap_cap : 256;
        ho_tile *n = realloc(h->snap, cap * sizeof *n);
        if (!n) return wl_error(WL_ERR_NOMEM, "auto: out of memory (a copy for hashlife)");
        h->snap = n;
        h->snap_cap = cap;
    }
    ho_tile *t = &h->snap[h->nsnap++];
    t->tx = tx;
    t->ty = ty;
    memcpy(t->rows, rows, sizeof t->rows);
    return WL_OK;
}

/* Keeps the cells of (ops, ctx) for HashLife to take on the racer (clear: HashLife's own
 * are cleared first). */
static wl_status snap_take(wl_handover *h, const wl_engine_ops *ops, void *ctx, int clear) {
    snap_free(h);
    wl_status s = h->by_pattern ? ops->store_pattern(ctx, &h->snap_pat)
                                : ops->each_tile(ctx, snap_tile, h);
    if (s) {
        snap_free(h);
        return s;
    }
    h->pending = 1;
    h->pending_clear = clear;
    return WL_OK;
}

/* On the racer: HashLife takes the cells kept for it. */
static wl_status snap_give(wl_handover *h) {
    wl_status s = WL_OK;
    if (h->pending_clear) {
        wl_pattern *e = wl_pattern_new();
        s = e ? h->second->load_pattern(h->rc, e) : WL_ERR_NOMEM;
        wl_pattern_free(e);
    }
    if (!s && h->snap_pat) s = h->second->load_pattern(h->rc, h->snap_pat);
    for (size_t i = 0; i < h->nsnap && !s; i++)
        s = h->second->put_tile(h->rc, h->snap[i].tx, h->snap[i].ty, h->snap[i].rows);
    snap_free(h);
    return s;
}

/* Set on the racer thread: HashLife's poll there answers only the racer's stop. */
static _Thread_local int in_racer;

/* HashLife's poll: the user's interruption, or the deadline of its turn or leap. */
static int ho_poll(void *user) {
    wl_handover *h = user;
    if (in_racer) return __atomic_load_n(&h->stop, __ATOMIC_RELAXED);
    if (h->cfg.poll && h->cfg.poll(h->cfg.poll_user)) return 1;
    if (h->deadline > 0 && wl_clock() >= h->deadline) {
        h->deadline_hit = 1;
        return 1;
    }
    return 0;
}

/* The first engine's poll on two cores: the user's interruption, or the racer at the
 * step's target while the first engine is still on its way there (HashLife takes the
 * universe over at once, instead of after the chunk under way: a short race's winner on
 * Golly's small Generations patterns waited for chunks that overshot as the pattern grew). */
static int ho_first_poll(void *user) {
    wl_handover *h = user;
    if (h->cfg.poll && h->cfg.poll(h->cfg.poll_user)) return 1;
    if (!h->asked || !__atomic_load_n(&h->arrived, __ATOMIC_ACQUIRE)) return 0;
    h->cut = 1; /* (until the handover has looked at the racer: asked is then 0) */
    return 1;
}

wl_handover *wl_handover_new(const wl_config *cfg, const wl_engine_ops *first) {
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
    h->by_pattern = !tiles;
    const char *force = getenv("WL_HANDOVER");
    h->force = !force                          ? 0
               : strcmp(force, "hashlife") == 0 ? 1
               : strcmp(force, "back") == 0     ? 2
               : strcmp(force, "bounce") == 0   ? 3
                                                : 0;
    const char *growth = getenv("WL_HANDOVER_GROWTH");
    h->growth = growth && atoi(growth) > 0 ? (uint64_t)atoi(growth) : WATCH_GROWTH;
    /* two cores or more: the threads the universe may use, half of them HashLife's */
    const int n = cfg->threads > 0 ? cfg->threads : wl_cpu_count();
    const char *conc = getenv("WL_HANDOVER_CONCURRENT"); /* 0 / 1: tests and tuning */
    h->conc = conc ? atoi(conc) > 0 : n >= 2;
    h->hl_threads = n / 2 > 1 ? n / 2 : 1;
    h->sparse_threads = n - h->hl_threads > 1 ? n - h->hl_threads : 1;
    if (h->conc && (pthread_mutex_init(&h->mu, NULL) || pthread_cond_init(&h->cv, NULL))) {
        free(h);
        return NULL;
    }
    h->first_cfg = *cfg;
    if (h->conc) {
        h->first_cfg.poll = ho_first_poll;
        h->first_cfg.poll_user = h;
    }
    wl_handover_reset(h);
    return h;
}

const wl_config *wl_handover_first_config(const wl_handover *h) { return &h->first_cfg; }

void wl_handover_set_first_kernel(wl_handover *h, const char *kernel) {
    h->first_kernel = h->cfg.kernel = h->first_cfg.kernel = kernel;
}

static void race_end(wl_handover *h);

void wl_handover_free(wl_handover *h) {
    if (!h) return;
    race_end(h);
    if (h->conc) {
        pthread_mutex_destroy(&h->mu);
        pthread_cond_destroy(&h->cv);
    }
    free(h);
}

void wl_handover_reset(wl_handover *h) {
    h->on_second = h->never = 0;
    h->since = h->rate = 0;
    h->rate_mid = h->mid_next = h->mid_since = 0;
    h->next_race = FIRST_RACE;
    h->chunk = 64;
    h->tried = h->short_tried = h->early_done = h->watching = h->bounced = 0;
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

/* A fresh first engine (its own configuration and kernel) holding the cells of
 * (from, from_ctx); NULL on failure. */
static void *first_from(const wl_handover *h, const wl_engine_ops *from, void *from_ctx) {
    return copy_into(h, h->first, &h->first_cfg, h->first_kernel, from, from_ctx);
}

/* The universe is now context c of engine e (the one it was on is freed); on HashLife,
 * for good unless a race's watch sends it back. */
static void switch_to(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                      const wl_engine_ops *e, void *c) {
    (*ops)->destroy(*ctx);
    *ops = e;
    *ctx = c;
    h->on_second = e == h->second;
}

/* The size of a leap of HashLife's: 2^exp generations, or the largest power of two within
 * `way` (the generations it may still go). */
static uint64_t leap_size(int exp, int64_t way) {
    uint64_t g = (uint64_t)1 << (exp < 62 ? exp : 62);
    while ((int64_t)g > way && g > 1) g >>= 1;
    return g;
}

/* The short trial (see the top): HashLife on a copy of the universe is asked for the whole
 * rest, `left` generations, within `budget` seconds; it keeps the universe if it gets there.
 * Fails only when the user interrupted (the universe is then consistent at *adv). */
static wl_status short_trial(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                             uint64_t left, uint64_t *adv, double budget) {
    *adv = 0;
    const double t0 = wl_clock();
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
    wl_status s = h->second->step(hc, left, adv);
    h->deadline = 0;
    const int interrupted = s == WL_ERR_INTERRUPTED && !h->deadline_hit;
    if (s && !interrupted) wl_clear_error(); /* the deadline, or HashLife out of memory */
    const int win = !s && (h->force ? h->force != 2 : *adv == left);
    if (win || (interrupted && *adv)) { /* HashLife holds the newest state: it keeps it */
        if (win && h->cfg.verbose)
            fprintf(stderr, "warplife: auto: hashlife ran the last %llu generations (a %.3f s "
                            "trial)\n",
                    (unsigned long long)left, wl_clock() - t0);
        switch_to(h, ops, ctx, h->second, hc);
        return s;
    }
    if (*adv) { /* back to a fresh sparse engine, at the generation HashLife reached */
        void *fc = first_from(h, h->second, hc);
        if (!fc) { /* no memory for the way back: HashLife keeps the universe */
            wl_clear_error();
            switch_to(h, ops, ctx, h->second, hc);
            return WL_OK;
        }
        switch_to(h, ops, ctx, h->first, fc);
    }
    h->second->destroy(hc);
    if (h->cfg.verbose)
        fprintf(stderr, "warplife: auto: %s stays (hashlife did %llu of the last %llu "
                        "generations in a %.3f s trial)\n",
                h->first->name, (unsigned long long)*adv, (unsigned long long)left,
                wl_clock() - t0);
    return interrupted ? s : WL_OK;
}

/* A race on two cores (see the top) begins or starts over: the threads are shared out. */
static void conc_race_begins(wl_handover *h, const wl_engine_ops *ops, void *ctx) {
    if (ops->set_threads) ops->set_threads(ctx, h->sparse_threads);
    if (h->second->set_threads) h->second->set_threads(h->rc, h->hl_threads);
}

/* The universe's population in *v; 0 when it cannot be had (or passes 64 bits). */
static int population_u64(const wl_engine_ops *ops, void *ctx, uint64_t *v) {
    wl_bigint pop;
    if (!ops->population || ops->population(ctx, &pop)) {
        wl_clear_error();
        return 0;
    }
    return wl_bigint_to_u64(&pop, v);
}

/* Whether a multi-state run of fewer than TRIAL_MIN_GENS generations to go is worth a
 * short trial (see the top): enough generations, few cells. */
static int short_pays(const wl_engine_ops *ops, void *ctx, uint64_t left) {
    uint64_t v;
    return left >= SHORT_MIN_GENS && population_u64(ops, ctx, &v) && v <= SHORT_MAX_POP;
}

/* Whether a two-state pattern races from the first chunk on (see the top): a population
 * within EARLY_MIN_POP .. EARLY_MAX_POP, sparse in its bounding box. */
static int early_pays(const wl_engine_ops *ops, void *ctx) {
    wl_bigint x0, y0, x1, y1, w, hh;
    uint64_t v, bw, bh;
    int empty = 1;
    if (!population_u64(ops, ctx, &v) || v < EARLY_MIN_POP || v > EARLY_MAX_POP) return 0;
    if (!ops->bounds || ops->bounds(ctx, &x0, &y0, &x1, &y1, &empty)) {
        wl_clear_error();
        return 0;
    }
    if (empty) return 0;
    wl_bigint_sub(&w, &x1, &x0);
    wl_bigint_sub(&hh, &y1, &y0);
    if (!wl_bigint_to_u64(&w, &bw) || !wl_bigint_to_u64(&hh, &bh) || bw >= (1u << 31) ||
        bh >= (1u << 31))
        return 1; /* (far-flung: sparse enough) */
    return (double)v <= EARLY_MAX_DENSITY * (double)(bw + 1) * (double)(bh + 1);
}

/* ---- two cores: HashLife's leaps on a thread of their own ---------------------------- */

/* The racer: leaps on h->rc from 2^job_exp generations on, each twice the one before,
 * until HashLife has gone job_way generations, or after one leap (job_one: tests), or when
 * stopped or a leap fails.  After each leap it publishes what it did: job_total
 * generations in job_time seconds (HashLife's threads have cores of their own), the next
 * leap's exponent. */
static void *racer_main(void *v) {
    wl_handover *h = v;
    in_racer = 1;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        while (!h->quit && h->job != JOB_ASKED) pthread_cond_wait(&h->cv, &h->mu);
        if (h->quit) break;
        h->job = JOB_RUNNING;
        int64_t way = h->job_way;
        if (h->pending) { /* (HashLife's time too) */
            pthread_mutex_unlock(&h->mu);
            const double t0 = wl_clock();
            const wl_status s = snap_give(h);
            const double dt = wl_clock() - t0;
            wl_clear_error();
            pthread_mutex_lock(&h->mu);
            h->job_time += dt;
            h->job_s = s;
            if (s) way = 0;
        }
        for (; way > 0;) {
            const uint64_t g = leap_size(h->job_exp, way);
            pthread_mutex_unlock(&h->mu);
            const double t0 = wl_clock();
            uint64_t d = 0;
            const wl_status s = h->second->step(h->rc, g, &d);
            const double dt = wl_clock() - t0;
            wl_clear_error(); /* (a message stays on its thread: the status says enough) */
            pthread_mutex_lock(&h->mu);
            h->job_total += d;
            h->job_time += dt;
            h->job_s = s;
            way -= (int64_t)d;
            if (s) break;
            if (h->job_exp < 62) h->job_exp++;
            if (h->job_one || way <= 0 || __atomic_load_n(&h->stop, __ATOMIC_RELAXED)) break;
        }
        if (way <= 0 && !h->job_s && !h->job_one) __atomic_store_n(&h->arrived, 1, __ATOMIC_RELEASE);
        h->job = JOB_DONE;
        pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* Sets the racer (started first if need be) on HashLife's leaps from 2^rexp on, `way` > 0
 * generations to go (one leap only when `one`); 0 when the thread cannot be started. */
static int racer_go(wl_handover *h, int64_t way, int one) {
    if (!h->racer_up) {
        h->quit = 0;
        h->job = JOB_IDLE;
        if (pthread_create(&h->racer, NULL, racer_main, h) != 0) return 0;
        h->racer_up = 1;
    }
    pthread_mutex_lock(&h->mu);
    __atomic_store_n(&h->stop, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&h->arrived, 0, __ATOMIC_RELAXED);
    h->job_way = way;
    h->job_one = one;
    h->job_exp = h->rexp;
    h->job_total = h->seen = 0;
    h->job_time = h->seen_time = 0;
    h->job_s = WL_OK;
    h->job = JOB_ASKED;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    h->asked = 1;
    h->race_base = h->race_time;
    h->go_time = wl_clock();
    return 1;
}

/* Takes in what the racer did since the last look (HashLife's generations come off the lag,
 * its time goes to race_time), waiting until it has stopped when `wait`; its status in *s;
 * returns whether it has stopped (its way gone, its one leap done, halted, or failed). */
static int racer_look(wl_handover *h, int wait, wl_status *s) {
    pthread_mutex_lock(&h->mu);
    while (wait && (h->job == JOB_ASKED || h->job == JOB_RUNNING))
        pthread_cond_wait(&h->cv, &h->mu);
    h->lag -= (int64_t)(h->job_total - h->seen);
    h->seen = h->job_total;
    h->seen_time = h->job_time;
    h->race_time = h->race_base + h->job_time;
    h->rexp = h->job_exp;
    *s = h->job_s;
    const int stopped = h->job == JOB_DONE;
    if (stopped) {
        h->job = JOB_IDLE;
        h->asked = 0;
    }
    pthread_mutex_unlock(&h->mu);
    return stopped;
}

/* HashLife's rate on the racer since it was last set going, at the last look, in
 * generations a second. */
static double racer_rate(const wl_handover *h) {
    return (double)h->seen / (h->seen_time > 1e-9 ? h->seen_time : 1e-9);
}

/* Stops the racer's leaps (the one under way ends where it is, HashLife exact there) and
 * takes in what it did; its status (WL_ERR_INTERRUPTED when it was stopped). */
static wl_status racer_halt(wl_handover *h) {
    if (!h->racer_up || !h->asked) return WL_OK;
    pthread_mutex_lock(&h->mu);
    if (h->job == JOB_ASKED) h->job = JOB_DONE; /* (not started: nothing done) */
    __atomic_store_n(&h->stop, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&h->mu);
    wl_status s;
    racer_look(h, 1, &s);
    return s;
}

/* Ends the racer thread (its leap stopped). */
static void racer_quit(wl_handover *h) {
    if (!h->racer_up) return;
    racer_halt(h);
    pthread_mutex_lock(&h->mu);
    h->quit = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->racer, NULL);
    h->racer_up = 0;
}

static void race_end(wl_handover *h) {
    racer_quit(h);
    snap_free(h);
    h->paused = 0;
    if (h->rc) h->second->destroy(h->rc);
    h->rc = NULL;
}

/* The race ends; the sparse engine, if it holds the universe, has all its threads again. */
static void race_over(wl_handover *h, const wl_engine_ops *ops, void *ctx) {
    race_end(h);
    if (h->conc && ops == h->first && ops->set_threads) ops->set_threads(ctx, 0);
}

/* HashLife's share of the race's time halves, down to RACE_SHARE_MIN. */
static void share_halve(wl_handover *h) {
    h->share = h->share / 2 < RACE_SHARE_MIN ? RACE_SHARE_MIN : h->share / 2;
}

/* Starts a race (`early`: from the first chunk) with `credit` seconds for HashLife's first
 * turn, or starts it over from the universe as it is, keeping HashLife's memo (the squares
 * that did not change are found again); 0 when HashLife cannot take the universe (no more
 * races then). */
static int race_start(wl_handover *h, const wl_engine_ops *ops, void *ctx, int early,
                      double credit) {
    const int fresh = !h->rc;
    const double t0 = wl_clock();
    if (h->conc) { /* (two cores: the racer moves the cells in; the racer is stopped) */
        if (fresh && h->second->create(&h->second_cfg, "default", &h->rc)) h->rc = NULL;
        if (h->rc && snap_take(h, ops, ctx, !fresh)) race_end(h);
    } else if (h->rc) {
        wl_pattern *e = wl_pattern_new();
        if (!e || h->second->load_pattern(h->rc, e) ||
            wl_handover_move(ops, ctx, h->second, h->rc, h->by_pattern)) {
            wl_clear_error();
            race_end(h);
        }
        wl_pattern_free(e);
    }
    if (!h->rc && !(h->rc = copy_into(h, h->second, &h->second_cfg, "default", ops, ctx))) {
        if (h->cfg.verbose)
            fprintf(stderr, "warplife: auto: staying on %s (hashlife: %s)\n", h->first->name,
                    wl_last_error());
        wl_clear_error();
        h->never = 1;
        return 0;
    }
    if (fresh) { /* (one starting over keeps its share, credit and time) */
        h->share = early ? EARLY_SHARE : RACE_SHARE;
        h->first_free = early;
        h->prev_leap = 0;
        h->credit = credit;
        h->race_time = 0;
    } else if (!h->leaps && h->slow_mark > 1 && !h->first_free) {
        /* (no leap done since it started, and the one it was on had been slow) */
        share_halve(h);
    }
    h->leaps = 0;
    const double dt = wl_clock() - t0; /* (the move is HashLife's time too) */
    h->credit -= dt;
    h->race_time += dt;
    h->lag = 0;
    if (fresh) h->rexp = FIRST_EXP; /* (over: as it was) */
    h->leap_time = 0;
    h->slow_mark = 1;
    h->race_rate = early ? 0 : h->rate; /* (the first chunk ran cold: the next one's) */
    return 1;
}

/* HashLife's time to the target, way generations on, after a leap of g generations that
 * took lt seconds: its leaps go on doubling, and each is taken to cost gamma times the one
 * before, gamma being what this leap cost over the one before it (from 1 up to 4).  A
 * churning pattern's leaps cost twice the one before (gamma 2: HashLife's rate stays what
 * it is); a regular one's cost about the same as their size doubles, so its rate doubles
 * with each leap, and a slow leap now says little of the time to the target.  Without a
 * leap before (the race's first): the rate of this one, as for a churning pattern. */
static double hashlife_to_go(const wl_handover *h, double lt, int64_t way, uint64_t g) {
    if (way <= 0) return 0;
    double gamma = h->prev_leap > 0 ? lt / h->prev_leap : 2;
    gamma = gamma < 1 ? 1 : gamma > 4 ? 4 : gamma;
    double t = 0, step = lt, size = (double)g, covered = 0;
    for (int i = 0; i < 64 && covered < (double)way; i++) {
        size *= 2;
        step *= gamma;
        covered += size;
        t += step;
    }
    return t;
}

/* HashLife's turn in the race: its next leap (2^rexp generations, or what is left of the
 * way to the target), until the leap is done or its credit is spent.  An unfinished leap
 * keeps what it computed in HashLife's memo, so the next turn goes through it quickly.
 * When HashLife draws level with the universe, it takes the universe over (*adv: the
 * generations it got ahead, within `left`).  Fails only when the user interrupted. */
static wl_status leap_end(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                          uint64_t left, uint64_t g, uint64_t d, wl_status s, double dt,
                          uint64_t *adv);

static wl_status race_turn(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                           uint64_t left, uint64_t *adv) {
    *adv = 0;
    const int64_t way = (int64_t)left + h->lag; /* HashLife's generations to the target */
    const uint64_t g = leap_size(h->rexp, way);
    uint64_t d = 0;
    double dt = 0;
    wl_status s = WL_OK;
    if (way > 0) {
        const double t0 = wl_clock();
        h->deadline = h->force ? 0 : t0 + h->credit;
        h->deadline_hit = 0;
        s = h->second->step(h->rc, g, &d);
        h->deadline = 0;
        dt = wl_clock() - t0;
    }
    h->credit -= dt;
    return leap_end(h, ops, ctx, left, g, d, s, dt, adv);
}

static wl_status take_over(wl_handover *h, const wl_engine_ops **ops, void **ctx, double r,
                           uint64_t *adv);

/* What a leap of HashLife's turn (g generations asked, d done, status s, dt seconds) says:
 * its share grows or shrinks, and when it has drawn level with the universe it takes the
 * universe over (*adv: the generations it got ahead, within `left`).  Fails only when the
 * user interrupted. */
static wl_status leap_end(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                          uint64_t left, uint64_t g, uint64_t d, wl_status s, double dt,
                          uint64_t *adv) {
    *adv = 0;
    const int64_t way = (int64_t)left + h->lag; /* (before the leap) */
    h->race_time += dt;
    const double t_s = (double)left / h->rate; /* the sparse engine's time to the target */
    const int64_t behind = h->lag; /* (before the leap) */
    h->lag -= (int64_t)d;
    if (s == WL_ERR_INTERRUPTED && !h->deadline_hit) return s; /* the user's */
    if (s && s != WL_ERR_INTERRUPTED) { /* HashLife out of memory: no more races */
        wl_clear_error();
        race_over(h, *ops, *ctx);
        h->never = 1;
        return WL_OK;
    }
    h->leap_time += dt;
    if (s) { /* cut short by its credit: its share halves once the leap has taken it twice
              * what the sparse engine needs for as many generations and four times the
              * leap before, and again at each doubling of that */
        wl_clear_error();
        double slow = 2 * (double)g / h->rate;
        if (slow < 4 * h->prev_leap) slow = 4 * h->prev_leap; /* (twice a chaotic leap's) */
        if (!h->prev_leap && !h->by_pattern && slow < FIRST_BUDGET * t_s)
            slow = FIRST_BUDGET * t_s; /* (the race's first leap) */
        if (h->leap_time >= slow * h->slow_mark && !h->first_free) {
            share_halve(h);
            h->slow_mark *= 2;
        }
        return WL_OK;
    }
    /* a leap done (or none left to do: at the target already): its rate, over all its
     * turns on the leap, against the sparse engine's; the share doubles or halves */
    const double lt = h->leap_time;
    const double r = way <= 0 ? INFINITY : (double)g / (lt > 1e-9 ? lt : 1e-9);
    h->leap_time = 0;
    h->slow_mark = 1;
    h->leaps++;
    const int first = h->first_free;
    h->first_free = 0;
    const double t_h = hashlife_to_go(h, lt, (int64_t)left + h->lag, g);
    h->prev_leap = lt;
    if (way > 0 && h->rexp < 62) h->rexp++;
    if (r >= h->rate || 2 * t_h <= t_s) {
        h->share = 2 * h->share > RACE_SHARE_MAX ? RACE_SHARE_MAX : 2 * h->share;
        /* (and it may chase at once: the time the lag takes it at this rate, which is less
         * than the sparse engine spent on those generations) */
        const double chase = h->lag > 0 ? (double)h->lag / r : 0;
        if (r >= h->rate && h->credit < chase) h->credit = chase;
    } else if (t_h > 2 * t_s && !first) {
        share_halve(h);
    }
    /* it takes the universe over when this leap took it from behind the universe to level
     * with it or ahead (a leap made while the sparse engine waited wins nothing), at least
     * as fast as the sparse engine, or to the target; under WL_HANDOVER=hashlife after its
     * first leap, and under WL_HANDOVER=back its cells come back to a fresh sparse engine
     * instead */
    const int caught = behind > 0 && h->lag <= 0 && r >= h->rate;
    if (!h->force && !caught && way > (int64_t)g) return WL_OK;
    return take_over(h, ops, ctx, r, adv);
}

/* HashLife takes the universe over from the race, its last leap having run at r
 * generations a second: at the generation it reached (*adv: the generations it is ahead);
 * under WL_HANDOVER=hashlife it runs level first, and under WL_HANDOVER=back its cells go
 * back to a fresh sparse engine instead.  Fails only when the user interrupted. */
static wl_status take_over(wl_handover *h, const wl_engine_ops **ops, void **ctx, double r,
                           uint64_t *adv) {
    *adv = 0;
    racer_quit(h); /* (two cores: HashLife is ours now) */
    wl_status s;
    if (h->force != 2 && h->lag > 0) { /* (tests: it runs level first) */
        uint64_t e = 0;
        s = h->second->step(h->rc, (uint64_t)h->lag, &e);
        if (s) return s;
        h->lag = 0;
    }
    if (h->lag > 0) return WL_OK; /* (WL_HANDOVER=back: behind, nothing to bring back) */
    const uint64_t ahead = (uint64_t)-h->lag;
    if (h->force == 2) {
        void *fc = first_from(h, h->second, h->rc);
        if (!fc) return wl_error(WL_ERR_NOMEM, "auto: out of memory moving the cells back");
        switch_to(h, ops, ctx, h->first, fc);
        race_end(h);
        *adv = ahead;
        return WL_OK;
    }
    if (h->cfg.verbose)
        fprintf(stderr, "warplife: auto: handing the pattern from %s to hashlife (it drew "
                        "level after %.3f s of a race%s, its last leap at %.3g against %.3g "
                        "generations/s)\n",
                h->first->name, h->race_time, h->conc ? " beside it" : "", r,
                h->rate);
    if (h->conc && h->second->set_threads) h->second->set_threads(h->rc, 0);
    switch_to(h, ops, ctx, h->second, h->rc);
    h->rc = NULL;
    h->watching = !h->force || h->force == 3;
    h->watch_rate = h->rate > 0 ? h->rate : 1;
    if (!population_u64(*ops, *ctx, &h->watch_pop)) h->watch_pop = 0;
    *adv = ahead;
    return WL_OK;
}

/* One leap of HashLife after it won a race, timed (see the top): it gets WATCH_SLACK times
 * what the sparse engine would have needed; when it runs past that, the universe goes back
 * to a fresh sparse engine, at the generation HashLife had reached (the leap that ran out of
 * time is dropped), and the races start over, spaced as after one that did not win. */
static wl_status watched_leap(wl_handover *h, const wl_engine_ops **ops, void **ctx,
                              uint64_t left, uint64_t *d) {
    const uint64_t g = leap_size(h->rexp, (int64_t)left);
    double budget = WATCH_SLACK * (double)g / h->watch_rate;
    if (budget < WATCH_MIN_SECONDS) budget = WATCH_MIN_SECONDS;
    const double t0 = wl_clock();
    h->deadline = h->force ? 0 : t0 + budget;
    h->deadline_hit = 0;
    *d = 0;
    wl_status s = (*ops)->step(*ctx, g, d);
    h->deadline = 0;
    if (!s) {
        if (h->rexp < 62) h->rexp++;
        if (h->force != 3 || h->bounced) return WL_OK;
        h->bounced = 1; /* (WL_HANDOVER=bounce: this leap counts as too slow, done as it is) */
        h->deadline_hit = 1;
        s = WL_ERR_INTERRUPTED;
    }
    if (s != WL_ERR_INTERRUPTED || !h->deadline_hit) return s; /* the user's interruption */
    wl_clear_error();
    /* grown past what the sparse engine ran (a breeder: its leaps grow slower as its cells
     * multiply, and 2^30 generations on there are 10^14 cells), the sparse rate measured is
     * no longer the sparse engine's; that, or no memory for the way back: HashLife keeps
     * the universe, unwatched */
    uint64_t pop;
    const int grown = !h->watch_pop || !population_u64(*ops, *ctx, &pop) ||
                      pop / h->growth > h->watch_pop;
    void *fc = grown ? NULL : first_from(h, *ops, *ctx);
    if (!fc) {
        if (grown && h->cfg.verbose)
            fprintf(stderr, "warplife: auto: hashlife keeps the pattern (a leap of %llu "
                            "generations ran past %.3f s, but the pattern has grown more than "
                            "%llux since the sparse engine ran it)\n",
                    (unsigned long long)g, budget, (unsigned long long)h->growth);
        wl_clear_error();
        h->watching = 0;
        return WL_OK;
    }
    if (h->cfg.verbose)
        fprintf(stderr, "warplife: auto: back from hashlife to %s (a leap of %llu generations "
                        "ran past %.3f s, twice %s's time)\n",
                h->first->name, (unsigned long long)g, budget, h->first->name);
    switch_to(h, ops, ctx, h->first, fc);
    h->watching = 0;
    h->since = 0;
    h->next_race *= 2;
    return WL_OK;
}

/* Whether rate_mid was recorded in the current wait for a race (the same next_race, and
 * `since` not started over since). */
static int mid_recorded(const wl_handover *h) {
    return h->mid_next == h->next_race && h->since >= h->mid_since;
}

/* Whether a race that is due waits: on two cores, when the sparse engine keeps more than
 * CONC_THREADED threads busy (so that a race takes a busy thread from it) and its rate has
 * risen SETTLE_RISE-fold since halfway through the wait (a soup settling: its rounds get
 * cheaper by the generation, HashLife's first leap over the churning part takes a second
 * or more, and a race cost the 2048^2 soup to 20000 8-14% on the dev VM, where it paused
 * after 16-22 ms without a leap done).  It then waits as long again.  A pattern whose
 * rate holds or falls (a big circuit, a breeder's growth) races as before. */
static int settling(const wl_handover *h) {
    return h->conc && h->cpu_ratio > CONC_THREADED && mid_recorded(h) && h->rate_mid > 0 &&
           h->rate > SETTLE_RISE * h->rate_mid;
}

wl_status wl_handover_step(wl_handover *h, const wl_engine_ops **ops, void **ctx, uint64_t n,
                           uint64_t *done) {
    *done = 0;
    wl_status s = WL_OK;
    while (*done < n && !s) {
        uint64_t left = n - *done, d = 0;
        if (h->on_second && h->watching) {
            s = watched_leap(h, ops, ctx, left, &d);
            *done += d;
            continue;
        }
        if (h->on_second || h->never) {
            race_over(h, *ops, *ctx);
            s = (*ops)->step(*ctx, left, &d);
            *done += d;
            return s;
        }
        /* the short trial (multi-state, fewer than TRIAL_MIN_GENS to go), not during a race
         * (which would not know of the generations the trial did: HashLife took the
         * universe over that many generations off, and Golly's meteor-guns to 5000 came out
         * with 112930 or 99594 cells instead of 124530) */
        if (h->by_pattern && left < TRIAL_MIN_GENS && !h->short_tried && !h->tried && !h->rc &&
            h->rate > 0 && short_pays(*ops, *ctx, left)) {
            h->short_tried = h->tried = 1;
            if (h->conc && !h->force) { /* two cores: a race beside grow instead (the top) */
                if (race_start(h, *ops, *ctx, 1, 0)) {
                    conc_race_begins(h, *ops, *ctx);
                    h->rexp = 62; /* (its leaps: the largest powers of two to the target) */
                    /* (and no pause: a short run's race is not started over, and its first
                     * leap, the longest, says nothing of its rate until it is done) */
                    h->conc_budget = INFINITY;
                }
                continue;
            }
            double budget = REST_SHARE * (double)left / h->rate;
            if (budget < SHORT_BUDGET) budget = SHORT_BUDGET;
            s = short_trial(h, ops, ctx, left, &d, budget);
            *done += d;
            continue;
        }
        /* a race starts after FIRST_RACE sparse seconds (next_race after one that did not
         * win), with RACE_SHARE of them as HashLife's first credit, or after the first chunk
         * for a pattern that early_pays; and starts over from the universe as it is when
         * the sparse rate has doubled (settling) */
        if (left >= TRIAL_MIN_GENS && !h->tried) {
            int early = 0;
            if (!h->early_done && h->rate > 0) {
                h->early_done = 1;
                early = !h->by_pattern && !h->rc && early_pays(*ops, *ctx);
            }
            int again = h->rc && !h->paused && h->race_rate > 0 && h->rate >= 2 * h->race_rate &&
                        h->since >= SETTLING_MIN_SECONDS && (h->conc || h->credit >= RACE_SLICE);
            again |= h->paused && h->since >= h->next_race; /* (two cores: it resumes) */
            int due = !h->rc && (h->force || early || h->since >= h->next_race);
            if (due && !h->force && !early && settling(h)) { /* (no race yet: see settling) */
                h->next_race = 2 * h->since;
                due = 0;
            }
            if (due || again) {
                if (h->rc && h->conc) { /* (starting over: the racer's leap stops first) */
                    const wl_status hs = racer_halt(h);
                    if (hs && hs != WL_ERR_INTERRUPTED) { /* (it failed) */
                        race_over(h, *ops, *ctx);
                        h->never = 1;
                        continue;
                    }
                }
                const int fresh = !h->rc;
                if (!race_start(h, *ops, *ctx, early, early ? EARLY_CREDIT : RACE_SHARE * h->since))
                    continue;
                h->since = 0;
                h->paused = 0;
                if (h->conc && fresh) /* (its budget by how busy the sparse engine was) */
                    h->conc_budget = h->cpu_ratio > CONC_THREADED ? 1 : INFINITY;
                if (h->conc) conc_race_begins(h, *ops, *ctx);
            }
        }
        /* two cores: what the racer did since the last look; HashLife takes the universe
         * over once it is level with it or ahead (tests: after its first leap, waited for);
         * an idle racer is set going; then the sparse engine's chunk, at the same time */
        if (h->rc && h->conc && !h->paused) {
            wl_status ls = WL_OK;
            const int going = h->asked;
            const int stopped = going && racer_look(h, h->force && !h->tried, &ls);
            if (ls && ls != WL_ERR_INTERRUPTED) { /* (HashLife out of memory) */
                race_over(h, *ops, *ctx);
                h->never = 1;
                continue;
            }
            const double spent = h->race_base + wl_clock() - h->go_time;
            if (!h->force && going &&
                spent > h->conc_budget * FIRST_BUDGET * (double)left / h->rate) {
                /* the sparse engine lost a busy thread to it: it goes on while its time to
                 * the target at its rate so far is within twice the sparse engine's, else
                 * it waits, its memo kept, until the race starts over after twice the
                 * sparse time of the last wait, with twice the budget */
                const double rh = racer_rate(h);
                h->conc_budget *= 2;
                if ((double)((int64_t)left + h->lag) / rh > 2 * (double)left / h->rate) {
                    if (h->cfg.verbose)
                        fprintf(stderr, "warplife: auto: hashlife pauses (it raced %.3f s beside "
                                        "%s at %.3g against %.3g generations/s)\n",
                                spent, h->first->name, rh, h->rate);
                    racer_halt(h);
                    if ((*ops)->set_threads) (*ops)->set_threads(*ctx, 0);
                    h->paused = 1;
                    h->next_race *= 2;
                    h->since = 0;
                    continue;
                }
            }
            if ((h->force && stopped) || (!h->force && going && h->seen && h->lag <= 0)) {
                racer_halt(h); /* (its leap under way stops where it is: ahead still) */
                h->tried = 1;
                s = take_over(h, ops, ctx, racer_rate(h), &d);
                *done += d;
                continue;
            }
            const int64_t way = (int64_t)left + h->lag;
            if (!h->asked && way > 0 && !racer_go(h, way, h->force != 0)) {
                race_over(h, *ops, *ctx); /* (no thread: no more races) */
                h->never = 1;
                continue;
            }
        }
        /* HashLife's turn, when it has credit */
        if (h->rc && !h->conc && (h->force ? !h->tried : h->credit >= RACE_SLICE)) {
            h->tried = 1;
            s = race_turn(h, ops, ctx, left, &d);
            *done += d;
            continue;
        }
        /* the sparse engine's chunk; the race's credit grows by HashLife's share of it */
        uint64_t c = left < h->chunk ? left : h->chunk;
        if (h->force && h->rc && h->conc && c > left / 2) /* (tests: a forced race's leap */
            c = left / 2 ? left / 2 : 1;                   /* ends before the step does) */
        h->tried = 0;
        const double t0 = wl_clock(), p0 = h->conc && !h->rc ? wl_process_clock() : 0;
        h->cut = 0;
        s = (*ops)->step(*ctx, c, &d);
        const double dt = wl_clock() - t0;
        const int cut = s == WL_ERR_INTERRUPTED && h->cut; /* (the racer arrived) */
        if (cut) {
            wl_clear_error();
            s = WL_OK;
        }
        if (h->conc && !h->rc) h->cpu_ratio = (wl_process_clock() - p0) / (dt > 1e-9 ? dt : 1e-9);
        *done += d;
        if (s) break;
        h->since += dt;
        if (d) h->rate = (double)d / (dt > 1e-9 ? dt : 1e-9);
        if (!h->rc && h->since >= h->next_race / 2 && !mid_recorded(h)) {
            h->rate_mid = h->rate; /* (once per wait for a race: see settling) */
            h->mid_next = h->next_race;
            h->mid_since = h->since;
        }
        if (h->rc) {
            if (h->race_rate == 0) h->race_rate = h->rate;
            h->lag += (int64_t)d;
            h->credit += h->share / (1 - h->share) * dt;
        }
        if (cut) continue; /* (a short chunk says nothing of its length) */
        /* (a two-core race looks at the racer after each chunk: shorter ones) */
        const double cs = h->rc && h->conc ? RACE_CHUNK_SECONDS : CHUNK_SECONDS;
        if (dt < cs / 2 && h->chunk < ((uint64_t)1 << 40))
            h->chunk *= 2;
        else if (dt > 2 * cs && h->chunk > 16)
            h->chunk /= 2;
    }
    if (h->rc) { /* the race ends with the call: the next one waits twice as long */
        if (h->cfg.verbose)
            fprintf(stderr, "warplife: auto: %s stays (hashlife raced %.3f s and ended %lld "
                            "generations behind; %s at %.3g generations/s)\n",
                    h->first->name, h->race_time, (long long)h->lag, h->first->name,
                    h->rate);
        race_over(h, *ops, *ctx);
        h->next_race *= 2;
        h->since = 0;
    }
    return s;
}

void wl_handover_stay(wl_handover *h) { h->never = 1; }

wl_status wl_handover_restart(wl_handover *h, const wl_engine_ops **ops, void **ctx) {
    if (*ops != h->first) {
        void *fc = NULL;
        wl_status s = h->first->create(&h->first_cfg, h->first_kernel, &fc);
        if (s) return s;
        switch_to(h, ops, ctx, h->first, fc);
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
    switch_to(h, ops, ctx, h->second, hc);
    return WL_OK;
}

const char *wl_handover_kernel(const wl_handover *h, const wl_engine_ops *ops) {
    return ops == h->first ? h->first_kernel : "default";
}
