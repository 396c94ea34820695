/*
 * rule_text.h - what the rule notations' files share (rule.c: the two-state notations;
 * rule_family.c: Generations, History, Super and the top-level parser and printer;
 * ltl.c: Larger than Life).
 */
#ifndef WL_RULE_TEXT_H
#define WL_RULE_TEXT_H

#include "internal.h"

/* A rule text being parsed: text[pos, end) is what is left to read (end excludes trailing
 * blanks and whatever a caller has already taken off the end).  Messages quote the whole
 * text with 1-based positions. */
typedef struct rule_parser {
    const char *text;
    size_t pos; /* 0-based offset of the next character */
    size_t end; /* offset past the last character to read */
    char nh;    /* 'h' or 'v': the two-state parser's neighbourhood, named at nh_at (a
                   Generations rule puts it after its state count); 0: read a trailing one */
    size_t nh_at;
} rule_parser;

/* Reports the character at p->pos (or the end of the text) as unexpected: WL_ERR_PARSE
 * with "rule '...': unexpected 'x' at position n (why)". */
wl_status wl_rt_fail(const rule_parser *p, const char *why);

/* A two-state rule, text[pos, end): B/S, S/B, Hensel (with a trailing 'H' or 'V' for
 * Golly's hexagonal or von Neumann neighbourhood) or MAP.  The table goes to *out (family
 * WL_FAMILY_LIFE). */
wl_status wl_rt_parse_two_state(rule_parser *p, wl_rule *out);

/* Canonical text being built. */
typedef struct text_buf {
    char t[WL_RULE_TEXT_MAX];
    size_t n;
} text_buf;
void wl_rt_put(text_buf *b, char c);

/* Appends the canonical text of r's table: "B3/S23" (gen = 0) or, in Generations order,
 * "23/3" (gen = 1: survival first, no B and S); Hensel letters the same way; *nh gets
 * 'H' or 'V' for a rule outer-totalistic on those neighbourhoods (not appended: the caller
 * places it) or 0.  Returns 2 when it wrote a MAP string, 1 otherwise, 0 on an internal
 * error. */
int wl_rt_format_two_state(text_buf *b, const wl_rule *r, int gen, char *nh);

/* Sets *r to the outer-totalistic two-state rule of neighbourhood nh (0 Moore, 'H'
 * hexagonal, 'V' von Neumann): bit n of birth (survive) set means a dead (live) cell with
 * n live neighbours in it is alive next. */
void wl_rule_from_counts(wl_rule *r, uint16_t birth, uint16_t survive, char nh);

/* 1 if the two rules' tables are equal. */
int wl_rule_table_equal(const wl_rule *a, const wl_rule *b);

/* Larger than Life (ltl.c): whether text[pos, end) looks like one of its notations (a ','
 * in it), then its parser and printer. */
int wl_ltl_looks_like(const rule_parser *p);
wl_status wl_ltl_parse(rule_parser *p, wl_rule *out);
void wl_ltl_format(text_buf *b, const wl_ltl *l, unsigned states);
int wl_ltl_equal(const wl_ltl *a, const wl_ltl *b);
/* The grid of a Larger than Life rule's suffix (text after the ':'): Golly's own reading,
 * a torus or plane only, sides raised to twice the range (four times for 'L'). */
wl_status wl_ltl_shape(const wl_ltl *l, const char *text, wl_shape *out);

#endif
