// Small MPI helpers shared by every part (see mpi.hpp).
#include "comm/mpi.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "core/error.hpp"

namespace lbbench {

MpiSession::MpiSession(int* argc, char*** argv, MpiThreads threads) {
  // MPI errors stay fatal (the default handler): the code does not check return codes,
  // and a truncated or failed message must never pass silently.
  MPI_Init_thread(argc, argv, threads == MpiThreads::multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 0;
  MPI_Comm_size(comm, &s);
  return s;
}

MPI_Comm duplicate_comm(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Comm_create(comm, group, &copy);
  MPI_Group_free(&group);
  return copy;
}

std::vector<int> world_ranks_of(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<std::size_t>(comm_size(comm))), out(ranks.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  MPI_Group_translate_ranks(group, static_cast<int>(ranks.size()), ranks.data(), world, out.data());
  MPI_Group_free(&world);
  MPI_Group_free(&group);
  return out;
}

std::vector<long long> exclusive_sum(const std::vector<long long>& mine, MPI_Comm comm) {
  constexpr int kTag = 7301;
  const int me = comm_rank(comm);
  const int n = comm_size(comm);
  const int count = static_cast<int>(mine.size());
  std::vector<long long> inclusive = mine, incoming(mine.size());
  // Hillis-Steele: after the round of distance d, rank r holds the sum over ranks
  // max(0, r - 2d + 1) .. r.
  for (int distance = 1; distance < n; distance *= 2) {
    const int to = me + distance < n ? me + distance : MPI_PROC_NULL;
    const int from = me >= distance ? me - distance : MPI_PROC_NULL;
    std::fill(incoming.begin(), incoming.end(), 0LL);
    MPI_Sendrecv(inclusive.data(), count, MPI_LONG_LONG, to, kTag, incoming.data(), count, MPI_LONG_LONG, from, kTag,
                 comm, MPI_STATUS_IGNORE);
    for (std::size_t i = 0; i < inclusive.size(); ++i) inclusive[i] += incoming[i];
  }
  for (std::size_t i = 0; i < inclusive.size(); ++i) inclusive[i] -= mine[i];
  return inclusive;
}

std::string mpi_library_version() {
  char buffer[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(buffer, &length);
  std::string v(buffer, static_cast<std::size_t>(length));
  if (auto nl = v.find_first_of("\n,"); nl != std::string::npos) v.resize(nl);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\n')) v.pop_back();
  return v;
}

namespace {

enum class ErrorKind : int { none = 0, input = 1, run = 2, other = 3 };

std::pair<ErrorKind, std::string> classify(const std::exception_ptr& error) {
  if (!error) return {ErrorKind::none, {}};
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    return {ErrorKind::input, e.what()};
  } catch (const RunError& e) {
    return {ErrorKind::run, e.what()};
  } catch (const std::exception& e) {
    return {ErrorKind::other, e.what()};
  } catch (...) {
    return {ErrorKind::other, "unknown exception"};
  }
}

}  // namespace

void agree_on_errors(const std::exception_ptr& local, MPI_Comm comm) {
  const auto [kind, message] = classify(local);
  const int me = comm_rank(comm);
  const int size = comm_size(comm);
  const int candidate = kind == ErrorKind::none ? size : me;
  const int first = allreduce(candidate, MPI_MIN, comm);
  if (first == size) return;
  int payload[2] = {static_cast<int>(kind), static_cast<int>(message.size())};
  MPI_Bcast(payload, 2, MPI_INT, first, comm);
  std::string text = me == first ? message : std::string(static_cast<std::size_t>(payload[1]), '\0');
  MPI_Bcast(text.data(), payload[1], MPI_CHAR, first, comm);
  switch (static_cast<ErrorKind>(payload[0])) {
    case ErrorKind::input: throw AgreedInputError(text);
    case ErrorKind::run: throw AgreedRunError(text);
    default: throw AgreedError(text);
  }
}

}  // namespace lbbench
