#define _GNU_SOURCE /* memfd_create */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
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

const char *const trace_file_names[] = {RAW_TRACE "_0",
                                        "paje.trace",
                                        "tasks.rec",
                                        "data.rec",
                                        "dag.dot",
                                        "trace.rec",
                                        "activity.data",
                                        "distrib.data",
                                        "trace.html",
                                        "fxt_tool.log",
                                        "papi.rec",
                                        "paje.trace.partial",
                                        NULL};

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
  return trace_prepare_rank(dir, 0, 1, err);
}

int trace_prepare_rank(const char *dir, int rank, int ranks, struct hines_error *err) {
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
  /* A stale file from an earlier run must never pass for this run's trace (rank 0 clears the
   * folder for every rank: the others' traces may already be under way). */
  for (size_t i = 0; rank == 0 && trace_file_names[i]; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, trace_file_names[i]);
    if (unlink(path) != 0 && errno != ENOENT)
      return hines_fail(err, HINES_BAD_INPUT, "trace folder %s: cannot remove the old %s: %s", dir,
                        trace_file_names[i], strerror(errno));
  }
  for (int r = 1; rank == 0 && r < ranks; r++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/" RAW_TRACE "_%d", dir, r);
    if (unlink(path) != 0 && errno != ENOENT)
      return hines_fail(err, HINES_BAD_INPUT, "trace folder %s: cannot remove the old %s: %s", dir,
                        path, strerror(errno));
  }
  static char prefix[PATH_MAX];
  snprintf(prefix, sizeof prefix, "%s/", dir);
  setenv("STARPU_FXT_PREFIX", prefix, 1);
  setenv("STARPU_FXT_SUFFIX", RAW_TRACE, 1);
  setenv("STARPU_FXT_TRACE", "1", 1);
  return HINES_OK;
}

/* ---- paje.trace as Paje readers want it ----
 * StarPU 1.3.10's starpu_fxt_tool leaves two things in paje.trace that the Paje format does not
 * allow, which trace_convert mends in one pass afterwards (through a temporary file renamed
 * over the trace):
 *   - a codelet's colour (0xRRGGBB) is written as "R G B" with components from 0 to 255, where
 *     Paje colours go from 0 to 1 (ViTE and pj_dump happen to cope; a strict reader need not);
 *   - now and then an event comes a fraction of a microsecond earlier than the one before it on
 *     the same container and type (the scheduler's counters, set from several threads): pj_dump
 *     stops there ("trace is not time-ordered"). Such an event is moved forward to the time of
 *     the one before it. */

#define PAJE_MAX_EVENTS 64
#define PAJE_MAX_SERIES 4096 /* (container, type) pairs whose last time is kept */

struct paje_tidy {
  /* Per event id (numbers below PAJE_MAX_EVENTS): the positions, after the id, of the Time,
   * Container and Type fields; -1 when absent. */
  int time_field[PAJE_MAX_EVENTS], container_field[PAJE_MAX_EVENTS], type_field[PAJE_MAX_EVENTS];
  int define_value;             /* the id of PajeDefineEntityValue, -1 until the header names it */
  int defining, defined_fields; /* inside %EventDef id ... %EndEventDef */
  struct {
    char *key; /* "container\ttype" */
    double last;
  } series[PAJE_MAX_SERIES];
  long moved;
  double largest_move;
};

/* Splits line into at most `max` fields (whitespace-separated, "..." kept whole, quotes
 * included): start and end offsets. Returns the number of fields. */
static int paje_fields(const char *line, int max, int *start, int *end) {
  int n = 0;
  const char *c = line;
  while (n < max) {
    while (*c == ' ' || *c == '\t')
      c++;
    if (!*c || *c == '\n' || *c == '\r')
      break;
    start[n] = (int)(c - line);
    if (*c == '"') {
      const char *close = strchr(c + 1, '"');
      c = close ? close + 1 : c + strlen(c);
    } else {
      while (*c && *c != ' ' && *c != '\t' && *c != '\n' && *c != '\r')
        c++;
    }
    end[n++] = (int)(c - line);
  }
  return n;
}

