// pto_mem::io_compiled: the file formats -- the CSV and JSON problem
// readers and writers, the JSON report, the SVG memory map, atomic output
// files and output sets, source text and the name rule -- compiled once.
// With PTO_MEM_IO_COMPILED defined (the target defines it for its users
// too), the io/ headers only declare these functions (PTO_MEM_IO_DEFINE is
// 0, core/compiled_mode.hpp); this file holds their one definition
// (PTO_MEM_IO_BUILDING makes PTO_MEM_IO_DEFINE 1 here). The validator and
// unify_aliases, which the JSON reader runs, come from pto_mem::compiled.
#ifndef PTO_MEM_IO_COMPILED
#define PTO_MEM_IO_COMPILED 1
#endif
#define PTO_MEM_IO_BUILDING 1
#include "pto_mem/io/arena_label.hpp"
#include "pto_mem/io/atomic_file.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/dsa_schema.hpp"
#include "pto_mem/io/id_text.hpp"
#include "pto_mem/io/json_position.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/json_problem_reader.hpp"
#include "pto_mem/io/output_set.hpp"
#include "pto_mem/io/problem_file.hpp"
#include "pto_mem/io/report.hpp"
#include "pto_mem/io/source_text.hpp"
#include "pto_mem/io/svg.hpp"
