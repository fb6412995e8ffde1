// Each class of parser error: the message says what was expected or wrong,
// and the location points at the offending token (file:line:column).
#include <doctest/doctest.h>

#include <sstream>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

/// Column (1-based) of `needle` on line `line` of `text`; an empty needle
/// means the end of that line (where a Newline token sits).
std::uint32_t column_of(const std::string& text, std::uint32_t line, const std::string& needle) {
  std::istringstream in(text);
  std::string l;
  for (std::uint32_t i = 1; std::getline(in, l); ++i)
    if (i == line) {
      if (needle.empty()) return static_cast<std::uint32_t>(l.size() + 1);
      const auto p = l.find(needle);
      REQUIRE(p != std::string::npos);
      return static_cast<std::uint32_t>(p + 1);
    }
  REQUIRE(needle.empty());  // past the last line: the end of input
  return 1;
}

/// The parse fails with one error at (line, column of `needle`) whose
/// message contains `fragment`, formatted `bad.pto:L:C: error: ...`.
void rejects(const std::string& text, const std::string& fragment, std::uint32_t line,
             const std::string& needle, const ParseOptions& options = {}) {
  CAPTURE(text);
  const Diagnostic d = test::parse_error(text, options);
  CAPTURE(format(d));
  CHECK(d.severity == Severity::error);
  CHECK(d.message.find(fragment) != std::string::npos);
  REQUIRE(d.location.has_value());
  CHECK(d.location->file == "bad.pto");
  CHECK(d.location->line == line);
  const auto col = column_of(text, line, needle);
  CHECK(d.location->column == col);
  CHECK(format(d).rfind("bad.pto:" + std::to_string(line) + ":" + std::to_string(col) + ": error: ", 0) == 0);
}

const std::string head = "def main(x: Tensor[[16, 16], FP32],\n         n: Scalar[INDEX]):\n";
const std::string load =
    "    t: Tile[[16, 16], FP32, Vec] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n";

}  // namespace

TEST_CASE("lexical errors") {
  rejects(head + "    y = n $ 2\n", "unexpected character '$'", 3, "$");
  rejects(head + "    s: Scalar[INT32] = system.reserve_buffer(name=\"abc, size=4)\n", "unterminated string",
          3, "\"abc");
  rejects(head + "\ty = n\n", "tabs are not allowed", 3, "\t");
  rejects(head + "    for i in range(4):\n        y = n\n      z = n\n", "unindent does not match", 5, "z");
  rejects(head + "    y = 12abc\n", "invalid number", 3, "12abc");
  rejects(head + "    y = 0x\n", "needs digits", 3, "0x");
  rejects(head + "    y = 1e+\n", "exponent", 3, "1e+");
  rejects(head + "    y = 99999999999999999999\n", "does not fit", 3, "9999");
  rejects(head + "    y = n \x01\n", "byte 0x01", 3, "\x01");
}

TEST_CASE("syntax errors say what was expected and what was found") {
  rejects("def main()\n    return\n", "expected ':', found end of line", 1, "");
  rejects("def main():\nreturn\n", "expected an indented block, found 'return'", 2, "return");
  rejects(head + "    y = n\n        z = n\n", "unexpected indentation", 4, "z");
  rejects(head + "    y = (n + 1\n", "expected ')' to close '(' at line 3, column 9, found end of line", 4,
          "");
  rejects(head + "    tile.write(x, [0, 0\n", "expected ']' to close '[' at line 3, column 19", 4, "");
  rejects(head + "    tile.write(x, [0, 0] 1.0)\n",
          "expected ')' to close '(' at line 3, column 15, found number 1.0", 3, "1.0");
  rejects(head + "    for i range(4):\n        pass\n", "expected 'in', found 'range'", 3, "range");
  rejects(head + "    for i in loop(4):\n        pass\n",
          "expected range, parallel, pipeline, unroll, spmd or while_", 3, "loop");
  rejects(head + "    else:\n        pass\n", "'else' without a matching 'if'", 3, "else");
  rejects(head + "    n + 1\n", "must be a call", 3, "n + 1");
  rejects(head + "    y = n < 1 < 2\n", "chained comparisons", 3, "< 2");
  rejects(head + "    tile.write(t=x, [0])\n", "positional argument after keyword", 3, "[0]");
  rejects(head + "    tile.write(x, v=1, v=2)\n", "given twice", 3, "v=2");
  rejects(head + "    a, b = tile.add(x, x)\n",
          "cannot tell what 'tile.add(...)' returns, so it cannot be unpacked", 3, "tile.add");
  rejects("x = 1\n", "expected 'def', found 'x'", 1, "x");
  rejects("@kernel\ndef main():\n    return\n", "unknown decorator '@kernel'", 1, "kernel");
  rejects("@function(type=Kernel)\ndef main():\n    return\n", "unknown function type 'Kernel'", 1, "Kernel");
  rejects("@program\ndef main():\n    return\n", "@program must decorate a class", 1, "@program");
}

