// The readers on broken files (the class of bug behind a crash on a
// header without a newline): every prefix of valid CSV and JSON files,
// and random byte flips, insertions and deletions of them. Each one is read
// without a crash and gives either a problem that re-validates (with a
// placement of the right length) or errors that name the file and a place.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "temp_dir.hpp"

using namespace pto_mem;

namespace {

std::string example(const std::string& name) {
  return pto_mem::test::read_file(std::string(PTO_MEM_SOURCE_DIR) + "/examples/data/" + name);
}

/// The reader's verdict is either a well-formed problem or located errors.
template <class Read>
void check_verdict(const std::string& text, Read read, const std::string& file) {
  const ReadResult r = read(text);
  CAPTURE(text);
  if (r) {
    CHECK(validate(r.file->problem).empty());
    CHECK(r.file->no_capacity.size() == r.file->problem.arenas.size());
    if (r.file->placement) CHECK(r.file->placement->offsets.size() == r.file->problem.buffers.size());
    return;
  }
  REQUIRE_FALSE(r.diagnostics.empty());
  for (const auto& d : r.diagnostics) {
    REQUIRE(d.location);
    CHECK(d.location->file == file);
    CHECK_FALSE(d.message.empty());
  }
}

std::vector<std::string> mutations(const std::string& text, std::mt19937_64& rng, int count) {
  static const std::string interesting = ",\n\r\"0-9 {}[]:\xFF\xC3";
  std::vector<std::string> out;
  for (int k = 0; k < count; ++k) {
    std::string m = text;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !m.empty(); ++e) {
      const std::size_t at = rng() % m.size();
      const char c = rng() % 2 ? interesting[rng() % interesting.size()] : static_cast<char>(rng() % 256);
      switch (rng() % 3) {
        case 0: m[at] = c; break;
        case 1: m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: m.erase(at, 1 + rng() % 4); break;
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

TEST_CASE("CSV reader: every prefix and many mutations of valid files are read or refused cleanly") {
  const auto read = [](const std::string& t) { return read_csv(t, {}, "m.csv"); };
  const auto read_cap = [](const std::string& t) {
    CsvOptions o;
    o.capacity = 4096;
    return read_csv(t, o, "m.csv");
  };
  std::vector<std::string> files = {example("small.csv"), example("small_placed.csv"),
                                    "ID,Size,Upper,Lower,Offset\r\n\"a,b\",4,3,0,0\r\n7,8,9,2,\r\n\r\n",
                                    "id,lower,upper,size,offset\n\"x\"\"y\",0,1,1,0"};
  std::mt19937_64 rng(99);
  for (const auto& f : files) {
    for (std::size_t n = 0; n <= f.size(); ++n) {
      check_verdict(f.substr(0, n), read, "m.csv");
      check_verdict(f.substr(0, n), read_cap, "m.csv");
    }
    for (const auto& m : mutations(f, rng, 400)) check_verdict(m, read, "m.csv");
  }
  // The crash of the issue, exactly: a header and nothing else, no newline.
  for (const char* t : {"id,lower,upper,size", "id,lower,upper,size,offset", "id,lower,upper,size\r"}) {
    const auto r = read_csv(t, {}, "h.csv");
    REQUIRE(r);
    CHECK(r.file->problem.buffers.empty());
  }
}

TEST_CASE("JSON reader: every prefix and many mutations of valid files are read or refused cleanly") {
  const auto read = [](const std::string& t) { return read_json_problem(t, "m.json"); };
  std::mt19937_64 rng(17);
  for (const char* name : {"full_model.json", "attention.json"}) {
    const std::string f = example(name);
    for (std::size_t n = 0; n <= f.size(); n += (f.size() > 2000 ? 7 : 1))
      check_verdict(f.substr(0, n), read, "m.json");
    for (const auto& m : mutations(f, rng, 300)) check_verdict(m, read, "m.json");
  }
}
