// The command line's exit codes, and the one place exceptions become them.
#pragma once

#include <cstdio>
#include <exception>

#include "core/error.hpp"

namespace lbbench {

inline constexpr int kExitInput = 2;  // bad input: a scenario, a file, a flag
inline constexpr int kExitRun = 3;    // a run that broke an invariant, or a defect

// Runs a command and turns what it throws into a message and an exit code.
template <class Command>
int exit_code_of(Command&& command) {
  try {
    return command();
  } catch (const InputError& e) {
    std::fprintf(stderr, "lbbench: error: %s\n", e.what());
    return kExitInput;
  } catch (const RunError& e) {
    std::fprintf(stderr, "lbbench: error: %s\n", e.what());
    return kExitRun;
  } catch (const std::exception& e) {
    // Not an input error and not a run's broken invariant: a defect, said as one rather
    // than an abort.
    std::fprintf(stderr, "lbbench: internal error: %s\n", e.what());
    return kExitRun;
  }
}

}  // namespace lbbench
