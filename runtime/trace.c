#define _GNU_SOURCE /* memfd_create */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define RAW_TRACE "hinestask-fxt"
/* StarPU 1.3 keeps "PREFIX/SUFFIX_RANK" in a 128-byte buffer and silently truncates. */
#define STARPU_TRACE_PATH_MAX 128

const char *const trace_file_names[] = {
    RAW_TRACE "_0",  "paje.trace",   "tasks.rec",  "data.rec",     "dag.dot", "trace.rec",
    "activity.data", "distrib.data", "trace.html", "fxt_tool.log", "papi.rec", NULL};

/* What was said on stderr while StarPU stopped (trace_hold_stderr). */
static char stop_messages[1024];

/* Removes every file of trace_file_names from DIR, and DIR itself when that empties it. */
static void remove_trace_files(const char *dir) {
  for (size_t i = 0; trace_file_names[i]; i++) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, trace_file_names[i]);
    unlink(path);
  }
  rmdir(dir);
}

/* What StarPU and FxT said while stopping, when it was not about a failed trace: it goes to
 * stderr after all. */
static void replay_stop_messages(void) {
  fputs(stop_messages, stderr);
  stop_messages[0] = '\0';
}

int trace_prepare(const char *dir, struct hines_error *err) {
  if (strlen(dir) + 1 + strlen(RAW_TRACE) + 3 >= STARPU_TRACE_PATH_MAX)
    return hines_fail(
        err, HINES_BAD_INPUT,
        "trace folder %s: path too long for StarPU's trace file (at most %d characters)", dir,
        (int)(STARPU_TRACE_PATH_MAX - strlen(RAW_TRACE) - 5));
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return hines_fail(err, HINES_BAD_INPUT, "trace folder %s: %s", dir, strerror(errno));
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return hines_fail(err, HINES_BAD_INPUT, "trace folder %s: not a directory", dir);
  /* A stale file from an earlier run must never pass for this run's trace. */
  for (size_t i = 0; trace_file_names[i]; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, trace_file_names[i]);
    if (unlink(path) != 0 && errno != ENOENT)
      return hines_fail(err, HINES_BAD_INPUT, "trace folder %s: cannot remove the old %s: %s", dir,
                        trace_file_names[i], strerror(errno));
  }
  static char prefix[PATH_MAX];
  snprintf(prefix, sizeof prefix, "%s/", dir);
  setenv("STARPU_FXT_PREFIX", prefix, 1);
  setenv("STARPU_FXT_SUFFIX", RAW_TRACE, 1);
  setenv("STARPU_FXT_TRACE", "1", 1);
  return HINES_OK;
}

int trace_convert(const char *dir, struct hines_error *err) {
  char raw[PATH_MAX], tool[PATH_MAX];
  snprintf(raw, sizeof raw, RAW_TRACE "_0");
  snprintf(tool, sizeof tool, "%s/starpu_fxt_tool", STARPU_BIN_DIR);
  if (access(tool, X_OK) != 0)
    snprintf(tool, sizeof tool, "starpu_fxt_tool"); /* from PATH, e.g. in a GPU bundle */
  pid_t child = fork();
  if (child < 0)
    return hines_fail(err, HINES_FAILURE, "trace folder %s: cannot start starpu_fxt_tool", dir);
  if (child == 0) {
    /* starpu_fxt_tool -o crashes in StarPU 1.3.10; -d writes every output into the folder. */
    int log = -1;
    if (chdir(dir) == 0)
      log = open("fxt_tool.log", O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (log >= 0) {
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
    }
    execlp(tool, "starpu_fxt_tool", "-d", ".", "-i", raw, (char *)NULL);
    _exit(127);
  }
  int status;
  int tool_failed =
      waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  char paje[PATH_MAX];
  snprintf(paje, sizeof paje, "%s/paje.trace", dir);
  struct stat st;
  int no_paje = stat(paje, &st) != 0 || st.st_size == 0;
  /* A full file system truncates the raw trace (FxT says so when StarPU stops) and every file
   * the tool writes, which then still exits 0: what is left is removed, not passed off as a
   * trace, and the message says why. */
  struct statvfs fs;
  int full = statvfs(dir, &fs) == 0 && fs.f_bavail == 0;
  int fxt_failed = strstr(stop_messages, "write buffer") != NULL; /* libfxt perror */
  if (full || fxt_failed) {
    remove_trace_files(dir);
    char said[200];
    snprintf(said, sizeof said, "%.*s", (int)strcspn(stop_messages, "\n"), stop_messages);
    return hines_fail(err, HINES_FAILURE,
                      "trace folder %s: cannot write the trace (%s%s); its partial files were "
                      "removed",
                      dir, said[0] ? "FxT: " : "", said[0] ? said : strerror(ENOSPC));
  }
  replay_stop_messages();
  if (tool_failed)
    return hines_fail(err, HINES_FAILURE,
                      "trace folder %s: starpu_fxt_tool failed (see %s/fxt_tool.log)", dir, dir);
  if (no_paje)
    return hines_fail(err, HINES_FAILURE, "trace folder %s: no paje.trace was produced", dir);
  return HINES_OK;
}

/* While stderr is held: the folder and the prefix of the message (trace_hold_stderr). */
static int held_stderr = -1;
static char held_dir[PATH_MAX], held_prefix[128];

/* FxT ends the program (exit 1) when it cannot write the raw trace at all while StarPU stops,
 * with stderr still held: the message it wrote is turned into the one line trace_convert would
 * have given, and the partial files are removed. */
static void report_exit_while_held(void) {
  if (held_stderr < 0)
    return;
  trace_release_stderr(held_stderr);
  remove_trace_files(held_dir);
  char said[200];
  snprintf(said, sizeof said, "%.*s", (int)strcspn(stop_messages, "\n"), stop_messages);
  struct hines_error err;
  hines_fail(&err, HINES_FAILURE,
             "trace folder %s: cannot write the trace (FxT: %s); its partial files were removed",
             held_dir, said[0] ? said : "it ended the program");
  fprintf(stderr, "%s%s\n", held_prefix, err.message);
}

int trace_hold_stderr(const char *dir, const char *prefix) {
  static int registered;
  if (!registered && atexit(report_exit_while_held) == 0)
    registered = 1;
  snprintf(held_dir, sizeof held_dir, "%s", dir);
  snprintf(held_prefix, sizeof held_prefix, "%s", prefix);
  fflush(stderr);
  int memory = memfd_create("hinestask-stop", MFD_CLOEXEC);
  int saved = memory >= 0 ? dup(STDERR_FILENO) : -1;
  if (saved < 0 || dup2(memory, STDERR_FILENO) < 0) {
    if (memory >= 0)
      close(memory);
    if (saved >= 0)
      close(saved);
    return -1;
  }
  close(memory);
  held_stderr = saved;
  return saved;
}

void trace_release_stderr(int held) {
  if (held < 0)
    return;
  held_stderr = -1;
  fflush(stderr);
  ssize_t got = pread(STDERR_FILENO, stop_messages, sizeof stop_messages - 1, 0);
  stop_messages[got > 0 ? got : 0] = '\0';
  dup2(held, STDERR_FILENO);
  close(held);
}
