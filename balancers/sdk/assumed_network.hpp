// What a cost model assumes where the machine's network is not known: a commodity
// cluster's 5 µs per message and 1 GB/s.
#pragma once

namespace lbbench {

inline constexpr double kAssumedLatency_s = 5e-6;
inline constexpr double kAssumedSecondsPerByte = 1e-9;

}  // namespace lbbench
