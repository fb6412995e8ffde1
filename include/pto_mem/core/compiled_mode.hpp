// Header-only or compiled. The functions the front door needs that are not
// templates over the user's types (building the Problem from plain records,
// running the planners) are declared with PTO_MEM_PLAN_INLINE. Header-only
// (the default): they are `inline` and their definitions (the *_impl.hpp
// headers) are included by the headers that declare them. With
// PTO_MEM_COMPILED defined (pto_mem::compiled defines it for its users):
// they are ordinary declarations, defined once in the library (src/).
//
// Every translation unit of a program must agree: define PTO_MEM_COMPILED in
// all of them (link pto_mem::compiled) or in none.
//
// The PyPTO adapter's pipeline (pypto/passes/pipeline.hpp) follows the same
// scheme with PTO_MEM_PYPTO_COMPILED and PTO_MEM_PYPTO_INLINE: compile() and
// compile_source() are defined once in pto_mem::pypto_compiled, which
// defines PTO_MEM_PYPTO_COMPILED (and, through pto_mem::compiled,
// PTO_MEM_COMPILED) for its users. The passes, the verifiers, the parser,
// the printer and the report that compile() uses are compiled there too:
// each such function is declared with PTO_MEM_PYPTO_INLINE and its
// definition sits under `#if PTO_MEM_PYPTO_DEFINE`, which is 1 header-only
// and in the library's own source (src/pypto_pipeline.cpp defines
// PTO_MEM_PYPTO_BUILDING), 0 for the library's users.
//
// The file formats (io/: the CSV and JSON problem readers and writers, the
// JSON report, the SVG memory map, atomic output files and output sets) do
// the same with PTO_MEM_IO_COMPILED, PTO_MEM_IO_INLINE and
// PTO_MEM_IO_DEFINE: pto_mem::io_compiled compiles them once
// (src/io.cpp defines PTO_MEM_IO_BUILDING) and defines PTO_MEM_IO_COMPILED
// (and, through pto_mem::compiled, PTO_MEM_COMPILED) for its users.
#pragma once

#if defined(PTO_MEM_COMPILED)
#define PTO_MEM_PLAN_INLINE
#else
#define PTO_MEM_PLAN_INLINE inline
#endif

#if defined(PTO_MEM_PYPTO_COMPILED)
#define PTO_MEM_PYPTO_INLINE
#else
#define PTO_MEM_PYPTO_INLINE inline
#endif

#if !defined(PTO_MEM_PYPTO_COMPILED) || defined(PTO_MEM_PYPTO_BUILDING)
#define PTO_MEM_PYPTO_DEFINE 1
#else
#define PTO_MEM_PYPTO_DEFINE 0
#endif

#if defined(PTO_MEM_IO_COMPILED)
#define PTO_MEM_IO_INLINE
#else
#define PTO_MEM_IO_INLINE inline
#endif

#if !defined(PTO_MEM_IO_COMPILED) || defined(PTO_MEM_IO_BUILDING)
#define PTO_MEM_IO_DEFINE 1
#else
#define PTO_MEM_IO_DEFINE 0
#endif
