/*
 * term.c — the term IR that generated encoders build and the checker reads.
 *
 * Terms are hash-consed in a context's arena: structurally equal terms are
 * the same pointer.  Reductions stay visible as TK_SUM/TK_RMAX/TK_RMIN/TK_FOLD
 * nodes with an explicit bound variable, never unrolled, so the checker can
 * canonicalise them (docs/checker.md).  Constructors
 * insert TK_TOREAL where an integer meets a real and fold integer constants;
 * every rewrite they do is an identity of integer or real arithmetic.
 */
#include <stdlib.h>
#include <string.h>
#include "axon.h"

enum { NBUCKET0 = 4096 };

struct TermCtx {
	Arena *arena;
	const AxTarget *target;
	Term **bucket; /* a power of two of them, doubled when the terms outnumber them */
	size_t nbucket, nterm;
	int nfresh;
	int nvars;
};

TermCtx *
tc_new(const AxTarget *t)
{
	Arena *a = arena_new();
	TermCtx *c = arena_alloc(a, sizeof *c);
	c->arena = a;
	c->target = t;
	c->nbucket = NBUCKET0;
	c->bucket = arena_alloc(a, c->nbucket * sizeof *c->bucket);
	return c;
}

void
tc_free(TermCtx *c)
{
	if (c)
		arena_free(c->arena);
}

