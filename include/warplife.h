/*
 * warplife.h - the one public header of the warplife library.
 *
 * warplife runs Conway's Game of Life and every other two-state Moore-neighbourhood
 * cellular automaton.  The library is organised around four objects:
 *
 *   wl_rule      a rule, always held as a 512-entry table (one next state for each of the
 *                2^9 states of a cell and its eight neighbours);
 *   wl_pattern   an engine-independent set of live cells with 64-bit signed coordinates,
 *                plus the rule and comments a file carried; readers produce it, writers
 *                consume it;
 *   wl_universe  a pattern being evolved by one engine (reference, CPU, CUDA, HashLife...)
 *                on one topology (torus, bounded grid, unbounded plane);
 *   wl_bigint    an exact signed 256-bit integer for generation counts, populations and
 *                coordinates that outgrow 64 bits (HashLife).
 *
 * Errors are values: every function that can fail returns a wl_status, and a message with
 * context (file:line:col for parsers) is then available from wl_last_error() on the same
 * thread.  The library never exits, never prints (except where a function says so), and
 * never aborts on bad input.
 *
 * Coordinates: x grows to the right, y grows downwards, as in Golly.
 */
#ifndef WARPLIFE_H
#define WARPLIFE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WL_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------------------------ */
/* Status codes and errors                                                               */
/* ------------------------------------------------------------------------------------ */

typedef enum wl_status {
    WL_OK = 0,
    WL_ERR_INVALID,     /* a bad argument from the caller (NULL, zero size, unknown name) */
    WL_ERR_PARSE,       /* bad input text: a pattern file or a rule string */
    WL_ERR_IO,          /* the operating system refused a read, write or rename */
    WL_ERR_NOMEM,       /* out of memory */
    WL_ERR_TOO_BIG,     /* a size that overflows or exceeds what memory allows */
    WL_ERR_UNSUPPORTED, /* the engine or format cannot do this (e.g. B0 on the plane) */
    WL_ERR_UNAVAILABLE, /* the engine or kernel is not built, or no device/CPU feature */
    WL_ERR_DEVICE,      /* a GPU or OpenCL runtime call failed */
    WL_ERR_INTERRUPTED, /* the poll callback asked to stop */
    WL_ERR_NOT_FOUND    /* no such engine, kernel or file */
} wl_status;

/* Returns a short constant English name for a status ("ok", "parse error", ...). */
const char *wl_status_str(wl_status s);

/* Returns the detailed message of the last error set on this thread by a failing library
 * call (empty string if none).  The pointer stays valid until the next library call on
 * this thread. */
const char *wl_last_error(void);

/* Clears this thread's last error. */
void wl_clear_error(void);

/* ------------------------------------------------------------------------------------ */
/* Exact big integers                                                                    */
/* ------------------------------------------------------------------------------------ */

/* A signed 256-bit two's complement integer, least significant limb first. */
typedef struct wl_bigint {
    uint64_t limb[4];
} wl_bigint;

/* Sets *b to the unsigned / signed 64-bit value v. */
void wl_bigint_from_u64(wl_bigint *b, uint64_t v);
void wl_bigint_from_i64(wl_bigint *b, int64_t v);
/* r = a + b, r = a - b, r = a * b (wrapping at 2^256; callers stay far below). r may alias. */
void wl_bigint_add(wl_bigint *r, const wl_bigint *a, const wl_bigint *b);
void wl_bigint_sub(wl_bigint *r, const wl_bigint *a, const wl_bigint *b);
void wl_bigint_mul(wl_bigint *r, const wl_bigint *a, const wl_bigint *b);
/* Returns -1, 0 or 1 as a <, =, > b (signed comparison). */
int wl_bigint_cmp(const wl_bigint *a, const wl_bigint *b);
/* Returns 1 and stores the value if it fits in a uint64_t / int64_t, else returns 0. */
int wl_bigint_to_u64(const wl_bigint *b, uint64_t *out);
int wl_bigint_to_i64(const wl_bigint *b, int64_t *out);
/* Writes the decimal text of b (with '-' if negative) into buf (78 bytes always suffice);
 * returns buf. */
char *wl_bigint_to_str(const wl_bigint *b, char *buf, size_t len);
/* Parses decimal digits (optionally "2^k" or "-"); WL_ERR_PARSE on anything else. */
wl_status wl_bigint_parse(const char *text, wl_bigint *out);

/* ------------------------------------------------------------------------------------ */
/* Rules                                                                                 */
/* ------------------------------------------------------------------------------------ */

/* The families of rules, Golly's: two-state rules, and the multi-state ones built on them.
 * State 0 is dead in every family; population counts every cell whose state is not 0. */
typedef enum wl_family {
    WL_FAMILY_LIFE = 0,     /* two states: the 512-entry table decides everything */
    WL_FAMILY_GENERATIONS,  /* 2..256 states: the table decides the births and survivals of
                               state-1 cells (only state-1 cells count as neighbours); a
                               state-1 cell that does not survive decays through 2, 3, ...,
                               n-1 and then dies, one state per generation */
    WL_FAMILY_LTL,          /* Larger than Life: a range-r neighbourhood whose count of
                               state-1 cells is tested against intervals; with C > 2 states
                               the decay of Generations */
    WL_FAMILY_HISTORY,      /* the table's two-state evolution on odd (on) and even (off)
                               states, with Golly's LifeHistory marks: 7 states */
    WL_FAMILY_SUPER,        /* the same with Golly's Super marks and trails: 26 states */
    WL_FAMILY_COUNT
} wl_family;

