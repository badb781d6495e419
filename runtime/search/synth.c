/*
 * synth.c — ISA synthesis for one tile operation (paper section 4.4,
 * Algorithm 2); the tiles come from tile.c (programs) or synth_op (one op).
 *
 * The pool holds the target's instructions that share a granular operation
 * with the tensor operation, plus those that only move data (transposes,
 * copies), each with every choice of its enum attributes; operand slots take
 * the operation's inputs, the results of other instructions (holes filled by
 * the pool), or nothing for an optional operand.  Sketches are built bottom
 * up to a depth (instructions per sequence).  A sketch is first run by the
 * reference kernels on concrete sizes and inputs, a cheap refutation that
 * can only drop sketches that compute something else; every survivor is
 * then proved equal to the operation by the checker, for every tile size
 * allowed by the instructions' hardware constraints, which are its
 * constraints.  Nothing here names an instruction: pool, attributes,
 * engines and constraints come from the target's tables.
 *
 * Speed: operands are chosen per shape (one check of an instruction per
 * tuple of operand shapes), values are found equal through a hash, and the
 * search stops at the first level that makes the result's value (longer
 * sequences for it would be dominated), so depth 3 costs about what the
 * shortest sequences do unless there is none.  Where the checker proves none
 * of those with the result's value (a coincidence of the small sizes and
 * inputs), the search runs again at larger ones (synth_tile).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "search.h"

#include "synth.h"

static int
close_enough(const float *x, const float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (!ax_close(x[i], y[i]))
			return 0;
	return 1;
}

static int
shape_eq(const AxShape *a, const AxShape *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int d = 0; d < a->rank; d++)
		if (a->d[d] != b->d[d])
			return 0;
	return 1;
}

static int
same_value(const Cand *a, const float *v, const AxShape *s)
{
	return shape_eq(&a->shape, s) && close_enough(a->val, v, ax_numel(s));
}

/* Observational equivalence in O(1): a value is hashed by its shape and the
 * buckets of NKEY of its elements on a log scale, f(x) = sign(x) log(1 + |x|)
 * in steps of QSTEP.  Two elements that close_enough accepts differ by at
 * most 2.01e-3 in f (same sign: |a - b| <= 1e-3 (1 + |a| + |b|) keeps a and b
 * within 0.2% of each other; opposite signs: both are below 1.001e-3), less
 * than half a step, so an equal value lies in an element's own bucket or in
 * the neighbour on its nearer side: 2^NKEY probes find every candidate the
 * linear scan would.  NaN equals only NaN (a bucket of its own); an infinity
 * is within the tolerance of everything, so a value with one at a key
 * position is "wild": compared with every candidate, and always scanned. */
#define QSTEP 0.01
#define QNAN INT64_MIN

static int64_t
qbucket(float x, int64_t *nb)
{
	if (isnan(x)) {
		*nb = QNAN;
		return QNAN;
	}
	double q = copysign(log1p(fabs((double)x)), (double)x) / QSTEP, f = floor(q);
	int64_t b = (int64_t)f;
	*nb = q - f < 0.5 ? b - 1 : b + 1;
	return b;
}

static void
key_pos(const AxShape *s, int64_t pos[NKEY])
{
	int64_t n = ax_numel(s);
	for (int k = 0; k < NKEY; k++)
		pos[k] = n > 0 ? n * k / NKEY : -1;
}

static int
is_wild(const float *v, const AxShape *s)
{
	int64_t pos[NKEY];
	key_pos(s, pos);
	for (int k = 0; k < NKEY; k++)
		if (pos[k] >= 0 && isinf(v[pos[k]]))
			return 1;
	return 0;
}

static uint64_t
hmix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t
vhash(const AxShape *s, const int64_t *b)
{
	uint64_t h = (uint64_t)s->rank;
	for (int d = 0; d < s->rank; d++)
		h = hmix(h, (uint64_t)s->d[d]);
	for (int k = 0; k < NKEY; k++)
		h = hmix(h, (uint64_t)b[k]);
	return h ^ (h >> 29);
}

