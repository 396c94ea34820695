/*
 * hashlife.c - Gosper's HashLife on an unbounded plane: the node store, the memoised
 * recursion, the step driver, garbage collection and the engine table.
 *
 * What it computes.  The universe is a square quadtree centred on cell (0, 0): a node of
 * level k covers 2^k x 2^k cells and has four children of level k-1 (nw, ne, sw, se); the
 * level-3 nodes are leaves holding 8x8 cells in one uint64_t (bit 8*y + x).  Identical
 * subtrees are stored once ("hash-consing"): hl_node_make looks a (nw, ne, sw, se) tuple up
 * in an open-addressing hash table and returns the existing node if there is one, so a
 * node index *is* its content and equal squares anywhere in space and time share
 * everything computed about them.
 *
 * The memoised result.  Because information travels at most one cell per generation, the
 * central 2^(k-1) x 2^(k-1) square of a level-k node is determined 2^(k-2) generations
 * later by the node alone.  hl_result computes that square, advanced by 2^e generations
 * with e = min(k-2, step_exp), and stores it in the node (res, with rexp = e).  For k > 4
 * it splits the node into a 4x4 grid of level k-2 squares, forms the nine overlapping
 * level k-1 squares, and
 *   - at full speed (e = k-2) takes their results (advanced 2^(k-3)), assembles four level
 *     k-1 squares from those, and takes their results again (another 2^(k-3));
 *   - when the step is smaller (e < k-2) takes the nine squares' centres (not advanced)
 *     and only the second round of results advances time, by 2^e.
 * Results at levels with k-2 <= step_exp do not depend on the step size, so changing the
 * step (as --hyper does by doubling it) keeps every memo below the new levels; a result
 * is reused exactly when rexp equals the e wanted.  Level 4 (16x16, four leaves) is the
 * base case: hl_leaf.c advances it 1, 2 or 4 generations with bit-parallel logic.
 *
 * Stepping N generations.  N is split into its binary digits; for each digit 2^b the root
 * is wrapped in empty space until its level is at least b+3 and the live cells lie in its
 * central quarter, so that nothing can leave the central half within 2^b generations; the
 * root's result (one level smaller, same centre) is the new root.  A step's new root is
 * committed only when its whole computation finished, so an interruption (cfg->poll,
 * checked on a countdown inside the recursion) or running out of memory leaves the
 * universe at the last completed power of two.
 *
 * Memory layout.  Nodes are 24-byte structs (four children, the memoised result, the
 * level and the result's exponent, so that a memo check touches one cache line) in one
 * array addressed by 32-bit indices (index 0 = none, at most 2^28 nodes); the hash table
 * is an array of 32-bit slots at most half full, probed linearly, each slot holding a node
 * index in its low 28 bits and a 4-bit tag (the top bits of the node's hash) above it.
 * 32 to 40 bytes per node in all, against 48 or more for stores of 64-bit pointers.  Both
 * arrays are mappings of their own, the table's in transparent huge pages (see map_huge).
 *
 * Why it is fast, and where the time goes.  Nearly all the time is memory latency: a
 * lookup that finds its node costs a miss on the table slot and one on the node; the tag
 * lets a probe skip the nodes of colliding slots without touching them, so a lookup costs
 * one node miss at most (almost always), and the lookup of a new node usually none (on
 * catacryst to 2^40 the tags took the step from 4.2 s to 3.1 s).  Lookups that do not
 * depend on each other (the five intermediate squares, the four second-round squares, the
 * nine centres) are issued together by make_many, which prefetches all their slots, then
 * the node each slot's tag points at, before comparing, so that those misses overlap.
 * What is left in one node's computation is a chain: its three rounds of lookups
 * (intermediate squares, second-round squares, the result itself) each wait for the
 * previous one and for the sub-results between them, about six memory latencies per
 * computed node.  But a computed node usually has several sub-results to compute, and
 * those chains are independent: results are computed in batches of nodes of one level,
 * stage by stage, so that the misses of all of them overlap (see "batches"), which took
 * catacryst to 2^40 from 2.9 s to 1.5 s.
 *
 * Garbage collection.  When the number of nodes reaches the limit derived from
 * cfg->max_memory, nodes reachable from the root, from the canonical empty nodes and from
 * the recursion's protect stack (every node a frame made and still needs is pushed there)
 * are marked, and so are the nodes whose memoised results were used most recently (each
 * result carries a stamp of a clock that ticks with the results computed), following
 * children and those results; the rest go to a free list, results that pointed at them
 * are forgotten, and the hash table is rebuilt.  The recency kept is the most that leaves
 * a quarter of the limit free (see gc).  If even the trees fill seven eighths of the
 * limit, the step fails with WL_ERR_NOMEM and the old root stays in place.
 *
 * Rules: every 2-state Moore rule without B0.  B0 rules would need Golly's alternating
 * emulation; they are refused with WL_ERR_UNSUPPORTED.  Golly's range-1 multi-state
 * families (Generations, History, Super) run on the same tree with the states' other bits
 * in chains hung off the leaves, and their own base case (hl_states.c); Larger than Life
 * is refused.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "hl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HL_POLL_INTERVAL 4096      /* non-memoised results between two calls of cfg->poll */
#define HL_DEFAULT_CAP_BYTES (8ull << 30) /* default memory cap: min(this, RAM / 2) */
#define HL_STACK_PER_LEVEL 40      /* protect-stack entries one recursion frame may push */

/* Large arrays (the nodes, the hash table) live in their own 2 MiB-aligned anonymous
 * mappings.  The hash table's asks for transparent huge pages: its accesses are random
 * over tens of megabytes, so with 4 KiB pages nearly every one also misses the TLB and
 * pays a page walk.  The node array reserves address space for the node limit up front
 * (MAP_NORESERVE: only the pages touched become resident), so it never moves; it keeps
 * small pages: it grows a page at a time as nodes are made, and each huge page fault
 * there cost the kernel milliseconds (zeroing 2 MiB, compacting memory to find them: on
 * the dev VM, catacryst to 2^40 spent 0.57 s of 3.63 s in the kernel with huge node pages,
 * 0.10-0.15 s of 3.21-3.28 s without, its user time 1% higher), while the lookups' misses
 * fall mostly on the table.  A malloc'd block moved by realloc would not be aligned.
 * Where mappings are not available (other systems) or fail (strict overcommit), malloc is
 * used instead. */
#define HL_HUGE_PAGE ((size_t)2 << 20) /* 2 MiB: the x86-64 huge page */

/* Asks for transparent huge pages on [p, p + bytes) of a mapping (advice only). */
static void advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, bytes, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* A zero-filled mapping of `bytes` bytes aligned to HL_HUGE_PAGE, or NULL; `huge`: asking
 * for transparent huge pages. */
static void *map_huge(size_t bytes, int huge) {
#if defined(__linux__) && defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
    size_t span = bytes + HL_HUGE_PAGE;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *p = (char *)(((uintptr_t)raw + HL_HUGE_PAGE - 1) & ~(uintptr_t)(HL_HUGE_PAGE - 1));
    size_t head = (size_t)(p - raw), tail = span - head - bytes;
    if (head) munmap(raw, head);
    if (tail) munmap(p + bytes, tail);
    if (huge) advise_huge(p, bytes); /* advice only: failure is harmless */
    return p;
#else
    (void)bytes;
    (void)huge;
    return NULL;
#endif
}

static void unmap_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
    if (p) munmap(p, bytes);
#else
    (void)p;
    (void)bytes;
#endif
}

/* ---- hashing --------------------------------------------------------------------- */

static inline uint32_t hash4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    uint64_t x = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
    uint64_t y = ((uint64_t)c << 32 | d) * 0xC2B2AE3D27D4EB4Full;
    uint64_t z = x ^ (y >> 29) ^ (y << 7);
    z ^= z >> 32;
    return (uint32_t)(z * 0x94D049BB133111EBull >> 32);
}

/* A table slot holds a node index (low HL_INDEX_BITS bits) and, above it, a tag: the top
 * bits of the node's hash.  A probe dereferences a node only when the tag matches, so a
 * collision costs a compare in the slot's cache line instead of a miss on another node,
 * and looking up a new node touches no node at all (but 1 in 16 times). */
#define HL_TAG_SHIFT HL_INDEX_BITS
#define HL_INDEX_MASK ((1u << HL_INDEX_BITS) - 1)
/* Starts loading node n: both cache lines when the 24-byte node straddles two (a quarter
 * of them do). */
static inline void prefetch_node(const hl_ctx *h, uint32_t n) {
    const char *p = (const char *)&h->nodes[n];
    __builtin_prefetch(p);
    __builtin_prefetch(p + sizeof(hl_node) - 1);
}

static inline uint32_t slot_tag(uint32_t hv) { return hv >> HL_TAG_SHIFT << HL_TAG_SHIFT; }

/* Whether a table holding `live` nodes is due to double.  It doubles at 3/8 full while the
 * doubled table fits the memory the node limit was reckoned with (h->table_most slots), and
 * at half full after that, so that a run under a memory limit keeps as many nodes as
 * before.  Doubling at 3/8 rather than 1/2 leaves the same table at the end on the suite's
 * patterns (the same peak memory) but spends less of the run at high load: catacryst to
 * 2^40 1.71 -> 1.44 s, totalperiodic 0.78 -> 0.72, ruler 0.38 -> 0.36 on one thread;
 * metapixel-p216-gun, which doubles once more near its end, 1.93 -> 2.12 s and 238 -> 297
 * MB; doubling at 5/16 was slower again (docs/BENCHMARKS.md). */
