// Calls of unregistered ops: a warning (or, on request, an error) that names
// the op, the statement, the closest registered op and what was assumed.
#include <doctest/doctest.h>

#include <string>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

const std::string unknown_op_typo_kernel =
    "@function(type=InCore)\n"
    "def main(x: Tensor[[64, 64], FP32], y: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n"
    "    t: Tile[[64, 64], FP32] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
    "    u: Tile[[64, 64], FP32] = tile.expp(t)\n"
    "    r: Tensor[[64, 64], FP32] = tile.store(u, [0, 0], y)\n"
    "    return r\n";

std::vector<const Diagnostic*> unknown_op_diags(const Diagnostics& ds, const std::string& code) {
  std::vector<const Diagnostic*> out;
  for (const auto& d : ds)
    if (d.code == code) out.push_back(&d);
  return out;
}

}  // namespace

TEST_CASE("unknown ops: edit distance is Levenshtein's") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("", "ab") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("tile.expp", "tile.exp") == 1);
  CHECK(edit_distance("tile.exp", "tile.expp") == 1);
  CHECK(edit_distance("flaw", "lawn") == 2);
  // Symmetric and zero only on equal strings, against a brute-force recursion on short strings.
  const std::string alphabet = "ab";
  auto brute = [](auto&& self, std::string_view a, std::string_view b) -> std::size_t {
    if (a.empty()) return b.size();
    if (b.empty()) return a.size();
    const std::size_t sub = self(self, a.substr(1), b.substr(1)) + (a[0] == b[0] ? 0 : 1);
    return std::min({sub, self(self, a.substr(1), b) + 1, self(self, a, b.substr(1)) + 1});
  };
  std::vector<std::string> words{""};
  for (int len = 1; len <= 4; ++len)
    for (int bits = 0; bits < (1 << len); ++bits) {
      std::string w;
      for (int i = 0; i < len; ++i) w += alphabet[(bits >> i) & 1];
      words.push_back(w);
    }
  for (const auto& a : words)
    for (const auto& b : words) {
      INFO(a << " vs " << b);
      CHECK(edit_distance(a, b) == brute(brute, a, b));
    }
}

TEST_CASE("unknown ops: the closest registered op") {
  const OpRegistry& ops = default_registry();
  auto near = closest_op(ops, "tile.expp");
  REQUIRE(near);
  CHECK(near->name == "tile.exp");
  CHECK(near->distance == 1);
  near = closest_op(ops, "tile.matmull");
  REQUIRE(near);
  CHECK(near->name == "tile.matmul");
  CHECK_FALSE(closest_op(OpRegistry{}, "tile.exp"));
}

TEST_CASE("unknown ops: a typo is a located warning by default, planned as before") {
  CompileResult r = compile_source(unknown_op_typo_kernel, "typo.pto");
  INFO(test::dump(r.diagnostics));
  CHECK(r.ok());
  CHECK(r.exit_code() == 0);
  auto w = unknown_op_diags(r.diagnostics, "unknown-op");
  REQUIRE(w.size() == 1);
  CHECK(w[0]->severity == Severity::warning);
  REQUIRE(w[0]->location);
  CHECK(w[0]->location->file == "typo.pto");
  CHECK(w[0]->location->line == 4);
  CHECK(w[0]->location->column == 5);
  CHECK(w[0]->message.find("'tile.expp'") != std::string::npos);
  CHECK(w[0]->message.find("closest registered op is 'tile.exp' (edit distance 1)") != std::string::npos);
  CHECK(w[0]->message.find("Assumed:") != std::string::npos);
  CHECK(w[0]->message.find("fresh Vec tile") != std::string::npos);
}

TEST_CASE("unknown ops: UnknownOps::error stops before any pass") {
  CompileOptions o;
  o.unknown_ops = UnknownOps::error;
  CompileResult r = compile_source(unknown_op_typo_kernel, "typo.pto", o);
  CHECK_FALSE(r.ok());
  CHECK(r.exit_code() == 2);
  auto e = unknown_op_diags(r.diagnostics, "unknown-op");
  REQUIRE(e.size() == 1);
  CHECK(e[0]->severity == Severity::error);
  CHECK(e[0]->message.find("'tile.exp'") != std::string::npos);
  CHECK(r.ran == std::vector<Stage>{Stage::parse});
  // Also when the compile stops after parsing.
  o.until = Stage::parse;
  CHECK(compile_source(unknown_op_typo_kernel, "typo.pto", o).exit_code() == 2);
}

TEST_CASE("unknown ops: registered ops, program functions, tensor ops and PyPTO system ops are not flagged") {
  const std::string text =
      "@function(type=InCore)\n"
      "def helper(t: Tile[[16, 16], FP32, Vec]) -> Tile[[16, 16], FP32, Vec]:\n"
      "    return t\n"
      "\n"
      "@function(type=InCore)\n"
      "def main(x: Tensor[[16, 16], FP32], y: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:\n"
      "    i = tile.get_block_idx()\n"
      "    system.sync_set()\n"
      "    c: Tensor[[16, 16], FP32] = tensor.create([16, 16], dtype=FP32)\n"
      "    t: Tile[[16, 16], FP32] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n"
      "    u: Tile[[16, 16], FP32, Vec] = helper(t)\n"
      "    r: Tensor[[16, 16], FP32] = tile.store(u, [0, 0], y)\n"
      "    return r\n";
  CompileOptions o;
  o.unknown_ops = UnknownOps::error;
  CompileResult r = compile_source(text, "ok.pto", o);
  INFO(test::dump(r.diagnostics));
  CHECK(unknown_op_diags(r.diagnostics, "unknown-op").empty());
  // A misspelt system op is flagged: it could drop a reserved window.
  Program p = test::parse_ok(
      "@function(type=InCore)\ndef main():\n    system.reserve_bufer(name=\"a\", size=512)\n    return\n");
  Diagnostics ds = check_unknown_ops(p, default_registry());
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].message.find("'system.reserve_buffer'") != std::string::npos);
}

TEST_CASE("unknown ops: one diagnostic per call, in program order, in nested blocks too") {
  const std::string text =
      "@function(type=InCore)\n"
      "def main(x: Tensor[[16, 16], FP32], y: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:\n"
      "    t: Tile[[16, 16], FP32] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n"
      "    for i in range(4):\n"
      "        u: Tile[[16, 16], FP32] = tile.ad(t, t)\n"
      "    v: Tile[[16, 16], FP32] = tile.sqrtt(t)\n"
      "    r: Tensor[[16, 16], FP32] = tile.store(v, [0, 0], y)\n"
      "    return r\n";
  Program p = test::parse_ok(text);
  Diagnostics ds = check_unknown_ops(p, default_registry(), UnknownOps::error);
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].location->line == 5);
  CHECK(ds[0].message.find("'tile.ad'") != std::string::npos);
  CHECK(ds[1].location->line == 6);
  CHECK(ds[1].message.find("'tile.sqrtt'") != std::string::npos);
  CHECK(ds[1].message.find("'tile.sqrt'") != std::string::npos);
}