static void
hash_insert(Synth *sy, int id)
{
	if (2 * (sy->nc + 1) > sy->hcap) {   /* grow: rehash every candidate */
		int cap = sy->hcap ? 2 * sy->hcap : 1024;
		sy->head = arena_alloc(sy->a, sizeof(int) * (size_t)cap);
		for (int i = 0; i < cap; i++)
			sy->head[i] = -1;
		sy->hcap = cap;
		sy->nwild = 0;
		for (int i = 0; i < id; i++)
			hash_insert(sy, i);
	}
	const Cand *c = &sy->c[id];
	if (is_wild(c->val, &c->shape)) {
		sy->wild[sy->nwild++] = id;
		return;
	}
	int64_t pos[NKEY], b[NKEY], nb;
	key_pos(&c->shape, pos);
	for (int k = 0; k < NKEY; k++)
		b[k] = pos[k] >= 0 ? qbucket(c->val[pos[k]], &nb) : 0;
	int h = (int)(vhash(&c->shape, b) & (uint64_t)(sy->hcap - 1));
	sy->next[id] = sy->head[h];
	sy->head[h] = id;
}

/* Calls f on every candidate whose value equals v (and maybe others, which
 * f tests with same_value); stops when f returns nonzero, and returns that. */
typedef int (*EachSame)(void *env, const Cand *c);
static int
each_maybe_same(Synth *sy, const float *v, const AxShape *s, EachSame f, void *env)
{
	int r;
	for (int w = 0; w < sy->nwild; w++)
		if ((r = f(env, &sy->c[sy->wild[w]])) != 0)
			return r;
	if (is_wild(v, s)) {
		for (int i = 0; i < sy->nc; i++)
			if (!is_wild(sy->c[i].val, &sy->c[i].shape) && (r = f(env, &sy->c[i])) != 0)
				return r;
		return 0;
	}
	int64_t pos[NKEY], b[2][NKEY];
	key_pos(s, pos);
	for (int k = 0; k < NKEY; k++)
		b[0][k] = b[1][k] = 0;
	for (int k = 0; k < NKEY; k++)
		if (pos[k] >= 0)
			b[0][k] = qbucket(v[pos[k]], &b[1][k]);
	int seen[1 << NKEY], nseen = 0;
	for (int m = 0; m < 1 << NKEY; m++) {
		int64_t key[NKEY];
		for (int k = 0; k < NKEY; k++)
			key[k] = b[(m >> k) & 1][k];
		int h = (int)(vhash(s, key) & (uint64_t)(sy->hcap - 1)), dup = 0;
		for (int j = 0; j < nseen; j++)
			dup |= seen[j] == h;
		if (dup)
			continue;
		seen[nseen++] = h;
		for (int i = sy->head[h]; i >= 0; i = sy->next[i])
			if ((r = f(env, &sy->c[i])) != 0)
				return r;
	}
	return 0;
}


/* Room for one more candidate; 0 when MAXCAND is reached (said once). */
static int
room(Synth *sy)
{
	if (sy->nc < sy->capc)
		return 1;
	if (sy->nc == MAXCAND) {
		if (!sy->spent)
			fprintf(stderr, "axonc: synth: the budget of %d candidates is spent; longer sequences may be missed\n",
			        MAXCAND);
		sy->spent = 1;
		return 0;
	}
	int cap = sy->capc ? 2 * sy->capc : 1024;
	cap = cap > MAXCAND ? MAXCAND : cap;
	Cand *c = arena_alloc(sy->a, sizeof *c * (size_t)cap);
	int *next = arena_alloc(sy->a, sizeof(int) * (size_t)cap), *wild = arena_alloc(sy->a, sizeof(int) * (size_t)cap);
	if (sy->nc) {
		memcpy(c, sy->c, sizeof *c * (size_t)sy->nc);
		memcpy(next, sy->next, sizeof(int) * (size_t)sy->nc);
		memcpy(wild, sy->wild, sizeof(int) * (size_t)sy->nwild);
	}
	sy->c = c;
	sy->next = next;
	sy->wild = wild;
	sy->capc = cap;
	return 1;
}

typedef struct Dom {         /* the equal candidates met so far */
	const float *v;
	const AxShape *s;
	int ninsts, same;
	uint32_t eng;            /* a candidate for the result: its engines (0: not one) */
	int made;                /* ... one that an input with its value does not dominate (Synth.made) */
} Dom;

