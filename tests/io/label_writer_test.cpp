// Writers name buffers by their labels (buffer_label: the name, or the index
// in decimal for a buffer without one), and readers turn those labels back
// into the same BufferIds. A problem built in code whose labels repeat cannot
// be written: the writers refuse it rather than write a file no reader takes.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>

#include "problem_equal.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/report.hpp"
#include "pto_mem/io/svg.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace label_writer_test {

/// Four buffers without names in one arena, with one constraint of each kind.
Problem unnamed_model() {
  Problem p;
  p.arenas = {{0, "Vec", 4096, {}}};
  p.buffers = {{"", 64, 32, 0, {0, 4}},
               {"", 64, 1, 0, {4, 8}},
               {"", 128, 1, 0, {0, 8}},
               {"", 32, 1, 0, {2, 3}},
               {"", 64, 1, 0, {1, 3}}};
  p.must_alias = {{{{0, 0}, {3, 32}}}};
  p.separations = {{1, 2, reason_explicit}, {0, 4, reason_target_hazard}};
  p.penalties = {{0, 1, 4}};
  return p;
}

std::size_t occurrences(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace label_writer_test

TEST_CASE(
    "labels: unnamed buffers are written as their index, constraints by label, and read back the same") {
  using namespace label_writer_test;
  const Problem p = unnamed_model();
  REQUIRE_MESSAGE(validate(p).empty(), dump(validate(p)));
  Placement pl;
  pl.offsets = {Addr{0}, Addr{0}, Addr{256}, Addr{32}, std::nullopt};
  const std::string text = json_problem_text(p, &pl);
  CHECK(text.find(R"({"id": 0, "size": 64, "alignment": 32, "arena": 0, "lifetime": [0, 4]})") !=
        std::string::npos);
  CHECK(text.find(R"("must_alias": [[0, {"id": 3, "offset": 32}]])") != std::string::npos);
  CHECK(text.find(R"([1, 2], {"a": 0, "b": 4, "reasons": ["target_hazard"]})") != std::string::npos);
  CHECK(text.find(R"({"a": 0, "b": 1, "weight": 4})") != std::string::npos);
  CHECK(text.find(R"({"id": 2, "offset": 256})") != std::string::npos);
  CHECK(json_name_defects(p).empty());

  auto back = read_json_problem(text, "back.json");
  REQUIRE_MESSAGE(back, dump(back.diagnostics));
  const Problem& q = back.file->problem;
  CHECK(pto_mem::test::first_difference(p, q) == "");  // same labels, same BufferIds in every constraint
  CHECK(q.buffers[3].name == "3");                     // the index became the name
  CHECK(back.file->placement->offsets == pl.offsets);
  CHECK(json_problem_text(q, &pl) == text);  // named by the label they had: the same text

  // The report and the SVG say the same labels.
  PlanResult r;
  r.status = Status::feasible;
  r.placement = pl;
  const std::string report = report_text(p, r);
  CHECK(report.find(R"({"id": 4, "offset": null})") != std::string::npos);
  const std::string svg = svg_memory_map(p, pl);
  CHECK(svg.find("<title>3: bytes [32, 64)") != std::string::npos);

  // CSV: no constraints, no alignment.
  Problem flat;
  flat.arenas = {{0, "arena0", 4096, {}}};
  flat.buffers = {{"", 8, 1, 0, {0, 2}}, {"b", 8, 1, 0, {1, 3}}, {"", 8, 1, 0, {2, 4}}};
  const auto csv = to_csv(flat);
  REQUIRE_MESSAGE(csv, dump(csv.diagnostics));
  CHECK(*csv.text == "id,lower,upper,size\n0,0,2,8\nb,1,3,8\n2,2,4,8\n");
  auto flat_back = read_csv(*csv.text, CsvOptions{4096, "arena0", 20});
  REQUIRE(flat_back);
  CHECK(pto_mem::test::first_difference(flat, flat_back.file->problem) == "");
}

TEST_CASE("labels: a problem whose labels repeat is refused by the writers, which write nothing") {
  using namespace label_writer_test;
  Problem p;
  p.arenas = {{0, "arena0", 4096, {}}};
  // "1" names buffer 0; buffer 1 has no name, so its label is "1" too.
  p.buffers = {{"1", 8, 1, 0, {0, 2}}, {"", 8, 1, 0, {1, 3}}, {"x", 8, 1, 0, {2, 4}}};
  const auto defects = json_name_defects(p);
  REQUIRE(defects.size() == 1);
  CHECK(defects[0].message ==
        "buffers 0 and 1 are both called '1' (a buffer without a name is called by its index); a file names "
        "each "
        "buffer once: give them distinct names");
  const auto csv = to_csv(p);
  CHECK_FALSE(csv);
  CHECK(pto_mem::test::mentions(csv.diagnostics, "buffers 0 and 1 are both called '1'"));

  pto_mem::test::TempDir dir;
  const auto json_path = dir.path() / "p.json", csv_path = dir.path() / "p.csv";
  CHECK_FALSE(write_json_problem_file(json_path, p).empty());
  CHECK_FALSE(write_csv_file(csv_path, p).empty());
  CHECK_FALSE(std::filesystem::exists(json_path));
  CHECK_FALSE(std::filesystem::exists(csv_path));

  p.buffers[1].name = "x";  // two names alike
  CHECK(pto_mem::test::mentions(json_name_defects(p), "buffers 1 and 2 are both called 'x'"));
  p.buffers[1].name = "y";
  CHECK(json_name_defects(p).empty());
  CHECK(to_csv(p));
}

TEST_CASE(
    "labels property: writers refuse exactly the problems whose labels repeat; the rest read back the same") {
  using namespace label_writer_test;
  std::mt19937 rng(30);
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  const std::string pool[] = {"", "", "0", "1", "2", "a", "b", "7"};  // empty: named by its index
  int refused = 0, written = 0;
  for (int round = 0; round < 400; ++round) {
    Problem p;
    p.arenas = {{0, "arena0", 1 << 16, {}}};
    const unsigned n = 1 + pick(6);
    for (unsigned i = 0; i < n; ++i) {
      const Tick b = pick(6);
      p.buffers.push_back({pool[pick(8)], 1 + pick(64), 1, 0, {b, b + 1 + static_cast<Tick>(pick(4))}});
    }
    if (n > 1) {
      const auto a = static_cast<BufferId>(pick(n)), b = static_cast<BufferId>((a + 1 + pick(n - 1)) % n);
      p.separations.push_back({a, b, reason_explicit});
    }
    std::set<std::string> labels;  // the brute-force verdict
    for (BufferId i = 0; i < n; ++i) labels.insert(buffer_label(p, i));
    const bool unique = labels.size() == n;
    CAPTURE(json_problem_text(p));

    CHECK(json_name_defects(p).empty() == unique);
    Problem flat = p;
    flat.separations.clear();
    CHECK(to_csv(flat).text.has_value() == unique);
    if (!unique) {
      ++refused;
      continue;
    }
    ++written;
    auto back = read_json_problem(json_problem_text(p));
    REQUIRE_MESSAGE(back, dump(back.diagnostics));
    CHECK(pto_mem::test::first_difference(p, back.file->problem) == "");
    auto flat_back = read_csv(*to_csv(flat).text, CsvOptions{1 << 16, "arena0", 20});
    REQUIRE_MESSAGE(flat_back, dump(flat_back.diagnostics));
    CHECK(pto_mem::test::first_difference(flat, flat_back.file->problem) == "");
    CHECK(occurrences(json_problem_text(p), "\"id\"") == n + 1);  // and the arena's
  }
  CHECK(refused > 50);
  CHECK(written > 50);
}