static void paje_header_line(struct paje_tidy *t, const char *line) {
  char word[64], name[64];
  int id;
  if (sscanf(line + 1, " EventDef %63s %d", name, &id) == 2) {
    t->defining = id >= 0 && id < PAJE_MAX_EVENTS ? id : -1;
    t->defined_fields = 0;
    if (strcmp(name, "PajeDefineEntityValue") == 0)
      t->define_value = id;
  } else if (sscanf(line + 1, " %63s", word) == 1 && strcmp(word, "EndEventDef") == 0) {
    t->defining = -1;
  } else if (t->defining >= 0 && sscanf(line + 1, " %63s", word) == 1) {
    int field = t->defined_fields++;
    if (strcmp(word, "Time") == 0)
      t->time_field[t->defining] = field;
    else if (strcmp(word, "Container") == 0)
      t->container_field[t->defining] = field;
    else if (strcmp(word, "Type") == 0)
      t->type_field[t->defining] = field;
  }
}

/* The series of (container, type); NULL when the table is full (then nothing is moved). */
static double *paje_series_last(struct paje_tidy *t, const char *key) {
  unsigned long hash = 5381;
  for (const char *c = key; *c; c++)
    hash = hash * 33 + (unsigned char)*c;
  for (unsigned long probe = 0; probe < PAJE_MAX_SERIES; probe++) {
    unsigned long slot = (hash + probe) % PAJE_MAX_SERIES;
    if (!t->series[slot].key) {
      t->series[slot].key = strdup(key);
      t->series[slot].last = -INFINITY;
      return t->series[slot].key ? &t->series[slot].last : NULL;
    }
    if (strcmp(t->series[slot].key, key) == 0)
      return &t->series[slot].last;
  }
  return NULL;
}

/* Writes one event line, mended. */
static void paje_event_line(struct paje_tidy *t, const char *line, FILE *out) {
  int start[16], end[16];
  int n = paje_fields(line, 16, start, end);
  int id = n > 0 ? atoi(line + start[0]) : -1;
  if (n == 0 || id < 0 || id >= PAJE_MAX_EVENTS) {
    fputs(line, out);
    return;
  }
  double r, g, b;
  if (id == t->define_value && line[end[n - 1] - 1] == '"' &&
      sscanf(line + start[n - 1] + 1, "%lf %lf %lf", &r, &g, &b) == 3 &&
      (r > 1 || g > 1 || b > 1) && r <= 255 && g <= 255 && b <= 255) {
    fprintf(out, "%.*s\"%.6f %.6f %.6f\"%s", start[n - 1], line, r / 255, g / 255, b / 255,
            line + end[n - 1]);
    return;
  }
  int time = t->time_field[id] + 1, container = t->container_field[id] + 1,
      type = t->type_field[id] + 1;
  if (time > 0 && container > 0 && type > 0 && time < n && container < n && type < n) {
    char key[512];
    snprintf(key, sizeof key, "%.*s\t%.*s", end[container] - start[container],
             line + start[container], end[type] - start[type], line + start[type]);
    double *last = paje_series_last(t, key);
    double when = strtod(line + start[time], NULL);
    if (last && when < *last) {
      t->moved++;
      if (*last - when > t->largest_move)
        t->largest_move = *last - when;
      fprintf(out, "%.*s%.9f%s", start[time], line, *last, line + end[time]);
      return;
    }
    if (last)
      *last = when;
  }
  fputs(line, out);
}