static int
dominated(void *env, const Cand *c)
{
	Dom *d = env;
	if (!same_value(c, d->v, d->s))
		return 0;
	if (c->input >= 0 && d->made)
		return 0;
	if (c->ninsts < d->ninsts)   /* a shorter sequence computes it: on the engines of this one */
		return !d->eng || !c->eng || (c->eng & d->eng) != 0;
	d->same++;
	return 0;
}

/* Runs instruction inst on candidates in[] at the concrete sizes; a new
 * candidate, or -1 when the shapes do not fit or the value is dominated.
 * shape: the result's shape when the caller knows that they fit, else NULL.
 * *target: the value is the operation's. */
static int
apply(Synth *sy, int inst, const int *attr, const int *in, int ninsts, Term *const *sattr, const AxShape *shape,
      int *target)
{
	*target = 0;
	if (!room(sy))
		return -1;
	const AxOp *op = &sy->t->insts[inst];
	AxConc c = { 0 };
	c.nopnd = op->nopnd;
	const float *args[AX_MAXOPND] = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		if (in[o] < 0) {
			c.rank[o] = -1;
			continue;
		}
		c.rank[o] = sy->c[in[o]].shape.rank;
		memcpy(c.dim[o], sy->c[in[o]].shape.d, sizeof c.dim[o]);
		args[o] = sy->c[in[o]].val;
	}
	memcpy(c.attr, attr, sizeof c.attr);
	for (int a = 0; sattr && a < op->nattr; a++) {
		double x;
		if (op->attr[a].kind == AX_ATTR_ENUM)
			continue;
		if (!sattr[a] || t_eval(sattr[a], &sy->env, &x) != 0)
			return -1;
		if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)x;
		else
			c.fval[a] = x;
	}
	for (int e = 0; e < sy->t->nengines; e++)
		if (op->engines & (1u << e)) {
			c.engine = e;
			break;
		}
	AxShape s;
	if (shape)
		s = *shape;
	else if (op->check(&c, &s, NULL, 0) != 0)   /* most combinations do not fit: no message wanted */
		return -1;
	int last = sy->only_result;
	if (last && !shape_eq(&s, &sy->wshape))
		return -1;   /* the last level feeds nothing: only the result's candidates matter */
	int64_t numel = ax_numel(&s);
	if (numel + 1 > sy->captrial) {
		sy->captrial = 2 * (numel + 1);
		sy->trial = arena_alloc(sy->a, sizeof(float) * (size_t)sy->captrial);
	}
	float *v = sy->trial;
	/* a value that is not the result's is dropped at the last level: the run stops at its
	 * first element that is not close to the result's, which same_value would refuse */
	c.want = last ? sy->want : NULL;
	/* the shape is check's on this instance: here, or in fitting, whose instance differs only
	 * in the enum attributes, which grow takes within their ranges (check tests no more) */
	c.shape = &s;
	if (op->ref(&c, args, v, NULL, 0) != 0)
		return -1;
	/* observational pruning: a value some shorter sequence already computes
	 * is dominated (tensor_copy(a) is a); of equally long ones keep a couple
	 * (a transpose on two engines) */
	*target = same_value(&(Cand){ .shape = sy->wshape, .val = sy->want }, v, &s);
	if (last && !*target)
		return -1;
	uint32_t eng = op->engines;
	for (int o = 0; o < op->nopnd; o++)
		if (in[o] >= 0)
			eng |= sy->c[in[o]].eng;
	/* a longer sequence for the result is kept only past the shortest ones (the extra level),
	 * on engines none of them uses: a loop nest's chain of operations can then stay off an
	 * engine that would otherwise wait for another's result on every tile */
	int longer = *target && sy->found >= 1 && ninsts > sy->found;
	if (longer && ((eng & sy->found_eng) || sy->longer))
		return -1;
	if (*target && !last && ninsts == sy->found)   /* made by the level's first pass already */
		return -1;
	Dom d = { v, &s, ninsts, 0, longer ? eng : 0, *target && sy->made };
	if (each_maybe_same(sy, v, &s, dominated, &d))
		return -1;
	if (d.same >= PER_VALUE && !*target)   /* every candidate for the result is tried */
		return -1;
	if (sattr && op->nopnd > 0 && d.same > 0)   /* an immediate that changes nothing here ((-x)^2) */
		return -1;
	float *kept = arena_alloc(sy->a, sizeof(float) * (size_t)(numel + 1));
	memcpy(kept, v, sizeof(float) * (size_t)numel);
	if (*target && (sy->found < 0 || ninsts < sy->found)) {
		sy->found = ninsts;
		sy->found_eng = 0;
	}
	if (*target && ninsts == sy->found)
		sy->found_eng |= eng;
	Cand *k = &sy->c[sy->nc];
	*k = (Cand){ .input = -1, .inst = inst, .nin = op->nopnd, .ninsts = ninsts, .eng = eng, .shape = s, .val = kept };
	memcpy(k->attr, attr, sizeof k->attr);
	if (sattr)
		memcpy(k->sattr, sattr, sizeof k->sattr);
	memcpy(k->in, in, sizeof k->in);
	hash_insert(sy, sy->nc);
	return sy->nc++;
}

