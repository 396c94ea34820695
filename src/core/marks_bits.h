/*
 * marks_bits.h - Golly's History and Super rules (marks.c says what each state does) as
 * bit logic on 64 cells a word, for the engines that run them bitsliced: the cpu engine's
 * rows (src/engine/cpu/multi.c) and HashLife's 16x16 base case (src/engine/hashlife/
 * hl_states.c): marks.c's wl_marks_next, case by case, 64 cells at a time (ref runs
 * wl_marks_next itself, the oracle they are tested against).
 *
 * A cell's state is held as its five bits c0 .. c4 (c0 = the state is odd = the cell is
 * on).  History is Super on the states 0 .. 6 (marks.c: every case of History is Super's
 * for those states, and none of them leads out of 0 .. 6), so this serves both.
 *
 * What a cell needs besides its own state: T, the two-state rule's next generation of the
 * on cells (wl_marks_rule: the rule, or its dual for B0 with S-max), and presence words:
 * for each class of wl_mark_class, the cells that have a cell of that class among their
 * neighbours in the rule's neighbourhood (wl_marks_neighbours).
 */
#ifndef WL_MARKS_BITS_H
#define WL_MARKS_BITS_H

#include <stddef.h>
#include <stdint.h>

/* The classes the marks look for among a cell's neighbours: states 1, 3, ..., 25 (the on
 * states), the wall 6, the labels 14, 18, 20, 22, and any on cell (WL_MC_ODD). */
enum wl_mark_class {
    WL_MC_1, WL_MC_3, WL_MC_5, WL_MC_7, WL_MC_9, WL_MC_11, WL_MC_13, WL_MC_15, WL_MC_17,
    WL_MC_19, WL_MC_21, WL_MC_23, WL_MC_25, WL_MC_6, WL_MC_14, WL_MC_18, WL_MC_20, WL_MC_22,
    WL_MC_ODD, WL_MC_N
};
/* The state of each class (WL_MC_ODD: none, 0). */
static const uint8_t wl_mark_class_state[WL_MC_N] = {1,  3,  5,  7,  9,  11, 13, 15, 17, 19,
                                                     21, 23, 25, 6,  14, 18, 20, 22, 0};

#define WL_MC_BIT(k) ((uint32_t)1 << (k))
/* The on states from 9 up (the birth colours' classes, WL_MC_9 .. WL_MC_25 in a row). */
#define WL_MC_FROM_9 (WL_MC_BIT(WL_MC_25 + 1) - WL_MC_BIT(WL_MC_9))

/* The next state bits r[0 .. 4] of 64 cells of state bits c[0 .. 4], from T (the on cells
 * next, by the two-state rule, at *tp) and their presence words p[k * stride] (class k of
 * wl_mark_class); `has` (bit k) may leave out classes whose presence words are zero: the
 * on states from 9 up are not looked at when none of them is there.  (marks_next.inc.h,
 * for 64-bit words; the cpu engine and HashLife include it again for vectors of them.) */
/* And wl_mark_classes: the cells of each class among 64 cells of state bits c[0 .. 4],
 * cls[k] for every class k of wl_mark_class (from the minterms of the bit pairs 1-2 and
 * 3-4: two ANDs a class). */
#define WL_MARKS_T uint64_t
#define WL_MARKS_NAME wl_marks_next_word
#define WL_MARKS_CLASSES wl_mark_classes
#define WL_MARKS_LOAD(ptr) (*(ptr))
#define WL_MARKS_ATTR
#include "marks_next.inc.h"

#endif
