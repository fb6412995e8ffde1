// The SoCs PyPTO targets and the "no backend" configuration.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/pypto/soc/soc_policy.hpp"

namespace pto_mem::pypto {

/// Ascend 910B (A2/A3). Vec is the 184 KiB safe cap (192 KiB physical; the top
/// 8 KiB corrupts, pto-isa#170). LeftScale/RightScale are absent (unchecked).
[[nodiscard]] inline SocPolicy soc_a2a3() {
  using enum MemorySpace;
  SocPolicy p;
  p.soc_name = "a2a3";
  p.description = "Ascend 910B";
  p.capacity(Vec, 188416)
      .capacity(Mat, 524288)
      .capacity(Left, 65536)
      .capacity(Right, 65536)
      .capacity(Acc, 131072)
      .capacity(Bias, 1024);
  p.acc_rows = AccRowAlignment{32, 16};
  p.route(DDR, {Vec, Mat}).route(Vec, {DDR}).route(Mat, {Left, Right, Bias}).route(Acc, {Mat, DDR});
  return p;
}

/// Ascend 950 (A5). Vec is the 240 KiB safe cap (248 KiB physical).
[[nodiscard]] inline SocPolicy soc_a5() {
  using enum MemorySpace;
  SocPolicy p;
  p.soc_name = "a5";
  p.description = "Ascend 950";
  p.capacity(Vec, 245760)
      .capacity(Mat, 524288)
      .capacity(Left, 65536)
      .capacity(Right, 65536)
      .capacity(Acc, 262144)
      .capacity(Bias, 4096)
      .capacity(LeftScale, 4096)
      .capacity(RightScale, 4096);
  p.acc_rows = AccRowAlignment{16, 16};
  p.route(DDR, {Vec, Mat})
      .route(Vec, {Mat, DDR})
      .route(Mat, {Left, Right, Bias, LeftScale, RightScale})
      .route(Acc, {Vec, Mat, DDR});
  return p;
}

/// No backend configured: no capacity checks and no routes (so no reuse
/// penalties); Acc rows take the worst case (INT32 32, others 16).
[[nodiscard]] inline SocPolicy soc_none() {
  SocPolicy p;
  p.soc_name = "none";
  p.description = "no backend";
  p.configured = false;
  p.acc_rows = AccRowAlignment{32, 16};
  return p;
}

[[nodiscard]] inline std::vector<std::string> soc_names() { return {"a2a3", "a5", "none"}; }

/// The policy named `name` ("a2a3", "a5", "none"), or nullopt.
[[nodiscard]] inline std::optional<SocPolicy> soc_by_name(std::string_view name) {
  if (name == "a2a3") return soc_a2a3();
  if (name == "a5") return soc_a5();
  if (name == "none") return soc_none();
  return std::nullopt;
}

}  // namespace pto_mem::pypto
