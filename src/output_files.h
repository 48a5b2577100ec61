/* The files a run writes, and how: nothing is ever silently replaced, nothing is written half.
 *
 * Before the run (output_plan_check): every output path is checked together. An output must be
 * a regular file or not exist yet: a device, FIFO, socket, symbolic link or folder at the path
 * is refused, and so is a file this run reads (--morph) or another output of the same run. An
 * existing non-empty file is refused unless --force (an empty one, such as mktemp leaves, holds
 * no results and is replaced). The folder must exist and take a new file: one is created and
 * removed there, so a missing folder, a read-only one or a name that is too long is refused up
 * front (exit 2), not after the whole run. The default job (no --morph) writes into a new run
 * folder, hinestask-results/run-YYYYMMDD-HHMMSS[-N], made when the run starts (output_plan_start).
 *
 * Writing (output_open, output_commit): a unique temporary file NAME.partial-XXXXXX (mkstemp,
 * O_EXCL) in the target's folder, flushed, checked for write errors and fsync'ed, then renamed
 * onto the path atomically: without --force with RENAME_NOREPLACE (link + unlink where the file
 * system lacks it), so a file that another run created meanwhile is not replaced. On any error
 * the temporary file is removed, the previous file is left as it was, and the message names the
 * reason (strerror). */
#ifndef HINES_OUTPUT_FILES_H
#define HINES_OUTPUT_FILES_H

#include <stdio.h>

#include "hines_status.h"
#include "options.h"

/* Checks every output the options name (--json, --probes, --trace, the default job's run
 * folder) as described above. HINES_OK, or HINES_BAD_INPUT with a one-line message. */
int output_plan_check(const struct options *o, struct hines_error *err);

/* Creates the default job's run folder when the options need one and points the outputs
 * without a path into it (o->json_path, o->probes_path). Call once every check has passed.
 * HINES_OK or HINES_FAILURE with a message. */
int output_plan_start(struct options *o, struct hines_error *err);

/* After a failed run: removes the run folder if nothing was written into it. */
void output_plan_abandon(void);

struct output_file {
  FILE *stream; /* write the contents here */
  const char *option, *path;
  int force;
  char temporary[4096];
};

/* Opens a unique temporary file beside `path`. HINES_FAILURE with the reason if it cannot. */
int output_open(struct output_file *f, const char *option, const char *path, int force,
                struct hines_error *err);
/* Flushes, checks, syncs and renames the temporary file onto the path; records the path for
 * output_print_written. On failure removes the temporary file (the path keeps what it held) and
 * returns HINES_FAILURE with the reason. */
int output_commit(struct output_file *f, struct hines_error *err);

/* Records a file written by other means (the trace files) for output_print_written. */
void output_note_written(const char *path);
/* One line on `out` naming every file written ("files written: A, B"), when there is one. */
void output_print_written(FILE *out);

/* Writes `text` as a JSON string: quotes, backslashes and control bytes escaped; a byte that is
 * not part of valid UTF-8 becomes \u00XX (the byte read as Latin-1), so the file stays valid
 * JSON whatever a file name holds. */
void output_json_string(FILE *f, const char *text);

/* Registered with atexit by main: when writing to standard output failed (a full disk, a closed
 * pipe, /dev/full), says so on stderr and ends the program with status 1 instead of 0. */
void output_check_stdout_at_exit(void);

#endif
