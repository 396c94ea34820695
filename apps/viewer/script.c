/*
 * script.c - scripted input: turns a line of tokens into the same SDL events a person
 * would make (SDL_PushEvent), one token per frame, so that tests drive the real window
 * code paths (key handling, mouse editing, selection) under Xvfb.  Before each token the
 * script waits until the simulation thread has applied every earlier command and the
 * window has shown the result, so that a script's outcome is deterministic while paused.
 */
#define _POSIX_C_SOURCE 200809L

#include "script.h"
#include "view_state.h"

#include <SDL.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void script_init(script *s, const char *text) {
    memset(s, 0, sizeof *s);
    if (!text || !*text) return;
    s->text = strdup(text);
    if (!s->text) return;
    s->next = s->text;
    s->active = 1;
}

void script_free(script *s) {
    free(s->text);
    memset(s, 0, sizeof *s);
}

/* Cuts the next whitespace-separated token; NULL at the end. */
static char *next_token(script *s) {
    char *p = s->next;
    while (p && (*p == ' ' || *p == '\t' || *p == '\n')) p++;
    if (!p || !*p) return NULL;
    char *end = p;
    while (*end && *end != ' ' && *end != '\t' && *end != '\n') end++;
    if (*end) *end++ = 0;
    s->next = end;
    return p;
}

static void push_key(SDL_Keycode key, Uint16 mod) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = key;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(key);
    e.key.keysym.mod = mod;
    SDL_PushEvent(&e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    SDL_PushEvent(&e);
}

static void push_button(Uint32 type, Uint8 button, int x, int y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.button.button = button;
    e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
    e.button.clicks = 1;
    e.button.x = x;
    e.button.y = y;
    SDL_PushEvent(&e);
}

static void push_motion(int x, int y, int xrel, int yrel, Uint32 buttons) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEMOTION;
    e.motion.x = x;
    e.motion.y = y;
    e.motion.xrel = xrel;
    e.motion.yrel = yrel;
    e.motion.state = buttons;
    SDL_PushEvent(&e);
}

/* A drag in steps of a few pixels, as a hand would make. */
static void push_drag(Uint8 button, int x1, int y1, int x2, int y2) {
    enum { STEPS = 8 };
    push_motion(x1, y1, 0, 0, 0);
    push_button(SDL_MOUSEBUTTONDOWN, button, x1, y1);
    int px = x1, py = y1;
    for (int i = 1; i <= STEPS; i++) {
        int x = x1 + (x2 - x1) * i / STEPS, y = y1 + (y2 - y1) * i / STEPS;
        push_motion(x, y, x - px, y - py, SDL_BUTTON(button));
        px = x;
        py = y;
    }
    push_button(SDL_MOUSEBUTTONUP, button, x2, y2);
}

static void feed(const char *tok) {
    int a, b, c, d;
    Uint16 mod = 0;
    if (strncmp(tok, "shift+", 6) == 0) {
        mod = KMOD_LSHIFT;
        tok += 6;
    }
    if (strcmp(tok, "quit") == 0) {
        SDL_Event e;
        memset(&e, 0, sizeof e);
        e.type = SDL_QUIT;
        SDL_PushEvent(&e);
    } else if (strncmp(tok, "drop:", 5) == 0) {
        /* As if the file had been dropped on the window (the handler SDL_free's it). */
        SDL_Event e;
        memset(&e, 0, sizeof e);
        e.type = SDL_DROPFILE;
        e.drop.file = SDL_strdup(tok + 5);
        if (e.drop.file) SDL_PushEvent(&e);
    } else if (sscanf(tok, "click:%d,%d", &a, &b) == 2) {
        push_motion(a, b, 0, 0, 0);
        push_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, a, b);
        push_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, a, b);
    } else if (sscanf(tok, "drag:%d,%d,%d,%d", &a, &b, &c, &d) == 4) {
        /* The selection test reads the shift state, as a real shift key would set it. */
        SDL_SetModState(mod ? KMOD_LSHIFT : KMOD_NONE);
        push_drag(SDL_BUTTON_LEFT, a, b, c, d);
    } else if (sscanf(tok, "rdrag:%d,%d,%d,%d", &a, &b, &c, &d) == 4) {
        push_drag(SDL_BUTTON_RIGHT, a, b, c, d);
    } else if (sscanf(tok, "wheel:%d,%d,%d", &a, &b, &c) == 3) {
        push_motion(a, b, 0, 0, 0);
        SDL_Event e;
        memset(&e, 0, sizeof e);
        e.type = SDL_MOUSEWHEEL;
        e.wheel.y = c;
        for (int i = 0; i < abs(c); i++) {
            e.wheel.y = c > 0 ? 1 : -1;
            SDL_PushEvent(&e);
        }
    } else {
        SDL_Keycode k = SDL_GetKeyFromName(tok);
        if (k == SDLK_UNKNOWN && strlen(tok) == 1) k = (SDL_Keycode)(unsigned char)tok[0];
        if (k == SDLK_UNKNOWN) fprintf(stderr, "warplife view: script: unknown token '%s'\n", tok);
        else push_key(k, mod);
    }
}

int script_feed(script *s, viewer *v) {
    if (!s->active) return 0;
    if (s->wait > 0) {
        s->wait--;
        v->dirty = 1;
        return 0;
    }
    if (s->until) {
        /* Running: wait for the generation on screen (or give up if paused). */
        if (v->generation < s->until && sim_running(v->sim)) {
            v->dirty = 1;
            return 0;
        }
        s->until = 0;
    }
    /* Paused: wait until every earlier command is applied and on screen, unless the next
     * token starts with '!' (to press Escape while a long step is still running). */
    const char *peek = s->next;
    while (peek && (*peek == ' ' || *peek == '\t' || *peek == '\n')) peek++;
    int urgent = peek && *peek == '!';
    if (!urgent && !sim_running(v->sim) && sim_busy(v->sim)) return 0;
    char *tok = next_token(s);
    if (tok && *tok == '!') tok++;
    if (!tok) {
        s->active = 0;
        s->t_last = now(); /* the last token's result is on screen */
        SDL_SetModState(KMOD_NONE);
        return 1;
    }
    if (!s->fed++) s->t_first = now();
    int n;
    unsigned long long g;
    if (sscanf(tok, "wait:%d", &n) == 1) s->wait = n > 0 ? n : 0;
    else if (sscanf(tok, "until:%llu", &g) == 1) s->until = g;
    else feed(tok);
    v->dirty = 1;
    return 1;
}
