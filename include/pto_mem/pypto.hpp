// The bundled PyPTO-style tile-IR adapter without its passes: the IR, its text format,
// the op registry, the SoC arena policies and the sizing rules.
// The memory passes are in pto_mem/pypto/passes/ (pipeline.hpp runs them all).
#pragma once

#include "pto_mem/pypto/ir/builder.hpp"
#include "pto_mem/pypto/ir/clone.hpp"
#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/sizes.hpp"
#include "pto_mem/pypto/soc/pipe_inference.hpp"
#include "pto_mem/pypto/soc/policies.hpp"
#include "pto_mem/pypto/text/case_header.hpp"
#include "pto_mem/pypto/text/parser.hpp"
#include "pto_mem/pypto/text/printer.hpp"
