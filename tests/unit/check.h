/*
 * check.h — the unit tests' assertions: each failure printed as
 * "file:line: FAIL: ...", counted; main ends with check_done(), which prints
 * "N passed, M failed" and returns the exit status.
 */
#ifndef AXON_TEST_CHECK_H
#define AXON_TEST_CHECK_H
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int npass, nfail;

static void report_at(int ok, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void
report_at(int ok, const char *file, int line, const char *fmt, ...)
{
	if (ok) {
		npass++;
		return;
	}
	nfail++;
	va_list ap;
	printf("%s:%d: FAIL: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}
#define report(ok, line, ...) report_at((ok), __FILE__, (line), __VA_ARGS__)
#define CHECK(c) report_at(!!(c), __FILE__, __LINE__, "%s", #c)
/* the message's arguments are evaluated only on failure */
#define CHECK_MSG(c, ...)                                                 \
	do {                                                              \
		if (c)                                                    \
			npass++;                                          \
		else                                                      \
			report_at(0, __FILE__, __LINE__, __VA_ARGS__);    \
	} while (0)
#define CHECK_INT(got, want)                                                                                   \
	do {                                                                                                   \
		long long g_ = (long long)(got), w_ = (long long)(want);                                       \
		report_at(g_ == w_, __FILE__, __LINE__, "%s == %s: got %lld, want %lld", #got, #want, g_, w_); \
	} while (0)
#define CHECK_STR(got, want)                                                                                   \
	do {                                                                                                   \
		const char *g_ = (got), *w_ = (want);                                                          \
		report_at(g_ && strcmp(g_, w_) == 0, __FILE__, __LINE__, "%s:\n    got  %s\n    want %s", #got,     \
		          g_ ? g_ : "(null)", w_);                                                             \
	} while (0)
#define CHECK_HAS(s, sub)                                                                                      \
	do {                                                                                                   \
		const char *s_ = (s), *u_ = (sub);                                                             \
		report_at(s_ && strstr(s_, u_) != NULL, __FILE__, __LINE__, "no \"%s\" in: %.300s", u_,         \
		          s_ ? s_ : "(null)");                                                                 \
	} while (0)

static int
check_done(void)
{
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail != 0;
}

#endif
