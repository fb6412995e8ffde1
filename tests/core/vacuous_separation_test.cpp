// A separation between buffers of two arenas is vacuous (different memories
// never share a byte): the problem checks accept it, every planner gives
// exactly the placement it gives without it, the validator never reports
// it, and the front door over user objects takes it too.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

/// Two or three arenas, some with a capacity, some without; separations,
/// penalties and an alias group inside arenas.
Problem random_problem(std::mt19937& rng) {
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  Problem p;
  const unsigned arenas = 2 + pick(2);
  for (unsigned k = 0; k < arenas; ++k)
    p.arenas.push_back({static_cast<std::int64_t>(k), "A" + std::to_string(k), 0, {}});
  const unsigned n = 4 + pick(12);
  for (unsigned i = 0; i < n; ++i) {
    const Tick b = pick(12);
    p.buffers.push_back({"b" + std::to_string(i),
                         Addr{16} * (1 + pick(8)),
                         pick(3) == 0 ? Addr{32} : Addr{1},
                         static_cast<std::int64_t>(pick(arenas)),
                         {b, b + 1 + static_cast<Tick>(pick(6))}});
  }
  for (auto& a : p.arenas) {
    const Addr fits = always_fitting_capacity(p, a.id);
    a.capacity =
        pick(2) ? fits : std::max<Addr>(fits - fits / 4, 1);  // with or without a capacity of its own
  }
  for (unsigned t = 0; t < 4; ++t) {
    const BufferId ia = pick(n);
    const BufferId ib = pick(n);
    const auto& a = p.buffers[ia];
    const auto& b = p.buffers[ib];
    if (ia == ib || a.arena != b.arena) continue;
    if (pick(2))
      p.separations.push_back({ia, ib, reason_explicit});
    else if (!interferes(a.lifetime, b.lifetime))
      p.penalties.push_back({ia, ib, 1 + pick(5)});
  }
  return p;
}

/// `p` with separations across arenas added (some pairs twice, either way round).
Problem with_vacuous(Problem p, std::mt19937& rng, std::size_t& added) {
  added = 0;
  const auto n = static_cast<BufferId>(p.buffers.size());
  for (BufferId a = 0; a < n; ++a)
    for (BufferId b = 0; b < n; ++b)
      if (p.buffers[a].arena != p.buffers[b].arena && rng() % 4 == 0) {
        p.separations.push_back({a, b, static_cast<std::uint8_t>(rng() % 16)});
        ++added;
      }
  return p;
}

}  // namespace

TEST_CASE("vacuous separations: accepted, counted, and changing no planner's answer") {
  std::mt19937 rng(29);
  int compared = 0, with_pairs = 0;
  for (int round = 0; round < 40; ++round) {
    const Problem p = random_problem(rng);
    REQUIRE_MESSAGE(validate(p).empty(), dump(validate(p)));
    std::size_t added = 0;
    const Problem q = with_vacuous(p, rng, added);
    with_pairs += added > 0 ? 1 : 0;
    CHECK_MESSAGE(validate(q).empty(), dump(validate(q)));
    CHECK(vacuous_separations(q) == added);
    CHECK(vacuous_separations(p) == 0);
    for (const auto& name : strategies()) {
      PlanOptions o;
      o.strategy = *parse_strategy(name);
      const PlanResult a = plan(p, o);
      const PlanResult b = plan(q, o);
      INFO("strategy " << name << ", round " << round << "\n" << dump(b.diagnostics));
      CHECK(b.status == a.status);
      CHECK(b.placement.has_value() == a.placement.has_value());
      if (a.placement && b.placement) {
        CHECK(b.placement->offsets == a.placement->offsets);
        CHECK(b.objective.total_peak == a.objective.total_peak);
        CHECK(b.objective.penalty == a.objective.penalty);
        CHECK(validate(q, *b.placement).empty());  // the independent check, with the pairs in
        ++compared;
      }
    }
  }
  CHECK(compared > 100);
  CHECK(with_pairs > 30);
}

TEST_CASE("vacuous separations: the validator never reports two arenas at one offset") {
  Problem p;
  p.arenas = {{0, "Vec", 64, {}}, {1, "Mat", 64, {}}};
  p.buffers = {{"v", 32, 1, 0, {0, 4}}, {"m", 32, 1, 1, {0, 4}}, {"w", 32, 1, 0, {0, 4}}};
  const pto_mem::test::BufferIds id{p};
  p.separations = {{id("v"), id("m"), reason_explicit},
                   {id("m"), id("w"), reason_target_hazard},
                   {id("v"), id("w"), reason_explicit}};
  REQUIRE(validate(p).empty());
  CHECK(vacuous_separations(p) == 2);
  Placement both_at_zero{{Addr{0}, Addr{0}, Addr{32}}};
  CHECK_MESSAGE(validate(p, both_at_zero).empty(), dump(validate(p, both_at_zero)));
  // The separation inside one arena still counts.
  Placement clash{{Addr{0}, Addr{0}, Addr{16}}};
  CHECK(pto_mem::test::mentions(validate(p, clash), "'v'", "'w'"));
  // Penalties still join one arena only: a weight across memories is a mistake.
  p.penalties = {{id("v"), id("m"), 1}};
  CHECK(pto_mem::test::mentions(validate(p), "penalty ('v', 'm')", "different arenas"));
}

namespace vs {
enum class Space { vec, mat };
struct Tile {
  std::uint64_t size = 0;
  Space arena = Space::vec;
  std::pair<int, int> lifetime;
};
}  // namespace vs

TEST_CASE("vacuous separations: the front door takes one between a user's objects in two memories") {
  std::vector<vs::Tile> tiles = {
      {64, vs::Space::vec, {0, 4}}, {64, vs::Space::mat, {0, 4}}, {64, vs::Space::vec, {4, 8}}};
  Constraints<vs::Tile> c;
  c.separate(tiles[0], tiles[1]).separate(tiles[1], tiles[2]);
  const auto r = plan(tiles, UnboundedArenaPolicy{}, c);
  INFO(dump(r.result.diagnostics));
  CHECK(r.fits());
  REQUIRE(r.offsets.size() == 3);
  CHECK(r.offsets[0] == Addr{0});
  CHECK(r.offsets[1] == Addr{0});
  CHECK(r.offsets[2] == Addr{0});  // reuses tile 0's bytes: nothing separates it from tile 0
}
