/* Placeholders for the modes still being built; each file that implements a mode removes its entry. */
#include <stdio.h>

#include "nextstep/cli.h"
