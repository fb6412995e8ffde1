#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/planner.hpp"

namespace foreign {
// A compiler's own types: other member names, other integer types.
struct LiveRange {
  std::int32_t first_use;
  std::int32_t last_use;  // inclusive
};
enum class Bank : std::uint8_t { dram, ub, l1 };
struct Value {
  std::uint32_t vreg;
  std::size_t bytes;
  Bank bank;
  LiveRange live;
};
struct ChipPolicy {
  std::map<Bank, std::uint64_t> caps;
};
}  // namespace foreign

template <>
struct pto_mem::lifetime_traits<foreign::LiveRange> {
  static Tick begin(const foreign::LiveRange& r) { return r.first_use; }
  static Tick end(const foreign::LiveRange& r) { return Tick{r.last_use} + 1; }
};
template <>
struct pto_mem::buffer_traits<foreign::Value> {
  static std::uint32_t id(const foreign::Value& v) { return v.vreg; }
  static std::size_t size(const foreign::Value& v) { return v.bytes; }
  static unsigned alignment(const foreign::Value&) { return 1; }
  static foreign::Bank arena(const foreign::Value& v) { return v.bank; }
  static const foreign::LiveRange& lifetime(const foreign::Value& v) { return v.live; }
};
template <>
struct pto_mem::arena_policy_traits<foreign::ChipPolicy> {
  static bool planned(const foreign::ChipPolicy&, foreign::Bank b) { return b != foreign::Bank::dram; }
  static std::optional<Addr> capacity(const foreign::ChipPolicy& p, foreign::Bank b) { return p.caps.at(b); }
  static std::vector<AddrRange> reserved(const foreign::ChipPolicy&, foreign::Bank b) {
    if (b == foreign::Bank::ub) return {AddrRange{0, 64}};
    return {};
  }
  static Addr alignment(const foreign::ChipPolicy&, foreign::Bank) { return 32; }
  static std::string name(const foreign::ChipPolicy&, foreign::Bank b) {
    return b == foreign::Bank::ub ? "UB" : "L1";
  }
};

static_assert(pto_mem::Lifetime<foreign::LiveRange>);
static_assert(pto_mem::Buffer<foreign::Value>);
static_assert(pto_mem::ArenaPolicy<foreign::ChipPolicy, foreign::Bank>);
static_assert(pto_mem::Lifetime<pto_mem::Interval>);
static_assert(pto_mem::Lifetime<std::pair<int, long>>);
static_assert(pto_mem::Buffer<pto_mem::BufferSpec>);
static_assert(!pto_mem::Buffer<int>);
static_assert(pto_mem::ArenaPolicy<pto_mem::UnboundedArenaPolicy, int>);

TEST_CASE("a foreign struct models Buffer and is planned without copying into our types") {
  using namespace foreign;
  std::vector<Value> values = {
      {7, 100, Bank::ub, {0, 3}},
      {3, 40, Bank::ub, {2, 5}},
      {9, 4096, Bank::dram, {0, 9}},
      {4, 10, Bank::l1, {0, 1}},
  };
  ChipPolicy chip{{{Bank::ub, 1024}, {Bank::l1, 512}, {Bank::dram, 0}}};
  auto built = pto_mem::make_problem(values, chip);
  const auto& p = built.problem;
  REQUIRE(p.arenas.size() == 2);  // dram is not planned
  CHECK(p.arenas[0].name == "UB");
  CHECK(p.arenas[0].capacity == 1024);
  CHECK(p.arenas[0].reserved == std::vector<pto_mem::AddrRange>{{0, 64}});
  REQUIRE(p.buffers.size() == 3);
  CHECK(p.buffers[0].name == "7");
  CHECK(p.buffers[0].alignment == 32);  // the arena's address alignment applies
  CHECK(p.buffers[0].lifetime == pto_mem::Interval{0, 4});
  CHECK_FALSE(built.buffer_index[2].has_value());

  auto planned = pto_mem::plan(values, chip);
  REQUIRE(planned.result.fits());
  REQUIRE(planned.offsets.size() == 4);
  CHECK_FALSE(planned.offsets[2].has_value());  // off-chip: no address
  // Values 7 and 3 are live together in UB: both above the reserved window, apart.
  const auto a = *planned.offsets[0];
  const auto b = *planned.offsets[1];
  CHECK(a >= 64);
  CHECK(b >= 64);
  CHECK((a + 100 <= b || b + 40 <= a));
  CHECK(a % 32 == 0);
  CHECK(b % 32 == 0);
}

TEST_CASE("an arena without capacity gets one that always fits") {
  std::vector<pto_mem::BufferSpec> bs = {{"a", 10, 3, 0, {0, 2}}, {"b", 7, 5, 0, {1, 3}}};
  auto built = pto_mem::make_problem(bs, pto_mem::UnboundedArenaPolicy{});
  REQUIRE(built.problem.arenas.size() == 1);
  auto r = pto_mem::plan(built.problem);
  CHECK(r.fits());
  CHECK(built.problem.arenas[0].capacity >= r.objective.max_peak);
}

TEST_CASE("alignment of a buffer and its arena combine by least common multiple") {
  CHECK(pto_mem::combined_alignment(3, 32) == 96);
  CHECK(pto_mem::combined_alignment(64, 32) == 64);
  CHECK(pto_mem::combined_alignment(5, 0) == 5);
  CHECK(pto_mem::combined_alignment(0, 32) == 0);
}

TEST_CASE("overflow-checked arithmetic never wraps") {
  using namespace pto_mem;
  CHECK_FALSE(checked_add(max_addr, 1).has_value());
  CHECK(checked_add(max_addr - 1, 1) == max_addr);
  CHECK(saturating_add(max_addr, 5) == max_addr);
  CHECK(align_up(13, 5) == 15);
  CHECK(align_up(15, 5) == 15);
  CHECK_FALSE(align_up(max_addr, 2).has_value());
  CHECK_FALSE(align_up(4, 0).has_value());
  CHECK_FALSE(checked_mul(Addr{1} << 33, Addr{1} << 33).has_value());
}

TEST_CASE("ids order numerically when all are integers, by text otherwise") {
  pto_mem::Problem p;
  p.buffers = {{"10", 1, 1, 0, {0, 1}}, {"9", 1, 1, 0, {0, 1}}, {"100", 1, 1, 0, {0, 1}}};
  CHECK(pto_mem::id_ranks(p) == std::vector<std::uint32_t>{1, 0, 2});
  p.buffers[1].name = "x";
  CHECK(pto_mem::id_ranks(p) == std::vector<std::uint32_t>{0, 2, 1});  // "10" < "100" < "x"
  // A buffer without a name is labelled by its index, in decimal.
  p.buffers[1].name.clear();
  CHECK(pto_mem::buffer_label(p, 1) == "1");
  CHECK(pto_mem::id_ranks(p) == std::vector<std::uint32_t>{1, 0, 2});  // 1 < 10 < 100, numerically
  p.buffers[0].name = "x";
  CHECK(pto_mem::id_ranks(p) == std::vector<std::uint32_t>{2, 0, 1});  // "1" < "100" < "x"
  CHECK_FALSE(pto_mem::parse_integer_id("007").has_value());
  CHECK(pto_mem::parse_integer_id("-3") == -3);
}