static uint32_t
mix(uint32_t h, uint64_t v)
{
	h ^= (uint32_t)v + 0x9e3779b9u + (h << 6) + (h >> 2);
	h ^= (uint32_t)(v >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
	return h;
}

/* Doubles the table (the old one stays in the arena, at most as large as the new one). */
static void
grow(TermCtx *c)
{
	size_t n = c->nbucket * 2;
	Term **b = arena_alloc(c->arena, n * sizeof *b);
	for (size_t i = 0; i < c->nbucket; i++)
		for (Term *t = c->bucket[i], *next; t; t = next) {
			next = t->next;
			t->next = b[t->hash & (n - 1)];
			b[t->hash & (n - 1)] = t;
		}
	c->bucket = b;
	c->nbucket = n;
}

/* The one place terms are made: finds an equal term or adds a new one. */
static Term *
mk(TermCtx *c, TermKind k, TermSort s, int32_t id, int64_t num, int64_t den, const char *name, int n,
   Term *const *a)
{
	uint32_t h = mix(mix(mix((uint32_t)k, (uint64_t)s), (uint64_t)(uint32_t)id), (uint64_t)num);
	h = mix(h, (uint64_t)den);
	for (int i = 0; i < n; i++)
		h = mix(h, a[i]->hash);
	if (name)
		for (const char *p = name; *p; p++)
			h = mix(h, (uint64_t)(unsigned char)*p);
	for (Term *t = c->bucket[h & (c->nbucket - 1)]; t; t = t->next) {
		if (t->hash != h || t->kind != k || t->sort != s || t->id != id || t->num != num ||
		    t->den != den || t->n != n)
			continue;
		if ((name || t->name) && (!name || !t->name || strcmp(name, t->name) != 0))
			continue;
		int same = 1;
		for (int i = 0; i < n && same; i++)
			same = t->a[i] == a[i];
		if (same)
			return t;
	}
	Term *t = arena_alloc(c->arena, sizeof *t + (size_t)n * sizeof(Term *));
	t->kind = (uint8_t)k;
	t->sort = (uint8_t)s;
	t->n = (uint16_t)n;
	t->id = id;
	t->num = num;
	t->den = den;
	t->hash = h;
	t->name = name ? arena_strdup(c->arena, name) : NULL;
	for (int i = 0; i < n; i++)
		t->a[i] = a[i];
	if (++c->nterm > c->nbucket)
		grow(c);
	t->next = c->bucket[h & (c->nbucket - 1)];
	c->bucket[h & (c->nbucket - 1)] = t;
	return t;
}

Term *
t_num(TermCtx *c, int64_t num, int64_t den, TermSort s)
{
	if (den < 0) {
		num = -num;
		den = -den;
	}
	int64_t g = ax_gcd(num, den);
	num /= g;
	den /= g;
	if (den != 1 && s == TS_INT)
		ax_die("integer constant %lld/%lld", (long long)num, (long long)den);
	return mk(c, TK_NUM, s, 0, num, den, NULL, 0, NULL);
}

Term *
t_int(TermCtx *c, int64_t v)
{
	return t_num(c, v, 1, TS_INT);
}

Term *
t_var(TermCtx *c, const char *name, TermSort s)
{
	return mk(c, TK_VAR, s, 0, 0, 0, name, 0, NULL);
}

Term *
t_fresh(TermCtx *c, TermSort s)
{
	return mk(c, TK_BVAR, s, c->nfresh++, 0, 0, NULL, 0, NULL);
}

static Term *
to_real(TermCtx *c, Term *a)
{
	if (a->sort == TS_REAL)
		return a;
	if (a->sort != TS_INT)
		ax_die("a boolean used as a number");
	if (a->kind == TK_NUM)
		return t_num(c, a->num, a->den, TS_REAL);
	return mk(c, TK_TOREAL, TS_REAL, 0, 0, 0, NULL, 1, &a);
}

Term *
t_toreal(TermCtx *c, Term *a)
{
	return to_real(c, a);
}

Term *
t_tensor(TermCtx *c, int id, const char *name, int n, Term *const *idx)
{
	for (int i = 0; i < n; i++)
		if (idx[i]->sort != TS_INT)
			ax_die("tensor index of sort %d", idx[i]->sort);
	return mk(c, TK_TENSOR, TS_REAL, id, 0, 0, name, n, idx);
}

static int
is_int_num(const Term *t, int64_t v)
{
	return t->kind == TK_NUM && t->den == 1 && t->num == v;
}

Term *
t_bin(TermCtx *c, TermKind k, Term *a, Term *b)
{
	Term *ab[2];
	if (k == TK_AND || k == TK_OR) {
		if (a->sort != TS_BOOL || b->sort != TS_BOOL)
			ax_die("and/or of non-booleans");
		if (a->kind == TK_NUM)   /* true && b = b, false && b = false, ... */
			return (a->num != 0) == (k == TK_AND) ? b : a;
		if (b->kind == TK_NUM)
			return (b->num != 0) == (k == TK_AND) ? a : b;
		ab[0] = a;
		ab[1] = b;
		return mk(c, k, TS_BOOL, 0, 0, 0, NULL, 2, ab);
	}
	TermSort s = (a->sort == TS_REAL || b->sort == TS_REAL) ? TS_REAL : TS_INT;
	if (s == TS_REAL) {
		a = to_real(c, a);
		b = to_real(c, b);
	}
	if (k == TK_MOD && s != TS_INT)
		ax_die("mod of reals");
	if (s == TS_INT && a->kind == TK_NUM && b->kind == TK_NUM) {
		int64_t x = a->num, y = b->num;
		switch (k) {
		case TK_LT: return t_bool(c, x < y);
		case TK_LE: return t_bool(c, x <= y);
		case TK_EQ: return t_bool(c, x == y);
		case TK_NE: return t_bool(c, x != y);
		case TK_ADD: if (!__builtin_add_overflow(x, y, &x)) return t_int(c, x); break;
		case TK_SUB: if (!__builtin_sub_overflow(x, y, &x)) return t_int(c, x); break;
		case TK_MUL: if (!__builtin_mul_overflow(x, y, &x)) return t_int(c, x); break;
		case TK_MAX: return t_int(c, x > y ? x : y);
		case TK_MIN: return t_int(c, x < y ? x : y);
		default: break;
		}
	}
	if (s == TS_INT) {
		if ((k == TK_ADD || k == TK_SUB) && is_int_num(b, 0))
			return a;
		if (k == TK_ADD && is_int_num(a, 0))
			return b;
		if ((k == TK_MUL || k == TK_DIV) && is_int_num(b, 1))
			return a;
		if (k == TK_MUL && is_int_num(a, 1))
			return b;
	}
	ab[0] = a;
	ab[1] = b;
	TermSort rs = (k >= TK_LT && k <= TK_NE) ? TS_BOOL : s;
	return mk(c, k, rs, 0, 0, 0, NULL, 2, ab);
}

Term *
t_neg(TermCtx *c, Term *a)
{
	if (a->kind == TK_NUM)
		return t_num(c, -a->num, a->den, (TermSort)a->sort);
	return mk(c, TK_NEG, (TermSort)a->sort, 0, 0, 0, NULL, 1, &a);
}

Term *
t_bool(TermCtx *c, int v)
{
	return mk(c, TK_NUM, TS_BOOL, 0, v != 0, 1, NULL, 0, NULL);
}

Term *
t_bvar(TermCtx *c, int id, TermSort s)
{
	return mk(c, TK_BVAR, s, id, 0, 0, NULL, 0, NULL);
}

Term *
t_not(TermCtx *c, Term *a)
{
	if (a->sort != TS_BOOL)
		ax_die("not of a number");
	if (a->kind == TK_NUM)
		return t_bool(c, a->num == 0);
	return mk(c, TK_NOT, TS_BOOL, 0, 0, 0, NULL, 1, &a);
}

Term *
t_ite(TermCtx *c, Term *cond, Term *a, Term *b)
{
	if (cond->sort != TS_BOOL)
		ax_die("ite condition is not boolean");
	if (cond->kind == TK_NUM && a->sort == b->sort)
		return cond->num ? a : b;
	if (a->sort != b->sort) {
		a = to_real(c, a);
		b = to_real(c, b);
	}
	Term *x[3] = { cond, a, b };
	return mk(c, TK_ITE, (TermSort)a->sort, 0, 0, 0, NULL, 3, x);
}

Term *
t_call(TermCtx *c, int fn, int n, Term *const *args)
{
	Term *x[16];
	if (n > 16)
		ax_die("fn with %d arguments", n);
	for (int i = 0; i < n; i++)
		x[i] = to_real(c, args[i]);
	return mk(c, TK_CALL, TS_REAL, fn, 0, 0, NULL, n, x);
}

Term *
t_red(TermCtx *c, TermKind k, Term *v, Term *lo, Term *hi, Term *body)
{
	Term *x[4] = { v, lo, hi, to_real(c, body) };
	if (v->kind != TK_BVAR || lo->sort != TS_INT || hi->sort != TS_INT)
		ax_die("malformed reduction");
	return mk(c, k, TS_REAL, 0, 0, 0, NULL, 4, x);
}

Term *
t_fold(TermCtx *c, Term *v, Term *lo, Term *hi, Term *acc, Term *init, Term *body)
{
	Term *x[6] = { v, lo, hi, acc, to_real(c, init), to_real(c, body) };
	return mk(c, TK_FOLD, TS_REAL, 0, 0, 0, NULL, 6, x);
}

/* ---- walks that visit a shared subterm once ------------------------------ */

static uint32_t epoch;   /* the stamp of the current marked walk */

static int
mentions(const Term *t, const Term *v)
{
	if (t == v)
		return 1;
	Term *m = (Term *)t;
	if (m->mark == epoch)
		return 0;   /* visited in this walk: it did not mention v */
	m->mark = epoch;
	for (int i = 0; i < t->n; i++)
		if (mentions(t->a[i], v))
			return 1;
	return 0;
}

int
t_mentions(const Term *t, const Term *v)
{
	epoch++;
	return mentions(t, v);
}

uint32_t
t_walk(void)
{
	return ++epoch;
}

int
t_first_visit(const Term *t, uint32_t walk)
{
	Term *m = (Term *)t;
	if (m->mark == walk)
		return 0;
	m->mark = walk;
	return 1;
}

static size_t
dag_size(const Term *t)
{
	Term *m = (Term *)t;
	if (m->mark == epoch)
		return 0;
	m->mark = epoch;
	size_t n = 1;
	for (int i = 0; i < t->n; i++)
		n += dag_size(t->a[i]);
	return n;
}

size_t
t_dag_size(const Term *t)
{
	epoch++;
	return dag_size(t);
}

void **
tmap_slot(TMap *m, const Term *k, int *found)
{
	if (2 * (m->n + 1) > m->cap) {
		TMap b = { m->cap ? 2 * m->cap : 64, 0, NULL, NULL };
		b.key = calloc(b.cap, sizeof *b.key);
		b.val = calloc(b.cap, sizeof *b.val);
		if (!b.key || !b.val)
			ax_die("out of memory");
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				int f;
				*tmap_slot(&b, m->key[i], &f) = m->val[i];
			}
		tmap_free(m);
		*m = b;
	}
	size_t i = (size_t)(((uintptr_t)k >> 4) * 0x9e3779b97f4a7c15ull) & (m->cap - 1);
	for (; m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == k) {
			*found = 1;
			return &m->val[i];
		}
	*found = 0;
	m->key[i] = k;
	m->n++;
	return &m->val[i];
}