#define WL_STATES_MAX 256      /* states of any rule: 0 .. 255 */
#define WL_LTL_RANGE_MAX 500   /* Golly's largest Larger than Life range */
#define WL_LTL_INTERVALS_MAX 32 /* count intervals of each half of a Larger than Life rule */

/* The range-r part of a Larger than Life rule (family WL_FAMILY_LTL). */
typedef struct wl_ltl {
    uint16_t range;  /* r, 1 .. WL_LTL_RANGE_MAX */
    char nh;         /* the neighbourhood, Golly's letter: 'M' Moore (the square of side 2r+1),
                        'N' von Neumann (|dx| + |dy| <= r), 'C' circular, and the others of
                        wl_ltl_neighbourhood */
    uint8_t middle;  /* 1: a live cell counts itself (LtL notation's M1) */
    uint8_t hrot;    /* 1: written in HROT notation (lists of counts), 0: LtL (ranges) */
    uint8_t nbirth, nsurvive; /* intervals used */
    /* A dead (state-0) cell becomes state 1 when its count lies in one of the birth
     * intervals; a state-1 cell stays when its count (+1 when middle) lies in one of the
     * survival intervals.  Inclusive [lo, hi] pairs, sorted and disjoint. */
    uint32_t birth[WL_LTL_INTERVALS_MAX][2];
    uint32_t survive[WL_LTL_INTERVALS_MAX][2];
} wl_ltl;

/* A rule.  Every family but Larger than Life keeps a two-state rule as a table: the
 * neighbourhood index of a cell is
 *     NW<<8 | N<<7 | NE<<6 | W<<5 | C<<4 | E<<3 | SW<<2 | S<<1 | SE
 * (the order Golly's MAP strings use), and the next state of the centre cell is bit
 * (index & 63) of table[index >> 6].  Code that builds a rule by hand starts from
 * wl_rule_life or zeroes the whole struct (family 0 is the two-state family). */
typedef struct wl_rule {
    uint64_t table[8];
    uint8_t family;  /* wl_family */
    uint16_t states; /* number of states (ignored for WL_FAMILY_LIFE: 2) */
    uint8_t map;     /* 1: written as a MAP string; Golly prints multi-state rules so */
    char nh;         /* the neighbourhood the table was written for: 0 Moore, 'H' Golly's
                        hexagonal, 'V' von Neumann (History and Super test their marks on
                        it; the table already says how the states evolve) */
    wl_ltl ltl;      /* WL_FAMILY_LTL only */
} wl_rule;

#define WL_RULE_TEXT_MAX 640 /* enough for any canonical rule text, MAP and HROT included */

/* Parses rule text: B/S ("B3/S23", "b3s23", "B3_S23", digits in any order, optional slash),
 * S/B ("23/3"), Hensel isotropic non-totalistic ("B2-a/S12", "B3-cnqy/S23-a4ityz"), Golly's
 * hexagonal and von Neumann neighbourhoods of B/S rules ("B245/S3H": NW N W E S SE count;
 * "B2/S013V": N W E S), and MAP ("MAP" + 86 base64 characters, padding optional); and
 * Golly's multi-state families: Generations ("345/2/4", "B2/S345/C4", "B2/S345/G4",
 * "g4b2s345", Hensel and MAP tables with "/n"), Larger than Life ("R5,C0,M1,S34..58,
 * B34..45,NM", HROT "R5,C2,S33-57,B34-45", Kellie Evans' "5,34,45,34,58"), and History and
 * Super ("LifeHistory", "B36/S23Super").  A trailing ":T..." topology suffix is rejected
 * (wl_rule_parse_grid takes it).  On error returns WL_ERR_PARSE with a message naming the
 * bad character and its 1-based position. */
wl_status wl_rule_parse(const char *text, wl_rule *out);

/* Writes the canonical text of a rule the way Golly prints it: outer-totalistic rules as
 * "B36/S23", then outer-totalistic rules of the hexagonal or von Neumann neighbourhood as
 * "B245/S3H" or "B2/S013V", isotropic rules in Hensel notation with the shorter of the letter list and its
 * negation ("B2-a/S"), every other rule as "MAP...".  Returns WL_ERR_INVALID if len is too
 * small (WL_RULE_TEXT_MAX always suffices). */
wl_status wl_rule_format(const wl_rule *r, char *buf, size_t len);

/* Sets *r to Conway's Life, B3/S23. */
void wl_rule_life(wl_rule *r);

/* The rule's family and its number of states (2 for two-state rules). */
static inline wl_family wl_rule_family(const wl_rule *r) { return (wl_family)r->family; }
static inline unsigned wl_rule_states(const wl_rule *r) {
    return r->family == WL_FAMILY_LIFE || r->states < 2 ? 2u : (unsigned)r->states;
}
/* "life-like", "generations", "larger than life", "history", "super". */
const char *wl_family_name(wl_family f);

