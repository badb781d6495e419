/*
 * diag.c — diagnostics on user input, shared by axgen and axonc.
 *
 * `file:line:col: error: message`, then the source line and a caret under
 * the column (chibicc verror_at).  Sources are registered once with their
 * text so any stage can point into them.  Internal bugs use ax_die instead.
 */
#include <stdarg.h>
#include <string.h>
#include "axon.h"

enum { MAXSRC = 256 };
static struct { const char *file, *text; } sources[MAXSRC];
static int nsources;
static int nerrs;

void
ax_diag_source(const char *file, const char *text)
{
	if (nsources < MAXSRC) {
		sources[nsources].file = file;
		sources[nsources].text = text;
		nsources++;
	}
}

static void
show_line(AxLoc loc)
{
	for (int i = nsources - 1; i >= 0; i--) {
		if (strcmp(sources[i].file, loc.file) != 0)
			continue;
		const char *p = sources[i].text;
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

void
ax_vdiag(AxLoc loc, const char *kind, const char *fmt, va_list ap)
{
	if (loc.file && loc.line > 0)
		fprintf(stderr, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col, kind);
	else if (loc.file)
		fprintf(stderr, "%s: %s: ", loc.file, kind);
	else
		fprintf(stderr, "%s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (loc.file && loc.line > 0)
		show_line(loc);
	if (strcmp(kind, "error") == 0)
		nerrs++;
}

void
ax_error_at(AxLoc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ax_vdiag(loc, "error", fmt, ap);
	va_end(ap);
}

void
ax_note_at(AxLoc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ax_vdiag(loc, "note", fmt, ap);
	va_end(ap);
}

int
ax_nerrors(void)
{
	return nerrs;
}
