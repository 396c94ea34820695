/*
 * script.h - scripted input for tests and demos (`warplife view --script "..."`).
 */
#ifndef WL_VIEWER_SCRIPT_H
#define WL_VIEWER_SCRIPT_H

struct viewer;

typedef struct script {
    char *text;  /* owned copy of the script, cut into tokens in place */
    char *next;  /* the next token, or NULL at the end */
    int active;  /* 1 until every token has been fed */
    int wait;    /* frames still to wait (wait:N) */
    unsigned long long until; /* generation to wait for (until:N), 0 if none */
    /* For benchmarks: how many tokens were fed, and when the first and the last one were
     * (seconds, monotonic clock); with the wait before each token, tokens per second of a
     * pan/zoom script is the rate at which the window showed new views. */
    unsigned long fed;
    double t_first, t_last;
} script;

/* Prepares the script text (NULL or "" for none: then active is 0). */
void script_init(script *s, const char *text);
/* Called once per frame: when the viewer is idle (the simulation paused and finished with
 * every queued command) or running, feeds the next token as synthetic SDL events.  Returns
 * 1 if it fed something or finished.  Tokens, separated by spaces:
 *   KEY            a key press by SDL key name: n, space, r, f, +, -, [, ], g, s, p, u, ...
 *   shift+KEY      the same with shift held
 *   click:X,Y      left click at window pixel (X, Y) (toggles a cell)
 *   drag:X1,Y1,X2,Y2        left drag (draws); shift+drag:... selects; rdrag:... pans
 *   wheel:X,Y,D    mouse wheel D notches (positive: zoom in) at pixel (X, Y)
 *   drop:PATH      open a pattern file as if it had been dropped on the window
 *   wait:N         let N frames pass (while running, generations go on)
 *   until:G        while running, wait until generation G is on screen
 *   quit           close the window
 *   !TOKEN         feed TOKEN at once, without waiting for earlier commands (!Escape)
 * Unknown tokens are reported on stderr and skipped. */
int script_feed(script *s, struct viewer *v);
void script_free(script *s);

#endif