int trace_paje_tidy(const char *path, FILE *log) {
  char temporary[PATH_MAX + 16];
  snprintf(temporary, sizeof temporary, "%s.partial", path);
  FILE *in = fopen(path, "r");
  if (!in)
    return HINES_FAILURE;
  FILE *out = fopen(temporary, "w");
  struct paje_tidy *t = calloc(1, sizeof *t);
  if (!out || !t) {
    fclose(in);
    if (out)
      fclose(out);
    free(t);
    return HINES_FAILURE;
  }
  t->define_value = t->defining = -1;
  for (int i = 0; i < PAJE_MAX_EVENTS; i++)
    t->time_field[i] = t->container_field[i] = t->type_field[i] = -1;
  char *line = NULL;
  size_t size = 0;
  while (getline(&line, &size, in) >= 0) {
    if (line[0] == '%') {
      paje_header_line(t, line);
      fputs(line, out);
    } else {
      paje_event_line(t, line, out);
    }
  }
  free(line);
  if (t->moved && log)
    fprintf(log,
            "hinestask: %ld event%s of paje.trace came before the previous one of the same "
            "container and type (by up to %.6f ms): moved to that one's time\n",
            t->moved, t->moved == 1 ? "" : "s", t->largest_move);
  for (int i = 0; i < PAJE_MAX_SERIES; i++)
    free(t->series[i].key);
  free(t);
  int failed = ferror(in) != 0;
  fclose(in);
  if (fclose(out) != 0 || failed || rename(temporary, path) != 0) {
    remove(temporary);
    return HINES_FAILURE;
  }
  return HINES_OK;
}

/* A merged trace (several ranks) as starpu_fxt_tool 1.3.10 writes it holds each rank's events
 * after the previous rank's, so time runs backwards between them; PajeNG then drops most of the
 * first rank's states. The events (every line but the header and the Paje*Define* ones, which
 * keep their order, first) are put in time order, a stable sort. */
struct timed_line {
  double time;
  size_t index;
  char *text;
};

