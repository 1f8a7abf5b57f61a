// CLI11, included the one way that also compiles under SMPI.
#pragma once

// SMPI's compiler wrapper defines exit(x) as a macro, which breaks CLI::App::exit.
// lbbench never calls exit() itself: main returns.
#ifdef exit
#undef exit
#endif
#include <CLI/CLI.hpp>