/* The operands of a level: candidates [0, n) grouped by shape and count. */
static void
level_index(Synth *sy, Level *L, int n)
{
	L->n = n;
	L->nk = sy->depth + 1;
	L->shapes = arena_alloc(sy->a, sizeof *L->shapes * (size_t)(n + 1));
	int *sh = arena_alloc(sy->a, sizeof(int) * (size_t)(n + 1));
	L->nshape = 0;
	for (int i = 0; i < n; i++) {
		int k;
		for (k = 0; k < L->nshape && !shape_eq(&L->shapes[k], &sy->c[i].shape); k++)
			;
		if (k == L->nshape)
			L->shapes[L->nshape++] = sy->c[i].shape;
		sh[i] = k;
	}
	size_t ng = (size_t)(L->nshape * L->nk);
	L->ids = arena_alloc(sy->a, sizeof(int *) * (ng + 1));
	L->nids = arena_alloc(sy->a, sizeof(int) * (ng + 1));
	for (int i = 0; i < n; i++)
		L->nids[sh[i] * L->nk + sy->c[i].ninsts]++;
	for (size_t g = 0; g < ng; g++) {
		L->ids[g] = arena_alloc(sy->a, sizeof(int) * (size_t)(L->nids[g] + 1));
		L->nids[g] = 0;
	}
	for (int i = 0; i < n; i++) {
		int g = sh[i] * L->nk + sy->c[i].ninsts;
		L->ids[g][L->nids[g]++] = i;
	}
}

static void
push_tuple(Synth *sy, int nopnd, const int *in, int f)
{
	int w = nopnd + 1;
	if ((sy->ntup + 1) * w > sy->captup) {
		int cap = sy->captup ? 2 * sy->captup : 4096 * w;
		int *t = arena_alloc(sy->a, sizeof(int) * (size_t)cap);
		if (sy->ntup)
			memcpy(t, sy->tup, sizeof(int) * (size_t)(sy->ntup * w));
		sy->tup = t;
		sy->captup = cap;
	}
	memcpy(sy->tup + sy->ntup * w, in, sizeof(int) * (size_t)nopnd);
	sy->tup[sy->ntup * w + nopnd] = f;
	sy->ntup++;
}

/* Every operand tuple of one fitting shape tuple st: slots take candidates of
 * their shape whose instructions add up to level - 1 with the new one. */
static void
tuples_of(Synth *sy, const Level *L, int nopnd, const int *st, int f, int *in, int slot, int used, int level)
{
	if (slot == nopnd) {
		if (used + 1 == level)
			push_tuple(sy, nopnd, in, f);
		return;
	}
	if (st[slot] < 0) {
		in[slot] = -1;
		tuples_of(sy, L, nopnd, st, f, in, slot + 1, used, level);
		return;
	}
	for (int k = 0; used + k < level && k < L->nk; k++) {
		const int *ids = L->ids[st[slot] * L->nk + k];
		for (int j = 0; j < L->nids[st[slot] * L->nk + k]; j++) {
			in[slot] = ids[j];
			tuples_of(sy, L, nopnd, st, f, in, slot + 1, used + k, level);
		}
	}
}

static int tup_width;

static int
tuple_cmp(const void *x, const void *y)
{
	const int *a = x, *b = y;
	for (int o = 0; o < tup_width; o++)
		if (a[o] != b[o])
			return a[o] < b[o] ? -1 : 1;
	return 0;
}