/* The offsets (dx, dy) of a Larger than Life neighbourhood, the centre excluded: calls
 * fn(user, dy, x0, x1) once for each horizontal run of offsets dx in [x0, x1] of row dy,
 * rows from -r to r, runs left to right.  `parity` is (x + y) & 1 of the cell (only the
 * triangular neighbourhood 'L' depends on it).  Returns the number of offsets. */
uint64_t wl_ltl_neighbourhood(const wl_ltl *l, int parity,
                              void (*fn)(void *user, int dy, int x0, int x1), void *user);

/* Returns the next state (0 or 1) for neighbourhood index idx (0..511). */
static inline int wl_rule_next(const wl_rule *r, unsigned idx) {
    return (int)((r->table[(idx >> 6) & 7] >> (idx & 63)) & 1u);
}

/* Returns 1 if the rule is outer-totalistic (the next state depends only on the centre and
 * the number of live neighbours) and then, if the pointers are non-NULL, sets bit n of
 * *birth (*survive) when a dead (live) cell with n live neighbours is alive next. */
int wl_rule_is_totalistic(const wl_rule *r, uint16_t *birth, uint16_t *survive);

/* Returns 1 if the rule is isotropic (invariant under the 8 rotations and reflections). */
int wl_rule_is_isotropic(const wl_rule *r);

/* Returns 1 if an empty neighbourhood gives birth (a "B0" rule). */
int wl_rule_has_b0(const wl_rule *r);

/* Returns 1 if the two rules behave the same (same family, states, and table or range
 * neighbourhood and counts; how they were written does not matter). */
int wl_rule_equal(const wl_rule *a, const wl_rule *b);

/* ------------------------------------------------------------------------------------ */
/* Patterns                                                                              */
/* ------------------------------------------------------------------------------------ */

typedef struct wl_pattern wl_pattern;

/* An inclusive rectangle of cells; empty when w == 0 or h == 0. */
typedef struct wl_rect {
    int64_t x, y;  /* top-left cell */
    uint64_t w, h; /* size in cells */
} wl_rect;

/* Creates an empty pattern with rule B3/S23 and no comments.  Returns NULL on out of memory
 * (with the error set).  Free with wl_pattern_free. */
wl_pattern *wl_pattern_new(void);
void wl_pattern_free(wl_pattern *p);
/* Makes a deep copy; NULL on out of memory. */
wl_pattern *wl_pattern_clone(const wl_pattern *p);

/* Sets or clears one cell, growing the pattern's storage as needed.  WL_ERR_TOO_BIG if the
 * bounding box would exceed what memory allows. */
wl_status wl_pattern_set(wl_pattern *p, int64_t x, int64_t y, int alive);
/* Returns 1 if the cell is alive, else 0. */
int wl_pattern_get(const wl_pattern *p, int64_t x, int64_t y);
/* Sets `count` consecutive cells of row y from x on to alive (fast path for readers). */
wl_status wl_pattern_set_run(wl_pattern *p, int64_t x, int64_t y, uint64_t count);
/* Checks that the rectangle r can be placed (WL_ERR_TOO_BIG beyond +-2^62).  Storage
 * follows the cells set, never a rectangle, so this allocates nothing. */
wl_status wl_pattern_reserve(wl_pattern *p, const wl_rect *r);
/* Number of live cells. */
uint64_t wl_pattern_population(const wl_pattern *p);
/* Tight bounding box of the live cells; returns 0 and an empty rect if there are none. */
int wl_pattern_bounds(const wl_pattern *p, wl_rect *out);
/* Removes every cell (keeps the rule and comments). */
void wl_pattern_clear(wl_pattern *p);
/* Returns 1 if the two patterns have exactly the same live cells (rules ignored). */
int wl_pattern_equal_cells(const wl_pattern *a, const wl_pattern *b);

/* The rule a file named (B3/S23 when none). */
const wl_rule *wl_pattern_rule(const wl_pattern *p);
void wl_pattern_set_rule(wl_pattern *p, const wl_rule *r);
/* Comment lines (without their #C / ! prefixes), joined with '\n'; "" when none. */
const char *wl_pattern_comments(const wl_pattern *p);
wl_status wl_pattern_set_comments(wl_pattern *p, const char *text);

/* Cells of more than two states (multi-state rules): state 0 is dead, 1 .. 255 live.  The
 * two-state functions above see every state but 0 as alive, and wl_pattern_set and
 * wl_pattern_set_run write state 1.  set_state_run sets `count` cells of row y from x on
 * to `state` (WL_ERR_INVALID above 255). */
wl_status wl_pattern_set_state(wl_pattern *p, int64_t x, int64_t y, unsigned state);
wl_status wl_pattern_set_state_run(wl_pattern *p, int64_t x, int64_t y, uint64_t count,
                                   unsigned state);
unsigned wl_pattern_get_state(const wl_pattern *p, int64_t x, int64_t y);
/* The largest state of any cell: 0 for an empty pattern, 1 for a two-state one. */
unsigned wl_pattern_max_state(const wl_pattern *p);

