/*
 * verdict.c — validation by structure (select.c's workers; paper section 4.6).
 *
 * A candidate's structure is written again at reduced sizes and its C rendering run through
 * libtcc against the program's reference execution: at the tile/block choice with the
 * smallest tiles and most blocks that fuses as it does (extract_combo), or where none does,
 * with the loops of a stand-in of its own at the requested sizes (extract_standin), at the
 * smallest of the reduced size sets where it can be written.  The verdict depends on the
 * structure alone, never on which candidate or worker meets it first, so that the workers'
 * verdicts agree.  Renderings that differ only in their engines are run once.
 */
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "verdict.h"

typedef struct Seen {           /* renderings run, by the hash of their text */
	uint64_t *h;
	unsigned char *ok;
	size_t n, cap;
} Seen;

/* FNV-1a over n bytes from h (never 0: 0 marks an empty slot) */
static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h | 1;
}

static uint64_t
fnv(const char *s)
{
	return mix(1469598103934665603ull, s, strlen(s));
}

static int
seen_get(Seen *s, uint64_t h, int *ok)
{
	for (size_t i = h % (s->cap ? s->cap : 1); s->cap && s->h[i]; i = (i + 1) % s->cap)
		if (s->h[i] == h) {
			*ok = s->ok[i];
			return 1;
		}
	return 0;
}

static void
seen_put(Seen *s, uint64_t h, int ok)
{
	if (2 * (s->n + 1) > s->cap) {
		Seen t = { calloc(s->cap ? 2 * s->cap : 256, 8), calloc(s->cap ? 2 * s->cap : 256, 1), 0,
			   s->cap ? 2 * s->cap : 256 };
		if (!t.h || !t.ok)
			ax_die("out of memory");
		for (size_t i = 0; i < s->cap; i++)
			if (s->h[i])
				seen_put(&t, s->h[i], s->ok[i]);
		free(s->h);
		free(s->ok);
		*s = t;
	}
	size_t i = h % s->cap;
	while (s->h[i])
		i = (i + 1) % s->cap;
	s->h[i] = h;
	s->ok[i] = (unsigned char)ok;
	s->n++;
}

/* A nest written at the reduced sizes (combination combo of variant v, loop-fused or not): its
 * verdict, run once per rendering; ns freed. */
static int
run_reduced(const SelIn *in, CkCheck *ck, Seen *seen, Nest *ns, int v, int64_t combo, int fuse, SelOut *o)
{
	char why[600] = "";
	char *src = nest_c(ns, in->fn, why, sizeof why);
	int ok = 0;
	if (src) {
		/* renderings that differ only in the engines chosen compute the same: the key is the
		 * rendering with every engine left out (the run itself keeps them, limits checked) */
		Nest m = *ns;
		m.s = malloc(sizeof *m.s * (size_t)(ns->n + 1));
		if (!m.s)
			ax_die("out of memory");
		memcpy(m.s, ns->s, sizeof *m.s * (size_t)ns->n);
		for (int i = 0; i < m.n; i++)
			m.s[i].engine = -1;
		char w2[200];
		char *key = nest_c(&m, in->fn, w2, sizeof w2);
		uint64_t h = fnv(key ? key : src);
		free(key);
		free(m.s);
		if (!seen_get(seen, h, &ok)) {
			double t0 = ax_now_ms();
			ok = ck_check_nest(ck, ns, src, in->fn, why, sizeof why);
			o->validate_ms += ax_now_ms() - t0;
			o->runs++;
			seen_put(seen, h, ok);
		}
	}
	if (!ok && !o->first_rejection[0])
		snprintf(o->first_rejection, sizeof o->first_rejection,
		         "variant %d combination %lld (%s) fails validation at the reduced sizes: %.400s", v,
		         (long long)combo, fuse ? "loop-fused" : "unfused", why[0] ? why : "its results differ");
	free(src);
	nest_free(ns);
	return ok ? V_OK : V_BAD;
}

struct Checker {                /* a worker's validation state, made at first need */
	CkCheck *ck[SEL_LEVELS];   /* per level of reduced sizes */
	Seen seen[SEL_LEVELS];
	Extract **xr[SEL_LEVELS];  /* ... per variant */
	Extract **xq;               /* per variant, at the requested sizes: structures' stand-ins */
	CkCheck *whole;             /* at the requested sizes */
	Seen fseen;
	Seen own;                   /* per (variant, combination, fusion): verdicts of forms sharing a cell */
	int nv;
	struct {                    /* the structure being judged: its stand-ins found so far */
		int n, k, end;      /* how many; the walk's position; no more */
		const char *const *names;
		double *vals;       /* n x nvals: each one's sizes and tile sizes */
		int nvals, cap;
		int blocks[SEL_STANDINS][64], fold[SEL_STANDINS];
	} st;
};