static inline int table_full(const hl_ctx *h, uint64_t live) {
    const uint64_t slots = (uint64_t)h->tmask + 1;
    return slots * 2 <= h->table_most ? live * 8 > slots * 3 : live * 2 > slots;
}

static void table_insert(hl_ctx *h, uint32_t n) {
    const hl_node *p = &h->nodes[n];
    uint32_t hv = hash4(p->c[0], p->c[1], p->c[2], p->c[3]);
    uint32_t i = hv & h->tmask;
    while (h->table[i]) i = (i + 1) & h->tmask;
    h->table[i] = slot_tag(hv) | n;
}

/* Rebuilds the hash table with `slots` entries from every node in use.
 *
 * The table lives in address space reserved once for the largest table the memory limit
 * allows (h->table_most slots), and grows in place: the part in use is cleared and the
 * nodes inserted again, so each doubling faults in only the new half.  Faulting a huge page
 * can cost the kernel milliseconds (compacting memory to find one): on the dev VM a fresh
 * 32 MB table took 38-46 ms to fault in, against 12 ms to insert 1.6M nodes into it, and
 * the old table's pages went back to the kernel at each doubling.  The part in use asks
 * for huge pages once it is a huge page or more (a small pattern keeps a small table). */
static wl_status table_rebuild(hl_ctx *h, uint32_t slots) {
    const size_t bytes = (size_t)slots * sizeof *h->table;
    if (!h->table && h->table_most * sizeof *h->table > bytes) { /* (the first table) */
        size_t most = (size_t)h->table_most * sizeof *h->table;
        if ((h->table = map_huge(most, 0)) != NULL) {
            h->table_reserved = most;
            h->table_mapped = most;
        }
    }
    if (h->table && (slots == h->tmask + 1 || bytes <= h->table_reserved)) {
        /* in place: the part in use so far cleared, the rest is still zero but written
         * too, so that its pages are faulted in for writing now.  Left to the probes, a
         * page was first read (mapping the kernel's zero page) and then written, a second
         * fault that copies it and flushes the TLB of every core the process runs on: with
         * a second thread (a race beside the grow engine, a parallel step) each such flush
         * interrupted the other core, and on the dev VM those flushes were 10% of Golly's
         * small Generations patterns' runs on `auto`. */
        if (bytes >= HL_HUGE_PAGE && bytes > (size_t)(h->tmask + 1) * sizeof *h->table)
            advise_huge(h->table, bytes);
        memset(h->table, 0, bytes);
        h->tmask = slots - 1;
    } else {
        /* tables of at least a huge page get their own mapping (zero-filled by the
         * kernel); if the new table cannot be had, the old one is still intact */
        size_t mapped = 0;
        uint32_t *t = NULL;
        if (bytes >= HL_HUGE_PAGE && (t = map_huge(bytes, 1)) != NULL) mapped = bytes;
        if (!t) t = calloc(slots, sizeof *t);
        if (!t)
            return wl_error(WL_ERR_NOMEM,
                            "hashlife: out of memory for a hash table of %u slots", slots);
        if (h->table_mapped)
            unmap_huge(h->table, h->table_mapped);
        else
            free(h->table);
        h->table = t;
        h->table_mapped = mapped;
        h->table_reserved = 0;
        h->tmask = slots - 1;
    }
    /* slots are prefetched a few nodes ahead: the inserts are random accesses */
    enum { AHEAD = 32 };
    for (uint32_t n = 1; n < h->top; n++) {
        if (n + AHEAD < h->top) {
            const hl_node *a = &h->nodes[n + AHEAD];
            __builtin_prefetch(&h->table[hash4(a->c[0], a->c[1], a->c[2], a->c[3]) & h->tmask]);
        }
        if (h->nodes[n].level) table_insert(h, n);
    }
    return WL_OK;
}

/* ---- garbage collection ------------------------------------------------------------ */

/* Collections keep, besides what the universe needs, the memoised results in use: each
 * result is stamped with a clock when it is read or written (the clock ticks about 1024
 * times while as many results are computed as the node limit holds), and a pass at `age`
 * keeps the nodes whose results were used in the last `age` ticks, their results, and all
 * those reach.  GC_ALL keeps every result of the nodes the universe holds, and no other
 * node; GC_NONE keeps results only where they point at nodes kept anyway. */
#define GC_ALL (-1)
#define GC_NONE (-2)
#define GC_CLOCK_BITS 10 /* ticks of the clock while the limit's worth of results is made */

static inline uint16_t gc_clock(const hl_ctx *h) { return (uint16_t)(h->ticks >> h->tick_shift); }

/* Ticks since node p's result was last used. */
static inline unsigned gc_age(const hl_ctx *h, const hl_node *p) {
    return (uint16_t)(gc_clock(h) - p->used);
}

static inline int gc_recent(const hl_ctx *h, const hl_node *p, int age) {
    return p->rexp != HL_NO_RESULT && gc_age(h, p) <= (unsigned)age;
}

/* Marks everything reachable from the root, the empty nodes, the protect stack and (age >=
 * 0) the nodes whose results were used in the last `age` ticks, following children and
 * the results that `age` keeps; *kept: the nodes marked. */
static wl_status gc_mark(hl_ctx *h, uint8_t *mark, int age, uint32_t *kept) {
    size_t cap = 1024, sp = 0;
    *kept = 0;
    uint32_t *todo = malloc(cap * sizeof *todo);
    if (!todo) return wl_error(WL_ERR_NOMEM, "hashlife: out of memory while collecting");
#define GC_PUSH(x)                                                                       \
    do {                                                                                 \
        uint32_t x_ = (x);                                                               \
        if (x_ && !mark[x_]) {                                                           \
            mark[x_] = 1;                                                                \
            ++*kept;                                                                     \
            if (sp == cap) {                                                             \
                uint32_t *t_ = realloc(todo, 2 * cap * sizeof *todo);                    \
                if (!t_) {                                                               \
                    free(todo);                                                          \
                    return wl_error(WL_ERR_NOMEM, "hashlife: out of memory while collecting"); \
                }                                                                        \
                todo = t_;                                                               \
                cap *= 2;                                                                \
            }                                                                            \
            todo[sp++] = x_;                                                             \
        }                                                                                \
    } while (0)
    GC_PUSH(h->root);
    for (int k = 0; k <= HL_MAX_LEVEL; k++) GC_PUSH(h->empty[k]);
    for (size_t i = 0; i < h->sp; i++) GC_PUSH(h->stack[i]);
    for (uint32_t n = 1; n < h->top && age >= 0; n++)
        if (h->nodes[n].level && gc_recent(h, &h->nodes[n], age)) GC_PUSH(n);
    while (sp) {
        uint32_t n = todo[--sp];
        const hl_node *p = &h->nodes[n];
        if (p->level == HL_LEAF_LEVEL || p->level == HL_PLANE_LEVEL) {
            if (p->c[2] != HL_LEAF_MARK) GC_PUSH(p->c[2]); /* a chain of planes */
            continue;
        }
        GC_PUSH(p->c[0]);
        GC_PUSH(p->c[1]);
        GC_PUSH(p->c[2]);
        GC_PUSH(p->c[3]);
        if (p->rexp != HL_NO_RESULT && (age == GC_ALL || (age >= 0 && gc_recent(h, p, age))))
            GC_PUSH(p->res);
    }
#undef GC_PUSH
    free(todo);
    return WL_OK;
}

/* Puts node n on the free list (the caller counts it out of h->live if it was live). */
static void node_free(hl_ctx *h, uint32_t n) {
    h->nodes[n].level = 0;
    h->nodes[n].c[0] = h->free_head;
    h->free_head = n;
}

/* Frees every unmarked node, and forgets the results that point at one. */
static void gc_sweep(hl_ctx *h, const uint8_t *mark) {
    for (uint32_t n = 1; n < h->top; n++) {
        if (h->nodes[n].level && !mark[n]) {
            node_free(h, n);
            h->live--;
        }
    }
    for (uint32_t n = 1; n < h->top; n++) {
        hl_node *p = &h->nodes[n];
        if (p->level && p->rexp != HL_NO_RESULT && !mark[p->res]) {
            p->rexp = HL_NO_RESULT;
            p->res = 0;
        }
    }
}

/* Collects garbage; fails with WL_ERR_NOMEM when the live trees alone fill the limit.
 * Memoised results are what makes HashLife fast, and most of them belong to nodes that no
 * tree holds any more (the squares a result was assembled from, which the neighbouring
 * squares and later generations look up again by hashing).  So a collection keeps the
 * most recently used results that leave a quarter of the limit free: the age that three
 * quarters of the room's worth of results are within, from a histogram of their stamps,
 * halved until what it keeps fits; then every result of what the universe holds; then
 * none.  Dropping every result that no tree reaches (as Golly does, and this engine did)
 * made a run under half its peak memory recompute most of its work after every
 * collection (catacryst to 2^40 with --maxmemory 100: 357 s against 3.8 s). */
