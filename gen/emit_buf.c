/*
 * emit_buf.c — the text of the C writers: a growing string (Buf), the file
 * being written (out, emitf), C string literals, file:line notes, and
 * declarations printed back as spec syntax for the tables and comments.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "emit_buf.h"

void
buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (b->len + (size_t)n + 1 > cap)
			cap *= 2;
		char *s = xalloc(cap);
		if (b->len)
			memcpy(s, b->s, b->len);
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *
buf_str(Buf *b)
{
	return b->s ? b->s : "";
}

FILE *out;

void
emitf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

/* A C string literal for s. */
const char *
cstr(const char *s)
{
	if (!s)
		return "NULL";
	Buf b = { 0 };
	buf_printf(&b, "\"");
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '"': buf_printf(&b, "\\\""); break;
		case '\\': buf_printf(&b, "\\\\"); break;
		case '\n': buf_printf(&b, "\\n"); break;
		case '\t': buf_printf(&b, "\\t"); break;
		default:
			if ((unsigned char)*p < 32)
				buf_printf(&b, "\\%03o", (unsigned char)*p);
			else
				buf_printf(&b, "%c", *p);
		}
	}
	buf_printf(&b, "\"");
	return xstrdup(buf_str(&b));
}

const char *
locstr(Loc l)
{
	return xprintf("%s:%d", l.file, l.line);
}

/* ---- printable forms of declarations ------------------------------------- */

static const char *
dim_str(const Dim *d)
{
	if (d->ellipsis)
		return xprintf("...%s", d->group);
	return xprintf("%s%s", d->par ? "par " : "", expr_str(d->e));
}

const char *
pattern_str(const List *dims)
{
	Buf b = { 0 };
	buf_printf(&b, "[");
	for (int i = 0; i < dims->n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", dim_str(dims->v[i]));
	buf_printf(&b, "]");
	return xstrdup(buf_str(&b));
}

const char *
mems_str(const List *m)
{
	Buf b = { 0 };
	for (int i = 1; i < m->n; i += 2)
		buf_printf(&b, "%s%s", i > 1 ? "|" : "", (char *)m->v[i]);
	return xstrdup(buf_str(&b));
}

const char *
sig_str(const Decl *d)
{
	Buf b = { 0 };
	buf_printf(&b, "%s %s(", d->kind == D_OP ? "op" : "inst", d->name);
	for (int i = 0; i < d->operands.n; i++) {
		Operand *o = d->operands.v[i];
		buf_printf(&b, "%s%s%s%s%s", i ? ", " : "", o->name, o->mems.n ? ": " : "", mems_str(&o->mems),
		           pattern_str(&o->dims));
		if (o->defval)
			buf_printf(&b, " = %s", expr_str(o->defval));
	}
	for (int i = 0; i < d->attrs.n; i++) {
		Attr *a = d->attrs.v[i];
		buf_printf(&b, "%s%s: %s", i ? ", " : "; ", a->name, a->type);
	}
	buf_printf(&b, ") -> %s%s%s", mems_str(&d->outmems), d->outmems.n ? " " : "", pattern_str(&d->out));
	if (d->engines.n) {
		buf_printf(&b, " on ");
		for (int i = 1; i < d->engines.n; i += 2)
			buf_printf(&b, "%s%s", i > 1 ? " | " : "", (char *)d->engines.v[i]);
	}
	return xstrdup(buf_str(&b));
}