/* A structure's cell: the outcomes met, or-ed in; C_OWN: the cell is the form's alone (forms
 * with two or more epilogues share one, each judged by itself, C_EACH) */
enum { C_OK = 1, C_BAD = 2, C_UNBUILT = 4, C_OWN = 8, C_EACH = 16 };

static int
cell_verdict(unsigned f)
{
	return f & C_OK ? V_OK : f & C_BAD ? V_BAD : V_UNBUILT;
}

int
cell_summary(unsigned char f)
{
	return !f ? 0 : f & C_BAD ? V_BAD : cell_verdict(f);
}

Checker *
checker_new(int nv)
{
	Checker *K = calloc(1, sizeof *K);
	if (!K)
		ax_die("out of memory");
	K->nv = nv;
	return K;
}

/* variant v at the requested sizes, where structures' stand-ins are found (more tries than
 * at the reduced sizes: the first that can be written there like it is taken) */
static Extract *
standins(const SelIn *in, Checker *K, int v)
{
	if (!K->xq && !(K->xq = calloc((size_t)in->nv + 1, sizeof *K->xq)))
		ax_die("out of memory");
	if (!K->xq[v]) {
		K->xq[v] = extract_new(in->T[v], in->L[v], in->names, in->vals, in->n, in->maxtile, in->no_fusion,
		                       in->budget);
		extract_set_tries(K->xq[v], SEL_STANDINS);
	}
	return K->xq[v];
}

/* The structure written at x's sizes like the first of its stand-ins that can be (extract_mirror),
 * the stand-ins found once per structure, at the first level that needs them; NULL and m->why if
 * none can be. */
static Nest *
like_standin(Checker *K, const SelIn *in, Extract *x, int v, int64_t combo, int fuse, int fused, ExtractCand *m)
{
	char why[sizeof m->why] = "";
	for (int i = 0;; i++) {
		if (i == K->st.n) {   /* the next stand-in, its sizes and blocks kept */
			ExtractCand c;
			if (K->st.end || K->st.n == SEL_STANDINS ||
			    !extract_standin(standins(in, K, v), combo, fuse, fused, &K->st.k, &c) ||
			    (K->st.n && c.env.n != K->st.nvals)) {   /* (one combination's tiles: one count) */
				K->st.end = 1;
				break;
			}
			if (c.env.n > K->st.cap) {
				K->st.cap = c.env.n;
				if (!(K->st.vals = realloc(K->st.vals, sizeof *K->st.vals * SEL_STANDINS * (size_t)c.env.n)))
					ax_die("out of memory");
			}
			K->st.names = c.env.names;
			K->st.nvals = c.env.n;
			memcpy(K->st.vals + (size_t)i * c.env.n, c.env.vals, sizeof *c.env.vals * (size_t)c.env.n);
			memcpy(K->st.blocks[i], c.blocks, sizeof K->st.blocks[i]);
			K->st.fold[i] = c.fold;
			K->st.n++;
		}
		ExtractCand req = { .combo = combo, .blocks = K->st.blocks[i], .fold = K->st.fold[i],
				    .env = { K->st.nvals, K->st.names, K->st.vals + (size_t)i * K->st.nvals } };
		Nest *r = extract_mirror(x, combo, &req, fuse, fused, m);
		if (r)
			return r;
		snprintf(why, sizeof why, "%s", m->why);
	}
	*m = (ExtractCand){ .combo = combo, .fused = -1, .failed = 1 };
	if (K->st.n)
		snprintf(m->why, sizeof m->why, "written like none of the %d tile and block choices at the requested "
		         "sizes that fuse as it does: %.300s", K->st.n, why);
	else
		snprintf(m->why, sizeof m->why, "no tile and block choice at the requested sizes fuses as it does");
	return NULL;
}

/* The verdict of the structure of candidate c (variant v, its combination and fusion), validated
 * now if no worker has yet.  It depends on the structure alone, never on which of its candidates
 * asks first, so that the workers' verdicts agree: where none of the structure's own tile choices
 * at the reduced sizes fuses as it does, it is written there with the loops of a stand-in, one of
 * its tile choices at the requested sizes (extract_standin, like_standin). */