/* Reads row y of the rectangle [x, x + w) into `words` (bit i of words[i/64] = cell x + i);
 * words must hold (w + 63) / 64 entries. */
void wl_pattern_get_row(const wl_pattern *p, int64_t x, int64_t y, uint64_t w, uint64_t *words);

/* Fills the rectangle r with a random soup of the given density (0..1) from a
 * deterministic generator seeded with `seed` (same seed, same soup, on every machine). */
wl_status wl_pattern_random(wl_pattern *p, const wl_rect *r, double density, uint64_t seed);

/* ------------------------------------------------------------------------------------ */
/* Pattern files                                                                         */
/* ------------------------------------------------------------------------------------ */

typedef enum wl_format {
    WL_FORMAT_AUTO = 0,  /* reading: detect from content; writing: from the file name */
    WL_FORMAT_RLE,       /* .rle */
    WL_FORMAT_PLAINTEXT, /* .cells */
    WL_FORMAT_LIFE105,   /* .lif / .life with #Life 1.05 */
    WL_FORMAT_LIFE106,   /* .lif / .life with #Life 1.06 */
    WL_FORMAT_MACROCELL  /* .mc */
} wl_format;

/* Returns "rle", "plaintext", "life105", "life106", "macrocell" or "auto". */
const char *wl_format_name(wl_format f);
/* Guesses a format from a file name's extension, ignoring a trailing ".gz", and sets *gz
 * (if non-NULL) to 1 when the name ends in ".gz".  WL_FORMAT_AUTO if it cannot tell. */
wl_format wl_format_from_path(const char *path, int *gz);
/* Parses "rle", "cells"/"plaintext", "life105", "life106"/"lif", "mc"/"macrocell". */
wl_status wl_format_parse(const char *name, wl_format *out);

/* Reads a pattern from memory.  The format is detected from content; gzip data (by its
 * magic bytes) is inflated as it is read when zlib is built in.  `name` is used in error
 * messages as the file name.  Errors: WL_ERR_PARSE for every fault of the input (syntax,
 * binary data, numbers beyond what the format can place, corrupt gzip data) with
 * "name:line:col: what was expected"; WL_ERR_TOO_BIG when the pattern needs more memory
 * than the machine or the reading limit allows (see wl_read_opts).  On error *out is NULL. */
wl_status wl_pattern_read_mem(const void *data, size_t len, const char *name, wl_pattern **out);
/* Reads a pattern file ("-" means standard input), a window at a time: memory is the
 * pattern's plus a fixed amount, whatever the file's size (or a gzip bomb's).  Errors as
 * wl_pattern_read_mem, plus WL_ERR_NOT_FOUND and WL_ERR_IO. */
wl_status wl_pattern_read_file(const char *path, wl_pattern **out);
/* Like wl_pattern_read_file but also reports the detected format (may be NULL). */
wl_status wl_pattern_read_file_ex(const char *path, wl_pattern **out, wl_format *format);

/* Options for reading (a zeroed struct, or NULL, means the defaults). */
typedef struct wl_read_opts {
    /* Bytes the pattern may grow to while it is read (its cells' storage, its comments and the
     * reader's own tables); past it the read stops with WL_ERR_TOO_BIG and a message that
     * names the limit.  0: a quarter of physical memory. */
    uint64_t max_memory;
    /* 1: stop where the cells begin and return an empty pattern with the rule and the
     * comments read so far (RLE and macrocell stop there; other formats are read whole
     * and their cells dropped).  `run` learns a macrocell file's rule this way before
     * HashLife reads the file itself. */
    int header_only;
} wl_read_opts;
/* A macrocell file whose pattern would take more than this (1 GiB of storage; a few lines
 * of macrocell can describe billions of cells) is not read as a pattern by the warplife
 * command (`info`, `convert`, `run` on an engine that needs a pattern): HashLife, whose
 * tree is the file's, reads it instead.  "auto" universes on the plane hold a smaller
 * limit, WL_MACROCELL_AUTO_MAX.  An explicit reading limit (max_memory) replaces both. */
#define WL_MACROCELL_PATTERN_MAX ((uint64_t)1 << 30)
/* The same limit for an "auto" universe on the plane (and `warplife run` on the default
 * engine), which would hold the pattern in the sparse engine's tiles: a macrocell file whose
 * pattern takes more than this (64 MiB: about 120,000 full 64x64 tiles) goes to HashLife's
 * own reader.  Golly's metapixel-p216-gun (128 million cells, 590 MB as a pattern) took 15 s
 * and 3.7 GB to load into the sparse engine, which then ran 2 generations a second (38 s to
 * generation 4096, against 0.03 s for HashLife reading the file itself). */
#define WL_MACROCELL_AUTO_MAX ((uint64_t)64 << 20)
/* wl_pattern_read_mem and wl_pattern_read_file with options.  *format (may be NULL) gets
 * the detected format, also when the read then fails (WL_FORMAT_AUTO when detection did
 * not get so far), so that a caller can tell which reader refused the input. */
wl_status wl_pattern_read_mem_opts(const void *data, size_t len, const char *name,
                                   const wl_read_opts *opts, wl_pattern **out,
                                   wl_format *format);
wl_status wl_pattern_read_file_opts(const char *path, const wl_read_opts *opts,
                                    wl_pattern **out, wl_format *format);

