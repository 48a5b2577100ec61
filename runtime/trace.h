/* FxT execution traces: a run records DIR/hinestask-fxt_0, which starpu_fxt_tool turns into
 * DIR/paje.trace (ViTE), tasks.rec, data.rec, dag.dot. See traces/README.md. */
#ifndef HINES_TRACE_H
#define HINES_TRACE_H

#include "morphology.h"

/* Checks DIR (creatable, short enough for StarPU's 128-byte trace path), creates it, removes
 * what an earlier run left there, and sets the StarPU variables that record the trace. Call
 * before runtime_start. HINES_BAD_INPUT with a message when DIR cannot be used. */
int trace_prepare(const char *dir, struct hines_error *err);
/* After runtime_stop (which flushes the raw trace): runs starpu_fxt_tool -d DIR on it. */
int trace_convert(const char *dir, struct hines_error *err);

#endif