static int timed_line_order(const void *a, const void *b) {
  const struct timed_line *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static int paje_sort_by_time(const char *path) {
  FILE *in = fopen(path, "r");
  if (!in)
    return HINES_FAILURE;
  int is_definition[PAJE_MAX_EVENTS] = {0};
  struct timed_line *lines = NULL;
  size_t count = 0, capacity = 0;
  char *line = NULL;
  size_t size = 0;
  double last_time = 0;
  int ok = 1;
  while (ok && getline(&line, &size, in) >= 0) {
    char name[64];
    int id;
    if (line[0] == '%' && sscanf(line, "%%EventDef %63s %d", name, &id) == 2 && id >= 0 &&
        id < PAJE_MAX_EVENTS)
      is_definition[id] = strncmp(name, "PajeDefine", 10) == 0;
    double time = -INFINITY; /* the header, then the definitions, keep their places */
    if (line[0] != '%') {
      char *end;
      long event = strtol(line, &end, 10);
      if (end != line && !(event >= 0 && event < PAJE_MAX_EVENTS && is_definition[event])) {
        char *after;
        double when = strtod(end, &after);
        time = after != end ? when : last_time;
        last_time = time;
      } else if (end != line) {
        time = -1e300; /* definitions after the header */
      }
    }
    if (count == capacity) {
      capacity = capacity ? 2 * capacity : 4096;
      struct timed_line *grown = realloc(lines, capacity * sizeof *lines);
      if (!grown) {
        ok = 0;
        break;
      }
      lines = grown;
    }
    lines[count].text = strdup(line);
    lines[count].time = time;
    lines[count].index = count;
    ok = lines[count++].text != NULL;
  }
  free(line);
  ok = ok && !ferror(in);
  fclose(in);
  char temporary[PATH_MAX + 16];
  snprintf(temporary, sizeof temporary, "%s.partial", path);
  FILE *out = ok ? fopen(temporary, "w") : NULL;
  if (out) {
    qsort(lines, count, sizeof *lines, timed_line_order);
    for (size_t i = 0; i < count; i++)
      fputs(lines[i].text, out);
    ok = fclose(out) == 0 && rename(temporary, path) == 0;
    if (!ok)
      remove(temporary);
  } else {
    ok = 0;
  }
  for (size_t i = 0; i < count; i++)
    free(lines[i].text);
  free(lines);
  return ok ? HINES_OK : HINES_FAILURE;
}

int trace_convert(const char *dir, struct hines_error *err) {
  return trace_convert_ranks(dir, 1, err);
}

/* starpu_fxt_tool: in the prefix of the StarPU hinestask was built against, else beside this
 * program (a GPU bundle's bin/, scripts/gpu_bundle.sh), else on PATH. */
static void find_fxt_tool(char *tool, size_t size) {
  snprintf(tool, size, "%s/starpu_fxt_tool", STARPU_BIN_DIR);
  if (access(tool, X_OK) == 0)
    return;
  char self[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  char *slash = length > 0 ? (self[length] = '\0', strrchr(self, '/')) : NULL;
  if (slash) {
    *slash = '\0';
    snprintf(tool, size, "%s/starpu_fxt_tool", self);
    if (access(tool, X_OK) == 0)
      return;
  }
  snprintf(tool, size, "starpu_fxt_tool");
}

int trace_convert_ranks(const char *dir, int ranks, struct hines_error *err) {
  char tool[PATH_MAX + 32];
  /* starpu_fxt_tool -i RAW_0 -i RAW_1 ...: one Paje trace with every rank's workers, as
   * StarPU does for its MPI runs. */
  char **arguments = calloc((size_t)(4 + 2 * ranks), sizeof *arguments);
  typedef char raw_path[64];
  raw_path *raw = calloc((size_t)ranks, sizeof *raw);
  if (!arguments || !raw) {
    free(arguments), free(raw);
    return hines_fail(err, HINES_FAILURE, "out of memory");
  }
  int a = 0;
  arguments[a++] = "starpu_fxt_tool";
  arguments[a++] = "-d";
  arguments[a++] = ".";
  for (int r = 0; r < ranks; r++) {
    snprintf(raw[r], sizeof raw[r], RAW_TRACE "_%d", r);
    arguments[a++] = "-i";
    arguments[a++] = raw[r];
  }
  find_fxt_tool(tool, sizeof tool);
  pid_t child = fork();
  if (child < 0) {
    free(arguments), free(raw);
    return hines_fail(err, HINES_FAILURE, "trace folder %s: cannot start starpu_fxt_tool", dir);
  }
  if (child == 0) {
    /* starpu_fxt_tool -o crashes in StarPU 1.3.10; -d writes every output into the folder. */
    int log = -1;
    if (chdir(dir) == 0)
      log = open("fxt_tool.log", O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (log >= 0) {
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
    }
    execvp(tool, arguments);
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", tool, strerror(errno));
    _exit(127); /* the shell's "command not found" */
  }
  free(arguments), free(raw);
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
  if (tool_failed && WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return hines_fail(err, HINES_FAILURE,
                      "trace folder %s: starpu_fxt_tool not found (not in %s, beside hinestask, "
                      "nor on PATH); the raw trace is kept there",
                      dir, STARPU_BIN_DIR);
  if (tool_failed)
    return hines_fail(err, HINES_FAILURE,
                      "trace folder %s: starpu_fxt_tool failed (see %s/fxt_tool.log)", dir, dir);
  if (no_paje)
    return hines_fail(err, HINES_FAILURE, "trace folder %s: no paje.trace was produced", dir);
  char log_path[PATH_MAX];
  snprintf(log_path, sizeof log_path, "%s/fxt_tool.log", dir);
  FILE *log = fopen(log_path, "a");
  int tidied = (ranks > 1 && paje_sort_by_time(paje)) || trace_paje_tidy(paje, log);
  if (log)
    fclose(log);
  if (tidied)
    return hines_fail(err, HINES_FAILURE, "trace folder %s: cannot rewrite paje.trace", dir);
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
