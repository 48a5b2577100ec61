#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */
#include "output_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace.h"

/* What NAME.partial-XXXXXX adds to a file name. */
#define TEMPORARY_SUFFIX ".partial-XXXXXX"
#define MAX_WRITTEN 16

static char written[MAX_WRITTEN][PATH_MAX];
static int n_written;
static char run_folder[PATH_MAX];
static char run_json[PATH_MAX], run_probes[PATH_MAX];

/* ---- paths ---- */

/* Splits `path` into its folder ("." when it has none) and its last component. */
static void split_path(const char *path, char *folder, size_t folder_size, const char **base) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  if (!slash)
    snprintf(folder, folder_size, ".");
  else if (slash == path)
    snprintf(folder, folder_size, "/");
  else
    snprintf(folder, folder_size, "%.*s", (int)(slash - path), path);
}

static const char *kind_of(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISLNK(mode)  ? "a symbolic link"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISREG(mode)  ? "a regular file"
                          : "not a regular file";
}

/* The temporary name for `path`: its folder, then as much of its name as fits NAME_MAX, then
 * TEMPORARY_SUFFIX (mkstemp's template). */
static int temporary_template(const char *path, char *out, size_t size) {
  char folder[PATH_MAX];
  const char *base;
  split_path(path, folder, sizeof folder, &base);
  long name_max = pathconf(folder, _PC_NAME_MAX);
  if (name_max <= 0)
    name_max = NAME_MAX;
  int room = (int)name_max - (int)strlen(TEMPORARY_SUFFIX);
  int keep = (int)strlen(base) < room ? (int)strlen(base) : room;
  int length = snprintf(out, size, "%s/%.*s%s", folder, keep, base, TEMPORARY_SUFFIX);
  return length < 0 || (size_t)length >= size ? -1 : 0;
}

/* Creates and removes a file in the folder that `path` would go to: the cheapest sure test that
 * the output can be written there (permissions, read-only mounts, a full inode table). */
static int probe_folder(const char *option, const char *path, struct hines_error *err) {
  char probe[PATH_MAX];
  if (temporary_template(path, probe, sizeof probe) != 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s '%s': %s", option, path, strerror(ENAMETOOLONG));
  int fd = mkstemp(probe);
  if (fd < 0) {
    char folder[PATH_MAX];
    const char *base;
    split_path(path, folder, sizeof folder, &base);
    return hines_fail(err, HINES_BAD_INPUT, "%s '%s': cannot create a file in folder '%s': %s",
                      option, path, folder, strerror(errno));
  }
  close(fd);
  unlink(probe);
  return HINES_OK;
}

/* "folder/name" with the folder resolved (realpath), to tell whether two outputs are one file. */
static int canonical_path(const char *path, char *out, size_t size) {
  char folder[PATH_MAX], resolved[PATH_MAX];
  const char *base;
  split_path(path, folder, sizeof folder, &base);
  if (!realpath(folder, resolved))
    return -1;
  int length = snprintf(out, size, "%s/%s", resolved, base);
  return length < 0 || (size_t)length >= size ? -1 : 0;
}

/* One output file: see output_files.h for the rules. `inputs` are the --morph specs. */
static int check_output(const char *option, const char *path, const struct options *o,
                        struct hines_error *err) {
  if (!*path)
    return hines_fail(err, HINES_BAD_INPUT, "%s needs a file name, got ''", option);
  if (strlen(path) >= PATH_MAX)
    return hines_fail(err, HINES_BAD_INPUT, "%s '%.60s...': %s", option, path,
                      strerror(ENAMETOOLONG));
  char folder[PATH_MAX];
  const char *base;
  split_path(path, folder, sizeof folder, &base);
  if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s '%s' is a directory, not a file", option, path);
  struct stat st;
  if (stat(folder, &st) != 0)
    return hines_fail(err, HINES_BAD_INPUT, "%s '%s': folder does not exist (%s)", option, path,
                      strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return hines_fail(err, HINES_BAD_INPUT, "%s '%s': folder does not exist ('%s' is %s)", option,
                      path, folder, kind_of(st.st_mode));
  long name_max = pathconf(folder, _PC_NAME_MAX);
  if (name_max > 0 && (long)strlen(base) > name_max)
    return hines_fail(err, HINES_BAD_INPUT, "%s '%.60s...': %s (%zu bytes, at most %ld)", option,
                      path, strerror(ENAMETOOLONG), strlen(base), name_max);
  if (lstat(path, &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s '%s' is a symbolic link; outputs are written as regular files, give "
                        "the path of the file itself",
                        option, path);
    if (!S_ISREG(st.st_mode))
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s '%s' is %s, not a file; outputs are regular files", option, path,
                        kind_of(st.st_mode));
    for (int i = 0; i < o->n_morph_specs; i++) {
      struct stat input;
      if (stat(o->morph_specs[i], &input) == 0 && input.st_dev == st.st_dev &&
          input.st_ino == st.st_ino)
        return hines_fail(err, HINES_BAD_INPUT,
                          "%s '%s' is also an input of this run (--morph %s); give the output "
                          "another name",
                          option, path, o->morph_specs[i]);
    }
    if (st.st_size > 0 && !o->force)
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s '%s' exists (%lld bytes); give --force to replace it, or another name",
                        option, path, (long long)st.st_size);
  } else if (errno != ENOENT) {
    return hines_fail(err, HINES_BAD_INPUT, "%s '%s': %s", option, path, strerror(errno));
  }
  return probe_folder(option, path, err);
}