/* Writes a pattern into a new malloc'd buffer (*out, *len; the caller frees *out).  fmt
 * must not be AUTO.  gz != 0 compresses with gzip. */
wl_status wl_pattern_write_mem(const wl_pattern *p, wl_format fmt, int gz, char **out,
                               size_t *len);
/* Writes a pattern file atomically: to a temporary file beside it, then rename; "-" means
 * standard output.  fmt AUTO takes the format from the extension (RLE if none); gz < 0 takes
 * compression from a ".gz" suffix. */
wl_status wl_pattern_write_file(const wl_pattern *p, const char *path, wl_format fmt, int gz);

/* Writes `len` bytes to `path` atomically (temporary file + rename); "-" = stdout. */
wl_status wl_write_file_atomic(const char *path, const void *data, size_t len);
/* Reads a whole file ("-" = stdin) into a malloc'd buffer with a NUL after the last byte. */
wl_status wl_read_file(const char *path, char **data, size_t *len);

/* ------------------------------------------------------------------------------------ */
/* Engines                                                                               */
/* ------------------------------------------------------------------------------------ */

/* Number of engines built into this library, and the name of the i-th ("ref", "cpu",
 * "cuda", "opencl", "hashlife", ...).  Names are constant strings. */
size_t wl_engine_count(void);
const char *wl_engine_name(size_t i);
/* One-line description of an engine; NULL if the name is unknown. */
const char *wl_engine_description(const char *engine);
/* Lists an engine's kernel names (constant strings; the first is the default).  Engines
 * without variants list one kernel, "default".  WL_ERR_NOT_FOUND for an unknown engine. */
wl_status wl_engine_kernels(const char *engine, const char *const **names, size_t *n);
/* WL_OK if the engine can run here (its device exists), else WL_ERR_UNAVAILABLE or
 * WL_ERR_NOT_FOUND with a message saying why. */
wl_status wl_engine_probe(const char *engine);
/* What an engine (wl_engine_caps) or a universe (wl_universe_caps) can do, as bits.  The
 * library supplies a slower default wherever an engine lacks a native way (rendering
 * through a snapshot, cells through a stored pattern, ...), so these say what is fast, not
 * what works; only WL_CAN_RENDER_GL and the topologies are refusals when missing. */
enum {
    WL_CAN_TORUS = 1u << 0,       /* runs WxH tori */
    WL_CAN_BOUNDED = 1u << 1,     /* runs WxH bounded grids */
    WL_CAN_PLANE = 1u << 2,       /* runs the unbounded plane */
    WL_CAN_ANY_RULE = 1u << 3,    /* every rule (B0 included) on its topologies */
    WL_CAN_DEVICE = 1u << 4,      /* keeps the universe in a device's memory (GPU engines) */
    WL_CAN_RENDER = 1u << 5,      /* renders a view itself (no snapshot of all cells) */
    WL_CAN_RENDER_GL = 1u << 6,   /* renders into an OpenGL buffer (wl_universe_render_gl) */
    WL_CAN_CELLS = 1u << 7,       /* sets and reads single cells itself */
    WL_CAN_RANDOMIZE = 1u << 8,   /* makes a random soup where the cells live */
    WL_CAN_TIME = 1u << 9,        /* times its own steps (device events) */
    WL_CAN_FILES = 1u << 10,      /* reads or writes a file format natively (HashLife) */
    WL_CAN_ROWS = 1u << 11,       /* copies row strips in and out (used by the mpi engine) */
    WL_CAN_GLUED = 1u << 12,      /* runs Golly's glued grids: Klein bottle, cross-surface,
                                     sphere, shifted tori */
    WL_CAN_GENERATIONS = 1u << 13, /* runs the multi-state families (wl_family); engines */
    WL_CAN_LTL = 1u << 14,         /* without these bits run two-state rules only */
    WL_CAN_HISTORY = 1u << 15,     /* History */
    WL_CAN_SUPER = 1u << 16        /* Super */
};
/* The capability bits of an engine by name; 0 for an unknown name. */
unsigned wl_engine_caps(const char *engine);

/* Writes the devices an engine can run on to `out`, one line each with the index that
 * wl_config.device selects (e.g. "  opencl device 0: NAME [PLATFORM] GPU, ...").  Returns
 * WL_ERR_UNSUPPORTED for engines without a device list, WL_ERR_UNAVAILABLE (saying why)
 * when the engine finds no device, WL_ERR_NOT_FOUND for an unknown engine. */
wl_status wl_engine_devices(const char *engine, FILE *out);

/* ------------------------------------------------------------------------------------ */
/* Universes                                                                             */
/* ------------------------------------------------------------------------------------ */

typedef enum wl_topology {
    WL_TOPOLOGY_TORUS = 0, /* width x height, wrapping at both edges (optionally shifted) */
    WL_TOPOLOGY_BOUNDED,   /* width x height, cells outside dead forever */
    WL_TOPOLOGY_PLANE,     /* unbounded (HashLife, sparse) */
    WL_TOPOLOGY_KLEIN,     /* Golly's Klein bottle: a torus with one pair of edges reversed */
    WL_TOPOLOGY_CROSS,     /* Golly's cross-surface: both pairs of edges reversed */
    WL_TOPOLOGY_SPHERE     /* Golly's sphere (width = height): the top edge joined to the
                              left one, the bottom edge to the right one */
} wl_topology;

