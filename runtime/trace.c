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
    RAW_TRACE "_0", "paje.trace",   "tasks.rec",     "data.rec",
    "dag.dot",      "trace.rec",    "activity.data", "distrib.data",
    "trace.html",   "fxt_tool.log", "papi.rec",      "paje.trace.partial"};

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

/* StarPU 1.3.10's starpu_fxt_tool writes a codelet's colour (0xRRGGBB) into paje.trace as
 * "R G B" with components from 0 to 255, where the Paje format defines them from 0 to 1 (ViTE
 * and pj_dump happen to cope; a strict reader need not). Rewrites the colours of the
 * PajeDefineEntityValue lines that are out of range, through a temporary file renamed over the
 * trace; HINES_OK or HINES_FAILURE. */
static int paje_normalise_colours(const char *path) {
  char temporary[PATH_MAX + 16];
  snprintf(temporary, sizeof temporary, "%s.partial", path);
  FILE *in = fopen(path, "r");
  if (!in)
    return HINES_FAILURE;
  FILE *out = fopen(temporary, "w");
  if (!out) {
    fclose(in);
    return HINES_FAILURE;
  }
  char define_value[16] = ""; /* the event id of PajeDefineEntityValue, from the header */
  char *line = NULL;
  size_t size = 0;
  ssize_t length;
  while ((length = getline(&line, &size, in)) >= 0) {
    char event[64], id[16];
    if (line[0] == '%' && sscanf(line + 1, " EventDef %63s %15s", event, id) == 2 &&
        strcmp(event, "PajeDefineEntityValue") == 0)
      snprintf(define_value, sizeof define_value, "%s", id);
    size_t id_length = strlen(define_value);
    char *open_quote, *close_quote;
    double r, g, b;
    if (id_length && strncmp(line, define_value, id_length) == 0 &&
        (line[id_length] == '\t' || line[id_length] == ' ') && (close_quote = strrchr(line, '"')) &&
        close_quote > line) {
      *close_quote = '\0';
      open_quote = strrchr(line, '"');
      *close_quote = '"';
      if (open_quote && sscanf(open_quote + 1, "%lf %lf %lf", &r, &g, &b) == 3 &&
          (r > 1 || g > 1 || b > 1) && r <= 255 && g <= 255 && b <= 255) {
        fprintf(out, "%.*s\"%.6f %.6f %.6f%s", (int)(open_quote - line), line, r / 255, g / 255,
                b / 255, close_quote);
        continue;
      }
    }
    fwrite(line, 1, (size_t)length, out);
  }
  free(line);
  int failed = ferror(in) != 0;
  fclose(in);
  if (fclose(out) != 0 || failed || rename(temporary, path) != 0) {
    remove(temporary);
    return HINES_FAILURE;
  }
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
  if (paje_normalise_colours(paje))
    return hines_fail(err, HINES_FAILURE, "trace folder %s: cannot rewrite paje.trace's colours",
                      dir);
  return HINES_OK;
}
