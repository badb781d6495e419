/*
 * affine.c — slice starts as affine expressions over loop variables (the
 * text the emitters write, "(b3 * 4 + j3) * 128"), and back (affine.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "affine.h"

int
aff_term(Aff *a, const char *v, int64_t k)
{
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->v[i], v) == 0) {
			a->k[i] += k;
			return 0;
		}
	if (a->n == AFF_MAXV || strlen(v) >= sizeof a->v[0])
		return -1;
	snprintf(a->v[a->n], sizeof a->v[0], "%s", v);
	a->k[a->n++] = k;
	return 0;
}

int
aff_add(Aff *a, const Aff *b, int64_t m)
{
	a->c += m * b->c;
	for (int i = 0; i < b->n; i++)
		if (aff_term(a, b->v[i], m * b->k[i]) != 0)
			return -1;
	return 0;
}

int64_t
aff_coef(const Aff *a, const char *v)
{
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->v[i], v) == 0)
			return a->k[i];
	return 0;
}

int
aff_eq(const Aff *a, const Aff *b)
{
	if (a->c != b->c)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->k[i] != aff_coef(b, a->v[i]))
			return 0;
	for (int i = 0; i < b->n; i++)
		if (b->k[i] != aff_coef(a, b->v[i]))
			return 0;
	return 1;
}

typedef struct Px {
	const char *p;
	int bad;
} Px;

static Aff p_expr(Px *x);

static void
p_space(Px *x)
{
	while (*x->p == ' ')
		x->p++;
}

static Aff
p_factor(Px *x)
{
	Aff a = { 0 };
	p_space(x);
	if (*x->p == '(') {
		x->p++;
		a = p_expr(x);
		p_space(x);
		if (*x->p != ')')
			x->bad = 1;
		else
			x->p++;
	} else if (*x->p == '-') {
		x->p++;
		Aff b = p_factor(x);
		x->bad |= aff_add(&a, &b, -1) != 0;
	} else if (*x->p >= '0' && *x->p <= '9') {
		char *end;
		a.c = strtoll(x->p, &end, 10);
		x->p = end;
	} else if (*x->p == '_' || (*x->p >= 'a' && *x->p <= 'z') || (*x->p >= 'A' && *x->p <= 'Z')) {
		char name[24];
		size_t n = 0;
		while (*x->p == '_' || (*x->p >= 'a' && *x->p <= 'z') || (*x->p >= 'A' && *x->p <= 'Z') ||
		       (*x->p >= '0' && *x->p <= '9')) {
			if (n + 1 < sizeof name)
				name[n++] = *x->p;
			else
				x->bad = 1;
			x->p++;
		}
		name[n] = 0;
		x->bad |= aff_term(&a, name, 1) != 0;
	} else
		x->bad = 1;
	return a;
}

static Aff
p_term(Px *x)
{
	Aff a = p_factor(x);
	for (p_space(x); !x->bad && *x->p == '*'; p_space(x)) {
		x->p++;
		Aff b = p_factor(x), r = { 0 };
		if (a.n == 0)
			x->bad |= aff_add(&r, &b, a.c) != 0;
		else if (b.n == 0)
			x->bad |= aff_add(&r, &a, b.c) != 0;
		else
			x->bad = 1;   /* not affine */
		a = r;
	}
	return a;
}

static Aff
p_expr(Px *x)
{
	Aff a = p_term(x);
	for (p_space(x); !x->bad && (*x->p == '+' || *x->p == '-'); p_space(x)) {
		int64_t m = *x->p == '-' ? -1 : 1;
		x->p++;
		Aff b = p_term(x);
		x->bad |= aff_add(&a, &b, m) != 0;
	}
	return a;
}

int
aff_parse(const char *s, Aff *a)
{
	Px x = { s, 0 };
	*a = p_expr(&x);
	p_space(&x);
	return x.bad || *x.p ? -1 : 0;
}

int
aff_print(const Aff *a, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < a->n && k < n; i++) {
		int64_t c = a->k[i];
		if (!c)
			continue;
		const char *sep = k ? (c < 0 ? " - " : " + ") : (c < 0 ? "-" : "");
		int64_t m = c < 0 ? -c : c;
		if (m == 1)
			k += (size_t)snprintf(buf + k, n - k, "%s%s", sep, a->v[i]);
		else
			k += (size_t)snprintf(buf + k, n - k, "%s%s * %lld", sep, a->v[i], (long long)m);
	}
	if (k < n && (a->c || !k))
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", k ? (a->c < 0 ? " - " : " + ") : "",
		                      (long long)(k && a->c < 0 ? -a->c : a->c));
	return k < n ? 0 : -1;
}