/* Returns "torus", "bounded", "plane", "klein", "cross-surface" or "sphere". */
const char *wl_topology_name(wl_topology t);

/* How the edges of a torus or Klein bottle are joined beyond plain wrapping, as Golly's
 * rule suffixes say ("B3/S23:T30+5,20"): a zeroed struct means plain wrapping. */
typedef struct wl_glue {
    int64_t hshift;  /* ":T30+5,20": a cell leaving through the top or bottom edge comes back
                        hshift cells further right ("+5"; negative: left) */
    int64_t vshift;  /* ":T30,20-2": the same for the left and right edges, downwards */
    uint8_t htwist;  /* Klein ":K30*,20": the top and bottom edges are joined reversed */
    uint8_t vtwist;  /* Klein ":K30,20*": the left and right edges are joined reversed */
} wl_glue;

/* The grid of a Golly bounded-grid suffix: topology, size (0: a side without bounds, as in
 * Golly's tubes ":T0,20" and strips ":P30,0") and glue. */
typedef struct wl_shape {
    wl_topology topology; /* WL_TOPOLOGY_PLANE: no suffix */
    uint64_t width, height;
    wl_glue glue;
} wl_shape;

/* Parses Golly's suffix text after the ':' ("T30,20", "P30", "T30+5,20", "K30*,20",
 * "C30,20", "S30"; the letter in either case) into *out, with Golly's rules for what may
 * go with what (shifts on tori and twisted Klein edges only, no shift with an unbounded
 * side, a sphere square, sides at most 2e9).  WL_ERR_PARSE with the position on error. */
wl_status wl_shape_parse(const char *text, wl_shape *out);
/* Writes the suffix as Golly writes it, with its ':' (":T30+5,20"); "" for the plane. */
wl_status wl_shape_format(const wl_shape *s, char *buf, size_t len);
/* Rule text with an optional bounded-grid suffix ("B3/S23:T100,100"): the rule into *rule
 * and the suffix into *shape (the plane when there is none). */
wl_status wl_rule_parse_grid(const char *text, wl_rule *rule, wl_shape *shape);

/* The grid a pattern's file asks for with Golly's rule suffix: ":Tw,h" a w x h torus,
 * ":Pw,h" a w x h bounded plane (":Tn" and ":Pn": n x n), ":K" a Klein bottle, ":C" a
 * cross-surface, ":S" a sphere; a side of 0 has no bounds (Golly's tubes ":T0,h" and
 * strips ":P0,h").  WL_TOPOLOGY_PLANE (and *w = *h = 0) when it asks for none.  Readers
 * set it; the RLE and macrocell writers write it back after the rule; `warplife run` runs
 * there unless told otherwise. */
wl_topology wl_pattern_topology(const wl_pattern *p, uint64_t *w, uint64_t *h);
/* The whole shape, glue included. */
void wl_pattern_shape(const wl_pattern *p, wl_shape *out);
/* Sets it; WL_TOPOLOGY_PLANE (or w = h = 0) clears it, and the glue with it. */
void wl_pattern_set_topology(wl_pattern *p, wl_topology t, uint64_t w, uint64_t h);
void wl_pattern_set_shape(wl_pattern *p, const wl_shape *shape);

/* Called every so often during long computations; return nonzero to stop the computation,
 * which then returns WL_ERR_INTERRUPTED leaving the universe at a consistent generation. */
typedef int (*wl_poll_fn)(void *user);

typedef struct wl_config {
    const char *engine;   /* engine name, or "auto" (default): CUDA if usable, else CPU;
                             HashLife for the plane */
    const char *kernel;   /* kernel name, NULL or "" for the engine's default */
    wl_topology topology; /* default torus */
    uint64_t width;       /* grid size in cells (ignored on the plane) */
    uint64_t height;
    wl_glue glue;         /* torus shifts and Klein twists (zero: plain) */
    wl_rule rule;         /* default B3/S23 */
    int threads;          /* worker threads, 0 = all cores */
    int device;           /* GPU / OpenCL device index, default 0 */
    uint64_t max_memory;  /* bytes an engine may use for caches (HashLife), and the reading
                           * limit of wl_universe_load_file; 0 = default */
    uint64_t gpu_memory;  /* bytes of GPU memory a GPU engine may hold the universe in, 0 = no
                             limit; a bigger universe is kept in host memory and streamed
                             through the GPU band by band (out-of-core) */
    wl_poll_fn poll;      /* optional interruption callback */
    void *poll_user;
    int verbose;          /* nonzero: engines may print notes (fallbacks) to stderr */
} wl_config;

/* Fills *cfg with the defaults above (engine "auto", torus, 0x0, B3/S23). */
void wl_config_init(wl_config *cfg);

typedef struct wl_universe wl_universe;

