// libFuzzer target for the CSV problem and placement reader (with and
// without an offset column, with and without a capacity). Every input is
// read or refused with located diagnostics; what is read is held to
// reader_checks.hpp: it re-validates, and writes back to CSV and JSON that
// re-read to the same problem, offsets and verdict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "reader_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto_mem;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The first byte, when it is not part of the text, picks a capacity, so
  // that the capacity check is fuzzed too; the seeds are plain CSV files.
  CsvOptions options;
  options.max_errors = 5;
  std::string_view body = text;
  if (!body.empty() && static_cast<unsigned char>(body[0]) >= 0xF8) {
    options.capacity = Addr{1} << (static_cast<unsigned char>(body[0]) - 0xF8 + 6);  // 64 B .. 8 KiB
    body.remove_prefix(1);
  }
  const ReadResult r = fuzz::guarded([&] { return read_csv(body, options, "fuzz.csv"); }, text, "read_csv");
  if (!r) {
    fuzz::check_rejection(r, "fuzz.csv", text, body);
    return 0;
  }
  fuzz::check_accepted(*r.file, text, /*from_csv=*/true);
  return 0;
}
