/*
 * diag.c — diagnostics for axgen.
 *
 * User errors print `file:line:col: error: message`, the source line and a
 * caret under the column (chibicc verror_at, ISLE error.rs).  Semantic errors
 * are collected up to MAXERR; diag_finish() prints the count and exits 1.
 * Internal bugs go through die(), which aborts.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "ast.h"

int nerrors;

typedef struct Source { const char *file, *text; } Source;
static List sources;

void
diag_add_source(const char *file, const char *text)
{
	Source *s = xalloc(sizeof *s);
	s->file = file;
	s->text = text;
	list_push(&sources, s);
}

static void
show_line(Loc loc)
{
	for (int i = 0; i < sources.n; i++) {
		Source *s = sources.v[i];
		if (strcmp(s->file, loc.file) != 0)
			continue;
		const char *p = s->text;
		for (int ln = 1; ln < loc.line && *p; p++)
			if (*p == '\n')
				ln++;
		const char *e = strchr(p, '\n');
		int n = e ? (int)(e - p) : (int)strlen(p);
		fprintf(stderr, "%.*s\n", n, p);
		int col = loc.col > 0 ? loc.col : 1;
		for (int c = 1; c < col; c++)
			fputc(c - 1 < n && p[c - 1] == '\t' ? '\t' : ' ', stderr);
		fputs("^\n", stderr);
		return;
	}
}

static void
vreport(Loc loc, const char *kind, const char *fmt, va_list ap)
{
	if (loc.file)
		fprintf(stderr, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col, kind);
	else
		fprintf(stderr, "axgen: %s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (loc.file)
		show_line(loc);
}

void
error_at(Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(loc, "error", fmt, ap);
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
	vreport(loc, "note", fmt, ap);
	va_end(ap);
}

void
die_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: axgen: internal error: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void
diag_finish(void)
{
	if (nerrors) {
		fprintf(stderr, "%d error%s\n", nerrors, nerrors == 1 ? "" : "s");
		exit(1);
	}
}
