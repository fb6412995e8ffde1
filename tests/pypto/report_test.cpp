// The JSON report of a program.
#include <doctest/doctest.h>

#include "pto_mem/pypto/report.hpp"
#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

TEST_CASE("the report lists allocations and every kind of variable with its MemRef") {
  const Program p = test::parse_ok(
      "@function(type=AIV)\n"
      "def k(x: Tensor[[64, 64], FP32, MemRef(\"mem_ddr_0\", 0, 16384)],\n"
      "      c: Scalar[INDEX]):\n"
      "    buf: Ptr = tile.alloc(Vec, 32768, pinned=True)\n"
      "    mem_vec_1: Ptr = tile.alloc(Vec, 16384)\n"
      "    t: Tile[[64, 64], FP32, MemRef(buf, 16384, 16384, slots=2)[1], Vec] = tile.load(x, [0, 0], [64, "
      "64], target_memory=Vec)\n"
      "    for i, (a,) in range(2, init_values=(t,)):\n"
      "        b: Tile[[64, 64], FP32, MemRef(mem_vec_1, i * 64, 16384), Vec] = tile.exp(a)\n"
      "        r = yield_(b)\n"
      "    if c < 1:\n"
      "        phi = yield_(r)\n"
      "    else:\n"
      "        phi = yield_(t)\n");
  const Diagnostics diags = {warning("something to note")};
  ReportOptions options;
  options.moves.push_back(InsertedMove{"k", "t_Mat", "t", MemorySpace::Mat});
  options.moves.push_back(InsertedMove{"other", "x", "y", MemorySpace::Vec});
  const auto j = report_json(p, diags, options);
  CHECK(j["ok"] == true);
  const auto& f = j["functions"][0];
  CHECK(f["name"] == "k");
  CHECK(f["kind"] == "AIV");
  REQUIRE(f["allocations"].size() == 2);
  CHECK(f["allocations"][0]["base"] == "buf");
  CHECK(f["allocations"][0]["space"] == "Vec");
  CHECK(f["allocations"][0]["size"] == 32768);
  CHECK(f["allocations"][0]["addr"].is_null());
  CHECK(f["allocations"][0]["pinned"] == true);
  CHECK(f["allocations"][0]["slots"] == 2);
  CHECK(f["allocations"][1]["slots"] == 1);
  std::vector<std::string> names;
  for (const auto& v : f["vars"]) names.push_back(v["name"]);
  CHECK(names == std::vector<std::string>{"x", "c", "t", "a", "b", "r", "phi"});
  CHECK(f["vars"][0]["space"] == "DDR");
  CHECK(f["vars"][0]["memref"]["base"] == "mem_ddr_0");
  CHECK(f["vars"][1]["memref"].is_null());
  CHECK(f["vars"][1]["space"].is_null());
  CHECK(f["vars"][2]["memref"]["offset"] == 16384);
  CHECK(f["vars"][2]["memref"]["slot"] == 1);
  CHECK(f["vars"][4]["memref"]["offset"] == "i * 64");
  CHECK(f["vars"][4]["memref"]["slot"].is_null());
  REQUIRE(f["moves"].size() == 1);
  CHECK(f["moves"][0]["target"] == "Mat");
  CHECK(j["diagnostics"][0]["severity"] == "warning");
  CHECK(j["diagnostics"][0]["line"].is_null());
  // With addresses known, an allocation's address is its lowest window.
  options.addresses_assigned = true;
  const auto k = report_json(p, diags, options);
  CHECK(k["functions"][0]["allocations"][0]["addr"] == 16384);
  CHECK(k["functions"][0]["allocations"][1]["addr"].is_null());  // only a symbolic window
  // Deterministic: the same input gives the same bytes.
  CHECK(report_json(p, diags, options).dump() == k.dump());
}
