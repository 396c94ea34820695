/*
 * test_mpi.c - the `mpi` engine against `ref`, cell by cell, under mpirun with 1..4 ranks.
 *
 * Every rank builds the same random soup (the seed is broadcast from rank 0), evolves it
 * with the mpi engine (collectively) and with `ref` alone in its own process, and compares
 * the full grids that the mpi engine's store gathers on every rank, plus the population.
 * Cases: rules B3/S23, HighLife, Seeds and a B0 rule; torus and bounded; sizes with heights
 * not divisible by the rank count, tiny heights (bands of 0 or 1 row with 4 ranks), widths
 * below and above 64; generation counts 1, 7, 17, 40, 130 (not multiples of the halo
 * depths used: 3, 16 and the default 64, set through WL_MPI_HALO), stepped in one call or
 * in two; the persistent path (inner universe keeps the state, row-strip halos) and, for a
 * quarter of the cases, the full-copy path (WL_MPI_PATH=full).  Inner engines cpu and ref,
 * and cuda with --cuda (on a GPU machine; ranks may share one GPU).
 * Also: the mpi engine's own soup (randomize) followed by steps agrees with ref started
 * from the stored soup (the first exchange must fill the halos); a poll callback on rank 0
 * interrupts every rank at the same generation, and the run then resumes exactly.
 * Failures are summed over ranks; rank 0 prints the harness line and every rank exits
 * nonzero if any rank failed.
 *
 * Usage: mpirun -np N test_mpi [--quick] [--cuda]   (WL_TEST_QUICK=1 also: fewer cases)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "wltest.h"

#include <mpi.h>
#include <string.h>

static int rank_id;

/* Evolves a soup on `engine` and returns the stored pattern (NULL on error, counted). */
static wl_pattern *evolve(const char *engine, const char *kernel, const wl_config *base,
                          const wl_pattern *soup, uint64_t gens, int split, wl_bigint *pop) {
    wl_config cfg = *base;
    cfg.engine = engine;
    cfg.kernel = kernel;
    wl_universe *u = NULL;
    wl_pattern *out = NULL;
    wl_status s = wl_universe_create(&cfg, &u);
    WL_CHECK_OK(s);
    if (s) return NULL;
    wl_test_load_step(u, soup, gens, split);
    WL_CHECK_OK(wl_universe_population(u, pop));
    WL_CHECK_OK(wl_universe_store(u, &out));
    wl_universe_free(u);
    return out;
}

static void run_case(const char *rule_text, wl_topology topo, uint64_t w, uint64_t h,
                     uint64_t gens, int split, const char *kernel, uint64_t seed) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.topology = topo;
    cfg.width = w;
    cfg.height = h;
    cfg.threads = 1; /* ranks already share the cores */
    WL_CHECK_OK(wl_rule_parse(rule_text, &cfg.rule));
    wl_pattern *soup = wl_test_soup(w, h, 0.4, seed);
    wl_bigint pm, pr;
    wl_pattern *a = evolve("mpi", kernel, &cfg, soup, gens, split, &pm);
    wl_pattern *b = evolve("ref", NULL, &cfg, soup, gens, 0, &pr);
    if (a && b) {
        WL_CHECK(wl_pattern_equal_cells(a, b),
                 "rank %d: mpi:%s differs from ref: rule %s %s %llux%llu gens %llu split %d",
                 rank_id, kernel, rule_text, wl_topology_name(topo), (unsigned long long)w,
                 (unsigned long long)h, (unsigned long long)gens, split);
        WL_CHECK(wl_bigint_cmp(&pm, &pr) == 0, "rank %d: population differs (%s %llux%llu)",
                 rank_id, rule_text, (unsigned long long)w, (unsigned long long)h);
    }
    wl_pattern_free(a);
    wl_pattern_free(b);
    wl_pattern_free(soup);
}

