/*
 * util.c — allocation, strings, growable lists and internal errors for axgen.
 *
 * axgen reads a few spec files and exits: memory is taken from calloc and
 * never given back (chibicc's rule for short-lived compilers).  Internal bugs
 * go through die(), which aborts; errors in the spec go through diag.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

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

void *
xalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xalloc(n + 1);
	memcpy(p, s, n);
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = xalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void
list_push(List *l, void *p)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		void **v = xalloc(sizeof *v * (size_t)l->cap);
		if (l->n)
			memcpy(v, l->v, sizeof *v * (size_t)l->n);
		l->v = v;
	}
	l->v[l->n++] = p;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void
list_sort_str(List *l)
{
	if (l->n > 1)
		qsort(l->v, (size_t)l->n, sizeof *l->v, cmpstr);
}

int
find_str(const List *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return i;
	return -1;
}

int
in_strv(const char *const *v, const char *s)
{
	for (int i = 0; v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xalloc(cap);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n - 1 == 0) {
			char *nb = xalloc(cap * 2);
			memcpy(nb, buf, n);
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}