void
tmap_free(TMap *m)
{
	free(m->key);
	free(m->val);
	*m = (TMap){ 0 };
}

/* t rebuilt from new arguments, through the constructors */
Term *
t_rebuild(TermCtx *c, const Term *t, Term **a)
{
	switch ((TermKind)t->kind) {
	case TK_TENSOR: return t_tensor(c, t->id, t->name, t->n, a);
	case TK_CALL: return t_call(c, t->id, t->n, a);
	case TK_NEG: return t_neg(c, a[0]);
	case TK_NOT: return t_not(c, a[0]);
	case TK_TOREAL: return t_toreal(c, a[0]);
	case TK_ITE: return t_ite(c, a[0], a[1], a[2]);
	case TK_SUM: case TK_RMAX: case TK_RMIN: return t_red(c, (TermKind)t->kind, a[0], a[1], a[2], a[3]);
	case TK_FOLD: return t_fold(c, a[0], a[1], a[2], a[3], a[4], a[5]);
	default: return t_bin(c, (TermKind)t->kind, a[0], a[1]);
	}
}

typedef struct Subst {
	TermCtx *c;
	Term *const *from, *const *to;
	int n;
	TMap memo;
} Subst;

static Term *
subst(Subst *s, Term *t)
{
	for (int k = 0; k < s->n; k++)
		if (t == s->from[k])
			return s->to[k];
	if (t->n == 0)
		return t;
	int found;
	void **slot = tmap_slot(&s->memo, t, &found);
	if (found)
		return *slot;
	Term *a[16];
	int same = 1;
	for (int i = 0; i < t->n; i++) {
		a[i] = subst(s, t->a[i]);
		same &= a[i] == t->a[i];
	}
	Term *r = same ? t : t_rebuild(s->c, t, a);
	*tmap_slot(&s->memo, t, &found) = r;   /* the table may have grown */
	return r;
}

