// Property tests over random inputs: readers return a problem only when the
// validator accepts it, and writer -> reader is the identity.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>

#include "problem_equal.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

/// A random CSV row, sometimes broken in one of the ways users break them.
std::string random_row(std::mt19937& rng, int i) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string id = pick(4) == 0 ? std::to_string(i) : "t" + std::to_string(i);
  long lower = pick(50), upper = lower + 1 + pick(20), size = 1 + pick(4096);
  switch (pick(12)) {
    case 0:
      return id + "," + std::to_string(lower) + "," + std::to_string(lower) + "," + std::to_string(size);
    case 1: return id + "," + std::to_string(lower) + "," + std::to_string(upper) + ",0";
    case 2: return "t0," + std::to_string(lower) + "," + std::to_string(upper) + "," + std::to_string(size);
    case 3:
      return id + ",-" + std::to_string(lower + 1) + "," + std::to_string(upper) + "," + std::to_string(size);
    case 4: return id + "," + std::to_string(lower) + "," + std::to_string(upper);
    case 5: return id + ",x," + std::to_string(upper) + "," + std::to_string(size);
    default:
      return id + "," + std::to_string(lower) + "," + std::to_string(upper) + "," + std::to_string(size);
  }
}

}  // namespace

TEST_CASE("csv property: a problem is returned exactly when it is well formed") {
  std::mt19937 rng(20240601);
  int loaded = 0, rejected = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text = "id,lower,upper,size\n";
    const int rows = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < rows; ++i) text += random_row(rng, i) + (rng() % 7 == 0 ? "\r\n" : "\n");
    auto r = read_csv(text, CsvOptions{1 << 20, "arena0", 20}, "r.csv");
    if (r) {
      ++loaded;
      CHECK_MESSAGE(validate(r.file->problem).empty(), text);
      CHECK(r.diagnostics.empty());
      // And the writer gives back text that reads to the same problem.
      auto again = read_csv(*to_csv(r.file->problem).text, CsvOptions{1 << 20, "arena0", 20});
      REQUIRE(again);
      CHECK(pto_mem::test::first_difference(r.file->problem, again.file->problem) == "");
    } else {
      ++rejected;
      REQUIRE_FALSE(r.diagnostics.empty());
      for (const auto& d : r.diagnostics) {
        REQUIRE(d.location);
        CHECK(d.location->line >= 2);  // every broken row is a data row
        CHECK(d.location->column >= 1);
      }
    }
  }
  CHECK(loaded > 20);
  CHECK(rejected > 20);
}

// Some arenas have no capacity (always_fitting_capacity, as a reader sets
// it): written without one, read back the same. Some separations join two
// arenas: vacuous, accepted, and kept.
TEST_CASE("json property: random well-formed problems survive write -> read unchanged") {
  std::mt19937 rng(7);
  auto pick = [&](unsigned n) { return rng() % n; };
  for (int round = 0; round < 120; ++round) {
    Problem p;
    const unsigned arenas = 1 + pick(3);
    for (unsigned k = 0; k < arenas; ++k) {
      Arena a{
          static_cast<std::int64_t>(k * 3 + pick(3)), pick(2) ? "A" + std::to_string(k) : "", 1u << 20, {}};
      if (pick(2)) a.reserved.push_back({0, 64 * (1 + pick(4))});
      p.arenas.push_back(a);
    }
    const unsigned n = 2 + pick(25);
    for (unsigned i = 0; i < n; ++i) {
      const Tick b = pick(30);
      // Named "b<i>", or a decimal name no index reaches, or unnamed (its
      // index stands for it): labels never repeat.
      const unsigned naming = pick(4);
      p.buffers.push_back({naming == 0   ? std::string()
                           : naming == 1 ? std::to_string(1000 + i * 10)
                                         : "b" + std::to_string(i),
                           1 + pick(5000),
                           pick(3) ? 1 : Addr{32} * (1 + pick(4)),
                           p.arenas[pick(arenas)].id,
                           {b, b + 1 + static_cast<Tick>(pick(10))}});
    }
    std::vector<bool> no_capacity;
    for (auto& a : p.arenas) {
      no_capacity.push_back(pick(3) == 0);
      if (no_capacity.back()) a.capacity = always_fitting_capacity(p, a.id);
    }
    std::set<std::pair<std::size_t, std::size_t>> used;
    for (unsigned t = 0; t < 6; ++t) {
      const std::size_t i = pick(n), j = pick(n);
      if (i == j || used.count({i, j}) || used.count({j, i})) continue;
      used.insert({i, j});
      const auto& a = p.buffers[i];
      const auto& b = p.buffers[j];
      const auto ia = static_cast<BufferId>(i), ib = static_cast<BufferId>(j);
      const unsigned kind = a.arena == b.arena ? pick(3) : 0;  // only a separation may join two arenas
      switch (kind) {
        case 0: p.separations.push_back({ia, ib, static_cast<std::uint8_t>(pick(16))}); break;
        case 1:
          if (!interferes(a.lifetime, b.lifetime)) p.penalties.push_back({ia, ib, 1 + pick(9)});
          break;
        default:
          if (p.must_alias.empty())  // aligned members at one offset: the alignments never contradict
            p.must_alias.push_back(
                {{{ia, 0}, {ib, a.alignment == 1 && b.alignment == 1 ? 32 * pick(3) : 0}}});
      }
    }
    // A separation inside an alias class is malformed; drop those.
    if (!p.must_alias.empty()) {
      std::set<BufferId> members;
      for (const auto& m : p.must_alias[0].members) members.insert(m.buffer);
      std::erase_if(p.separations,
                    [&](const Separation& s) { return members.count(s.a) && members.count(s.b); });
    }
    REQUIRE_MESSAGE(validate(p).empty(), dump(validate(p)));
    Placement pl;
    for (unsigned i = 0; i < n; ++i)
      pl.offsets.push_back(pick(4) ? std::optional<Addr>(pick(100000)) : std::nullopt);

    const std::string text = json_problem_text(p, &pl);
    auto back = read_json_problem(text);
    REQUIRE_MESSAGE(back, dump(back.diagnostics) << text);
    CHECK_MESSAGE(pto_mem::test::first_difference(p, back.file->problem) == "", text);
    CHECK_MESSAGE(back.file->no_capacity == no_capacity, text);  // no invented capacity in the text
    REQUIRE(back.file->placement);
    CHECK(back.file->placement->offsets == pl.offsets);
    CHECK(json_problem_text(*back.file) == text);  // the file's own flags write the same text
  }
}