TEST_CASE("type errors") {
  rejects(head + "    t: Tile2[[16, 16], FP32] = x\n", "expected a type (Tensor, Tile, Scalar, Ptr or tuple)",
          3, "Tile2");
  rejects(head + "    t: Tile[[16, 16], FP33] = x\n", "expected a data type", 3, "FP33");
  rejects(head + "    t: Tile[[16, 16], FP32, Vec, Mat] = x\n", "one memory space", 3, "Mat");
  rejects(head + "    t: Tile[[16, 16], FP32, Vec, Layout] = x\n",
          "expected MemRef(...), a memory space or TileView(...)", 3, "Layout");
  rejects(head +
              "    t: Tile[[16, 16], FP32, TileView(blayout=TileLayout.row_major, "
              "blayout=TileLayout.row_major)] = x\n",
          "given twice", 3, "blayout=TileLayout.row_major)");
  rejects(head + "    t = tile.row_sum(x, x)\n", "cannot deduce the type of 't'", 3, "t =");
}

TEST_CASE("names: undefined, redefined, reserved") {
  rejects(head + "    y = m + 1\n", "undefined name 'm'", 3, "m + 1");
  rejects(head + load + "    t: Tile[[16, 16], FP32, Vec] = tile.exp(x)\n",
          "'t' is already defined at line 3, column 5", 4, "t:");
  rejects(head + "    n = 1\n", "'n' is already defined", 3, "n =");
  rejects(head + "    Vec = 1\n", "'Vec' is a memory space name", 3, "Vec");
  rejects(head + "    FP32: Scalar[INDEX] = 1\n", "'FP32' is a data type name", 3, "FP32");
  rejects(head + "    y = self.helper(x)\n", "the program has no function 'helper'", 3, "self.helper");
  rejects("def f():\n    return\ndef f():\n    return\n", "function 'f' is defined twice", 3, "f(");
}

TEST_CASE("allocations and MemRef bases") {
  rejects(head + "    m: Ptr = tile.alloc(16384, Vec)\n", "needs a memory space as its first argument", 3,
          "tile.alloc");
  rejects(head + "    m: Ptr = tile.alloc(Vec, 16, sticky=True)\n", "unknown keyword 'sticky'", 3,
          "tile.alloc");
  rejects(head + "    m: Tile[[4], FP32] = tile.alloc(Vec, 16)\n", "has type Ptr", 3, "m:");
  rejects(head +
              "    m: Ptr = tile.alloc(Vec, 16)\n    m2: Ptr = tile.alloc(Vec, 16)\n    m: Ptr = "
              "tile.alloc(Vec, 16)\n",
          "allocation 'm' is defined twice", 5, "m:");
  rejects(head + load + "    u: Tile[[16, 16], FP32, MemRef(t, 0, 1024), Vec] = tile.exp(t)\n",
          "'t' is not an allocation", 4, "t, 0");
  rejects(head + "    u: Tile[[16, 16], FP32, MemRef(mem_vec_9, 0, 1024), Vec] = tile.exp(x)\n    return\n",
          "MemRef base 'mem_vec_9' is not defined by a tile.alloc", 3, "mem_vec_9");
  rejects(head + "    u: Tile[[16, 16], FP32, MemRef(\"m\", 0, -4), Vec] = tile.exp(x)\n",
          "non-negative integer for the MemRef size", 3, "-4");
}

TEST_CASE("declared allocations") {
  rejects(head + "    u: Tile[[16, 16], FP32, MemRef(\"ping\")[0], Vec] = tile.exp(x)\n", "has a single slot",
          3, "[0]");
  rejects(head + "    u: Tile[[16, 16], FP32, MemRef(\"ping\", slots=2)[2], Vec] = tile.exp(x)\n",
          "slot index 2 is out of range", 3, "[2]");
  rejects(head + "    u: Tile[[16, 16], FP32, MemRef(\"ping\", slots=0), Vec] = tile.exp(x)\n",
          "at least one slot", 3, "slots=0");
  rejects("def main(x: Tile[[16, 16], FP32, MemRef(\"ping\"), Vec]):\n    return\n",
          "a parameter cannot be bound to the declared allocation", 1, "MemRef");
  rejects(head + "    u: Tile[[16, 16], FP32, MemRef(\"ping\")] = tile.exp(x)\n",
          "must state an explicit memory space", 3, "Tile[");
  rejects(head + "    u: Tensor[[16, 16], FP32, MemRef(\"ping\")] = tile.exp(x)\n", "only tiles can be bound",
          3, "MemRef");
}

