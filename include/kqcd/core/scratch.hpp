// Kernel scratch resources declared by the functor, as QUDA's KernelOps: a functor that uses team
// scratch says how many bytes it needs for a launch shape (team_scratch_bytes), the launcher sizes
// Kokkos' level-0 team scratch from that, and each cache in the kernel takes its own byte offset
// into it (ScratchLayout adds the sizes up, so two caches never overlap).
//   SharedMemoryCache<T>: n values of T shared by the team (GPU shared memory).
//   ThreadLocalCache<T, N>: N values of T per thread, strided across the team's threads so that a
//   warp's accesses to value k fall in consecutive banks; moves per-thread arrays out of registers.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace kqcd {

namespace detail {
/// Scratch allocations start on 16-byte boundaries (the widest vector load).
KOKKOS_INLINE_FUNCTION constexpr std::size_t scratch_align(std::size_t bytes) { return (bytes + 15) / 16 * 16; }
/// The team's level-0 scratch, whose first `bytes` the functor declared.
template <class Member> KOKKOS_INLINE_FUNCTION char* team_scratch_base(const Member& team, std::size_t bytes) {
  return static_cast<char*>(team.team_scratch(0).get_shmem(bytes));
}
} // namespace detail

/// An array in a team's scratch memory, shared by its threads.
template <class T> class SharedMemoryCache {
public:
  /// Element type.
  using value_type = T;
  /// Scratch bytes for n values, rounded up for the next cache's alignment.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(std::size_t n) { return detail::scratch_align(n * sizeof(T)); }

  /// The cache at `offset` bytes into the team scratch that starts at base.
  KOKKOS_INLINE_FUNCTION SharedMemoryCache(char* base, std::size_t offset) : data_(reinterpret_cast<T*>(base + offset)) {}
  /// Element i.
  KOKKOS_INLINE_FUNCTION T& operator[](std::size_t i) const { return data_[i]; }
  /// The first element.
  KOKKOS_INLINE_FUNCTION T* data() const { return data_; }
  /// Makes every thread's writes visible to the whole team.
  template <class Member> KOKKOS_INLINE_FUNCTION static void sync(const Member& team) { team.team_barrier(); }

private:
  T* data_;
};

/// N values per thread in a team's scratch memory, strided by thread.
template <class T, int N> class ThreadLocalCache {
public:
  /// Element type.
  using value_type = T;
  /// Values per thread.
  static constexpr int size = N;
  /// Scratch bytes for a team of team_size threads (times vector lanes).
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(int team_size) { return detail::scratch_align(std::size_t(N) * team_size * sizeof(T)); }

  /// Thread `thread` of `team_size`: value k lives at k * team_size + thread.
  KOKKOS_INLINE_FUNCTION ThreadLocalCache(char* base, std::size_t offset, int thread, int team_size)
      : data_(reinterpret_cast<T*>(base + offset) + thread), stride_(team_size) {}
  /// This thread's value k.
  KOKKOS_INLINE_FUNCTION T& operator[](int k) const { return data_[std::size_t(k) * stride_]; }

private:
  T* data_;
  int stride_;
};

/// Byte offsets of caches placed one after another: offset(i) is where cache i starts, total() the
/// scratch the functor declares.
template <int n_caches> struct ScratchLayout {
  /// Bytes of each cache.
  std::size_t sizes[n_caches];
  /// Byte offset of cache i.
  KOKKOS_INLINE_FUNCTION constexpr std::size_t offset(int i) const {
    std::size_t o = 0;
    for (int k = 0; k < i; ++k) o += sizes[k];
    return o;
  }
  /// Bytes of all caches.
  KOKKOS_INLINE_FUNCTION constexpr std::size_t total() const { return offset(n_caches); }
};

} // namespace kqcd
