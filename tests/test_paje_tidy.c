/* trace_paje_tidy: the two things StarPU 1.3.10's starpu_fxt_tool writes into paje.trace
 * against the Paje format are mended (colours from 0 to 255, an event earlier than the one
 * before it on the same container and type), and nothing else changes; pj_dump (PajeNG), when
 * installed, refuses the trace before and reads it after. */
#define _GNU_SOURCE /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

/* A small trace as starpu_fxt_tool writes them: header, definitions, then events; the colour of
 * hines_step is 0-255 and the second nready counter comes 0.46 us before the first. */
static const char header[] =
    "%EventDef\tPajeDefineContainerType\t1\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n"
    "%EndEventDef\n"
    "%EventDef\tPajeDefineStateType\t3\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n"
    "%EndEventDef\n"
    "%EventDef\tPajeDefineVariableType\t4\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n"
    "%EndEventDef\n"
    "%EventDef\tPajeDefineEntityValue\t6\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n"
    "%\tColor\tcolor\n%EndEventDef\n"
    "%EventDef\tPajeCreateContainer\t7\n%\tTime\tdate\n%\tAlias\tstring\n%\tType\tstring\n"
    "%\tContainer\tstring\n%\tName\tstring\n%EndEventDef\n"
    "%EventDef PajeSetState 10\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n"
    "%\tValue\tstring\n%EndEventDef\n"
    "%EventDef\tPajeSetVariable\t13\n%\tTime\tdate\n%\tContainer\tstring\n%\tType\tstring\n"
    "%\tValue\tdouble\n%EndEventDef\n"
    "1\tP\t0\t\"Program\"\n1\tW\tP\t\"Worker\"\n3\tWS\tW\t\"Worker State\"\n"
    "4\tnready\tP\t\"Number of ready tasks\"\n";
static const char before[] = "6\thines_step\tWS\thines_step\t\"255.000000 127.000000 14.000000\" \n"
                             "6       I       WS       Idle         \".9 .1 .0\"\t\t\n"
                             "7\t0.000000000\tp\tP\t0\t\"program\"\n"
                             "7\t0.000000000\tw0\tW\tp\t\"CPU0\"\n"
                             "13\t470.154505000\tp\tnready\t0.000000\n"
                             "10\t470.154100000\tw0\tWS\thines_step\n"
                             "13\t470.154044000\tp\tnready\t1.000000\n"
                             "13\t470.200000000\tp\tnready\t2.000000\n";
static const char after[] = "6\thines_step\tWS\thines_step\t\"1.000000 0.498039 0.054902\" \n"
                            "6       I       WS       Idle         \".9 .1 .0\"\t\t\n"
                            "7\t0.000000000\tp\tP\t0\t\"program\"\n"
                            "7\t0.000000000\tw0\tW\tp\t\"CPU0\"\n"
                            "13\t470.154505000\tp\tnready\t0.000000\n"
                            "10\t470.154100000\tw0\tWS\thines_step\n"
                            "13\t470.154505000\tp\tnready\t1.000000\n"
                            "13\t470.200000000\tp\tnready\t2.000000\n";

static char *read_file(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char *text = calloc(1, 1 << 16);
  size_t got = fread(text, 1, (1 << 16) - 1, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

static int pj_dump_accepts(const char *path) {
  char command[512];
  snprintf(command, sizeof command, "pj_dump '%s' >/dev/null 2>&1", path);
  return system(command) == 0;
}

static void test_tidy_mends_colours_and_order(void **state) {
  (void)state;
  char folder[] = "/tmp/test_paje_tidy.XXXXXX";
  assert_non_null(mkdtemp(folder));
  char path[256], log_path[256];
  snprintf(path, sizeof path, "%s/paje.trace", folder);
  snprintf(log_path, sizeof log_path, "%s/log", folder);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(header, f);
  fputs(before, f);
  fclose(f);
  int have_pj_dump = system("command -v pj_dump >/dev/null 2>&1") == 0;
  if (have_pj_dump)
    assert_false(pj_dump_accepts(path)); /* the order, as StarPU wrote it */
  FILE *log = fopen(log_path, "w");
  assert_int_equal(trace_paje_tidy(path, log), 0);
  fclose(log);
  char *text = read_file(path);
  char *expected = malloc(sizeof header + sizeof after);
  snprintf(expected, sizeof header + sizeof after, "%s%s", header, after);
  assert_string_equal(text, expected);
  char *said = read_file(log_path);
  assert_non_null(strstr(said, "1 event of paje.trace came before the previous one"));
  if (have_pj_dump)
    assert_true(pj_dump_accepts(path));
  else
    print_message("# pj_dump not installed: its verdict not checked\n");
  /* A second pass changes nothing. */
  assert_int_equal(trace_paje_tidy(path, NULL), 0);
  char *again = read_file(path);
  assert_string_equal(again, expected);
  char partial[300];
  snprintf(partial, sizeof partial, "%s.partial", path);
  assert_int_equal(access(partial, F_OK), -1);
  free(text);
  free(expected);
  free(said);
  free(again);
  remove(path);
  remove(log_path);
  rmdir(folder);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_tidy_mends_colours_and_order)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
