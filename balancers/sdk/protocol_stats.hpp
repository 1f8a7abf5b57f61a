// What a distributed balancer's protocol cost in one LB call, over all ranks: plain data
// that records carry.
#pragma once

#include <cstdint>

namespace lbbench {

struct ProtocolStats {
  int rounds = 0;                    // message rounds (each one SparseExchange)
  int reductions = 0;                // rounds that also reduced values (termination, sums)
  std::int64_t messages = 0;         // point-to-point messages the protocol sent
  std::int64_t bytes = 0;            // their payload
  std::int64_t largest_message = 0;  // bytes
  std::int64_t largest_list = 0;     // strategy-specific: the longest list any rank held
};

}  // namespace lbbench
