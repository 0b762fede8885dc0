/* Diagnostics: everything here goes to stderr, never stdout. */
#ifndef RB_LOG_H
#define RB_LOG_H

#include <stdbool.h>

void log_set_prog(const char *name);
void log_set_verbose(bool on);
bool log_verbose_enabled(void);
/* The calling thread's messages name it: "prog: error: NAME: ..." (-j). */
void log_set_thread(const char *name);

/* "prog: error: ..." */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The calling thread's last log_err() message ("" when none since the clear). */
const char *log_last_err(void);
void log_clear_last_err(void);
/* The first log_err() message since the start or log_clear_error() (NULL:
 * none): what a failed results document names as its error. */
const char *log_first_error(void);
void log_clear_error(void);
/* "prog: warning: ..." */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: ..." informational, always shown (stderr). */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: ..." only with --verbose. */
void log_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
