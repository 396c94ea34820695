/*
 * font.h - the viewer's built-in 5x7 bitmap font (font.c).
 */
#ifndef WL_VIEWER_FONT_H
#define WL_VIEWER_FONT_H

#include <stdint.h>

#define FONT_W 5       /* glyph width in font pixels */
#define FONT_H 7       /* glyph height */
#define FONT_ADVANCE 6 /* glyph width plus one pixel of spacing */

/* Width in pixels of text drawn at `scale`. */
int font_text_width(const char *text, int scale);
/* Draws text with its top-left corner at (x, y) into a w x h RGBA buffer, clipped, each
 * font pixel scale x scale, with a shadow one font pixel down and right. */
void font_draw(uint32_t *rgba, uint32_t w, uint32_t h, int x, int y, const char *text,
               uint32_t colour, uint32_t shadow, int scale);

#endif