/* t with every occurrence of from[k] replaced by to[k].  Binders of t must
 * not be among from[] (no capture: callers rename free variables or bound
 * variables that t's binders do not rebind). */
Term *
t_subst(TermCtx *c, Term *t, Term *const *from, Term *const *to, int n)
{
	Subst s = { c, from, to, n, { 0 } };
	Term *r = subst(&s, t);
	tmap_free(&s.memo);
	return r;
}

/* A total order on terms that depends on their structure only (never on
 * addresses): equal terms are the same pointer, so a walk stops at the first
 * difference or at a shared subterm. */
int
t_cmp(const Term *a, const Term *b)
{
	if (a == b)
		return 0;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->sort != b->sort)
		return a->sort < b->sort ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	if (a->den != b->den)
		return a->den < b->den ? -1 : 1;
	if ((a->name != NULL) != (b->name != NULL))
		return a->name ? 1 : -1;
	if (a->name) {
		int c = strcmp(a->name, b->name);
		if (c)
			return c;
	}
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = 0; i < a->n; i++) {
		int c = t_cmp(a->a[i], b->a[i]);
		if (c)
			return c;
	}
	return 0;
}

/* ---- De Bruijn indices for canonical reductions ---------------------------- */


Term *
t_dbvar(TermCtx *c, int k, TermSort s)
{
	return t_bvar(c, DB_BASE + k, s);
}