int
checker_verdict(Checker *K, const SelIn *in, int v, int64_t combo, int fused, unsigned char *cell, int own, SelOut *o)
{
	unsigned f = __atomic_load_n(cell, __ATOMIC_ACQUIRE);
	if (f & C_OWN)
		return cell_verdict(f);
	int fuse = fused >= 0, vd = V_UNBUILT;
	uint64_t key = mix(mix(mix(1469598103934665603ull, &v, sizeof v), &combo, sizeof combo), &fused, sizeof fused);
	if (!own && seen_get(&K->own, key, &vd))
		return vd;
	/* at the smallest reduced sizes where the structure can be written */
	SelOut aside = { 0 };
	K->st.n = K->st.k = K->st.end = 0;
	for (int l = 0; l < in->nlevels && l < SEL_LEVELS; l++) {
		if (!K->ck[l]) {
			K->ck[l] = ck_check_new(in->g0, in->rnames, in->rvals[l], in->rn, 1, in->seed, NULL);
			K->xr[l] = calloc((size_t)in->nv + 1, sizeof *K->xr[l]);
			if (!K->xr[l])
				ax_die("out of memory");
		}
		if (!K->xr[l][v])
			K->xr[l][v] = extract_new(in->T[v], in->L[v], in->rnames, in->rvals[l], in->rn, in->maxtile,
			                          in->no_fusion, in->budget);
		SelOut *ol = l + 1 == in->nlevels ? o : &aside;
		ExtractCand m;
		Nest *r = extract_combo(K->xr[l][v], combo, fuse, fused, &m);
		if (!r)   /* none of its own tile choices fuses as it does: its stand-in's loops, smaller tiles */
			r = like_standin(K, in, K->xr[l][v], v, combo, fuse, fused, &m);
		if (r) {
			vd = run_reduced(in, K->ck[l], &K->seen[l], r, v, combo, fuse, ol);
			break;
		}
		if (!ol->first_rejection[0])
			snprintf(ol->first_rejection, sizeof ol->first_rejection,
			         "variant %d combination %lld cannot be written at the reduced sizes: %.400s", v,
			         (long long)(combo), m.why);
	}
	ExtractCand sc;
	Nest *stand = vd == V_UNBUILT && in->validate_requested ? extract_combo(standins(in, K, v), combo,
	                                                                        fuse, fused, &sc) : NULL;
	if (stand) {   /* its first stand-in itself, at the requested sizes */
		if (!K->whole)
			K->whole = ck_check_new(in->g0, in->names, in->vals, in->n, 1, in->seed, NULL);
		char why[600] = "";
		char *src = nest_c(stand, in->fn, why, sizeof why);
		int ok = 0;
		if (src) {
			uint64_t h = fnv(src);
			if (!seen_get(&K->fseen, h, &ok)) {
				double t0 = ax_now_ms();
				ok = ck_check_nest(K->whole, stand, src, in->fn, why, sizeof why);
				aside.validate_ms += ax_now_ms() - t0;
				aside.runs++;
				seen_put(&K->fseen, h, ok);
			}
		}
		free(src);
		vd = ok ? V_OK : V_BAD;
		if (!ok)
			snprintf(aside.first_rejection, sizeof aside.first_rejection,
			         "variant %d combination %lld fails validation at the requested sizes: %.400s", v,
			         (long long)combo, why[0] ? why : "its results differ");
	}
	nest_free(stand);
	if (vd != V_OK && aside.first_rejection[0] && !o->first_rejection[0])
		memcpy(o->first_rejection, aside.first_rejection, sizeof o->first_rejection);
	o->runs += aside.runs;
	o->validate_ms += aside.validate_ms;
	if (!own)
		seen_put(&K->own, key, vd);
	/* published: other workers read the cell meanwhile (two may judge one structure at once:
	 * the same verdict) */
	__atomic_fetch_or(cell, (unsigned char)((vd == V_OK ? C_OK : vd == V_BAD ? C_BAD : C_UNBUILT) |
	                                         (own ? C_OWN : C_EACH)), __ATOMIC_ACQ_REL);
	return vd;
}

void
checker_free(Checker *K)
{
	if (!K)
		return;
	int nv = K->nv;
	for (int l = 0; l < SEL_LEVELS; l++) {
		for (int v = 0; K->xr[l] && v < nv; v++)
			extract_free(K->xr[l][v]);
		free(K->xr[l]);
		free(K->seen[l].h);
		free(K->seen[l].ok);
		ck_check_free(K->ck[l]);
	}
	for (int v = 0; K->xq && v < nv; v++)
		extract_free(K->xq[v]);
	free(K->xq);
	free(K->st.vals);
	Seen *memo[2] = { &K->fseen, &K->own };
	for (int i = 0; i < 2; i++) {
		free(memo[i]->h);
		free(memo[i]->ok);
	}
	ck_check_free(K->whole);
	free(K);
}
