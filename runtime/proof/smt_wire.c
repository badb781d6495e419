/*
 * smt_wire.c — a query's terms, written for the prover process and read back
 * there (smt.c's check_isolated and server_loop).  Every node once (terms are
 * DAGs), after its arguments: kind, sort, n, id, num, den, the name, the
 * arguments' numbers; the payload starts with the numbers of the two roots,
 * the hypothesis and the goal (WIRE_NONE: none).  The prover builds the Z3
 * terms with the translation's own node step, as this process builds them:
 * Z3's SMT-LIB printing of a query here, and the parsing of it there, cost
 * more than most queries.  Both ends are one program (the prover is forked),
 * so the numbers go in this machine's byte order.
 */
#include <stdlib.h>
#include <string.h>
#include "smt_wire.h"

static void
put(Wire *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 4096;
		while (cap < w->len + n)
			cap *= 2;
		char *b = realloc(w->buf, cap);
		if (!b)
			ax_die("out of memory");
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static size_t
slot(const Wire *w, const Term *t)
{
	size_t i = (size_t)(((uintptr_t)t >> 4) * 0x9e3779b97f4a7c15ull >> 7);
	for (i &= w->capkey - 1; w->key[i] && w->key[i] != t; i = (i + 1) & (w->capkey - 1))
		;
	return i;
}

/* room for one more node in the table, at most half full */
static void
room(Wire *w)
{
	if (2 * (w->nkey + 1) <= w->capkey)
		return;
	size_t cap = w->capkey ? 2 * w->capkey : 256, n = w->capkey;
	const Term **key = w->key;
	uint32_t *val = w->val;
	w->key = calloc(cap, sizeof *w->key);
	w->val = malloc(cap * sizeof *w->val);
	if (!w->key || !w->val)
		ax_die("out of memory");
	w->capkey = cap;
	for (size_t i = 0; i < n; i++)
		if (key[i]) {
			size_t j = slot(w, key[i]);
			w->key[j] = key[i];
			w->val[j] = val[i];
		}
	free(key);
	free(val);
}

/* t's nodes not yet written, then t; its number */
static uint32_t
term(Wire *w, const Term *t)
{
	room(w);
	size_t i = slot(w, t);
	if (w->key[i])
		return w->val[i];
	uint32_t arg[WIRE_MAXARGS];
	int na = t->n < WIRE_MAXARGS ? t->n : WIRE_MAXARGS;
	for (int k = 0; k < na; k++)
		arg[k] = term(w, t->a[k]);
	uint8_t ks[2] = { t->kind, t->sort };
	uint16_t n = t->n;
	int32_t id = t->id;
	int64_t nd[2] = { t->num, t->den };
	uint32_t namelen = t->name ? (uint32_t)strlen(t->name) : WIRE_NONE;
	put(w, ks, sizeof ks);
	put(w, &n, sizeof n);
	put(w, &id, sizeof id);
	put(w, nd, sizeof nd);
	put(w, &namelen, sizeof namelen);
	if (t->name)
		put(w, t->name, namelen);
	put(w, arg, sizeof *arg * (size_t)na);
	room(w);   /* the arguments' entries may have filled it */
	i = slot(w, t);
	w->key[i] = t;
	w->val[i] = w->count;
	w->nkey++;
	return w->count++;
}

void
wire_query(Wire *w, const Term *hyp, const Term *goal)
{
	*w = (Wire){ 0 };
	uint32_t root[2] = { WIRE_NONE, WIRE_NONE };
	put(w, root, sizeof root);
	if (hyp)
		root[0] = term(w, hyp);
	if (goal)
		root[1] = term(w, goal);
	memcpy(w->buf, root, sizeof root);
}

void
wire_free(Wire *w)
{
	free(w->buf);
	free(w->key);
	free(w->val);
	*w = (Wire){ 0 };
}

static int
get(const char **p, const char *end, void *out, size_t n)
{
	if ((size_t)(end - *p) < n)
		return -1;
	memcpy(out, *p, n);
	*p += n;
	return 0;
}

int
wire_roots(const char **p, const char *end, uint32_t root[2])
{
	return get(p, end, root, 2 * sizeof *root);
}

int
wire_node(const char **p, const char *end, WireNode *wn)
{
	if (*p == end)
		return 0;
	uint8_t ks[2];
	uint16_t n;
	int32_t id;
	int64_t nd[2];
	uint32_t namelen;
	if (get(p, end, ks, sizeof ks) || get(p, end, &n, sizeof n) || get(p, end, &id, sizeof id) ||
	    get(p, end, nd, sizeof nd) || get(p, end, &namelen, sizeof namelen))
		return -1;
	const char *name = NULL;
	if (namelen != WIRE_NONE) {
		if ((size_t)(end - *p) < namelen)
			return -1;
		if ((size_t)namelen + 1 > wn->namecap) {
			size_t cap = 2 * ((size_t)namelen + 1);
			char *b = realloc(wn->name, cap);
			if (!b)
				ax_die("out of memory");
			wn->name = b;
			wn->namecap = cap;
		}
		memcpy(wn->name, *p, namelen);
		wn->name[namelen] = 0;
		*p += namelen;
		name = wn->name;
	}
	wn->na = n < WIRE_MAXARGS ? n : WIRE_MAXARGS;
	if (get(p, end, wn->arg, sizeof *wn->arg * (size_t)wn->na))
		return -1;
	wn->t = (Term){ .kind = ks[0], .sort = ks[1], .n = n, .id = id, .num = nd[0], .den = nd[1], .name = name };
	return 1;
}

void
wire_node_free(WireNode *wn)
{
	free(wn->name);
	*wn = (WireNode){ 0 };
}
