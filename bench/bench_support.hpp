// Instances for the benchmarks and the quality table: CSV instances through
// io/csv.hpp and a seeded generator of compiler-like traces.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/paired_shuffle.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/io/csv.hpp"

namespace pto_mem::bench {

/// The capacity in a file name of the form `X.<capacity>.csv`, if any.
inline std::optional<Addr> capacity_from_name(const std::filesystem::path& path) {
  const std::string stem = path.stem().string();  // "A.1048576"
  const auto dot = stem.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  const auto v = parse_integer_id(stem.substr(dot + 1));
  if (!v || *v <= 0) return std::nullopt;
  return static_cast<Addr>(*v);
}

/// One arena, one buffer per row of `id,lower,upper,size[,offset]`, live over
/// [lower, upper), alignment 1. With no capacity given, the arena gets one
/// that always fits: the run minimises the peak. nullopt when the file cannot
/// be read (the reader's diagnostics go to stderr).
inline std::optional<Problem> read_csv_instance(const std::filesystem::path& path,
                                                std::optional<Addr> capacity = std::nullopt) {
  CsvOptions options;
  options.capacity = capacity;
  options.arena_name = path.stem().string();
  auto read = read_csv_file(path, options);
  if (!read) {
    for (const auto& d : read.diagnostics) std::cerr << format(d) << '\n';
    return std::nullopt;
  }
  return std::move(read.file->problem);
}

/// A compiler-like trace of n buffers, reproducible on every platform: births
/// spread over n/2 program points; lifetimes mostly short (70% of 1-8 points),
/// some medium (25% up to 200), a few long (5% up to 5000); sizes log-uniform
/// from 32 B to 2 MiB in 32-byte steps, aligned to 32. About 300 buffers are
/// live at once. Capacity: always fits (minimise the peak).
inline Problem generated_instance(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  auto below = [&](std::uint64_t k) { return uniform_below(g, k); };
  Problem p;
  Addr total = 0;
  const std::uint64_t horizon = std::max<std::uint64_t>(1, n / 2);
  for (std::size_t i = 0; i < n; ++i) {
    BufferSpec b;
    b.name = std::to_string(i);
    const auto begin = static_cast<Tick>(below(horizon));
    const std::uint64_t kind = below(100);
    const std::uint64_t length = kind < 70 ? 1 + below(8) : kind < 95 ? 8 + below(193) : 200 + below(4801);
    b.lifetime = {begin, begin + static_cast<Tick>(length)};
    const std::uint64_t log2 = 5 + below(16);  // [2^log2, 2^(log2+1)): 32 B .. 2 MiB
    b.size = std::max<Addr>(32, ((Addr{1} << log2) + below(Addr{1} << log2)) / 32 * 32);
    b.alignment = 32;
    total = saturating_add(total, b.size);
    p.buffers.push_back(std::move(b));
  }
  p.arenas.push_back({0, "generated", std::max<Addr>(total, 1), {}});
  return p;
}

}  // namespace pto_mem::bench
