// libFuzzer target for the JSON problem reader (the whole model: arenas,
// reserved windows, alignment, must-alias groups, separations, penalties,
// declared allocations, placement). Every input is read or refused with
// located diagnostics; what is read is held to reader_checks.hpp: it
// re-validates, and writes back to JSON (and to CSV when CSV can hold it)
// that re-reads to the same problem, offsets and verdict.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "reader_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto_mem;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  JsonReadOptions options;
  options.max_errors = 5;
  const ReadResult r =
      fuzz::guarded([&] { return read_json_problem(text, "fuzz.json", options); }, text, "read_json_problem");
  if (!r) {
    fuzz::check_rejection(r, "fuzz.json", text, text);
    return 0;
  }
  fuzz::check_accepted(*r.file, text, /*from_csv=*/false);
  return 0;
}
