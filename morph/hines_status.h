/* The status every layer returns and the one-line message that goes with it. It lives in the
 * bottom layer so that morph/, codelets/, runtime/ and src/ share it without any include running
 * upwards; src/ alone turns it into an exit status (HINES_BAD_INPUT -> 2) and prints the
 * message, adding the option names it knows. */
#ifndef HINES_STATUS_H
#define HINES_STATUS_H

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
 * ...)`. */
int hines_fail(struct hines_error *err, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
