/* PLACEHOLDER (to be replaced by the viewer work): `warplife view`. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_view(int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: warplife view [PATTERN]\n\nThe interactive viewer is not built yet.\n");
        return CLI_EXIT_OK;
    }
    fprintf(stderr, "warplife: the viewer is not built yet\n");
    return CLI_EXIT_RUNTIME;
}