/* The shape tuples (a shape of the level per operand, -1 for an optional one
 * left out) that inst accepts, with their results.  The spec language names
 * enum attributes only in element equations, so whether shapes fit does not
 * depend on them: one check per shape tuple serves every attribute choice. */
static void
fitting(Synth *sy, const Level *L, const AxOp *op, int *st, int slot, int *nfit, int **fit, AxShape **res, int *cap)
{
	if (slot == op->nopnd) {
		AxConc c = { .nopnd = op->nopnd };
		for (int o = 0; o < op->nopnd; o++) {
			c.rank[o] = st[o] < 0 ? -1 : L->shapes[st[o]].rank;
			if (st[o] >= 0)
				memcpy(c.dim[o], L->shapes[st[o]].d, sizeof c.dim[o]);
		}
		for (int e = 0; e < sy->t->nengines; e++)
			if (op->engines & (1u << e)) {
				c.engine = e;
				break;
			}
		AxShape s;
		if (op->check(&c, &s, NULL, 0) != 0)
			return;
		if (*nfit == *cap) {
			int nc = *cap ? 2 * *cap : 64;
			int *f = arena_alloc(sy->a, sizeof(int) * (size_t)(nc * AX_MAXOPND));
			AxShape *r = arena_alloc(sy->a, sizeof *r * (size_t)nc);
			if (*nfit) {
				memcpy(f, *fit, sizeof(int) * (size_t)(*nfit * AX_MAXOPND));
				memcpy(r, *res, sizeof *r * (size_t)*nfit);
			}
			*fit = f;
			*res = r;
			*cap = nc;
		}
		memcpy(*fit + *nfit * AX_MAXOPND, st, sizeof(int) * AX_MAXOPND);
		(*res)[(*nfit)++] = s;
		return;
	}
	if (op->opnd[slot].optional) {
		st[slot] = -1;
		fitting(sy, L, op, st, slot + 1, nfit, fit, res, cap);
	}
	for (int k = 0; k < L->nshape; k++) {
		st[slot] = k;
		fitting(sy, L, op, st, slot + 1, nfit, fit, res, cap);
	}
}

/* One instruction of the pool at one level: every choice of its enum
 * attributes, and for each every operand tuple, in the order of the plain
 * nested enumeration (an optional operand left out first, then candidate ids
 * ascending, slot by slot), since which equal values are kept depends on it. */
static void
grow(Synth *sy, const Level *L, int inst, int level)
{
	const AxOp *op = &sy->t->insts[inst];
	int st[AX_MAXOPND] = { 0 }, nfit = 0, capfit = 0, *fit = NULL;
	AxShape *res = NULL;
	fitting(sy, L, op, st, 0, &nfit, &fit, &res, &capfit);
	sy->ntup = 0;
	for (int f = 0; f < nfit; f++) {
		if (sy->only_result && !shape_eq(&res[f], &sy->wshape))
			continue;
		int in[AX_MAXOPND];
		tuples_of(sy, L, op->nopnd, fit + f * AX_MAXOPND, f, in, 0, 0, level);
	}
	int w = op->nopnd + 1;
	tup_width = op->nopnd;
	if (sy->ntup > 1)
		qsort(sy->tup, (size_t)sy->ntup, sizeof(int) * (size_t)w, tuple_cmp);
	int attr[AX_MAXATTR] = { 0 }, nitems[AX_MAXATTR] = { 0 }, nfloat = 0;
	Term *sattr[AX_MAXATTR] = { 0 };
	for (int a = 0; a < op->nattr; a++)
		if (op->attr[a].kind == AX_ATTR_FLOAT) {
			nitems[a] = sy->nfval;
			nfloat++;
		} else
			nitems[a] = sy->t->enums[op->attr[a].enum_id].nitems;
	for (;;) {
		for (int a = 0; a < op->nattr; a++)
			sattr[a] = op->attr[a].kind == AX_ATTR_FLOAT ? sy->fval[attr[a]] : NULL;
		for (int j = 0; j < sy->ntup && !sy->spent; j++) {
			const int *in = sy->tup + j * w;
			int target, id = apply(sy, inst, attr, in, level, nfloat ? sattr : NULL, &res[in[op->nopnd]], &target);
			if (id >= 0 && target)
				try_solution(sy, id);
		}
		/* the next attribute choice, the last attribute fastest */
		int a = op->nattr - 1;
		while (a >= 0 && ++attr[a] == nitems[a])
			attr[a--] = 0;
		if (a < 0)
			return;
	}
}

