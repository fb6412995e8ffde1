// A fresh directory per test under the build tree, removed afterwards, so
// tests that write files can also check what was (not) left behind.
#pragma once

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace pto_mem::test {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::string name(1, 't');  // appended: g++ 12 -O3 warns falsely on `"t" + std::to_string(...)`
    name.append(std::to_string(::getpid())).append(1, '-').append(std::to_string(counter++));
    path_ = std::filesystem::path(PTO_MEM_BINARY_DIR) / "test-tmp" / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

  /// Writes a file with exactly these bytes.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return file(name);
  }

  /// The names of every entry in the directory, sorted.
  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace pto_mem::test
