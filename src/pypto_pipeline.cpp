// pto_mem::pypto_compiled: the PyPTO-style pass pipeline -- compile() and
// compile_source() with every pass, verifier and planner they run, the
// parser, the printer, the JSON report, the memory map and the SoC file
// reader -- compiled once. With PTO_MEM_PYPTO_COMPILED defined (the target
// defines it for its users too), those headers only declare these functions
// (PTO_MEM_PYPTO_DEFINE is 0, core/compiled_mode.hpp); this file holds their
// one definition (PTO_MEM_PYPTO_BUILDING makes PTO_MEM_PYPTO_DEFINE 1 here).
#ifndef PTO_MEM_PYPTO_COMPILED
#define PTO_MEM_PYPTO_COMPILED 1
#endif
#define PTO_MEM_PYPTO_BUILDING 1
#include "pto_mem/pypto/memory_map.hpp"
#include "pto_mem/pypto/passes/addr_verifier.hpp"
#include "pto_mem/pypto/passes/lifetimes.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pto_mem/pypto/passes/pipeline_impl.hpp"
#include "pto_mem/pypto/report.hpp"
#include "pto_mem/pypto/soc/soc_file.hpp"
#include "pto_mem/pypto/text/parser.hpp"
#include "pto_mem/pypto/text/printer.hpp"
#include "pto_mem/pypto/verify/tile_storage.hpp"