/* The values a float attribute of an instruction with operands takes (a compile-time scalar, as
 * activation's scale): -1, a negation, and 1 / size, a mean's scale, for each size name and each
 * dim of the tile op made of several (the mean of a row of N + N elements).  Not 0 or 1: an instruction
 * with such an attribute has its tile form too (a scale of 1 is a scale left out), and the two
 * would only list each sequence twice.  Constant tiles take 0, 1 and the same 1 / size
 * (constants).  Made once per tile op. */
static void
scalar_values(Synth *sy)
{
	TermCtx *tc = sy->tc;
	sy->nfval = 0;
	sy->fval[sy->nfval++] = t_num(tc, -1, 1, TS_REAL);
	int cap = (int)(sizeof sy->fval / sizeof *sy->fval);
	for (int i = 0; i < sy->lhs->nsyms && sy->nfval < cap; i++)
		sy->fval[sy->nfval++] = t_bin(tc, TK_DIV, t_num(tc, 1, 1, TS_REAL),
		                              t_toreal(tc, t_var(tc, sy->lhs->syms[i], TS_INT)));
	for (int k = 0; k < sy->lhs->nnodes; k++)
		for (int d = 0; d < sy->lhs->nodes[k].rank && sy->nfval < cap; d++) {
			Term *dim = sy->lhs->nodes[k].dim[d];
			if (dim->kind == TK_NUM || dim->kind == TK_VAR)
				continue;
			Term *v = t_bin(tc, TK_DIV, t_num(tc, 1, 1, TS_REAL), t_toreal(tc, dim));
			int seen = 0;
			for (int i = 1; i < sy->nfval && !seen; i++)
				seen = sy->fval[i] == v;   /* hash-consed: one term per value written alike */
			if (!seen)
				sy->fval[sy->nfval++] = v;
		}
}

/* Instructions that make a constant tile (no operands; size and float
 * attributes): every choice of their sizes among the tile's sizes and 1, and
 * of their values among 0, 1 and 1 / size. */
static void
constants(Synth *sy, int inst, Term **sattr, int a)
{
	const AxOp *op = &sy->t->insts[inst];
	if (sy->spent)
		return;
	if (a == op->nattr) {
		int in[AX_MAXOPND] = { 0 }, target;
		apply(sy, inst, (int[AX_MAXATTR]){ 0 }, in, 1, sattr, NULL, &target);
		return;
	}
	TermCtx *tc = sy->tc;
	if (op->attr[a].kind == AX_ATTR_SIZE) {
		sattr[a] = t_int(tc, 1);
		constants(sy, inst, sattr, a + 1);
		for (int i = 0; i < sy->lhs->nsyms; i++) {
			sattr[a] = t_var(tc, sy->lhs->syms[i], TS_INT);
			constants(sy, inst, sattr, a + 1);
		}
		return;
	}
	for (int k = 0; k < 2; k++) {
		sattr[a] = t_num(tc, k, 1, TS_REAL);
		constants(sy, inst, sattr, a + 1);
	}
	for (int i = 1; i < sy->nfval; i++) {   /* 1 / size (scalar_values) */
		sattr[a] = sy->fval[i];
		constants(sy, inst, sattr, a + 1);
	}
}

static int
has_gran(const AxOp *a, const char *g)
{
	for (int i = 0; a->gran[i]; i++)
		if (strcmp(a->gran[i], g) == 0)
			return 1;
	return 0;
}

/* The constituent filter of Algorithm 2: a granular operation in common.  A
 * fold that can add is a running sum, so it counts as sharing a sum; a
 * subtraction can negate (0 - x), so it counts as sharing a negation; a
 * reduction is its binary operation applied along the axis, so an
 * instruction a of the binary max may compute an op b's max-reduction (the
 * two halves of a window of 2 combined), and so on (not the other way: a
 * reduction instruction computes no elementwise op but over one element). */