Term *
t_binder(TermCtx *c, TermSort s)
{
	return t_bvar(c, DB_BINDER, s);
}

/* A real constant too large for num/den: its exact value as text (TK_NUM with
 * a name; num = den = 0).  Only normal forms make them; Z3 reads the text. */
Term *
t_bignum(TermCtx *c, const char *rational)
{
	return mk(c, TK_NUM, TS_REAL, 1, 0, 0, rational, 0, NULL);
}

int
t_is_dbvar(const Term *t)
{
	return t->kind == TK_BVAR && t->id >= DB_BASE ? t->id - DB_BASE : -1;
}

/* One walk for the three: t_abstract (named vars[] become indices),
 * t_dbmap (free indices renumbered) and t_open (free index 0 becomes x0);
 * `depth` counts the binders crossed, a shared subterm is done once per depth. */
typedef struct DbMap {
	TermCtx *c;
	Term *const *vars;       /* t_abstract: vars[k] becomes index k */
	int nvars;
	const int *map;
	int n, shift;
	Term *x0;                /* t_open: index 0 becomes x0, the others shift down */
	TMap memo[8];
} DbMap;

static Term *
dbmap(DbMap *s, Term *t, int depth)
{
	for (int k = 0; k < s->nvars; k++)
		if (t == s->vars[k])
			return t_dbvar(s->c, k + depth, (TermSort)t->sort);
	int k = s->vars ? -1 : t_is_dbvar(t);
	if (k >= 0) {
		if (k < depth)
			return t;   /* bound inside t */
		k -= depth;
		if (s->x0)
			return k == 0 ? s->x0 : t_dbvar(s->c, depth + k - 1, (TermSort)t->sort);
		return t_dbvar(s->c, depth + (k < s->n ? s->map[k] : k + s->shift), (TermSort)t->sort);
	}
	if (t->n == 0)
		return t;
	int found = 0;
	void **slot = depth < 8 ? tmap_slot(&s->memo[depth], t, &found) : NULL;
	if (found)
		return *slot;
	Term *a[16];
	int same = 1;
	for (int i = 0; i < t->n; i++) {
		int inner = 0;   /* binders crossed to reach argument i */
		if (t->kind == TK_SUM || t->kind == TK_RMAX || t->kind == TK_RMIN)
			inner = i == 3;
		else if (t->kind == TK_FOLD)
			inner = i == 5 ? 2 : 0;
		a[i] = dbmap(s, t->a[i], depth + inner);
		same &= a[i] == t->a[i];
	}
	Term *r = same ? t : t_rebuild(s->c, t, a);
	if (depth < 8)
		*tmap_slot(&s->memo[depth], t, &found) = r;
	return r;
}

static Term *
db_run(DbMap *s, Term *t)
{
	Term *r = dbmap(s, t, 0);
	for (int i = 0; i < 8; i++)
		tmap_free(&s->memo[i]);
	return r;
}

Term *
t_open(TermCtx *c, Term *t, Term *x)
{
	DbMap s = { .c = c, .x0 = x };
	return db_run(&s, t);
}