/* The mpi engine's soup, then steps, against ref from the stored soup. */
static void check_randomize(const char *kernel, wl_topology topo, uint64_t w, uint64_t h,
                            uint64_t gens, uint64_t seed) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "mpi";
    cfg.kernel = kernel;
    cfg.topology = topo;
    cfg.width = w;
    cfg.height = h;
    cfg.threads = 1;
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    if (!u) return;
    const wl_engine_ops *ops = wl_universe_ops(u);
    WL_CHECK(ops->randomize != NULL, "mpi has no randomize");
    wl_pattern *soup = NULL, *a = NULL, *b = NULL;
    WL_CHECK_OK(ops->randomize(wl_universe_ctx(u), 0.4, seed));
    WL_CHECK_OK(wl_universe_store(u, &soup));
    WL_CHECK(soup && wl_pattern_population(soup) > 0, "empty soup");
    WL_CHECK_OK(wl_universe_step(u, gens));
    WL_CHECK_OK(wl_universe_store(u, &a));
    wl_universe_free(u);
    wl_bigint pr;
    if (soup) b = evolve("ref", NULL, &cfg, soup, gens, 0, &pr);
    WL_CHECK(a && b && wl_pattern_equal_cells(a, b),
             "rank %d: mpi:%s soup + %llu generations differs from ref (%s %llux%llu)", rank_id,
             kernel, (unsigned long long)gens, wl_topology_name(topo), (unsigned long long)w,
             (unsigned long long)h);
    wl_pattern_free(soup);
    wl_pattern_free(a);
    wl_pattern_free(b);
}

/* Rank 0's poll says stop at its third call: every rank must stop at the same generation. */
static int poll_calls;
static int stop_third(void *user) {
    (void)user;
    return ++poll_calls == 3;
}

static void check_poll(const char *kernel, uint64_t seed) {
    wl_config cfg;
    wl_config_init(&cfg);
    cfg.engine = "mpi";
    cfg.kernel = kernel;
    cfg.width = 70;
    cfg.height = 45;
    cfg.threads = 1;
    if (rank_id == 0) cfg.poll = stop_third; /* only rank 0 asks: the decision is shared */
    poll_calls = 0;
    wl_pattern *soup = wl_pattern_new(), *a = NULL, *b = NULL;
    wl_rect r = {-35, -22, 70, 45};
    WL_CHECK_OK(wl_pattern_random(soup, &r, 0.4, seed));
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_universe_create(&cfg, &u));
    if (!u) return;
    WL_CHECK_OK(wl_universe_load(u, soup, NULL));
    const uint64_t total = 200; /* halo 16 below: 13 chunks, stopped after the 3rd */
    wl_status s = wl_universe_step(u, total);
    wl_bigint gen, want;
    wl_universe_generation(u, &gen);
    wl_bigint_from_u64(&want, 48);
    WL_CHECK(s == WL_ERR_INTERRUPTED, "rank %d: step returned %s", rank_id, wl_status_str(s));
    WL_CHECK(wl_bigint_cmp(&gen, &want) == 0, "rank %d: stopped at the wrong generation",
             rank_id);
    uint64_t g = 0;
    wl_bigint_to_u64(&gen, &g);
    cfg.poll = NULL;
    WL_CHECK_OK(wl_universe_step(u, total - g)); /* the rest, with the callback now quiet */
    WL_CHECK_OK(wl_universe_store(u, &a));
    wl_universe_free(u);
    wl_bigint pr;
    b = evolve("ref", NULL, &cfg, soup, total, 0, &pr);
    WL_CHECK(a && b && wl_pattern_equal_cells(a, b),
             "rank %d: mpi:%s interrupted and resumed differs from ref", rank_id, kernel);
    wl_pattern_free(soup);
    wl_pattern_free(a);
    wl_pattern_free(b);
}

