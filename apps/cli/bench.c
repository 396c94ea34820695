/* PLACEHOLDER (to be replaced by the CPU-engine work): `warplife bench`. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_bench(int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: warplife bench [options]\n\nbench: not built yet\n");
        return CLI_EXIT_OK;
    }
    fprintf(stderr, "bench: not built yet\n");
    return CLI_EXIT_RUNTIME;
}