/* Creates a universe of the configured engine, topology, size and rule, all cells dead.
 * Errors: WL_ERR_NOT_FOUND (unknown engine or kernel), WL_ERR_UNSUPPORTED (topology or rule
 * the engine cannot run, e.g. B0 on the plane), WL_ERR_UNAVAILABLE (not built, no device),
 * WL_ERR_INVALID (zero size on a grid), WL_ERR_TOO_BIG / WL_ERR_NOMEM. */
wl_status wl_universe_create(const wl_config *cfg, wl_universe **out);
void wl_universe_free(wl_universe *u);

/* The engine and kernel actually used (after "auto" and defaults are resolved). */
const char *wl_universe_engine(const wl_universe *u);
const char *wl_universe_kernel(const wl_universe *u);
const wl_config *wl_universe_config(const wl_universe *u);

/* Replaces the universe's cells with the pattern's (its rule is ignored: the universe keeps
 * its own) and resets the generation to 0.  On a WxH grid, cell (x, y) lands at column
 * x + floor(W/2), row y + floor(H/2): the grid covers x from -floor(W/2) to W-1-floor(W/2).
 * On a torus, cells outside wrap; on a bounded grid they are dropped and *dropped (if
 * non-NULL) receives their number. */
wl_status wl_universe_load(wl_universe *u, const wl_pattern *p, uint64_t *dropped);

/* Loads a file: engines with a native reader (HashLife and macrocell) use it, others read a
 * pattern (with the configuration's max_memory, when set, as the reading limit: see
 * wl_read_opts) and call wl_universe_load.  *dropped as above (may be NULL). */
wl_status wl_universe_load_file(wl_universe *u, const char *path, uint64_t *dropped);

/* Advances `generations` generations.  On interruption returns WL_ERR_INTERRUPTED; the
 * generation counter then says how far it got. */
wl_status wl_universe_step(wl_universe *u, uint64_t generations);

/* The current generation (exact). */
void wl_universe_generation(const wl_universe *u, wl_bigint *out);

/* The exact population. */
wl_status wl_universe_population(wl_universe *u, wl_bigint *out);

/* The bounding box of live cells in pattern coordinates as big integers (inclusive
 * corners).  *empty is set to 1 when there are no live cells. */
wl_status wl_universe_bounds(wl_universe *u, wl_bigint *xmin, wl_bigint *ymin,
                             wl_bigint *xmax, wl_bigint *ymax, int *empty);

/* Stores the live cells into a new pattern (with the universe's rule, and on a torus or
 * bounded grid that grid: see wl_pattern_topology) in pattern coordinates.  WL_ERR_TOO_BIG if they do not fit in memory as a rectangle. */
wl_status wl_universe_store(wl_universe *u, wl_pattern **out);

/* Saves to a file: engines with a native writer for the format (HashLife: macrocell) use
 * it, others store a pattern and call wl_pattern_write_file. */
wl_status wl_universe_save_file(wl_universe *u, const char *path, wl_format fmt, int gz);

/* The capability bits (WL_CAN_...) of the engine the universe runs on now ("auto" on the
 * plane may move a universe from one engine to another while it steps). */
unsigned wl_universe_caps(const wl_universe *u);

/* Sets the generation counter (a viewer restoring a saved state; the cells are unchanged). */
void wl_universe_set_generation(wl_universe *u, const wl_bigint *generation);

/* Replaces the cells with a random soup of the given density (0..1) filling the grid, made
 * where the cells live when the engine can (WL_CAN_RANDOMIZE: no host copy of a huge
 * grid), else through wl_pattern_random and wl_universe_load; reproducible for a seed and
 * an engine (different engines may make different soups).  Grids only (WL_ERR_UNSUPPORTED
 * on the plane).  Resets the generation to 0. */
wl_status wl_universe_randomize(wl_universe *u, double density, uint64_t seed);

/* Steps like wl_universe_step and measures the time the engine itself spent: device events
 * for GPU engines (WL_CAN_TIME), else the host clock around the step and the wait for
 * queued work.  For benchmarks. */
wl_status wl_universe_step_timed(wl_universe *u, uint64_t generations, double *seconds);

/* The device's measured copy bandwidth as cell updates per second of a one-generation pass
 * moving two bits per cell update (a GPU engine's memory floor); 0 when not applicable. */
double wl_universe_copy_floor(wl_universe *u);

/* Sets or reads one cell (pattern coordinates).  Slow; for editors and tests. */
wl_status wl_universe_set_cell(wl_universe *u, int64_t x, int64_t y, int alive);
wl_status wl_universe_get_cell(wl_universe *u, int64_t x, int64_t y, int *alive);

/* ------------------------------------------------------------------------------------ */
/* Rendering (viewer)                                                                    */
/* ------------------------------------------------------------------------------------ */

/* A view of the universe: the cell at the top-left pixel, and the scale.  zoom >= 0 means
 * each cell is 2^zoom pixels wide; zoom < 0 means each pixel covers 2^-zoom cells (a pixel
 * is lit if any of them is alive). */
typedef struct wl_view {
    int64_t x, y;      /* pattern coordinates of the cell at pixel (0, 0) */
    int zoom;
    uint32_t width;    /* pixels */
    uint32_t height;
    uint32_t alive;    /* RGBA colours (0xAABBGGRR in memory order R,G,B,A) */
    uint32_t dead;
} wl_view;

