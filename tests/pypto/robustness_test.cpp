// Property: mangled programs never crash, hang or throw the parser, and
// whatever still parses prints to text that re-parses identically. (The
// libFuzzer target, .ci/fuzz, explores much further.)
#include <doctest/doctest.h>

#include <random>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

std::string robust_mutate(std::string s, std::mt19937_64& rng) {
  static const std::vector<std::string> pieces = {"(",
                                                  ")",
                                                  "[",
                                                  "]",
                                                  ",",
                                                  ":",
                                                  "=",
                                                  "\n",
                                                  "    ",
                                                  "\t",
                                                  "#",
                                                  "\"",
                                                  "-",
                                                  "yield_(",
                                                  "for ",
                                                  "if ",
                                                  "else:",
                                                  "MemRef(\"d\", slots=2)[1]",
                                                  "Tile[[4], FP32, Vec]",
                                                  "pl.",
                                                  "Mem.",
                                                  "0x",
                                                  "1e",
                                                  "9999999999999999999999",
                                                  "const(",
                                                  "@function",
                                                  "def ",
                                                  "return ",
                                                  "while_(",
                                                  "cond(",
                                                  "\\",
                                                  "'",
                                                  "elif ",
                                                  "self.",
                                                  "range("};
  auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(pick(4));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = pick(s.size() + 1);
    switch (pick(5)) {
      case 0: s.erase(at, 1 + pick(12)); break;
      case 1: s.insert(at, pieces[pick(pieces.size())]); break;
      case 2: s.insert(at, 1, static_cast<char>(pick(256))); break;
      case 3: {
        const std::size_t from = pick(s.size() + 1), len = pick(40);
        s.insert(at, s.substr(from, len));
        break;
      }
      default:
        if (at < s.size()) s[at] = "([:=,\n )]"[pick(9)];
    }
  }
  return s;
}

}  // namespace

TEST_CASE("property: mangled programs are rejected cleanly or round-trip") {
  std::vector<std::string> seeds;
  for (const auto& f : test::own_data_files()) seeds.push_back(test::read_text(f));
  if (test::have_shared)
    for (const auto& f : test::case_files()) seeds.push_back(test::read_text(f));
  REQUIRE_FALSE(seeds.empty());
  std::mt19937_64 rng(20240601);
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string text = robust_mutate(seeds[static_cast<std::size_t>(rng() % seeds.size())], rng);
    ParseResult r;
    CHECK_NOTHROW(r = parse_program(text, "m.pto"));
    if (!r.ok()) {
      ++rejected;
      REQUIRE(r.diagnostics.size() == 1);
      CHECK_FALSE(r.diagnostics[0].message.empty());
      CHECK(r.diagnostics[0].location.has_value());
      continue;
    }
    ++parsed;
    const std::string once = print(r.program);
    ParseResult again = parse_program(once, "printed.pto");
    CAPTURE(text);
    CAPTURE(once);
    REQUIRE(again.ok());
    CHECK(print(again.program) == once);
  }
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}

TEST_CASE("a 10k-statement kernel parses and prints") {
  std::string text =
      "def big(x: Tensor[[16, 16], FP32]):\n    t0: Tile[[16, 16], FP32, Vec] = tile.load(x, [0, 0], [16, "
      "16], target_memory=Vec)\n";
  for (int i = 1; i < 10000; ++i)
    text += "    t" + std::to_string(i) + ": Tile[[16, 16], FP32, Vec] = tile.add(t" + std::to_string(i - 1) +
            ", t0)\n";
  const Program p = test::parse_ok(text);
  CHECK(flatten(p.functions[0].body).size() == 10000);
  CHECK(print(p).size() > text.size() / 2);
}
