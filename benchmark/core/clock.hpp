// UTC timestamps and the host name, for provenance.
#pragma once

#include <string>

namespace lbbench {

// The current UTC time in strftime's `format`; by default ISO 8601, "2026-11-21T20:59:00Z".
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");
// The real host this process runs on.
std::string host_name();

}  // namespace lbbench