/* Renders into rgba (width*height pixels, row-major). */
wl_status wl_universe_render(wl_universe *u, const wl_view *view, uint32_t *rgba);

/* Renders like wl_universe_render, but into the OpenGL pixel buffer object `gl_buffer` (at
 * least view->width * view->height * 4 bytes), on the device, without passing through host
 * memory (CUDA-OpenGL interop).  The caller's OpenGL context must be current on this thread.
 * WL_ERR_UNSUPPORTED for engines without it (the caller then uploads wl_universe_render's
 * pixels itself); WL_ERR_DEVICE if the interop fails. */
wl_status wl_universe_render_gl(wl_universe *u, const wl_view *view, unsigned gl_buffer);

/* ------------------------------------------------------------------------------------ */
/* Images (snapshots for viewers, PNG and PPM files)                                     */
/* ------------------------------------------------------------------------------------ */

/* A snapshot: the live cells of a universe (or pattern) at one generation, held as one
 * bitmap so that it can be rendered many times (panning, zooming) while the universe goes
 * on stepping, possibly on another thread.  Rendering is word-at-a-time (src/render). */
typedef struct wl_snapshot wl_snapshot;

/* Copies the universe's live cells into *snap.  If *snap is NULL a new snapshot is made
 * (free it with wl_snapshot_free); otherwise its memory is reused, so that a viewer taking
 * one snapshot per frame allocates nothing.  Grid engines cost one store_grid copy; plane
 * engines go through wl_universe_store.  Errors: WL_ERR_TOO_BIG (the live cells do not fit
 * in memory as a rectangle), WL_ERR_NOMEM, and the engine's own; *snap is then unchanged
 * in place (its contents unspecified) or still NULL. */
wl_status wl_universe_snapshot(wl_universe *u, wl_snapshot **snap);
/* Like wl_universe_snapshot for a pattern (generation 0). */
wl_status wl_pattern_snapshot(const wl_pattern *p, wl_snapshot **snap);
void wl_snapshot_free(wl_snapshot *snap);
/* Renders the snapshot seen through `view` into rgba (view->width * view->height pixels,
 * row-major, owned by the caller).  WL_ERR_INVALID for a NULL argument, an empty view, or
 * a zoom outside [-40, 20]. */
wl_status wl_snapshot_render(const wl_snapshot *snap, const wl_view *view, uint32_t *rgba);
/* The snapshot's population, generation, tight bounding box (returns 0 and an empty rect
 * when there are no live cells) and one cell (0 or 1; outside the bitmap: 0). */
uint64_t wl_snapshot_population(const wl_snapshot *snap);
void wl_snapshot_generation(const wl_snapshot *snap, wl_bigint *out);
int wl_snapshot_bounds(const wl_snapshot *snap, wl_rect *out);
int wl_snapshot_get(const wl_snapshot *snap, int64_t x, int64_t y);

/* Snapshots of multi-state rules keep each cell's state: its number of states (2 for a
 * two-state rule), its rule's family, and one cell's state (0 outside). */
unsigned wl_snapshot_states(const wl_snapshot *snap);
wl_family wl_snapshot_family(const wl_snapshot *snap);
unsigned wl_snapshot_get_state(const wl_snapshot *snap, int64_t x, int64_t y);
/* A colour for each state, after Golly's defaults: dead, then `alive` for state 1 and a red
 * to yellow gradient for the decaying states of Generations and Larger than Life, or the
 * colours Golly's documentation gives History's and Super's states. */
void wl_palette_default(wl_family family, unsigned states, uint32_t alive, uint32_t dead,
                        uint32_t palette[WL_STATES_MAX]);
/* Renders like wl_snapshot_render with the colour palette[state] for each cell (256
 * entries); zoomed out (zoom < 0) a pixel shows palette[1] when any cell under it is live. */
wl_status wl_snapshot_render_palette(const wl_snapshot *snap, const wl_view *view,
                                     const uint32_t *palette, uint32_t *rgba);

/* Writes width x height RGBA pixels (bytes R,G,B,A per pixel in memory, rows top to
 * bottom) to `path` atomically: wl_image_write_png needs libpng (WL_ERR_UNAVAILABLE
 * without it); wl_image_write_ppm writes binary PPM (alpha dropped) and always works;
 * wl_image_write picks by the name's extension, .png or .ppm (WL_ERR_INVALID otherwise).
 * WL_ERR_IO when the file cannot be written. */
wl_status wl_image_write_png(const char *path, const uint32_t *rgba, uint32_t width,
                             uint32_t height);
wl_status wl_image_write_ppm(const char *path, const uint32_t *rgba, uint32_t width,
                             uint32_t height);
wl_status wl_image_write(const char *path, const uint32_t *rgba, uint32_t width,
                         uint32_t height);
/* Reads a PNG (needs libpng) or binary PPM (alpha 255) image into a new malloc'd RGBA
 * buffer *rgba (the caller frees it) and its size.  WL_ERR_PARSE for other content. */
wl_status wl_image_read(const char *path, uint32_t **rgba, uint32_t *width,
                        uint32_t *height);

#ifdef __cplusplus
}
#endif

#endif /* WARPLIFE_H */