Term *
t_dbmap(TermCtx *c, Term *t, const int *map, int n, int shift)
{
	DbMap s = { .c = c, .map = map, .n = n, .shift = shift };
	return db_run(&s, t);
}

Term *
t_abstract(TermCtx *c, Term *t, Term *const *vars, int n)
{
	DbMap s = { .c = c, .vars = vars, .nvars = n };
	return db_run(&s, t);
}

Term *
t_and_all(TermCtx *c, int n, Term *const *a)
{
	if (n == 0)
		return t_bool(c, 1);
	Term *r = a[0];
	for (int i = 1; i < n; i++)
		r = t_bin(c, TK_AND, r, a[i]);
	return r;
}

Arena *
tc_arena(TermCtx *c)
{
	return c->arena;
}

int
tc_fresh_count(const TermCtx *c)
{
	return c->nfresh;
}

/* A memoised computation that made n fresh variables, skipped: the variables made after it
 * are numbered as they were when it ran. */
void
tc_fresh_skip(TermCtx *c, int n)
{
	c->nfresh += n;
}

const AxTarget *
tc_target(const TermCtx *c)
{
	return c->target;
}

int
t_eval(const Term *t, const AxEnv *env, double *out)
{
	double a[3] = { 0, 0, 0 };
	switch ((TermKind)t->kind) {
	case TK_NUM:
		if (t->name)
			return -1;   /* a big constant (t_bignum) */
		*out = (double)t->num / (double)t->den;
		return 0;
	case TK_VAR:
		for (int i = 0; env && i < env->n; i++)
			if (env->names[i] == t->name || strcmp(env->names[i], t->name) == 0) {
				*out = env->vals[i];
				return 0;
			}
		return -1;
	case TK_TENSOR: case TK_CALL: case TK_BVAR: case TK_SUM: case TK_RMAX: case TK_RMIN: case TK_FOLD:
	case TK_NKINDS:
		return -1;
	default:
		break;
	}
	for (int i = 0; i < t->n && i < 3; i++)
		if (t_eval(t->a[i], env, &a[i]) != 0)
			return -1;
	int ints = t->sort == TS_INT || (t->n && t->a[0]->sort == TS_INT);
	switch ((TermKind)t->kind) {
	case TK_ADD: *out = a[0] + a[1]; return 0;
	case TK_SUB: *out = a[0] - a[1]; return 0;
	case TK_MUL: *out = a[0] * a[1]; return 0;
	case TK_DIV:
		if (a[1] == 0)
			return -1;
		*out = ints ? (double)ax_idiv((int64_t)a[0], (int64_t)a[1]) : a[0] / a[1];
		return 0;
	case TK_MOD:
		if (a[1] == 0)
			return -1;
		*out = (double)ax_imod((int64_t)a[0], (int64_t)a[1]);
		return 0;
	case TK_NEG: *out = -a[0]; return 0;
	case TK_MAX: *out = a[0] > a[1] ? a[0] : a[1]; return 0;
	case TK_MIN: *out = a[0] < a[1] ? a[0] : a[1]; return 0;
	case TK_LT: *out = a[0] < a[1]; return 0;
	case TK_LE: *out = a[0] <= a[1]; return 0;
	case TK_EQ: *out = a[0] == a[1]; return 0;
	case TK_NE: *out = a[0] != a[1]; return 0;
	case TK_AND: *out = a[0] != 0 && a[1] != 0; return 0;
	case TK_OR: *out = a[0] != 0 || a[1] != 0; return 0;
	case TK_NOT: *out = a[0] == 0; return 0;
	case TK_ITE: *out = a[0] != 0 ? a[1] : a[2]; return 0;
	case TK_TOREAL: *out = a[0]; return 0;
	default: return -1;
	}
}

int
t_size(const Term *t)
{
	size_t n = t_dag_size(t);
	return n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
}