/* --trace DIR: an existing folder holding an earlier trace is replaced only with --force; DIR
 * (or its parent, when DIR does not exist yet) must take new files. */
static int check_trace_folder(const char *dir, int force, struct hines_error *err) {
  if (!*dir)
    return hines_fail(err, HINES_BAD_INPUT, "--trace needs a folder name, got ''");
  struct stat st;
  char probe_path[PATH_MAX];
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return hines_fail(err, HINES_BAD_INPUT, "--trace '%s' exists and is not a directory", dir);
    for (int i = 0; trace_file_names[i]; i++) {
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/%s", dir, trace_file_names[i]);
      if (!force && lstat(path, &st) == 0)
        return hines_fail(err, HINES_BAD_INPUT,
                          "--trace '%s' holds an earlier trace (%s); give --force to replace it, "
                          "or another folder",
                          dir, trace_file_names[i]);
    }
    snprintf(probe_path, sizeof probe_path, "%s/probe", dir);
  } else if (errno == ENOENT) {
    snprintf(probe_path, sizeof probe_path, "%s", dir); /* a file in its parent */
    size_t length = strlen(probe_path);
    while (length > 1 && probe_path[length - 1] == '/')
      probe_path[--length] = '\0';
    char folder[PATH_MAX];
    const char *base;
    split_path(probe_path, folder, sizeof folder, &base);
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
      return hines_fail(err, HINES_BAD_INPUT, "--trace '%s': folder '%s' does not exist", dir,
                        folder);
  } else {
    return hines_fail(err, HINES_BAD_INPUT, "--trace '%s': %s", dir, strerror(errno));
  }
  return probe_folder("--trace", probe_path, err);
}

