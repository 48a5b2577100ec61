#include "hines_status.h"

#include <stdarg.h>
#include <stdio.h>

size_t hines_utf8_length(const char *text, size_t left) {
  const unsigned char *s = (const unsigned char *)text;
  if (left == 0)
    return 0;
  if (s[0] < 0x80)
    return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xbf; /* the allowed range of the second byte */
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    length = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) {
    length = 3;
    if (s[0] == 0xe0)
      low = 0xa0; /* no overlong forms */
    if (s[0] == 0xed)
      high = 0x9f; /* no UTF-16 surrogates */
  } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
    length = 4;
    if (s[0] == 0xf0)
      low = 0x90;
    if (s[0] == 0xf4)
      high = 0x8f; /* nothing beyond U+10FFFF */
  } else
    return 0;
  if (left < length || s[1] < low || s[1] > high)
    return 0;
  for (size_t i = 2; i < length; i++)
    if (s[i] < 0x80 || s[i] > 0xbf)
      return 0;
  return length;
}

size_t hines_printable(char *out, size_t size, const char *text, size_t length) {
  static const char hex[] = "0123456789abcdef";
  size_t used = 0;
  if (size == 0)
    return 0;
  for (size_t i = 0; i < length;) {
    const unsigned char *s = (const unsigned char *)text + i;
    size_t sequence = hines_utf8_length(text + i, length - i);
    /* C0 controls, DEL, and C1 controls (U+0080..U+009F, bytes c2 80..c2 9f) move terminals;
     * invisible format characters (zero-width spaces and joiners, bidirectional marks and
     * overrides, the byte-order mark) change what a line seems to say. */
    int control = 0;
    if (sequence == 1)
      control = s[0] < 0x20 || s[0] == 0x7f;
    else if (sequence == 2)
      control = s[0] == 0xc2 && s[1] < 0xa0;
    else if (sequence == 3 && s[0] == 0xe2 && s[1] == 0x80) /* U+200B..U+200F, U+2028..U+202E */
      control = (s[2] >= 0x8b && s[2] <= 0x8f) || (s[2] >= 0xa8 && s[2] <= 0xae);
    else if (sequence == 3 && s[0] == 0xe2 && s[1] == 0x81) /* U+2060..U+2064, U+2066..U+206F */
      control = s[2] >= 0xa0 && s[2] <= 0xaf;
    else if (sequence == 3)
      control = s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf; /* U+FEFF */
    if (sequence == 0 || control) {
      size_t bytes = sequence ? sequence : 1;
      if (used + 4 * bytes >= size)
        break;
      for (size_t b = 0; b < bytes; b++) {
        out[used++] = '\\';
        out[used++] = 'x';
        out[used++] = hex[s[b] >> 4];
        out[used++] = hex[s[b] & 15];
      }
      i += bytes;
    } else {
      if (used + sequence >= size)
        break;
      for (size_t b = 0; b < sequence; b++)
        out[used++] = (char)s[b];
      i += sequence;
    }
  }
  out[used] = '\0';
  return used;
}

int hines_fail(struct hines_error *err, int status, const char *format, ...) {
  if (err) {
    /* Formatted apart from err->message, which callers may pass as an argument; then escaped,
     * since messages quote file names and file contents and go to a terminal. */
    char raw[2 * HINES_MESSAGE_SIZE];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(raw, sizeof raw, format, args);
    va_end(args);
    if (length < 0)
      length = 0;
    if ((size_t)length >= sizeof raw)
      length = (int)sizeof raw - 1;
    hines_printable(err->message, sizeof err->message, raw, (size_t)length);
  }
  return status;
}
