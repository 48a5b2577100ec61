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
/* The same for rank `rank` of a distributed run of `ranks` (runtime/cluster.h): each rank's
 * StarPU records DIR/hinestask-fxt_RANK; rank 0 alone clears the folder, so it must have done
 * so before any rank starts StarPU. trace_prepare is trace_prepare_rank(dir, 0, 1, err). */
int trace_prepare_rank(const char *dir, int rank, int ranks, struct hines_error *err);
/* The files a trace leaves in DIR (the raw FxT file and what starpu_fxt_tool writes), NULL at
 * the end: trace_prepare removes them, callers look for an earlier trace with them. */
extern const char *const trace_file_names[];
/* After runtime_stop (which flushes the raw trace): runs starpu_fxt_tool -d DIR on it, then
 * trace_paje_tidy on DIR/paje.trace. When the trace could not be written whole (a full disk),
 * removes what was left of it and fails with the reason. */
int trace_convert(const char *dir, struct hines_error *err);
/* The same for a distributed run, on rank 0 once every rank has stopped StarPU: the ranks' raw
 * traces merged into one paje.trace (starpu_fxt_tool -i RAW_0 -i RAW_1 ...), with every rank's
 * workers. trace_convert is trace_convert_ranks(dir, 1, err). */
int trace_convert_ranks(const char *dir, int ranks, struct hines_error *err);
/* Around runtime_stop with a trace in DIR: FxT reports a failed write of the raw trace on stderr
 * itself; held here, it becomes part of trace_convert's one-line message (anything else said
 * then is passed on to stderr by trace_convert). When FxT ends the program instead (nothing of
 * the trace could be written), an exit handler prints that one line, after `prefix`, and
 * removes the partial files. trace_hold_stderr returns what trace_release_stderr needs (-1 when
 * stderr could not be held). */
int trace_hold_stderr(const char *dir, const char *prefix);
void trace_release_stderr(int held);
/* Mends what StarPU 1.3.10 writes into a Paje trace against the format: colours from 0 to 255
 * made 0 to 1, and an event earlier than the previous one of its container and type moved to
 * that one's time (saying how many on `log`, when not NULL). Rewrites the file through
 * PATH.partial; HINES_OK or HINES_FAILURE. */
int trace_paje_tidy(const char *path, FILE *log);

#endif
