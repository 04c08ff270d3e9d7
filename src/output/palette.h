/* palette.h - the colours of every dfscope picture (the timeline SVG, the report page's charts):
 * one definition, so that a concept keeps its colour from one picture to the next. The hues are
 * the Tableau 10 set, chosen to stay apart under the common colour-vision deficiencies when paired
 * as the pictures pair them (blue against orange or red, green against grey) and always labelled.
 *
 * Invariants: the entries are "#RRGGBB" literals (usable in static initialisers); DFS_PALETTE
 * lists them in the order charts take them for series without a concept of their own. */
#ifndef DFS_PALETTE_H
#define DFS_PALETTE_H

#define DFS_PAL_BLUE "#4C78A8"   /* compute */
#define DFS_PAL_RED "#E45756"    /* data wait, I/O */
#define DFS_PAL_ORANGE "#F58518" /* communication, checkpoint */
#define DFS_PAL_GREEN "#54A24B"
#define DFS_PAL_GREY "#A0A0A0"   /* other, untraced */
#define DFS_PAL_PURPLE "#B279A2"
#define DFS_PAL_TEAL "#72B7B2"
#define DFS_PAL_YELLOW "#EECA3B"
#define DFS_PAL_BROWN "#9D755D"

enum { DFS_PALETTE_N = 9 };
#define DFS_PALETTE                                                                                         \
    {                                                                                                       \
        DFS_PAL_BLUE, DFS_PAL_RED, DFS_PAL_ORANGE, DFS_PAL_GREEN, DFS_PAL_PURPLE, DFS_PAL_TEAL,             \
            DFS_PAL_YELLOW, DFS_PAL_BROWN, DFS_PAL_GREY                                                     \
    }
#endif
