/*
 * diag.c — axgen's error counting on top of runtime/diag.c.
 *
 * Semantic errors are collected up to MAXERR; diag_finish() prints the count
 * and exits 1.  Internal bugs go through die() (util.c), which aborts.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "ast.h"

int nerrors;

void
diag_add_source(const char *file, const char *text)
{
	ax_diag_source(file, text);
}

void
error_at(Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ax_vdiag(loc.file ? loc : (Loc){ "axgen", 0, 0 }, "error", fmt, ap);
	va_end(ap);
	if (++nerrors >= MAXERR) {
		fprintf(stderr, "too many errors (%d), stopping\n", nerrors);
		exit(1);
	}
}

void
note_at(Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ax_vdiag(loc, "note", fmt, ap);
	va_end(ap);
}

void
diag_finish(void)
{
	if (nerrors) {
		fprintf(stderr, "%d error%s\n", nerrors, nerrors == 1 ? "" : "s");
		exit(1);
	}
}