/* The default job's results folder must be a folder (or be creatable) and take new entries. */
static int check_results_folder(struct hines_error *err) {
  struct stat st;
  if (stat(RESULTS_DIR, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return hines_fail(err, HINES_BAD_INPUT,
                        "%s exists and is %s, not a folder; the default job writes its run "
                        "folders there (move it away, or give --json and --probes)",
                        RESULTS_DIR, kind_of(st.st_mode));
    return probe_folder("the default job", RESULTS_DIR "/probe", err);
  }
  if (errno != ENOENT)
    return hines_fail(err, HINES_BAD_INPUT, "%s: %s", RESULTS_DIR, strerror(errno));
  return probe_folder("the default job", RESULTS_DIR, err);
}

int output_plan_check(const struct options *o, struct hines_error *err) {
  enum { OUTPUTS = 3 };
  const char *options[OUTPUTS] = {"--json", "--probes", "--spikes"};
  const char *paths[OUTPUTS] = {o->json_path, o->probes_path, o->spikes_path};
  char canonical[OUTPUTS][PATH_MAX];
  for (int i = 0; i < OUTPUTS; i++) {
    if (!paths[i])
      continue;
    int status = check_output(options[i], paths[i], o, err);
    if (status)
      return status;
    if (canonical_path(paths[i], canonical[i], sizeof canonical[i]) != 0)
      return hines_fail(err, HINES_BAD_INPUT, "%s '%s': %s", options[i], paths[i], strerror(errno));
  }
  for (int i = 0; i < OUTPUTS; i++)
    for (int j = i + 1; j < OUTPUTS; j++)
      if (paths[i] && paths[j] && strcmp(canonical[i], canonical[j]) == 0)
        return hines_fail(err, HINES_BAD_INPUT,
                          "%s and %s both name '%s'; give each output its own file", options[i],
                          options[j], paths[j]);
  if (o->trace_dir) {
    int status = check_trace_folder(o->trace_dir, o->force, err);
    if (status)
      return status;
  }
  if (o->default_job && (!o->json_path || !o->probes_path))
    return check_results_folder(err);
  return HINES_OK;
}

int output_plan_start(struct options *o, struct hines_error *err) {
  if (!o->default_job || (o->json_path && o->probes_path))
    return HINES_OK;
  if (mkdir(RESULTS_DIR, 0777) != 0 && errno != EEXIST)
    return hines_fail(err, HINES_FAILURE, "cannot create %s: %s", RESULTS_DIR, strerror(errno));
  /* A name per second, then -2, -3, ...: mkdir fails with EEXIST when another run took the
   * name, so concurrent runs always get folders of their own. */
  char stamp[32];
  time_t now = time(NULL);
  struct tm local;
  localtime_r(&now, &local);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  for (int n = 1;; n++) {
    if (n == 1)
      snprintf(run_folder, sizeof run_folder, "%s/run-%s", RESULTS_DIR, stamp);
    else
      snprintf(run_folder, sizeof run_folder, "%s/run-%s-%d", RESULTS_DIR, stamp, n);
    if (mkdir(run_folder, 0777) == 0)
      break;
    if (errno != EEXIST || n == 10000) {
      int error = errno;
      run_folder[0] = '\0';
      return hines_fail(err, HINES_FAILURE, "cannot create a run folder in %s: %s", RESULTS_DIR,
                        strerror(error));
    }
  }
  if (!o->json_path) {
    snprintf(run_json, sizeof run_json, "%s/summary.json", run_folder);
    o->json_path = run_json;
  }
  if (!o->probes_path) {
    snprintf(run_probes, sizeof run_probes, "%s/probes.csv", run_folder);
    o->probes_path = run_probes;
  }
  return HINES_OK;
}

void output_plan_abandon(void) {
  if (run_folder[0])
    rmdir(run_folder); /* fails, as it should, when something was written there */
}

/* ---- writing ---- */

int output_open(struct output_file *f, const char *option, const char *path, int force,
                struct hines_error *err) {
  *f = (struct output_file){.option = option, .path = path, .force = force};
  if (temporary_template(path, f->temporary, sizeof f->temporary) != 0)
    return hines_fail(err, HINES_FAILURE, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
  int fd = mkstemp(f->temporary);
  if (fd < 0)
    return hines_fail(err, HINES_FAILURE, "cannot write %s: %s", path, strerror(errno));
  /* mkstemp makes the file private (0600); results get the usual mode. */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || !(f->stream = fdopen(fd, "w"))) {
    int error = errno;
    close(fd);
    unlink(f->temporary);
    return hines_fail(err, HINES_FAILURE, "cannot write %s: %s", path, strerror(error));
  }
  return HINES_OK;
}

static int place_file(const struct output_file *f) {
  if (f->force) {
    /* Whatever appeared at the path during the run must still be a regular file: rename would
     * replace a device node or a link itself. */
    struct stat st;
    if (lstat(f->path, &st) == 0 && !S_ISREG(st.st_mode)) {
      errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
      return -1;
    }
    return rename(f->temporary, f->path);
  }
  if (renameat2(AT_FDCWD, f->temporary, AT_FDCWD, f->path, RENAME_NOREPLACE) == 0)
    return 0;
  if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    /* A file system without RENAME_NOREPLACE: link fails with EEXIST just as atomically. */
    if (link(f->temporary, f->path) == 0) {
      unlink(f->temporary);
      return 0;
    }
  }
  if (errno != EEXIST)
    return -1;
  /* An empty regular file holds no results (mktemp's placeholder): it is replaced. */
  struct stat st;
  if (lstat(f->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
    return rename(f->temporary, f->path);
  errno = EEXIST;
  return -1;
}

int output_commit(struct output_file *f, struct hines_error *err) {
  int error = 0;
  if (fflush(f->stream) != 0)
    error = errno;
  else if (ferror(f->stream))
    error = EIO;
  else if (fsync(fileno(f->stream)) != 0)
    error = errno;
  if (fclose(f->stream) != 0 && !error)
    error = errno;
  f->stream = NULL;
  if (error) {
    unlink(f->temporary);
    struct stat st;
    return hines_fail(err, HINES_FAILURE, "cannot write %s: %s%s", f->path, strerror(error),
                      lstat(f->path, &st) == 0 ? " (the existing file keeps what it held)" : "");
  }
  if (place_file(f) != 0) {
    error = errno;
    unlink(f->temporary);
    if (error == EEXIST)
      return hines_fail(err, HINES_FAILURE,
                        "%s '%s' appeared during the run (another run writing the same file?); "
                        "left as it is, this run's output is not written",
                        f->option, f->path);
    return hines_fail(err, HINES_FAILURE, "cannot write %s: %s", f->path, strerror(error));
  }
  /* The rename itself reaches the disk with the folder. */
  char folder[PATH_MAX];
  const char *base;
  split_path(f->path, folder, sizeof folder, &base);
  int folder_fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_fd >= 0) {
    fsync(folder_fd);
    close(folder_fd);
  }
  output_note_written(f->path);
  return HINES_OK;
}

void output_note_written(const char *path) {
  if (n_written < MAX_WRITTEN)
    snprintf(written[n_written++], PATH_MAX, "%s", path);
}

void output_print_written(FILE *out) {
  if (n_written == 0)
    return;
  fputs("files written:", out);
  for (int i = 0; i < n_written; i++) {
    char shown[4 * PATH_MAX];
    hines_printable(shown, sizeof shown, written[i], strlen(written[i]));
    fprintf(out, "%s %s", i ? "," : "", shown);
  }
  fputc('\n', out);
}

void output_json_string(FILE *f, const char *text) {
  fputc('"', f);
  size_t length = strlen(text);
  for (size_t i = 0; i < length;) {
    unsigned char c = (unsigned char)text[i];
    size_t sequence = hines_utf8_length(text + i, length - i);
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc(c, f);
    } else if (sequence == 0 || c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
    } else {
      fwrite(text + i, 1, sequence, f);
      i += sequence;
      continue;
    }
    i++;
  }
  fputc('"', f);
}

void output_check_stdout_at_exit(void) {
  /* When an earlier write failed, stdio has dropped what it held and only the error flag is
   * left; errno then still tells why unless something else failed since. */
  int earlier = errno, error = 0;
  if (fflush(stdout) != 0)
    error = errno;
  else if (ferror(stdout))
    error = earlier == ENOSPC || earlier == EPIPE || earlier == EDQUOT || earlier == EFBIG ||
                    earlier == EBADF
                ? earlier
                : EIO;
  if (error) {
    fprintf(stderr, "%s: cannot write to standard output: %s\n", program, strerror(error));
    _exit(1);
  }
}