TEST_CASE("loops: carries, yields, kinds") {
  rejects(head + load +
              "    for i, (a,) in range(4, init_values=(t,)):\n        b: Tile[[16, 16], FP32, Vec] = "
              "tile.exp(a)\n",
          "a loop with init_values must end with", 4, "for");
  rejects(head + load + "    for i, (a,) in range(4, init_values=(t,)):\n        r, s = yield_(a)\n",
          "defines 2 name(s) but yields 1 value(s)", 5, "yield_");
  rejects(head + load + "    for i, (a, b) in range(4, init_values=(t,)):\n        r = yield_(a)\n",
          "carries 2 value(s) but init_values has 1", 4, "for");
  rejects(
      head + load + "    for i, (a,) in range(4, init_values=(t,)):\n        r = yield_(a)\n        s = n\n",
      "yield_ must be the last statement", 5, "r =");
  rejects(head + "    for i in range(4):\n        r = yield_(n)\n", "without init_values cannot define names",
          4, "r =");
  rejects(head + "    for i in range(4, stage=2):\n        pass\n", "stage= is only valid for pipeline", 3,
          "for");
  rejects(head + "    for i in range():\n        pass\n", "range takes 1 to 3 positional arguments", 3,
          "for");
  rejects(head + load + "    for i, a in range(4, init_values=(t,)):\n        r = yield_(a)\n",
          "write the carried values in parentheses", 4, "a in");
  rejects(head + load + "    for (a,) in while_(init_values=(t,)):\n        r = yield_(a)\n",
          "must start with cond(<condition>)", 5, "r =");
  rejects(head + "    y = yield_(n)\n", "yield_ outside a loop or if", 3, "y =");
  rejects(head + "    y = yield_(n)\n    return\n", "yield_ must be the last statement of its block", 3,
          "y =");
  rejects(head + "    y = n + yield_(n)\n", "yield_ is a statement", 3, "yield_");
  rejects(head + "    y = cond(n)\n", "only allowed as the first line of a while_", 3, "cond");
  rejects(head + "    y = range(n)\n", "only allowed in a for header", 3, "range");
}

TEST_CASE("ifs: phis need both arms") {
  rejects(head + load + "    if n < 2:\n        r = yield_(t)\n    return\n", "needs an else arm", 5, "r =");
  rejects(head + load + "    if n < 2:\n        r = yield_(t)\n    else:\n        s = yield_(t)\n",
          "the if arms yield different names: 'r' and 's'", 7, "s =");
  rejects(
      head + load + "    if n < 2:\n        tile.write(t, [0, 0], 1.0)\n    else:\n        s = yield_(t)\n",
      "the else arm defines 's' with yield_ but the then arm does not", 7, "s =");
  rejects(
      head + load + "    if n < 2:\n        r = yield_(t)\n    else:\n        tile.write(t, [0, 0], 1.0)\n",
      "the else arm must end with `r = yield_(...)`", 5, "r =");
}

TEST_CASE("nesting deeper than the limit is an error, not a crash") {
  ParseOptions small;
  small.max_depth = 20;
  {
    // The error points into the run of brackets, where the limit is crossed.
    const std::string text = head + "    y = " + std::string(30, '(') + "n" + std::string(30, ')') + "\n";
    const Diagnostic d = test::parse_error(text, small);
    CHECK(d.message.find("nesting is too deep (more than 20 levels") != std::string::npos);
    CHECK(d.location->line == 3);
    CHECK(d.location->column > 9);
    CHECK(d.location->column <= 9 + 30);
  }
  std::string sum = "    y = n";
  for (int i = 0; i < 30; ++i) sum += " + n";
  {
    // The 20th `+` makes the tree 21 levels high: "    y = n" is 9 wide, each " + n" 4 more.
    const Diagnostic d = test::parse_error(head + sum + "\n", small);
    CHECK(d.message.find("nested too deeply") != std::string::npos);
    CHECK(d.location->line == 3);
    CHECK(d.location->column == 4 * 20 + 7);
  }
  // The default limit still takes a deep but sane program, and a hostile one fails cleanly.
  std::string deep = head;
  std::string indent = "    ";
  for (int i = 0; i < 60; ++i) {
    deep += indent + "for i" + std::to_string(i) + " in range(2):\n";
    indent += "    ";
  }
  deep += indent + "pass\n";
  CHECK(parse_program(deep).ok());
  const std::string hostile = head + "    y = " + std::string(100000, '[') + "\n";
  auto r = parse_program(hostile, "bad.pto");
  REQUIRE_FALSE(r.ok());
  CHECK(r.diagnostics.front().message.find("too deep") != std::string::npos);
}

TEST_CASE("unreadable files are diagnostics") {
  auto r = parse_file("/nonexistent/dir/kernel.pto");
  REQUIRE_FALSE(r.ok());
  CHECK(r.diagnostics.front().message.find("cannot open") != std::string::npos);
}