static wl_status gc(hl_ctx *h) {
    h->gc_count++;
    uint8_t *mark = malloc(h->top ? h->top : 1);
    uint32_t *hist = calloc(65536, sizeof *hist);
    if (!mark || !hist) {
        free(mark);
        free(hist);
        return wl_error(WL_ERR_NOMEM, "hashlife: out of memory while collecting");
    }
    const uint32_t room = h->limit - h->limit / 4;
    for (uint32_t n = 1; n < h->top; n++) {
        const hl_node *p = &h->nodes[n];
        if (p->level && p->rexp != HL_NO_RESULT) hist[gc_age(h, p)]++;
    }
    int age = 0;
    for (uint32_t sum = hist[0]; age < 65535 && sum + hist[age + 1] <= room / 4 * 3; age++)
        sum += hist[age + 1];
    free(hist);
    if (h->gc_trees_only) age = GC_NONE;
    wl_status s = WL_OK;
    for (;;) {
        uint32_t kept = 0;
        memset(mark, 0, h->top);
        s = gc_mark(h, mark, age, &kept);
        if (s || kept <= room || age == GC_NONE) break;
        age = age > 0 ? age / 2 : age == 0 ? GC_ALL : GC_NONE;
    }
    if (!s) gc_sweep(h, mark);
    free(mark);
    if (!s) s = table_rebuild(h, h->tmask + 1);
    hl_popcache_reset(h);
    if (s) return s;
    if (h->live > h->limit - h->limit / 8)
        return wl_error(WL_ERR_NOMEM,
                        "hashlife: the pattern needs more than the memory limit of %llu MB "
                        "(%u live nodes); raise --maxmemory",
                        (unsigned long long)(h->max_bytes >> 20), h->live);
    return WL_OK;
}

wl_status hl_collect(hl_ctx *h) { return gc(h); }

/* ---- node store ----------------------------------------------------------------------- */

static wl_status grow_arrays(hl_ctx *h) {
    uint64_t want = h->cap ? (uint64_t)h->cap * 2 : 1u << 16;
    uint64_t most = (uint64_t)h->limit + 64;
    if (want > most) want = most;
    if (want <= h->cap)
        return wl_error(WL_ERR_NOMEM, "hashlife: node store full (%u nodes)", h->cap);
    if (!h->nodes) {
        /* reserve address space for every node the limit allows (see map_huge) */
        size_t bytes = (size_t)most * sizeof *h->nodes;
        bytes = (bytes + HL_HUGE_PAGE - 1) & ~(HL_HUGE_PAGE - 1);
        h->nodes = map_huge(bytes, 0);
        if (h->nodes) h->nodes_mapped = bytes;
    }
    if (!h->nodes_mapped) {
        hl_node *nn = realloc(h->nodes, want * sizeof *nn);
        if (!nn) return wl_error(WL_ERR_NOMEM, "hashlife: out of memory for %llu nodes",
                                 (unsigned long long)want);
        h->nodes = nn;
    } else {
        want = most; /* (the mapping is there: only pages touched become resident, so the
                        whole of it is usable at once, and parallel steps never stop to
                        grow the store) */
    }
    h->cap = (uint32_t)want;
    return WL_OK;
}

/* ---- threads ---------------------------------------------------------------------------
 *
 * A parallel step runs the recursion on every thread of a pool at once, each on a context
 * of its own (its protect stack, failure, clock) over the master's node store and hash
 * table, each visiting the nine and the four sub-squares of every node in its own order
 * (forwards or backwards, from a place that depends on its thread number).  The threads
 * share nothing but memoised results: what one has computed, the others find in the
 * nodes, so they spread over the tree by themselves and the master, which visits in the
 * serial order, finds much of its work done.  Two threads, one going backwards, meet in
 * the middle of every node: on catacryst to 2^40 they compute 0.4% more results than one
 * thread (2.6% when the second went forwards from the middle; ruler 11% against 29%).
 * Results are exact and the same whoever computes them (a square's result is a canonical
 * node), so the answer does not depend on the threads.
 *
 * Marking nodes as being computed, so that others skip them and come back (and compute
 * them too if still not done), was tried: it gained nothing on two threads (the Turing
 * machine 0.37 s against 0.37 s, catacryst 3.7 s against 3.8 s), the threads kept landing
 * on each other's marks, and it is not kept.
 *
 * During a parallel step nodes are made lock-free (find_or_make_par): a new node is
 * written, then published by a compare-and-swap on the empty slot that ended its probe;
 * a thread that loses the slot looks at the winner, and if it is the same square keeps its
 * own node as a spare for the next one.  Node indices come from the free list (popped by
 * compare-and-swap: nothing is pushed during the step, so no index comes back) or from
 * the top of the store, HL_PAR_CHUNK at a time.  A result is written res first,
 * then rexp with release order, and read rexp first with acquire order: every thread
 * computing a node's result in one step computes the same (res, rexp).  What cannot be
 * done while others run (a collection, a larger hash table) stops the step: every thread
 * unwinds, the master does it alone and starts the step again, which finds every result
 * computed so far still memoised (after a collection, the step goes on serially). */
enum { HL_STOP_NONE, HL_STOP_DONE, HL_STOP_LIMIT, HL_STOP_TABLE, HL_STOP_STORE };

static inline int par_stopped(const hl_ctx *h) {
    return h->par && __atomic_load_n(&h->master->stop, __ATOMIC_RELAXED) != HL_STOP_NONE;
}

