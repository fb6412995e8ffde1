// libFuzzer target for the tile-IR text parser. Any input must parse or be
// rejected with a located diagnostic, never crash, hang or throw; whatever
// parses must print to text that re-parses and prints identically.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pto_mem/pypto/text/parser.hpp"
#include "pto_mem/pypto/text/printer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto_mem::pypto;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseResult first = parse_program(text, "fuzz.pto");
  if (!first.ok()) {
    if (first.diagnostics.empty() || first.diagnostics.front().message.empty()) std::abort();
    return 0;
  }
  const std::string printed = print(first.program);
  ParseResult second = parse_program(printed, "printed.pto");
  if (!second.ok()) {
    std::fprintf(stderr, "printed text does not re-parse: %s\n--- printed:\n%s\n",
                 pto_mem::format(second.diagnostics.front()).c_str(), printed.c_str());
    std::abort();
  }
  const std::string again = print(second.program);
  if (again != printed) {
    std::fprintf(stderr, "print -> parse -> print is not a fixed point\n--- first:\n%s\n--- second:\n%s\n",
                 printed.c_str(), again.c_str());
    std::abort();
  }
  return 0;
}
