// Errors the user can act on, as opposed to bugs: they carry a message that is printed
// as is and turn into exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace lbbench {

// A problem with the user's input or request (bad YAML, bad mesh, impossible request).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken invariant found at run time (a migration that lost a vertex, a corrupt
// payload, a hang). The run stops with this diagnostic rather than going on silently.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A wait that never finished (the watchdog's verdict). Only the rank that saw it knows, so
// the process aborts the job instead of finalizing.
class HangError : public RunError {
 public:
  using RunError::RunError;
};

// Marks an error that every rank threw together after agree_on_errors(); the processes
// can finalize MPI and exit cleanly. Any other error on one rank aborts the job.
class Agreed {
 public:
  virtual ~Agreed() = default;
};
class AgreedInputError : public InputError, public Agreed {
 public:
  using InputError::InputError;
};
class AgreedRunError : public RunError, public Agreed {
 public:
  using RunError::RunError;
};
class AgreedError : public std::runtime_error, public Agreed {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace lbbench
