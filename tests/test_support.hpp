// Helpers shared by the test suites.
#pragma once

#include <string>

#include "pto_mem/core/diagnostics.hpp"

namespace pto_mem::test {

/// Path of a file in the shared specs/data folder.
inline std::string shared_path(const std::string& rel) { return std::string(PTO_MEM_SHARED_DIR) + "/" + rel; }
inline constexpr bool have_shared = PTO_MEM_HAVE_SHARED;

/// True when some diagnostic's message contains every fragment.
template <class... S>
bool mentions(const Diagnostics& ds, const S&... fragments) {
  for (const auto& d : ds) {
    if (((d.message.find(fragments) != std::string::npos) && ...)) return true;
  }
  return false;
}

inline std::string dump(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += format(d) + "\n";
  return out;
}

}  // namespace pto_mem::test