static int
shares_gran(const AxOp *a, const AxOp *b)
{
	for (int i = 0; a->gran[i]; i++)
		if (has_gran(b, a->gran[i]))
			return 1;
	static const char *const bin_red[][2] = { { "binary-max", "max-reduce" }, { "binary-min", "min-reduce" },
		                                  { "+", "sum-reduce" } };
	for (int k = 0; k < 3; k++)
		if (has_gran(a, bin_red[k][0]) && has_gran(b, bin_red[k][1]))
			return 1;
	return (has_gran(a, "fold") && has_gran(a, "+") && has_gran(b, "sum-reduce")) ||
	       (has_gran(b, "fold") && has_gran(b, "+") && has_gran(a, "sum-reduce")) ||
	       (has_gran(a, "-") && has_gran(b, "negate")) || (has_gran(b, "-") && has_gran(a, "negate"));
}

/* One search at concrete sizes scaled by scale (1: 4, 6, 8, ...) and inputs of its own; 0 = ok,
 * with *again when the checker proved none of the candidates that had the result's value here */
static int
search(const AxTarget *t, TermCtx *tc, AxGraph *lhs, int depth, Equiv **eq, SynthCb cb, void *cbenv, int *checked,
       int scale, int *again)
{
	Synth sy = { .t = t, .tc = tc, .a = arena_new(), .lhs = lhs, .cb = cb, .cbenv = cbenv, .found = -1 };
	/* the pool: instructions sharing a granular operation with an operation
	 * of the lhs (one op, or a window of instructions to fuse) */
	sy.pool = arena_alloc(sy.a, sizeof(int) * (size_t)(t->ninsts + 1));
	for (int i = 0; i < t->ninsts; i++) {
		const AxOp *in = &t->insts[i];
		int plain_attrs = 1, shares = 0;   /* enum and float attributes (scalar_values) */
		for (int a = 0; a < in->nattr; a++)
			plain_attrs &= in->attr[a].kind != AX_ATTR_SIZE;
		for (int k = 0; k < lhs->nnodes; k++)
			shares |= lhs->nodes[k].op >= 0 && shares_gran(in, node_op(lhs, &lhs->nodes[k]));
		if (plain_attrs && in->nopnd > 0 && (in->layout_only || shares))
			sy.pool[sy.npool++] = i;
	}
	/* concrete sizes: distinct small values; inputs in [-1.5, 1.5) so that
	 * sign-blind instructions (relu, abs) do not pass for the identity */
	const char *names[64];
	double vals[64];
	for (int i = 0; i < lhs->nsyms && i < 64; i++) {
		names[i] = lhs->syms[i];
		vals[i] = (4 + 2 * i) * scale;   /* distinct and even: halves and pairs fit */
	}
	sy.env = (AxEnv){ lhs->nsyms, names, vals };
	sy.nin = 0;
	uint64_t st = 12345 + (uint64_t)scale;
	int rc = -1;
	for (int p = 0; p < lhs->nparams; p++) {
		int node = lhs->params[p].node;
		room(&sy);
		Cand *c = &sy.c[sy.nc];
		*c = (Cand){ .input = p };
		if (graph_shape(lhs, node, &sy.env, &c->shape) != 0)
			goto out;
		int64_t n = ax_numel(&c->shape);
		c->val = arena_alloc(sy.a, sizeof(float) * (size_t)(n + 1));
		for (int64_t i = 0; i < n; i++) {
			st = st * 6364136223846793005ull + 1442695040888963407ull;
			c->val[i] = (float)(3.0 * (double)(st >> 40) / 16777216.0 - 1.5);
		}
		hash_insert(&sy, sy.nc);
		sy.nc++;
		sy.nin++;
	}
	float *out[1];
	char err[256];
	const float *in[64];
	for (int p = 0; p < sy.nin; p++)
		in[p] = sy.c[p].val;
	if (graph_run(lhs, &sy.env, in, out, &sy.wshape, err, sizeof err) != 0)
		goto out;
	sy.want = arena_alloc(sy.a, sizeof(float) * (size_t)(ax_numel(&sy.wshape) + 1));
	memcpy(sy.want, out[0], sizeof(float) * (size_t)ax_numel(&sy.wshape));
	free(out[0]);
	sy.shared = eq;
	sy.eq = eq ? *eq : NULL;   /* the checker: made by the first candidate to prove (try_solution) */
	sy.smt = sy.eq ? equiv_smt(sy.eq) : NULL;
	sy.sizes_pos = t_bool(tc, 1);
	for (int i = 0; i < lhs->nsyms; i++)
		sy.sizes_pos = t_bin(tc, TK_AND, sy.sizes_pos,
		                     t_bin(tc, TK_LE, t_int(tc, 1), t_var(tc, lhs->syms[i], TS_INT)));
	sy.depth = depth;
	scalar_values(&sy);
	/* a window of instructions (fusion) that leaves an input as it is needs none in its place;
	 * an op's tile that equals an input (a mean over one element) still needs one, a copy at least,
	 * to make its result (it had none: 'no instruction sequence found'), where the tile has the
	 * two dims of an on-chip tile: one of rank 1 (a variant's max of a [1] vector) stays without,
	 * as its [1] tile could not be on chip (NKI: at least a partition and a free dim) */
	int window = 0;
	for (int k = 0; k < lhs->nnodes; k++)
		window |= lhs->nodes[k].op >= 0 && lhs->nodes[k].inst;
	sy.made = !window && sy.wshape.rank >= 2;
	for (int p = 0; p < sy.nin && window; p++)
		if (same_value(&sy.c[p], sy.want, &sy.wshape))
			sy.found = 0;
	if (depth > 1)   /* constant tiles are operands, never results */
		for (int i = 0; i < t->ninsts; i++) {
			const AxOp *in = &t->insts[i];
			int ok = in->nopnd == 0;
			for (int a = 0; a < in->nattr; a++)
				ok &= in->attr[a].kind != AX_ATTR_ENUM;
			Term *sattr[AX_MAXATTR] = { 0 };
			if (ok && in->nattr <= 3)
				constants(&sy, i, sattr, 0);
		}
	/* Once a candidate of k instructions has the result's value, every longer
	 * one with that value is dominated by it (observational pruning, up to the
	 * tolerance of close_enough, which is not transitive), so the levels past
	 * k can add no sequence: the candidates they would make only feed longer
	 * ones.  So a level first makes only the candidates with the result's
	 * value, as the last one does (which of them are kept and tried does not
	 * depend on the level's other candidates), and makes the rest only when
	 * there is none and a level follows. */
	/* Past a single instruction, one level more (the extra level) for sequences wholly on
	 * engines none of the single instructions for the result may use: the rest of the first
	 * level and the extra level are made of the pool's instructions on those engines only,
	 * and of no instruction that only moves data. */
	for (int level = 1; level <= depth && !sy.spent && (sy.found < 0 || level <= sy.found || (sy.found == 1 && level == 2));
	     level++) {
		Level L;
		level_index(&sy, &L, sy.nc);
		for (int pass = 0; pass < 2 && (pass == 0 || (level < depth && (sy.found < 0 || (sy.found == 1 && level == 1))));
		     pass++) {
			sy.only_result = pass == 0;
			uint32_t avoid = sy.found == 1 && (level == 2 || pass == 1) ? sy.found_eng : 0;
			for (int k = 0; k < sy.npool && !sy.spent; k++)
				if (!avoid || (!(t->insts[sy.pool[k]].engines & avoid) && !t->insts[sy.pool[k]].layout_only))
					grow(&sy, &L, sy.pool[k], level);
		}
	}
	*checked += sy.checked;
	*again = sy.unproved > 0 && sy.proved == 0 && !sy.spent;
	*eq = sy.eq;
	rc = 0;
out:
	arena_free(sy.a);
	return rc;
}

/* The search, and where the checker proved none of those it found (the concrete sizes are small: a
 * running sum over 4 elements whose prefix sums stay below 0 passes for a running minimum
 * there), again at sizes twice and four times as large with other inputs, where such a
 * coincidence has gone and the pruning by value lets the longer sequences through. */
int
synth_tile(const AxTarget *t, TermCtx *tc, AxGraph *lhs, int depth, Equiv **eq, SynthCb cb, void *cbenv, int *checked)
{
	*checked = 0;
	Equiv *own = NULL;   /* the search's own checker when the caller has none */
	int again = 0, rc = search(t, tc, lhs, depth, eq ? eq : &own, cb, cbenv, checked, 1, &again);
	for (int scale = 2; scale <= 4 && again && rc == 0; scale *= 2)   /* (a size that cannot run there ends it) */
		if (search(t, tc, lhs, depth, eq ? eq : &own, cb, cbenv, checked, scale, &again) != 0)
			break;
	if (own)
		equiv_free(own);
	return rc;
}
