// The tile-storage verifier's byte map (verify/storage_state.hpp) against a
// byte-by-byte model: random additions, overwrites, erasures, removals of
// one value and meets keep every byte's set of values equal to the model's, and the map
// canonical (no empty segment, no two touching segments with the same
// values), so that == is equality on every byte.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "pto_mem/pypto/verify/storage_state.hpp"

using pto_mem::pypto::verify::ByteMap;
using pto_mem::pypto::verify::Names;
using pto_mem::pypto::verify::ValueId;

namespace storage_state_test {

constexpr std::int64_t region_bytes = 48;
using ByteModel = std::vector<std::set<ValueId>>;

/// The map's sets per byte, after checking its invariants.
ByteModel model_of(const ByteMap& m) {
  ByteModel out(region_bytes);
  const pto_mem::pypto::verify::Segment* prev = nullptr;
  for (const auto& s : m) {
    REQUIRE(s.begin < s.end);
    REQUIRE_FALSE(s.names.empty());
    REQUIRE(std::is_sorted(s.names.begin(), s.names.end()));
    if (prev) {
      REQUIRE(prev->end <= s.begin);
      REQUIRE_FALSE((prev->end == s.begin && prev->names == s.names));
    }
    for (std::int64_t b = s.begin; b < s.end; ++b)
      out[static_cast<std::size_t>(b)].insert(s.names.begin(), s.names.end());
    prev = &s;
  }
  return out;
}

}  // namespace storage_state_test

using storage_state_test::ByteModel;
using storage_state_test::model_of;
using storage_state_test::region_bytes;

TEST_CASE("storage state: the byte map agrees with a byte-by-byte model") {
  std::mt19937_64 rng(20261205);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int run = 0; run < 200; ++run) {
    ByteMap a, b;
    ByteModel ma(region_bytes), mb(region_bytes);
    for (int step = 0; step < 60; ++step) {
      const bool on_a = pick(0, 1) == 0;
      ByteMap& m = on_a ? a : b;
      ByteModel& model = on_a ? ma : mb;
      std::int64_t lo = pick(0, region_bytes), hi = pick(0, region_bytes);
      if (lo > hi) std::swap(lo, hi);
      const auto v = static_cast<ValueId>(pick(0, 5));
      const auto at = [&](std::int64_t x) -> std::set<ValueId>& {
        return model[static_cast<std::size_t>(x)];
      };
      switch (pick(0, 6)) {
        case 0:
        case 1:
          m.add(lo, hi, Names{v});
          for (std::int64_t x = lo; x < hi; ++x) at(x).insert(v);
          break;
        case 2:
          m.erase(lo, hi);
          for (std::int64_t x = lo; x < hi; ++x) at(x).clear();
          break;
        case 3:
          m.erase_value(lo, hi, v);
          for (std::int64_t x = lo; x < hi; ++x) at(x).erase(v);
          break;
        case 5:
          m.assign(lo, hi, Names{v});
          for (std::int64_t x = lo; x < hi; ++x) at(x) = {v};
          break;
        case 6:
          m.assign(lo, hi, Names{});
          for (std::int64_t x = lo; x < hi; ++x) at(x).clear();
          break;
        case 4: {
          CHECK(m.intersects(lo, hi) == [&] {
            for (std::int64_t x = lo; x < hi; ++x)
              if (!at(x).empty()) return true;
            return false;
          }());
          auto [first, last] = m.overlapping(lo, hi);
          for (auto s = first; s != last; ++s) CHECK((s->begin < hi && lo < s->end));
          break;
        }
      }
      REQUIRE(model_of(m) == model);
      REQUIRE(model_of(a) == ma);
      REQUIRE(model_of(b) == mb);
      REQUIRE((a == b) == (ma == mb));
    }
    ByteModel meet(region_bytes);
    for (std::size_t x = 0; x < meet.size(); ++x)
      for (ValueId v : ma[x])
        if (mb[x].count(v)) meet[x].insert(v);
    CHECK(model_of(ByteMap::meet(a, b)) == meet);
  }
}
