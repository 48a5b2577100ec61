#include "hines_status.h"

#include <stdarg.h>
#include <stdio.h>

int hines_fail(struct hines_error *err, int status, const char *format, ...) {
  if (err) {
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
  }
  return status;
}
