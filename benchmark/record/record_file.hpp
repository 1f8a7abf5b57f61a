// Appending a record to a JSON Lines file, whole or not at all.
#pragma once

#include <string>

#include "core/json_yaml.hpp"

namespace lbbench {

// Appends one record as one line. The file is locked for the write, the line goes out in
// a single write and is flushed to disk; if the write comes up short, the file is cut
// back, so a reader never sees a partial line. Throws InputError if the file cannot be
// opened.
void append_record(const std::string& path, const Json& record);

// Fails before a run, not after it, when an output cannot be written: a long run must not
// end by losing its record. `append` opens it for appending (a records file), else for
// writing anew. Nothing happens for an empty path. Throws InputError naming the file.
void check_writable(const std::string& path, const char* what, bool append);

}  // namespace lbbench
