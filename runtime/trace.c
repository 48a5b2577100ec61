#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RAW_TRACE "hinestask-fxt"
/* StarPU 1.3 keeps "PREFIX/SUFFIX_RANK" in a 128-byte buffer and silently truncates. */
#define STARPU_TRACE_PATH_MAX 128

static const char *const converted_files[] = {
    RAW_TRACE "_0",  "paje.trace",   "tasks.rec",  "data.rec",     "dag.dot", "trace.rec",
    "activity.data", "distrib.data", "trace.html", "fxt_tool.log", "papi.rec"};

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
  for (size_t i = 0; i < sizeof converted_files / sizeof *converted_files; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, converted_files[i]);
    if (unlink(path) != 0 && errno != ENOENT)
      return hines_fail(err, HINES_BAD_INPUT, "trace folder %s: cannot remove the old %s: %s", dir,
                        converted_files[i], strerror(errno));
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
  if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return hines_fail(err, HINES_FAILURE,
                      "trace folder %s: starpu_fxt_tool failed (see %s/fxt_tool.log)", dir, dir);
  char paje[PATH_MAX];
  snprintf(paje, sizeof paje, "%s/paje.trace", dir);
  struct stat st;
  if (stat(paje, &st) != 0 || st.st_size == 0)
    return hines_fail(err, HINES_FAILURE, "trace folder %s: no paje.trace was produced", dir);
  return HINES_OK;
}
