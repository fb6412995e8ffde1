// A tiny private loader for the instance suites' CSV form (id,lower,upper,size
// [,offset]) used by the exact-search benchmarks until io/csv.hpp lands.
// One arena, capacity from the caller (the minimalloc file names carry it).
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pto_mem/core/problem.hpp"

namespace pto_mem::bench {

/// nullopt when the file cannot be read or a row is malformed.
inline std::optional<Problem> load_instance_csv(const std::string& path, Addr capacity) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;  // header
  Problem p;
  p.arenas.push_back({0, "arena0", capacity, {}});
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    std::stringstream row(line);
    std::string id, lower, upper, size;
    if (!std::getline(row, id, ',') || !std::getline(row, lower, ',') || !std::getline(row, upper, ',') ||
        !std::getline(row, size, ','))
      return std::nullopt;
    try {
      p.buffers.push_back({id, std::stoull(size), 1, 0, {std::stoll(lower), std::stoll(upper)}});
    } catch (...) {
      return std::nullopt;
    }
  }
  return p;
}

/// The capacity a minimalloc file name carries ("A.1048576.csv"), if any.
inline std::optional<Addr> capacity_from_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  const auto a = name.find('.');
  const auto b = name.rfind('.');
  if (a == std::string::npos || b == a + 1 || b == a) return std::nullopt;
  const std::string digits = name.substr(a + 1, b - a - 1);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 19) return std::nullopt;
  return std::stoull(digits);
}

}  // namespace pto_mem::bench
