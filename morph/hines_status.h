/* The status every layer returns and the one-line message that goes with it. It lives in the
 * bottom layer so that morph/, codelets/, runtime/ and src/ share it without any include running
 * upwards; src/ alone turns it into an exit status (HINES_BAD_INPUT -> 2) and prints the
 * message, adding the option names it knows. */
#ifndef HINES_STATUS_H
#define HINES_STATUS_H

#include <stddef.h>

enum hines_status {
  HINES_OK = 0,
  HINES_FAILURE = 1,
  HINES_BAD_INPUT = 2,
};

/* Room for one diagnostic line such as "cell.swc:12: parent 40 of sample 9 does not exist". */
#define HINES_MESSAGE_SIZE 512
struct hines_error {
  char message[HINES_MESSAGE_SIZE];
};

/* printf-style setter; returns `status` so callers can `return hines_fail(err, HINES_BAD_INPUT,
 * ...)`. The message is made printable as hines_printable does (file names and file contents
 * quoted in it never reach a terminal as control bytes). */
int hines_fail(struct hines_error *err, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Bytes in the valid UTF-8 sequence that starts `text` (at most `left` bytes): 1 to 4, or 0 when
 * the bytes there are not valid UTF-8 (overlong forms, surrogates and beyond U+10FFFF included). */
size_t hines_utf8_length(const char *text, size_t left);

/* Copies `length` bytes of `text` into `out` (`size` bytes, always terminated, cut short rather
 * than overflowing), writing as \xNN every byte of a control (C0, DEL, C1), of an invisible
 * format character (zero-width, bidirectional, byte-order mark) or not part of
 * valid UTF-8: an escape sequence in a file or a file name is shown, never obeyed. Returns the
 * length written. */
size_t hines_printable(char *out, size_t size, const char *text, size_t length);

#endif
