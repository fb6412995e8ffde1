// pto_mem::pypto_compiled: the PyPTO-style pass pipeline -- compile() and
// compile_source() with every pass, verifier and planner they run --
// compiled once. With PTO_MEM_PYPTO_COMPILED defined (the target defines it
// for its users too), passes/pipeline.hpp only declares the two functions;
// this file holds their one definition.
#ifndef PTO_MEM_PYPTO_COMPILED
#define PTO_MEM_PYPTO_COMPILED 1
#endif
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pto_mem/pypto/passes/pipeline_impl.hpp"
