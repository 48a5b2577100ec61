/* FxT execution traces: a run records DIR/hinestask-fxt_0, which starpu_fxt_tool turns into
 * DIR/paje.trace (ViTE), tasks.rec, data.rec, dag.dot. See traces/README.md. */
#ifndef HINES_TRACE_H
#define HINES_TRACE_H

#include <stdio.h>

#include "morphology.h"

/* Checks DIR (creatable, short enough for StarPU's 128-byte trace path), creates it, removes
 * what an earlier run left there, and sets the StarPU variables that record the trace. Call
 * before runtime_start. HINES_BAD_INPUT with a message when DIR cannot be used. */
int trace_prepare(const char *dir, struct hines_error *err);
/* After runtime_stop (which flushes the raw trace): runs starpu_fxt_tool -d DIR on it, then
 * trace_paje_tidy on DIR/paje.trace. */
int trace_convert(const char *dir, struct hines_error *err);
/* Mends what StarPU 1.3.10 writes into a Paje trace against the format: colours from 0 to 255
 * made 0 to 1, and an event earlier than the previous one of its container and type moved to
 * that one's time (saying how many on `log`, when not NULL). Rewrites the file through
 * PATH.partial; HINES_OK or HINES_FAILURE. */
int trace_paje_tidy(const char *path, FILE *log);

#endif