static void par_stop(hl_ctx *m, int why) {
    int none = HL_STOP_NONE;
    __atomic_compare_exchange_n(&m->stop, &none, why, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* A free node index for a parallel step (counted live), or 0 after stopping the step when
 * a collection or a larger table is due.  The shared counters are touched once per
 * HL_PAR_CHUNK nodes: each thread counts that many live at once and takes that many indices
 * from the top of the store at once (what is left goes back after the step). */
#define HL_PAR_CHUNK 64
static uint32_t par_alloc(hl_ctx *h) {
    hl_ctx *m = h->master;
    uint32_t n = h->spare;
    if (n) {
        h->spare = 0;
        return n;
    }
    if (!h->credit) {
        uint32_t live = __atomic_add_fetch(&m->live, HL_PAR_CHUNK, __ATOMIC_RELAXED);
        if (live >= m->limit || table_full(h, live)) {
            __atomic_sub_fetch(&m->live, HL_PAR_CHUNK, __ATOMIC_RELAXED);
            par_stop(m, live >= m->limit ? HL_STOP_LIMIT : HL_STOP_TABLE);
            return 0;
        }
        h->credit = HL_PAR_CHUNK;
    }
    n = __atomic_load_n(&m->free_head, __ATOMIC_ACQUIRE);
    while (n && !__atomic_compare_exchange_n(&m->free_head, &n,
                                             __atomic_load_n(&h->nodes[n].c[0], __ATOMIC_RELAXED),
                                             1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    if (!n) {
        if (h->chunk_next == h->chunk_end) {
            uint32_t a = __atomic_fetch_add(&m->top, HL_PAR_CHUNK, __ATOMIC_RELAXED);
            if (a >= m->cap) { /* (top is clamped after the step) */
                par_stop(m, HL_STOP_STORE);
                return 0;
            }
            h->chunk_next = a;
            h->chunk_end = m->cap - a < HL_PAR_CHUNK ? m->cap : a + HL_PAR_CHUNK;
        }
        n = h->chunk_next++;
    }
    h->credit--;
    return n;
}

/* The rest of find_or_make_par once its probe has reached the empty slot i: a new node,
 * published there unless another thread fills the slot first (then the probe goes on). */
static __attribute__((noinline)) uint32_t par_make(hl_ctx *h, uint32_t hv, uint32_t i,
                                                   uint32_t a, uint32_t b, uint32_t c,
                                                   uint32_t d, int level) {
    uint32_t tag = slot_tag(hv), n = 0;
    for (;;) {
        uint32_t v = __atomic_load_n(&h->table[i], __ATOMIC_ACQUIRE);
        if (v) {
            if ((v & ~HL_INDEX_MASK) == tag) {
                const hl_node *p = &h->nodes[v & HL_INDEX_MASK];
                if (p->c[0] == a && p->c[1] == b && p->c[2] == c && p->c[3] == d) {
                    if (n) h->spare = n;
                    return v & HL_INDEX_MASK;
                }
            }
            i = (i + 1) & h->tmask;
            continue;
        }
        if (!n) {
            if (par_stopped(h) || !(n = par_alloc(h))) return 0;
            hl_node *p = &h->nodes[n];
            /* (a thread that failed to pop n from the free list may still read c[0]) */
            __atomic_store_n(&p->c[0], a, __ATOMIC_RELAXED);
            p->c[1] = b;
            p->c[2] = c;
            p->c[3] = d;
            p->res = 0;
            p->level = (uint8_t)level;
            p->rexp = HL_NO_RESULT;
            p->used = 0;
        }
        uint32_t empty = 0;
        if (__atomic_compare_exchange_n(&h->table[i], &empty, tag | n, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_ACQUIRE))
            return n;
        /* another thread filled the slot first: look at what it put there */
    }
}

/* find_or_make during a parallel step (hv: the fields' hash4): 0 when the step stops.  The
 * probe is inlined in make_batch, as the serial one is (a node found costs no call). */
static inline uint32_t find_or_make_par(hl_ctx *h, uint32_t hv, uint32_t a, uint32_t b,
                                        uint32_t c, uint32_t d, int level) {
    const uint32_t tag = slot_tag(hv);
    for (uint32_t i = hv & h->tmask;; i = (i + 1) & h->tmask) {
        const uint32_t v = __atomic_load_n(&h->table[i], __ATOMIC_ACQUIRE);
        if (!v) return par_make(h, hv, i, a, b, c, d, level);
        if ((v & ~HL_INDEX_MASK) != tag) continue;
        const hl_node *p = &h->nodes[v & HL_INDEX_MASK];
        if (p->c[0] == a && p->c[1] == b && p->c[2] == c && p->c[3] == d)
            return v & HL_INDEX_MASK;
    }
}

/* Finds or creates the node with fields (a, b, c, d) at `level`, whose hash4 is hv (make_batch
 * has it already); 0 on failure. */
static inline uint32_t find_or_make_hv(hl_ctx *h, uint32_t hv, uint32_t a, uint32_t b,
                                       uint32_t c, uint32_t d, int level) {
    if (h->par) return find_or_make_par(h, hv, a, b, c, d, level);
    uint32_t i = hv & h->tmask, tag = slot_tag(hv);
    for (uint32_t v; (v = h->table[i]) != 0; i = (i + 1) & h->tmask) {
        if ((v & ~HL_INDEX_MASK) != tag) continue;
        uint32_t n = v & HL_INDEX_MASK;
        const hl_node *p = &h->nodes[n];
        if (p->c[0] == a && p->c[1] == b && p->c[2] == c && p->c[3] == d) return n;
    }
    if (h->failure) return 0;
    /* a new node: make room first (which may move or rebuild the table) */
    if (h->live >= h->limit) {
        wl_status s = gc(h);
        if (s) {
            h->failure = s;
            return 0;
        }
        i = hv & h->tmask;
        while (h->table[i]) i = (i + 1) & h->tmask;
    }
    if (table_full(h, h->live + 1)) {
        wl_status s = table_rebuild(h, (h->tmask + 1) * 2);
        if (s) {
            h->failure = s;
            return 0;
        }
        i = hv & h->tmask;
        while (h->table[i]) i = (i + 1) & h->tmask;
    }
    uint32_t n;
    if (h->free_head) {
        n = h->free_head;
        h->free_head = h->nodes[n].c[0];
    } else {
        if (h->top == h->cap) {
            wl_status s = grow_arrays(h);
            if (s) {
                h->failure = s;
                return 0;
            }
        }
        n = h->top++;
    }
    hl_node *p = &h->nodes[n];
    p->c[0] = a;
    p->c[1] = b;
    p->c[2] = c;
    p->c[3] = d;
    p->res = 0;
    h->nodes[n].level = (uint8_t)level;
    h->nodes[n].rexp = HL_NO_RESULT;
    h->live++;
    h->table[i] = tag | n;
    return n;
}

static uint32_t find_or_make(hl_ctx *h, uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                             int level) {
    return find_or_make_hv(h, hash4(a, b, c, d), a, b, c, d, level);
}

uint32_t hl_node_make(hl_ctx *h, uint32_t nw, uint32_t ne, uint32_t sw, uint32_t se) {
    return find_or_make(h, nw, ne, sw, se, h->nodes[nw].level + 1);
}

uint32_t hl_leaf_make(hl_ctx *h, uint64_t bits) {
    return find_or_make(h, (uint32_t)bits, (uint32_t)(bits >> 32), HL_LEAF_MARK, HL_LEAF_MARK,
                        HL_LEAF_LEVEL);
}

uint32_t hl_leaf_make_chain(hl_ctx *h, uint64_t bits, uint32_t chain) {
    return find_or_make(h, (uint32_t)bits, (uint32_t)(bits >> 32), chain, HL_LEAF_MARK,
                        HL_LEAF_LEVEL);
}

uint32_t hl_plane_make(hl_ctx *h, uint32_t lo, uint32_t hi, uint32_t next) {
    return find_or_make(h, lo, hi, next, HL_PLANE_MARK, HL_PLANE_LEVEL);
}

#define HL_WAVE 128 /* lookups of make_batch whose misses are in flight together */

/* Finds or makes `count` nodes of one level (kids[i] their fields) at once, in waves of up
 * to HL_WAVE: first the hash slots of a wave are prefetched, then the nodes those slots
 * name, and only then are they compared, so that the cache misses of independent lookups
 * overlap instead of queueing.  hv: room for count hashes.  Each node is pushed on the
 * protect stack (the caller pops).  Returns 0 on failure. */
static int make_batch(hl_ctx *h, int count, const uint32_t (*kids)[4], uint32_t *hv,
                      int level, uint32_t *out) {
    for (int w0 = 0; w0 < count; w0 += HL_WAVE) {
        int w1 = w0 + HL_WAVE < count ? w0 + HL_WAVE : count;
        for (int i = w0; i < w1; i++) {
            hv[i] = hash4(kids[i][0], kids[i][1], kids[i][2], kids[i][3]);
            __builtin_prefetch(&h->table[hv[i] & h->tmask]);
        }
        /* keep the compiler from fusing the loops: all slot loads must be in flight first */
        __asm__ volatile("" ::: "memory");
        for (int i = w0; i < w1; i++) {
            /* the first node whose tag matches (slots within one cache line ahead) */
            uint32_t j = hv[i] & h->tmask, tag = slot_tag(hv[i]);
            for (int probe = 0; probe < 4; probe++, j = (j + 1) & h->tmask) {
                uint32_t v = __atomic_load_n(&h->table[j], __ATOMIC_RELAXED);
                if (!v) break;
                if ((v & ~HL_INDEX_MASK) == tag) {
                    prefetch_node(h, v & HL_INDEX_MASK);
                    break;
                }
            }
        }
        __asm__ volatile("" ::: "memory");
        for (int i = w0; i < w1; i++) {
            out[i] = find_or_make_hv(h, hv[i], kids[i][0], kids[i][1], kids[i][2], kids[i][3],
                                     level);
            if (!out[i]) return 0;
            hl_push(h, out[i]);
        }
    }
    return 1;
}

/* make_batch for the recursion's few lookups (at most 9). */
static int make_many(hl_ctx *h, int count, const uint32_t (*kids)[4], int level,
                     uint32_t *out) {
    uint32_t hv[9];
    return make_batch(h, count, kids, hv, level, out);
}

uint32_t hl_empty(hl_ctx *h, int level) {
    if (h->empty[level]) return h->empty[level];
    uint32_t n;
    if (level == HL_LEAF_LEVEL) {
        n = hl_leaf_make(h, 0);
    } else {
        uint32_t e = hl_empty(h, level - 1);
        if (!e) return 0;
        n = hl_node_make(h, e, e, e, e);
    }
    h->empty[level] = n;
    return n;
}

void hl_set_root(hl_ctx *h, uint32_t root, int level) {
    h->root = root;
    h->root_level = level;
    /* every level up to the root has its canonical empty node, so that emptiness is one
     * comparison everywhere (a failure here surfaces at the next node made) */
    hl_empty(h, level);
}

wl_status hl_grow_root(hl_ctx *h, int level) {
    if (level > HL_MAX_LEVEL)
        return wl_error(WL_ERR_TOO_BIG, "hashlife: the universe would exceed 2^%d cells across",
                        HL_MAX_LEVEL);
    while (h->root_level < level) {
        int k = h->root_level;
        size_t sp0 = h->sp;
        uint32_t e = hl_empty(h, k - 1), r = h->root;
        if (!e) break;
        const hl_node q = h->nodes[r];
        uint32_t nw = hl_node_make(h, e, e, e, q.c[0]);
        if (nw) hl_push(h, nw);
        uint32_t ne = nw ? hl_node_make(h, e, e, q.c[1], e) : 0;
        if (ne) hl_push(h, ne);
        uint32_t sw = ne ? hl_node_make(h, e, q.c[2], e, e) : 0;
        if (sw) hl_push(h, sw);
        uint32_t se = sw ? hl_node_make(h, q.c[3], e, e, e) : 0;
        if (se) hl_push(h, se);
        uint32_t nr = se ? hl_node_make(h, nw, ne, sw, se) : 0;
        h->sp = sp0;
        if (!nr) break;
        h->root = nr;
        h->root_level = k + 1;
    }
    hl_empty(h, h->root_level);
    if (h->failure) {
        wl_status s = h->failure;
        h->failure = WL_OK;
        return s;
    }
    return WL_OK;
}

/* ---- the recursion ----------------------------------------------------------------------- */

static uint32_t result(hl_ctx *h, uint32_t n, int k);

/* Before recursing into `count` level-k nodes, starts loading the children of those whose
 * result is not memoised yet (the memo check itself hits cache lines just loaded), so that
 * their misses overlap instead of coming one recursion at a time. */
static inline void prefetch_pending(const hl_ctx *h, const uint32_t *n, int count, int k) {
    int e = k - 2 < h->step_exp ? k - 2 : h->step_exp;
    for (int i = 0; i < count; i++) {
        const hl_node *p = &h->nodes[n[i]];
        if (__atomic_load_n(&p->rexp, __ATOMIC_RELAXED) == e || n[i] == h->empty[k]) continue;
        for (int j = 0; j < 4; j++) prefetch_node(h, p->c[j]);
    }
}

/* Node n's result advanced 2^e generations into *r if it is memoised (then marked used);
 * read as result() reads it (see "threads"). */
static inline int memo_get(const hl_ctx *h, uint32_t n, int e, uint32_t *r) {
    hl_node *p = &h->nodes[n];
    if (__atomic_load_n(&p->rexp, __ATOMIC_ACQUIRE) != e) return 0;
    /* (written only when it changes: a store to a node that other threads read takes
     * its cache line away from them) */
    const uint16_t now = gc_clock(h);
    if (__atomic_load_n(&p->used, __ATOMIC_RELAXED) != now)
        __atomic_store_n(&p->used, now, __ATOMIC_RELAXED);
    *r = __atomic_load_n(&p->res, __ATOMIC_RELAXED);
    return 1;
}

/* Counts n results about to be computed against the countdown to the next call of
 * cfg->poll; 0 when that asks to stop (h->failure then says so). */
static int poll_ok(hl_ctx *h, int n) {
    for (int i = 0; i < n; i++) {
        if (--h->poll_countdown) continue;
        h->poll_countdown = HL_POLL_INTERVAL;
        if (h->cfg.poll && h->cfg.poll(h->cfg.poll_user)) {
            h->failure = wl_error(WL_ERR_INTERRUPTED, "hashlife: interrupted");
            return 0;
        }
    }
    return 1;
}

/* The centre 2^(k-1) square of level-k node n advanced 2^min(k-2, step_exp) generations;
 * 0 when the computation must unwind (h->failure says why). */
static uint32_t result(hl_ctx *h, uint32_t n, int k) {
    int e = k - 2 < h->step_exp ? k - 2 : h->step_exp;
    hl_node *np = &h->nodes[n];
    uint32_t r;
    if (memo_get(h, n, e, &r)) return r;
    if (n == h->empty[k]) return h->empty[k - 1];
    if (par_stopped(h) || !poll_ok(h, 1) || h->failure) return 0;
    struct {
        uint32_t c[4];
    } q; /* (the children only: other threads may be writing the result beside them) */
    memcpy(q.c, np->c, sizeof q.c);
    if (k == 4 && h->nplanes) {
        r = hl_states_step(h, q.c, 1 << e);
    } else if (k == 4) {
        r = hl_leaf_make(h, hl_leaf_step(h, hl_leaf_bits(h, q.c[0]), hl_leaf_bits(h, q.c[1]),
                                         hl_leaf_bits(h, q.c[2]), hl_leaf_bits(h, q.c[3]),
                                         1 << e));
    } else {
        size_t sp0 = h->sp;
        /* g: the 4x4 grid of level k-2 squares */
        uint32_t g[4][4];
        for (int j = 0; j < 4; j++) {
            const hl_node *c = &h->nodes[q.c[j]];
            int y = (j >> 1) * 2, x = (j & 1) * 2;
            g[y][x] = c->c[0];
            g[y][x + 1] = c->c[1];
            g[y + 1][x] = c->c[2];
            g[y + 1][x + 1] = c->c[3];
        }
        uint32_t t[3][3]; /* level k-2: the nine overlapping squares, advanced or centred */
        uint32_t kids[9][4], made[9];
        if (e == k - 2) {
            /* the four corner squares are the children; make the five others at once */
            static const int pos[5][2] = {{0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 1}};
            for (int i = 0; i < 5; i++) {
                int y = pos[i][0], x = pos[i][1];
                kids[i][0] = g[y][x];
                kids[i][1] = g[y][x + 1];
                kids[i][2] = g[y + 1][x];
                kids[i][3] = g[y + 1][x + 1];
            }
            if (!make_many(h, 5, (const uint32_t(*)[4])kids, k - 1, made)) return 0;
            uint32_t sq[3][3] = {{q.c[0], made[0], q.c[1]},
                                 {made[1], made[2], made[3]},
                                 {q.c[2], made[4], q.c[3]}};
            prefetch_pending(h, &sq[0][0], 9, k - 1);
            for (int i = 0; i < 9; i++) { /* (in this thread's order) */
                int o = h->ord9[i];
                uint32_t v = result(h, sq[o / 3][o % 3], k - 1);
                if (!v) return 0;
                hl_push(h, v);
                t[o / 3][o % 3] = v;
            }
        } else {
            /* centres of the nine squares: made from great-grandchildren (or leaf bits) */
            int leaf = k - 2 == HL_LEAF_LEVEL;
            if (leaf && h->nplanes) {
                /* multi-state leaves: each centre made (chain first) and protected */
                for (int i = 0; i < 9; i++) {
                    int y = i / 3, x = i % 3;
                    const uint32_t four[4] = {g[y][x], g[y][x + 1], g[y + 1][x], g[y + 1][x + 1]};
                    made[i] = hl_states_centre(h, four);
                    if (!made[i]) return 0;
                    hl_push(h, made[i]);
                }
            }
            for (int y = 0; y < 3 && !(leaf && h->nplanes); y++)
                for (int x = 0; x < 3; x++) {
                    uint32_t *kd = kids[3 * y + x];
                    if (leaf) {
                        uint64_t b = hl_leaf_centre(hl_leaf_bits(h, g[y][x]),
                                                    hl_leaf_bits(h, g[y][x + 1]),
                                                    hl_leaf_bits(h, g[y + 1][x]),
                                                    hl_leaf_bits(h, g[y + 1][x + 1]));
                        kd[0] = (uint32_t)b;
                        kd[1] = (uint32_t)(b >> 32);
                        kd[2] = kd[3] = HL_LEAF_MARK;
                    } else {
                        kd[0] = h->nodes[g[y][x]].c[3];
                        kd[1] = h->nodes[g[y][x + 1]].c[2];
                        kd[2] = h->nodes[g[y + 1][x]].c[1];
                        kd[3] = h->nodes[g[y + 1][x + 1]].c[0];
                    }
                }
            if (!(leaf && h->nplanes) && !make_many(h, 9, (const uint32_t(*)[4])kids, k - 2, made))
                return 0;
            for (int i = 0; i < 9; i++) t[i / 3][i % 3] = made[i];
        }
        /* the four level k-1 squares of those, at once, then their results */
        for (int j = 0; j < 4; j++) {
            int y = j >> 1, x = j & 1;
            kids[j][0] = t[y][x];
            kids[j][1] = t[y][x + 1];
            kids[j][2] = t[y + 1][x];
            kids[j][3] = t[y + 1][x + 1];
        }
        if (!make_many(h, 4, (const uint32_t(*)[4])kids, k - 1, made)) return 0;
        prefetch_pending(h, made, 4, k - 1);
        uint32_t s[4];
        for (int i = 0; i < 4; i++) {
            int j = h->ord4[i];
            s[j] = result(h, made[j], k - 1);
            if (!s[j]) return 0;
            hl_push(h, s[j]);
        }
        r = find_or_make(h, s[0], s[1], s[2], s[3], k - 1);
        h->sp = sp0;
    }
    if (!r) return 0;
    __atomic_store_n(&np->res, r, __ATOMIC_RELAXED);
    __atomic_store_n(&np->rexp, (uint8_t)e, __ATOMIC_RELEASE);
    __atomic_store_n(&np->used, gc_clock(h), __ATOMIC_RELAXED);
    h->ticks++;
    return r;
}

/* ---- batches ---------------------------------------------------------------------------
 *
 * The recursion above waits for one memory access after another: a result's lookups
 * depend on each other (children, then the intermediate squares' slots, then their nodes,
 * then the sub-results, ...), about six latencies a computed node, and the core sits
 * idle meanwhile.  But a computed node usually has several sub-results to compute (on
 * catacryst to 2^40 the nine first-round squares of a computed node have three pending on
 * average), and those are independent.  result_batch computes a batch of up to HL_BATCH
 * nodes of one level together, stage by stage: the children of all of them, then all their
 * intermediate squares' lookups at once (make_batch: every slot prefetched, then every
 * node a slot names, then the comparisons), then every pending sub-result of all of them
 * as batches one level down, and so on; so the misses of a stage overlap across the batch
 * instead of queueing.  The answers are the recursion's (the same memoised results; only
 * the order in which nodes are made differs).  Every rule takes it, on one thread and on
 * two (each thread then takes the pending squares in pieces, starting at a piece of its
 * own: see sub_results); parallel steps of more threads keep the recursion, whose orders
 * spread the threads further (see result_any), and it stays for comparison too
 * (WL_HASHLIFE_BATCH=0, and the tests).  Small multi-state patterns, whose trees stay in the cache, run as fast
 * either way (Golly's flying-sierpinski, sedimental, nova).  Catacryst to 2^40
 * on one thread: 2.9 s with the recursion, 1.5 s in batches; ruler 0.49 -> 0.37 s,
 * totalperiodic to 2^20 1.24 -> 0.70 s (Zen 5 dev VM, docs/BENCHMARKS.md).  Batches of
 * 128 nodes with waves of 128 lookups were the fastest of 16..256 and 16..1024 there. */

/* A level's scratch for batches of up to cap nodes, in one block (a batch of a few nodes
 * touches a page or two of it, not a page an array: most of the deep levels' batches are
 * small).  The set of pending squares has 2^seen_bits entries, at least twice as many as
 * the squares of a batch (9 a node). */
typedef struct hl_bframe {
    int cap, seen_bits;
    uint32_t *todo;     /* indices (into the batch) of the nodes to compute */
    uint32_t (*q)[4];   /* their children */
    uint32_t (*g)[16];  /* the 4x4 grids of grandchildren */
    uint32_t (*sq)[9];  /* first round: the nine squares (level k-1) */
    uint32_t (*t)[9];   /* ... their results or centres (level k-2) */
    uint32_t (*m2)[4];  /* second round: the four squares (level k-1) */
    uint32_t (*s)[4];   /* ... their results (level k-2) */
    uint16_t (*at)[9];  /* where a pending square's result lands in res[] */
    uint32_t *pend, *res;                 /* pending squares (9 cap), their results */
    uint32_t (*kids)[4], *made, *hv;      /* lookups (9 cap) */
    uint32_t *seen;     /* a set of the pending squares (index + 1, 0 = empty) */
    uint16_t *seen_at;  /* ... and where each is in pend[] */
} hl_bframe;

/* Protect-stack entries a batch frame may push, outputs of its callees included. */
#define HL_BATCH_STACK (30 * HL_BATCH)

static void bframes_free(hl_ctx *h) {
    if (h->bframes)
        for (int k = 0; k <= HL_MAX_LEVEL; k++) free(h->bframes[k]);
    free(h->bframes);
    h->bframes = NULL;
}

/* Level k's scratch for a batch of n nodes (made or made larger: no batch of that level
 * is under way then), or NULL. */
static hl_bframe *bframe(hl_ctx *h, int k, int n) {
    if (!h->bframes && !(h->bframes = calloc(HL_MAX_LEVEL + 1, sizeof *h->bframes))) return NULL;
    hl_bframe *f = h->bframes[k];
    if (f && f->cap >= n) return f;
    int cap = 8, sb = 4;
    while (cap < n) cap *= 2;
    while ((1 << sb) < 2 * 9 * cap) sb++;
    const size_t c = (size_t)cap, ns = (size_t)1 << sb;
    const size_t bytes = sizeof *f + c * (1 + 4 + 16 + 9 + 9 + 4 + 4) * 4 + c * 9 * 2 +
                         9 * c * (1 + 1 + 4 + 1 + 1) * 4 + ns * 4 + ns * 2 + 64;
    free(f);
    h->bframes[k] = f = malloc(bytes);
    if (!f) return NULL;
    char *p = (char *)(f + 1);
#define HL_CARVE(field, count)                                                              \
    (f->field = (void *)p, p += (count) * sizeof *f->field)
    HL_CARVE(todo, c);
    HL_CARVE(q, c);
    HL_CARVE(g, c);
    HL_CARVE(sq, c);
    HL_CARVE(t, c);
    HL_CARVE(m2, c);
    HL_CARVE(s, c);
    HL_CARVE(pend, 9 * c);
    HL_CARVE(res, 9 * c);
    HL_CARVE(kids, 9 * c);
    HL_CARVE(made, 9 * c);
    HL_CARVE(hv, 9 * c);
    HL_CARVE(seen, ns);
    HL_CARVE(at, c);
    HL_CARVE(seen_at, ns);
#undef HL_CARVE
    f->cap = cap;
    f->seen_bits = sb;
    return f;
}

static int result_batch(hl_ctx *h, const uint32_t *in, int cnt, int k, uint32_t *out);

/* The results of the level-k squares sq[i][0 .. per) of the nt nodes being computed, into
 * t: memoised ones read (and pushed), the others computed once each (a square may recur)
 * as batches of level k (their results pushed by the callee).  0 on failure. */
static int sub_results(hl_ctx *h, hl_bframe *f, int nt, const uint32_t *sq, int per,
                       uint32_t *t, int k) {
    const int e = k - 2 < h->step_exp ? k - 2 : h->step_exp;
    int np = 0, bits = 4;
    while ((1 << bits) < 2 * nt * per) bits++;
    const uint32_t mask = (1u << bits) - 1;
    memset(f->seen, 0, sizeof *f->seen << bits);
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < per; j++) {
            uint32_t x = sq[i * per + j], r;
            if (memo_get(h, x, e, &r)) {
                t[i * per + j] = r;
                hl_push(h, r);
                f->at[i][j] = UINT16_MAX;
                continue;
            }
            if (x == h->empty[k]) {
                t[i * per + j] = h->empty[k - 1];
                f->at[i][j] = UINT16_MAX;
                continue;
            }
            uint32_t slot = (x * 0x9E3779B1u) >> (32 - bits);
            while (f->seen[slot] && f->seen[slot] != x + 1) slot = (slot + 1) & mask;
            if (!f->seen[slot]) {
                f->seen[slot] = x + 1;
                f->seen_at[slot] = (uint16_t)np;
                f->pend[np++] = x;
            }
            f->at[i][j] = f->seen_at[slot];
        }
    if (!np) return 1;
    for (int i = 0; i < np; i++) {
        const hl_node *p = &h->nodes[f->pend[i]];
        for (int c = 0; c < 4; c++) prefetch_node(h, p->c[c]);
    }
    /* in batches of at most HL_BATCH; in a parallel step in at least as many pieces as
     * there are threads, each thread starting at another (so that they part ways, as the
     * recursion's orders make them; a piece another finished is memoised) */
    int pieces = (np + HL_BATCH - 1) / HL_BATCH;
    if (h->par && pieces < h->nthreads) pieces = np < h->nthreads ? np : h->nthreads;
    const int first = h->par ? h->tid * pieces / h->nthreads : 0;
    for (int c = 0; c < pieces; c++) {
        const int pc = (first + c) % pieces, c0 = np * pc / pieces, c1 = np * (pc + 1) / pieces;
        if (!result_batch(h, f->pend + c0, c1 - c0, k, f->res + c0)) return 0;
    }
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < per; j++)
            if (f->at[i][j] != UINT16_MAX) t[i * per + j] = f->res[f->at[i][j]];
    return 1;
}

/* The results of cnt (<= HL_BATCH) level-k nodes in[] (protected by the caller) into
 * out[], as result() computes them, each pushed on the protect stack (the caller pops);
 * 0 when the computation must unwind (h->failure says why, or a parallel step stopped). */
static int result_batch(hl_ctx *h, const uint32_t *in, int cnt, int k, uint32_t *out) {
    const int e = k - 2 < h->step_exp ? k - 2 : h->step_exp;
    if (h->sp + HL_BATCH_STACK > h->stack_cap) {
        size_t cap = h->stack_cap * 2;
        uint32_t *ns = realloc(h->stack, cap * sizeof *ns);
        if (!ns) {
            h->failure = wl_error(WL_ERR_NOMEM, "hashlife: out of memory");
            return 0;
        }
        h->stack = ns;
        h->stack_cap = cap;
    }
    hl_bframe *f = bframe(h, k, cnt);
    if (cnt > h->batch_most) h->batch_most = cnt;
    if (!f) {
        h->failure = wl_error(WL_ERR_NOMEM, "hashlife: out of memory");
        return 0;
    }
    const size_t sp0 = h->sp;
    int nt = 0;
    if (par_stopped(h)) return 0;
    for (int i = 0; i < cnt; i++) {
        if (memo_get(h, in[i], e, &out[i])) {
            hl_push(h, out[i]); /* (until the outputs are pushed below) */
        } else if (in[i] == h->empty[k]) {
            out[i] = h->empty[k - 1];
        } else {
            f->todo[nt++] = (uint32_t)i;
        }
    }
    if (!poll_ok(h, nt) || h->failure) return 0;
    if (nt) {
        /* the children, and the grandchildren's grid */
        for (int a = 0; a < nt; a++) {
            memcpy(f->q[a], h->nodes[in[f->todo[a]]].c, sizeof f->q[a]);
            for (int j = 0; j < 4; j++) prefetch_node(h, f->q[a][j]);
        }
        if (k == 4 && h->nplanes) {
            for (int a = 0; a < nt; a++) {
                uint32_t r = hl_states_step(h, f->q[a], 1 << e);
                if (!r) return 0;
                hl_push(h, r);
                f->made[a] = r;
            }
        } else if (k == 4) { /* the leaves' steps, then their lookups at once */
            for (int a = 0; a < nt; a++) {
                const uint32_t *q = f->q[a];
                uint64_t b = hl_leaf_step(h, hl_leaf_bits(h, q[0]), hl_leaf_bits(h, q[1]),
                                          hl_leaf_bits(h, q[2]), hl_leaf_bits(h, q[3]), 1 << e);
                uint32_t *kd = f->kids[a];
                kd[0] = (uint32_t)b;
                kd[1] = (uint32_t)(b >> 32);
                kd[2] = kd[3] = HL_LEAF_MARK;
            }
            if (!make_batch(h, nt, (const uint32_t(*)[4])f->kids, f->hv, HL_LEAF_LEVEL, f->made))
                return 0;
        } else {
            for (int a = 0; a < nt; a++)
                for (int j = 0; j < 4; j++) {
                    const hl_node *c = &h->nodes[f->q[a][j]];
                    int y = (j >> 1) * 2, x = (j & 1) * 2;
                    f->g[a][y * 4 + x] = c->c[0];
                    f->g[a][y * 4 + x + 1] = c->c[1];
                    f->g[a][(y + 1) * 4 + x] = c->c[2];
                    f->g[a][(y + 1) * 4 + x + 1] = c->c[3];
                }
            if (e == k - 2) {
                /* the five intermediate squares of each, at once; then every pending
                 * first-round result, a level down */
                static const int pos[5][2] = {{0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 1}};
                for (int a = 0; a < nt; a++)
                    for (int i = 0; i < 5; i++) {
                        const uint32_t *g = f->g[a] + pos[i][0] * 4 + pos[i][1];
                        uint32_t *kd = f->kids[a * 5 + i];
                        kd[0] = g[0];
                        kd[1] = g[1];
                        kd[2] = g[4];
                        kd[3] = g[5];
                    }
                if (!make_batch(h, 5 * nt, (const uint32_t(*)[4])f->kids, f->hv, k - 1, f->made))
                    return 0;
                for (int a = 0; a < nt; a++) {
                    const uint32_t *q = f->q[a], *m = f->made + a * 5;
                    uint32_t *sq = f->sq[a];
                    sq[0] = q[0], sq[1] = m[0], sq[2] = q[1];
                    sq[3] = m[1], sq[4] = m[2], sq[5] = m[3];
                    sq[6] = q[2], sq[7] = m[4], sq[8] = q[3];
                }
                if (!sub_results(h, f, nt, &f->sq[0][0], 9, &f->t[0][0], k - 1)) return 0;
            } else {
                /* the nine centres (no time step), made from great-grandchildren or leaf
                 * bits */
                const int leaf = k - 2 == HL_LEAF_LEVEL;
                if (!leaf)
                    for (int a = 0; a < nt; a++)
                        for (int j = 0; j < 16; j++) prefetch_node(h, f->g[a][j]);
                if (leaf && h->nplanes) /* (multi-state leaves: each centre made, chain
                                           first, and protected) */
                    for (int a = 0; a < nt; a++)
                        for (int i = 0; i < 9; i++) {
                            const uint32_t *g = f->g[a] + i / 3 * 4 + i % 3;
                            const uint32_t four[4] = {g[0], g[1], g[4], g[5]};
                            if (!(f->t[a][i] = hl_states_centre(h, four))) return 0;
                            hl_push(h, f->t[a][i]);
                        }
                for (int a = 0; a < nt && !(leaf && h->nplanes); a++)
                    for (int y = 0; y < 3; y++)
                        for (int x = 0; x < 3; x++) {
                            const uint32_t *g = f->g[a] + y * 4 + x;
                            uint32_t *kd = f->kids[a * 9 + y * 3 + x];
                            if (leaf) {
                                uint64_t b = hl_leaf_centre(hl_leaf_bits(h, g[0]),
                                                            hl_leaf_bits(h, g[1]),
                                                            hl_leaf_bits(h, g[4]),
                                                            hl_leaf_bits(h, g[5]));
                                kd[0] = (uint32_t)b;
                                kd[1] = (uint32_t)(b >> 32);
                                kd[2] = kd[3] = HL_LEAF_MARK;
                            } else {
                                kd[0] = h->nodes[g[0]].c[3];
                                kd[1] = h->nodes[g[1]].c[2];
                                kd[2] = h->nodes[g[4]].c[1];
                                kd[3] = h->nodes[g[5]].c[0];
                            }
                        }
                if (!(leaf && h->nplanes) &&
                    !make_batch(h, 9 * nt, (const uint32_t(*)[4])f->kids, f->hv, k - 2,
                                &f->t[0][0]))
                    return 0;
            }
            /* the four second-round squares of each, at once, then their results */
            for (int a = 0; a < nt; a++)
                for (int j = 0; j < 4; j++) {
                    const uint32_t *t = f->t[a] + (j >> 1) * 3 + (j & 1);
                    uint32_t *kd = f->kids[a * 4 + j];
                    kd[0] = t[0];
                    kd[1] = t[1];
                    kd[2] = t[3];
                    kd[3] = t[4];
                }
            if (!make_batch(h, 4 * nt, (const uint32_t(*)[4])f->kids, f->hv, k - 1, &f->m2[0][0]))
                return 0;
            if (!sub_results(h, f, nt, &f->m2[0][0], 4, &f->s[0][0], k - 1)) return 0;
            /* the results themselves */
            if (!make_batch(h, nt, (const uint32_t(*)[4])f->s, f->hv, k - 1, f->made)) return 0;
        }
        for (int a = 0; a < nt; a++) {
            hl_node *np = &h->nodes[in[f->todo[a]]];
            __atomic_store_n(&np->res, f->made[a], __ATOMIC_RELAXED);
            __atomic_store_n(&np->rexp, (uint8_t)e, __ATOMIC_RELEASE);
            __atomic_store_n(&np->used, gc_clock(h), __ATOMIC_RELAXED);
            out[f->todo[a]] = f->made[a];
        }
        h->ticks += (uint64_t)nt;
    }
    /* only the outputs stay protected */
    h->sp = sp0;
    for (int i = 0; i < cnt; i++) hl_push(h, out[i]);
    return 1;
}

/* Node n's result: in batches, but for parallel steps of more than HL_BATCH_THREADS
 * threads (or when the recursion is asked for).  On the GPU machine's 16-core Xeon the
 * threads' pieces of batches spread worse than the recursion's orders from 4 threads on:
 * catacryst to 2^40 1.51 / 1.48 s on 4 / 8 threads against 1.40 / 1.18 (two threads: 1.98
 * against 2.18, one: 3.46 against 4.38; docs/BENCHMARKS.md). */
#define HL_BATCH_THREADS 2
static uint32_t result_any(hl_ctx *h, uint32_t n, int k) {
    if (!h->batch || (h->par && h->nthreads > HL_BATCH_THREADS)) return result(h, n, k);
    uint32_t r;
    return result_batch(h, &n, 1, k, &r) ? r : 0;
}

/* 1 if the live cells of the root lie in its central quarter (level >= 6). */
static int in_central_quarter(const hl_ctx *h) {
    const hl_node *r = &h->nodes[h->root];
    int k = h->root_level;
    for (int j = 0; j < 4; j++) {
        const hl_node *c = &h->nodes[r->c[j]];
        for (int i = 0; i < 4; i++)
            if (i != 3 - j && c->c[i] != h->empty[k - 2]) return 0;
        const hl_node *gc_ = &h->nodes[c->c[3 - j]];
        for (int i = 0; i < 4; i++)
            if (i != 3 - j && gc_->c[i] != h->empty[k - 3]) return 0;
    }
    return 1;
}

/* ---- parallel steps (see "threads") ------------------------------------------------------ */

#define HL_PAR_MIN_EXP 6        /* steps of 2^6 generations or more run on the threads, */
#define HL_PAR_MIN_LAST 1024    /* unless the step before computed fewer results than this, */
#define HL_PAR_MIN_TICKS 20000  /* and shorter ones after a step that computed this many */

static void par_task(void *arg, int tid, int nthreads) {
    (void)nthreads;
    hl_ctx *m = arg;
    hl_ctx *h = tid ? &m->helpers[tid - 1] : m;
    uint32_t r = result_any(h, m->root, m->root_level);
    if (tid == 0) { /* the master's answer ends the step (the others may stop anywhere) */
        m->par_root = r;
        par_stop(m, HL_STOP_DONE);
    }
}

/* Gives back what thread context h holds after a parallel step: its spare node (made for
 * an insertion that another thread won, not in the table), the live count it reserved and
 * did not use, the indices it took and did not use. */
static void par_give_back(hl_ctx *m, hl_ctx *h) {
    if (h->spare) {
        node_free(m, h->spare);
        m->live--;
    }
    for (uint32_t n = h->chunk_next; n < h->chunk_end; n++) node_free(m, n);
    m->live -= h->credit;
    h->spare = h->credit = h->chunk_next = h->chunk_end = 0;
}

/* The root's result computed on all threads at once; 0 with m->stop saying why when the
 * step must stop for a collection, a larger table or store, 0 with m->failure on failure. */
static uint32_t par_result(hl_ctx *m) {
    m->stop = HL_STOP_NONE;
    m->master = m;
    m->par = 1;
    m->spare = m->credit = m->chunk_next = m->chunk_end = 0;
    const uint64_t ticks0 = m->ticks;
    for (int i = 0; i < m->nthreads - 1; i++) { /* each a copy of the master's, but for its
                                                      own stack, scratch and orders */
        hl_ctx *h = &m->helpers[i];
        const hl_ctx own = *h;
        *h = *m;
        h->stack = own.stack;
        h->stack_cap = own.stack_cap;
        h->bframes = own.bframes;
        h->tid = own.tid;
        memcpy(h->ord9, own.ord9, sizeof h->ord9);
        memcpy(h->ord4, own.ord4, sizeof h->ord4);
        h->sp = 0;
        h->failure = WL_OK;
        h->cfg.poll = NULL; /* (the master polls) */
        h->poll_countdown = UINT32_MAX;
        h->pool = NULL;
        h->helpers = NULL;
    }
    wl_pool_run(m->pool, par_task, m);
    m->par = 0;
    if (m->top > m->cap) m->top = m->cap; /* (threads that found the store full) */
    par_give_back(m, m);
    m->par_ticks[0] += m->ticks - ticks0;
    for (int i = 0; i < m->nthreads - 1; i++) {
        hl_ctx *h = &m->helpers[i];
        par_give_back(m, h);
        m->ticks += h->ticks - ticks0;
        m->par_ticks[1] += h->ticks - ticks0;
    }
    m->par_steps++;
    return m->par_root;
}

/* The root's result: on the threads when there are several and the step is long enough
 * to pay for waking them, else on this one.  A pattern whose steps compute few results
 * (a small regular one: Golly's Generations spirals and ships, a few thousand results a
 * step) stays on one thread: each parallel step cost 0.1-0.2 ms of waking, sharing and
 * giving back, more than its results (transers to 1000: 4.5 ms on two threads against
 * 3.6 on one, whole command, dev VM). */
static uint32_t root_result(hl_ctx *h) {
    const uint64_t ticks0 = h->ticks;
    const int small_last = h->stepped && h->last_ticks < HL_PAR_MIN_LAST;
    int par = h->nthreads > 1 && wl_pool_active(h->pool) > 1 &&
              ((h->step_exp >= HL_PAR_MIN_EXP && !small_last) ||
               h->last_ticks >= HL_PAR_MIN_TICKS);
    uint32_t r;
    for (;;) {
        h->sp = 0; /* (what an unwound try pushed) */
        if (!par) {
            r = result_any(h, h->root, h->root_level);
            break;
        }
        r = par_result(h);
        if (r || h->failure || h->stop == HL_STOP_DONE) break;
        /* what the threads could not do together: then the step again (its results so far
         * are memoised), serially after a collection */
        h->par_retries++;
        wl_status s = WL_OK;
        if (h->stop == HL_STOP_LIMIT) {
            s = gc(h);
            par = 0;
        } else if (h->stop == HL_STOP_TABLE) {
            s = table_rebuild(h, (h->tmask + 1) * 2);
        } else if (h->cap < (uint64_t)h->limit + 64) {
            s = grow_arrays(h);
        } else {
            par = 0; /* the store's last indices: serially, from its free list */
        }
        if (s) {
            h->failure = s;
            r = 0;
            break;
        }
    }
    h->last_ticks = h->ticks - ticks0;
    h->stepped = 1;
    return r;
}

/* Advances the root 2^b generations; on failure the root is unchanged. */
static wl_status step_pow2(hl_ctx *h, int b) {
    h->step_exp = b;
    int need = b + 3 > HL_MIN_ROOT_LEVEL ? b + 3 : HL_MIN_ROOT_LEVEL;
    wl_status s = hl_grow_root(h, need);
    if (s) return s;
    while (!in_central_quarter(h)) {
        s = hl_grow_root(h, h->root_level + 1);
        if (s) return s;
    }
    h->sp = 0;
    if (!hl_empty(h, h->root_level)) {
        s = h->failure;
        h->failure = WL_OK;
        return s;
    }
    uint32_t r = root_result(h);
    h->sp = 0;
    if (!r) {
        s = h->failure ? h->failure : wl_error(WL_ERR_NOMEM, "hashlife: step failed");
        h->failure = WL_OK;
        return s;
    }
    h->root = r;
    h->root_level--;
    return WL_OK;
}

static wl_status hl_step(void *ctx, uint64_t generations, uint64_t *done) {
    hl_ctx *h = ctx;
    *done = 0;
    for (int b = 0; b < 64; b++) {
        if (!(generations >> b & 1)) continue;
        wl_status s = step_pow2(h, b);
        if (s) return s;
        *done += (uint64_t)1 << b;
    }
    return WL_OK;
}

/* ---- create / destroy ---------------------------------------------------------------------- */

static void hl_destroy(void *ctx) {
    hl_ctx *h = ctx;
    if (!h) return;
    const char *st = getenv("WL_HASHLIFE_STATS");
    if (st && atoi(st) > 0)
        fprintf(stderr, "warplife: hashlife: %llu results computed, %d thread%s; %llu parallel "
                        "steps (%llu tries stopped for a collection or a larger store): %llu "
                        "results on the calling thread, %llu on the others; %llu collections\n",
                (unsigned long long)h->ticks, h->nthreads, h->nthreads == 1 ? "" : "s",
                (unsigned long long)h->par_steps, (unsigned long long)h->par_retries,
                (unsigned long long)h->par_ticks[0], (unsigned long long)h->par_ticks[1],
                (unsigned long long)h->gc_count);
    if (h->nodes_mapped)
        unmap_huge(h->nodes, h->nodes_mapped);
    else
        free(h->nodes);
    if (h->table_mapped)
        unmap_huge(h->table, h->table_mapped);
    else
        free(h->table);
    free(h->stack);
    free(h->leaf_table);
    bframes_free(h);
    hl_popcache_reset(h);
    wl_pool_destroy(h->pool);
    if (h->helpers)
        for (int i = 0; i < h->nthreads - 1; i++) {
            free(h->helpers[i].stack);
            bframes_free(&h->helpers[i]);
        }
    free(h->helpers);
    free(h);
}

/* The order in which thread t of n visits the nine and the four sub-squares: odd threads
 * backwards, pairs from evenly spread places (two threads meet in the middle of every
 * node: far fewer results computed twice than with one rotated order); thread 0 visits in
 * the serial order. */
static void thread_orders(hl_ctx *h, int t, int n) {
    const int pairs = (n + 1) / 2, back = t & 1;
    const int r9 = 9 * (t / 2) / pairs, r4 = 4 * (t / 2) / pairs;
    for (int j = 0; j < 9; j++) {
        int o = (j + r9) % 9;
        h->ord9[j] = (uint8_t)(back ? 8 - o : o);
    }
    for (int j = 0; j < 4; j++) {
        int o = (j + r4) % 4;
        h->ord4[j] = (uint8_t)(back ? 3 - o : o);
    }
}

/* The threads of parallel steps: cfg->threads, or (0) HL_DEFAULT_THREADS or the cores if
 * fewer; one when the store is not one reserved mapping (it would move as it grows) or
 * the pool cannot be had.  On a 16-core machine 8 threads were the fastest or nearly on
 * the suite's patterns, and 16 computed many results twice (catacryst: 11.1M results
 * against 5.3M on one thread, 7.1M on 8; docs/BENCHMARKS.md), so more are only used when
 * asked for. */
#define HL_DEFAULT_THREADS 8
static void threads_init(hl_ctx *h) {
    thread_orders(h, 0, 1);
    h->master = h;
    h->nthreads = 1;
    int n = h->cfg.threads > 0 ? h->cfg.threads : wl_cpu_count();
    if (h->cfg.threads <= 0 && n > HL_DEFAULT_THREADS) n = HL_DEFAULT_THREADS;
    if (n > 256) n = 256;
    if (n <= 1 || !h->nodes_mapped) return;
    h->helpers = calloc((size_t)n - 1, sizeof *h->helpers);
    int ok = h->helpers != NULL;
    for (int i = 0; ok && i < n - 1; i++) {
        ok = (h->helpers[i].stack = malloc(h->stack_cap * sizeof *h->stack)) != NULL;
        h->helpers[i].stack_cap = h->stack_cap;
        h->helpers[i].tid = i + 1;
        thread_orders(&h->helpers[i], i + 1, n);
    }
    if (ok) ok = (h->pool = wl_pool_create(n)) != NULL;
    if (!ok) { /* serial, then */
        if (h->helpers)
            for (int i = 0; i < n - 1; i++) free(h->helpers[i].stack);
        free(h->helpers);
        h->helpers = NULL;
        wl_clear_error();
        return;
    }
    h->nthreads = n;
}

static wl_status hl_create(const wl_config *cfg, const char *kernel, void **out) {
    (void)kernel;
    *out = NULL;
    hl_ctx *h = calloc(1, sizeof *h);
    if (!h) return wl_error(WL_ERR_NOMEM, "hashlife: out of memory");
    h->cfg = *cfg;
    h->rule = cfg->rule;
    wl_status st = hl_states_init(h);
    if (st) {
        free(h);
        return st;
    }
    h->totalistic = wl_rule_is_totalistic(&h->step_rule, &h->birth, &h->survive);
    h->leaf_isa = hl_leaf_best_isa();
    h->life = h->totalistic && h->birth == (1u << 3) && h->survive == ((1u << 2) | (1u << 3));
    if (!h->totalistic && (st = hl_leaf_table_init(h)) != WL_OK) {
        free(h);
        return st;
    }
    uint64_t maxb = cfg->max_memory;
    if (!maxb) {
        maxb = wl_physical_memory() / 2;
        if (maxb > HL_DEFAULT_CAP_BYTES) maxb = HL_DEFAULT_CAP_BYTES;
    }
    h->max_bytes = maxb;
    /* nodes of 24 bytes and a table of 4-byte slots, a power of two at least twice the
     * nodes: the table size that leaves room for the most nodes (was maxb / 40 bytes, the
     * worst case of any table size: up to a fifth of the limit unused) */
    uint64_t lim = 0, most = 1u << 10;
    for (uint64_t t = 1u << 10; 4 * t < maxb; t *= 2) {
        uint64_t l = (maxb - 4 * t) / sizeof(hl_node);
        if (l > t / 2) l = t / 2;
        if (l > lim) {
            lim = l;
            most = t;
        }
    }
    h->table_most = most;
    if (lim > HL_INDEX_MASK - 64) lim = HL_INDEX_MASK - 64; /* indices fit a table slot */
    if (lim < 1024) lim = 1024;
    h->limit = (uint32_t)lim;
    for (h->tick_shift = 0; (h->limit >> h->tick_shift) > (1u << GC_CLOCK_BITS);) h->tick_shift++;
    h->poll_countdown = HL_POLL_INTERVAL;
    const char *bt = getenv("WL_HASHLIFE_BATCH");
    h->batch = !(bt && !strcmp(bt, "0"));
    h->stack_cap = (size_t)(HL_MAX_LEVEL + 2) * HL_STACK_PER_LEVEL;
    h->stack = malloc(h->stack_cap * sizeof *h->stack);
    h->top = 1; /* index 0 is "none" */
    wl_status s = h->stack ? WL_OK : wl_error(WL_ERR_NOMEM, "hashlife: out of memory");
    if (!s) s = grow_arrays(h);
    if (!s) s = table_rebuild(h, 1u << 17);
    if (!s) {
        h->nodes[0].level = 0;
        uint32_t e = hl_empty(h, HL_MIN_ROOT_LEVEL);
        if (!e) s = h->failure ? h->failure : WL_ERR_NOMEM;
        hl_set_root(h, e, HL_MIN_ROOT_LEVEL);
    }
    if (!s) threads_init(h);
    if (s) {
        hl_destroy(h);
        return s;
    }
    *out = h;
    return WL_OK;
}

static const char *const hl_kernels[] = {"default", NULL};

static void hl_set_threads(void *v, int n) {
    hl_ctx *h = v;
    if (h->pool) wl_pool_set_active(h->pool, n);
}

const wl_engine_ops wl_engine_hashlife = {
    .name = "hashlife",
    .description = "Gosper's HashLife: quadtree with hash-consing and memoised results on the "
                   "unbounded plane; leaps of 2^k generations; native macrocell; Generations, "
                   "History and Super with the states' bits hung off the leaves",
    .caps = WL_CAP_PLANE | WL_CAP_GENERATIONS | WL_CAP_HISTORY | WL_CAP_SUPER,
    .kernels = hl_kernels,
    .create = hl_create,
    .destroy = hl_destroy,
    .load_pattern = hl_load_pattern,
    .store_pattern = hl_store_pattern,
    .step = hl_step,
    .population = hl_population,
    .bounds = hl_bounds,
    .load_file = hl_load_file,
    .save_file = hl_save_file,
    .set_cell = hl_set_cell,
    .get_cell = hl_get_cell,
    .render = hl_render,
    .each_tile = hl_each_tile,
    .put_tile = hl_put_tile,
    .set_threads = hl_set_threads,
};
