/* PLACEHOLDER (to be replaced by the command-line work). */
#include "warplife.h"
int main(void) { return 0; }
