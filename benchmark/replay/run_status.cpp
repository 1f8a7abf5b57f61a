// What a rank is doing, for a signal handler (see run_status.hpp). The handler may only
// use async-signal-safe calls: it formats its line by hand and write()s it.
#include "replay/run_status.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>

namespace lbbench::run_status {

namespace {

constexpr int kKeptPeers = 16;
std::atomic<int> g_rank{-1};
std::atomic<int> g_step{-1};
std::atomic<int> g_peer_count{0};
std::atomic<int> g_peers[kKeptPeers];

class Line {
 public:
  void text(const char* s) {
    for (; *s && size_ < sizeof buffer_; ++s) buffer_[size_++] = *s;
  }
  void number(long value) {
    char digits[24];
    int n = 0;
    const bool negative = value < 0;
    unsigned long v = negative ? static_cast<unsigned long>(-value) : static_cast<unsigned long>(value);
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v > 0);
    if (negative) text("-");
    while (n > 0 && size_ < sizeof buffer_) buffer_[size_++] = digits[--n];
  }
  void write_out() const { (void)!::write(STDERR_FILENO, buffer_, size_); }

 private:
  char buffer_[512] = {};
  std::size_t size_ = 0;
};

void on_stop(int sig) {
  Line line;
  line.text("lbbench: rank ");
  line.number(g_rank.load(std::memory_order_relaxed));
  line.text(" was stopped (signal ");
  line.number(sig);
  const int step = g_step.load(std::memory_order_relaxed);
  if (step < 0) {
    line.text(") while setting up");
  } else {
    line.text(") at step ");
    line.number(step);
  }
  const int peers = g_peer_count.load(std::memory_order_relaxed);
  if (peers > 0) {
    line.text(", exchanging messages with rank");
    line.text(peers > 1 ? "s " : " ");
    for (int i = 0; i < std::min(peers, kKeptPeers); ++i) {
      if (i > 0) line.text(", ");
      line.number(g_peers[i].load(std::memory_order_relaxed));
    }
    if (peers > kKeptPeers) line.text(", ...");
  }
  line.text(": another rank of the job died or the job was cancelled; the launcher's message names it\n");
  line.write_out();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void watch(int rank) {
  g_rank.store(rank);
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction hup {};
  if (sigaction(SIGHUP, nullptr, &hup) == 0 && hup.sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, nullptr);
}

bool watching() { return g_rank.load(std::memory_order_relaxed) >= 0; }

void at_step(int step) { g_step.store(step, std::memory_order_relaxed); }

void exchanges_with(std::span<const int> peers) {
  const int n = static_cast<int>(peers.size());
  for (int i = 0; i < std::min(n, kKeptPeers); ++i) g_peers[i].store(peers[static_cast<std::size_t>(i)]);
  g_peer_count.store(n);
}

}  // namespace lbbench::run_status
