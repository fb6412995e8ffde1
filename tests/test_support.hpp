// Helpers shared by the test suites.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/problem.hpp"

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

/// The BufferId of the buffer named `name` in a problem a test builds by
/// hand; the test fails (and stops) when no buffer has that name.
inline BufferId buffer_id(const Problem& p, std::string_view name) {
  const auto b = find_buffer(p, name);
  REQUIRE_MESSAGE(b.has_value(), "no buffer named '" << std::string(name) << "'");
  return *b;
}

/// Names buffers by their BufferId in a problem built by hand, so
/// constraints stay readable: `const test::BufferIds id{p};` then
/// `p.separations = {{id("b"), id("a")}};`. It looks the name up at each
/// call, so buffers the test adds or replaces later are found too.
class BufferIds {
 public:
  explicit BufferIds(const Problem& p) : p_(&p) {}
  BufferId operator()(std::string_view name) const { return buffer_id(*p_, name); }

 private:
  const Problem* p_;
};

inline std::string dump(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += format(d) + "\n";
  return out;
}

}  // namespace pto_mem::test