/* "mpi:cpu" as one engine name, and the error for an unknown inner kernel. */
static void check_names(void) {
    wl_universe *u = NULL;
    WL_CHECK_OK(wl_test_make("mpi:ref", NULL, WL_TOPOLOGY_TORUS, 20, 9, NULL, 0, &u));
    if (u) {
        WL_CHECK(strcmp(wl_universe_engine(u), "mpi") == 0, "engine %s", wl_universe_engine(u));
        WL_CHECK(strcmp(wl_universe_kernel(u), "ref") == 0, "kernel %s", wl_universe_kernel(u));
        wl_universe_free(u);
    }
    WL_CHECK(wl_test_make("mpi:nosuch", NULL, WL_TOPOLOGY_TORUS, 20, 9, NULL, 0, &u) ==
                 WL_ERR_NOT_FOUND, "unknown kernel accepted");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_id);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int quick = getenv("WL_TEST_QUICK") && atoi(getenv("WL_TEST_QUICK")), cuda = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        if (strcmp(argv[i], "--cuda") == 0) cuda = 1;
    }
    unsigned long long seed = 0;
    if (rank_id == 0) seed = wl_test_seed();
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank_id == 0) printf("test_mpi: %d ranks%s\n", nranks, cuda ? ", inner cuda" : "");

    check_names();
    static const char *const rules[] = {"B3/S23", "B36/S23", "B2/S", "B0123478/S34678"};
    static const uint64_t sizes[][2] = {{37, 23}, {64, 7}, {100, 101}, {5, 3},  {1, 1},
                                        {3, 2},   {130, 4}, {70, 40},  {9, 65}, {200, 33},
                                        {900, 20}};
    static const uint64_t gens[] = {1, 7, 17, 40, 130};
    /* Halo depths (WL_MPI_HALO): many exchanges, the old default, the default (unset). */
    static const char *const halos[] = {"3", "16", NULL};
    /* inner engines: cpu and ref alternate; --cuda: cuda for every case */
    static const char *const kernels[] = {"cpu", "ref"};
    uint64_t state = seed;
    size_t nsizes = quick ? 5 : sizeof sizes / sizeof sizes[0];
    for (size_t ri = 0; ri < sizeof rules / sizeof rules[0]; ri++)
        for (int topo = 0; topo < 2; topo++)
            for (size_t si = 0; si < nsizes; si++)
                for (size_t gi = 0; gi < sizeof gens / sizeof gens[0]; gi++) {
                    uint64_t soup_seed = wl_splitmix64(&state);
                    const char *kernel = cuda ? "cuda" : kernels[(ri + si + gi) % 2];
                    const char *halo = halos[(ri + 2 * si + gi) % 3];
                    if (halo) setenv("WL_MPI_HALO", halo, 1);
                    else unsetenv("WL_MPI_HALO");
                    if ((ri + si + 2 * gi) % 4 == 0) setenv("WL_MPI_PATH", "full", 1);
                    else unsetenv("WL_MPI_PATH");
                    run_case(rules[ri], topo ? WL_TOPOLOGY_BOUNDED : WL_TOPOLOGY_TORUS,
                             sizes[si][0], sizes[si][1], gens[gi], (int)((si + gi) & 1), kernel,
                             soup_seed);
                }
    unsetenv("WL_MPI_PATH");
    setenv("WL_MPI_HALO", "16", 1);
    for (int topo = 0; topo < 2; topo++)
        for (int ki = 0; ki < 2; ki++)
            check_randomize(cuda ? "cuda" : kernels[ki], topo ? WL_TOPOLOGY_BOUNDED
                                                             : WL_TOPOLOGY_TORUS,
                            ki ? 130 : 33, ki ? 37 : 90, 41, wl_splitmix64(&state));
    check_poll(cuda ? "cuda" : "cpu", wl_splitmix64(&state));
    unsetenv("WL_MPI_HALO");

    unsigned long local[2] = {wl_test_passed, wl_test_failed}, total[2];
    MPI_Allreduce(local, total, 2, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    wl_test_passed = total[0];
    wl_test_failed = total[1];
    int rc = 0;
    if (rank_id == 0) rc = wl_test_finish("test_mpi");
    else rc = wl_test_failed ? 1 : 0;
    MPI_Finalize();
    return rc;
}
