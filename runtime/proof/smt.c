/*
 * smt.c — terms to Z3, and the one place axonc talks to Z3.
 *
 * One Z3 context per thread and target, shared by every Smt made there (a
 * context costs milliseconds, a query on the simple solver tens of
 * microseconds; see shared/reference/z3-notes.md): an Smt is a handle with
 * its own time limit, smt_new finds the thread's context (made at the first
 * smt_new, kept for the process's life: a compile made some thirty of them, one
 * per checker) and smt_free drops the handle only.  The answers remembered,
 * and the prover process of check_isolated, are the context's: every checker
 * of the thread shares them.  Each query gets a fresh simple solver.
 * Encoding: sizes and indices are Int constants, float attributes Real
 * constants, input tensors uninterpreted functions Int^n -> Real, scalar fns
 * uninterpreted Real^n -> Real, and real division a / b is a * recip(b) with
 * recip uninterpreted (no x/0 convention is assumed).  Reductions and folds
 * are not translated here: a query that contains one is rejected with the
 * reason; their canonicalisation belongs to the equivalence checker.
 * `unknown`, a timeout or any Z3 error is a rejection, never a proof.
 *
 * Answers are remembered per context: Z3 hash-conses its terms and, in a
 * context made by Z3_mk_context (no solver scopes are pushed here), keeps
 * every one alive until the context is deleted, so a query's pair of Z3 terms
 * names it exactly.  Only definite answers (proved, counterexample, sat,
 * unsat) are kept; `unknown` is asked again.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <z3.h>
#include "proof.h"
#include "smt_wire.h"

typedef struct Memo {
	Z3_ast hyp, goal;   /* goal NULL: a satisfiability query of hyp */
	int answer;
	char *why;
} Memo;

typedef struct SmtCore {
	Z3_context z;
	Memo *memo;         /* open addressing, a power of two of slots, at most half full */
	size_t nmemo, capmemo;
	Z3_sort isort, rsort;
	Z3_func_decl recip;
	const AxTarget *t;
	int timeout_ms;             /* the query's, from its handle */
	int solver_only;            /* the query's: no witness, no memo (smt_solver_only) */
	int idiv;                   /* the query being translated has integer // or % */
	pid_t srv, srv_owner;       /* the prover process (check_isolated) and the process it serves */
	int srv_in, srv_out;        /* requests to it, answers from it */
	pthread_t thread;           /* the thread the context serves */
	/* tr's memory within one term (terms are DAGs; Z3 hash-conses, so a subterm translated
	 * again is the same Z3 term): open addressing, an entry valid while its stamp is trstamp */
	const Term **trk;
	Z3_ast *trv;
	uint32_t *trs;
	size_t trcap, trn;
	uint32_t trstamp;
	struct SmtCore *next;
} SmtCore;

struct Smt {
	SmtCore *c;
	int timeout_ms;
	int solver_only;
};

void
smt_set_timeout(Smt *s, int ms)
{
	s->timeout_ms = ms;
}

void
smt_solver_only(Smt *s, int on)
{
	s->solver_only = on;
}

/* A fresh simple solver with the time limit. */
static Z3_solver
new_solver(SmtCore *s)
{
	Z3_solver sv = Z3_mk_simple_solver(s->z);
	Z3_solver_inc_ref(s->z, sv);
	if (s->timeout_ms > 0) {
		Z3_params p = Z3_mk_params(s->z);
		Z3_params_inc_ref(s->z, p);
		Z3_params_set_uint(s->z, p, Z3_mk_string_symbol(s->z, "timeout"), (unsigned)s->timeout_ms);
		Z3_solver_set_params(s->z, sv, p);
		Z3_params_dec_ref(s->z, p);
	}
	return sv;
}

static void
on_error(Z3_context z, Z3_error_code e)
{
	/* recorded by the caller through Z3_get_error_code; never exit */
	(void)z;
	(void)e;
}

/* The contexts made so far, one per thread and target; kept for the process's life (a
 * process forked from the owner uses its copy, with a prover of its own). */
static SmtCore *cores;
static pthread_mutex_t cores_lock = PTHREAD_MUTEX_INITIALIZER;

static int server_start(SmtCore *s);

/* The heap faulted in at once before the first context (ax_heap_reserve): a context fills
 * 17 MB; the rest for the queries and the stages that follow */
enum { HEAP_RESERVE = 48 << 20 };

/* The context, its sorts and the reciprocal. */
static void
core_context(SmtCore *s)
{
	Z3_config cfg = Z3_mk_config();
	s->z = Z3_mk_context(cfg);
	Z3_del_config(cfg);
	Z3_set_error_handler(s->z, on_error);
	s->isort = Z3_mk_int_sort(s->z);
	s->rsort = Z3_mk_real_sort(s->z);
	Z3_sort r1[1] = { s->rsort };
	s->recip = Z3_mk_func_decl(s->z, Z3_mk_string_symbol(s->z, "recip"), 1, r1, s->rsort);
}

static SmtCore *
core_for(const AxTarget *t)
{
	pthread_t me = pthread_self();
	pthread_mutex_lock(&cores_lock);
	SmtCore *s = cores;
	while (s && !(s->t == t && pthread_equal(s->thread, me)))
		s = s->next;
	if (!s) {
		s = calloc(1, sizeof *s);
		if (!s)
			ax_die("out of memory");
		s->t = t;
		s->thread = me;
		/* the prover process forked first, before this process has a context, and it makes
		 * its own: forked later, each page this process then writes (Z3's own above all) is
		 * copied first, a fault and a TLB flush apiece (a third of GQA's Phase 1).  If the
		 * fork fails, the first query that needs the prover tries again. */
		server_start(s);
		ax_heap_reserve(HEAP_RESERVE);
		core_context(s);
		s->next = cores;
		cores = s;
	}
	pthread_mutex_unlock(&cores_lock);
	return s;
}

Smt *
smt_new(const AxTarget *t)
{
	Smt *s = malloc(sizeof *s);
	if (!s)
		ax_die("out of memory");
	*s = (Smt){ .c = core_for(t) };
	return s;
}

void
smt_free(Smt *s)
{
	free(s);
}

/* The slot of the query (hyp, goal): its answer, or the empty slot it goes in. */
static Memo *
memo_slot(SmtCore *s, Z3_ast hyp, Z3_ast goal)
{
	if (2 * (s->nmemo + 1) > s->capmemo) {
		size_t cap = s->capmemo ? 2 * s->capmemo : 1024;
		Memo *m = calloc(cap, sizeof *m), *old = s->memo;
		if (!m)
			ax_die("out of memory");
		s->memo = m;
		size_t n = s->capmemo;
		s->capmemo = cap;
		for (size_t i = 0; i < n; i++)
			if (old[i].hyp)
				*memo_slot(s, old[i].hyp, old[i].goal) = old[i];
		free(old);
	}
	size_t h = ((uintptr_t)hyp >> 4) * 0x9e3779b97f4a7c15ull ^ ((uintptr_t)goal >> 4) * 0xc2b2ae3d27d4eb4full;
	for (size_t i = (h >> 7) & (s->capmemo - 1);; i = (i + 1) & (s->capmemo - 1))
		if (!s->memo[i].hyp || (s->memo[i].hyp == hyp && s->memo[i].goal == goal))
			return &s->memo[i];
}

/* Remembers a definite answer in the slot memo_slot gave (one already there, from before
 * smt_solver_only, is replaced). */
static void
memo_keep(SmtCore *s, Memo *m, Z3_ast hyp, Z3_ast goal, int answer, const char *why)
{
	char *w = strdup(why);
	if (!w)
		ax_die("out of memory");
	if (m->hyp)
		free(m->why);
	else
		s->nmemo++;
	*m = (Memo){ hyp, goal, answer, w };
}

static Z3_ast tr(SmtCore *s, const Term *t, const char **why);

static Z3_func_decl
uf(SmtCore *s, const char *name, int n, Z3_sort dom, Z3_sort range)
{
	Z3_sort d[AX_MAXR + 16];
	for (int i = 0; i < n; i++)
		d[i] = dom;
	return Z3_mk_func_decl(s->z, Z3_mk_string_symbol(s->z, name), (unsigned)n, d, range);
}

/* NumPy's floor division a // b for every sign of b.  Z3's div is Euclidean
 * (the remainder is never negative), which is floor division for b > 0 only:
 * for b < 0, floor(a / b) = floor(-a / -b) = div(-a, -b).  (b = 0 is left to
 * Z3's unspecified division, as a // 0 is an error in the program.) */
static Z3_ast
floor_div(Z3_context z, Z3_ast a, Z3_ast b)
{
	Z3_ast zero = Z3_mk_int(z, 0, Z3_get_sort(z, b));
	return Z3_mk_ite(z, Z3_mk_ge(z, b, zero), Z3_mk_div(z, a, b),
	                 Z3_mk_div(z, Z3_mk_unary_minus(z, a), Z3_mk_unary_minus(z, b)));
}

/* One node: t's own fields (kind, sort, id, num, den, name, n) over its arguments' Z3 terms a
 * (t->a is not read: the prover process builds its queries from the wire, wire_build). */
static Z3_ast
tr_node(SmtCore *s, const Term *t, Z3_ast *a, const char **why)
{
	Z3_context z = s->z;
	switch ((TermKind)t->kind) {
	case TK_NUM:
		if (t->name)   /* an exact constant past 64 bits, "num/den" */
			return Z3_mk_numeral(z, t->name, s->rsort);
		if (t->sort == TS_BOOL)
			return t->num ? Z3_mk_true(z) : Z3_mk_false(z);
		if (t->sort == TS_INT)
			return Z3_mk_int64(z, t->num, s->isort);
		return Z3_mk_div(z, Z3_mk_int64(z, t->num, s->rsort), Z3_mk_int64(z, t->den, s->rsort));
	case TK_VAR:
		return Z3_mk_const(z, Z3_mk_string_symbol(z, t->name), t->sort == TS_INT ? s->isort : s->rsort);
	case TK_BVAR:
		*why = "a bound variable outside its reduction";
		return NULL;
	case TK_TENSOR: {
		char name[128];
		snprintf(name, sizeof name, "%s/%d", t->name ? t->name : "T", t->n);
		return Z3_mk_app(z, uf(s, name, t->n, s->isort, s->rsort), t->n, a);
	}
	case TK_CALL: {
		const char *fname = s->t && t->id < s->t->nfns ? s->t->fns[t->id].name : "fn";
		return Z3_mk_app(z, uf(s, fname, t->n, s->rsort, s->rsort), t->n, a);
	}
	case TK_ADD: return Z3_mk_add(z, 2, a);
	case TK_SUB: return Z3_mk_sub(z, 2, a);
	case TK_MUL: return Z3_mk_mul(z, 2, a);
	case TK_DIV:
		if (t->sort == TS_INT) {
			s->idiv = 1;
			return floor_div(z, a[0], a[1]);
		}
		{
			Z3_ast m[2] = { a[0], Z3_mk_app(z, s->recip, 1, &a[1]) };
			return Z3_mk_mul(z, 2, m);
		}
	case TK_MOD:   /* NumPy's: a - b * (a // b), the sign of b */
		{
			s->idiv = 1;
			Z3_ast m[2] = { a[1], floor_div(z, a[0], a[1]) };
			Z3_ast sub[2] = { a[0], Z3_mk_mul(z, 2, m) };
			return Z3_mk_sub(z, 2, sub);
		}
	case TK_NEG: return Z3_mk_unary_minus(z, a[0]);
	case TK_MAX: return Z3_mk_ite(z, Z3_mk_ge(z, a[0], a[1]), a[0], a[1]);
	case TK_MIN: return Z3_mk_ite(z, Z3_mk_le(z, a[0], a[1]), a[0], a[1]);
	case TK_LT: return Z3_mk_lt(z, a[0], a[1]);
	case TK_LE: return Z3_mk_le(z, a[0], a[1]);
	case TK_EQ: return Z3_mk_eq(z, a[0], a[1]);
	case TK_NE: return Z3_mk_not(z, Z3_mk_eq(z, a[0], a[1]));
	case TK_AND: return Z3_mk_and(z, 2, a);
	case TK_OR: return Z3_mk_or(z, 2, a);
	case TK_NOT: return Z3_mk_not(z, a[0]);
	case TK_ITE: return Z3_mk_ite(z, a[0], a[1], a[2]);
	case TK_TOREAL: return Z3_mk_int2real(z, a[0]);
	default:
		*why = "a term kind the translation does not know";
		return NULL;
	}
}

static size_t
tr_slot(const SmtCore *s, const Term *t)
{
	size_t i = (size_t)(((uintptr_t)t >> 4) * 0x9e3779b97f4a7c15ull >> 7) & (s->trcap - 1);
	while (s->trs[i] == s->trstamp && s->trk[i] != t)
		i = (i + 1) & (s->trcap - 1);
	return i;
}

static void
tr_keep(SmtCore *s, const Term *t, Z3_ast x)
{
	if (2 * (s->trn + 1) > s->trcap) {
		size_t cap = s->trcap ? 2 * s->trcap : 1024, n = s->trcap;
		const Term **k = s->trk;
		Z3_ast *v = s->trv;
		uint32_t *st = s->trs, was = s->trstamp;
		s->trk = malloc(cap * sizeof *s->trk);
		s->trv = malloc(cap * sizeof *s->trv);
		s->trs = calloc(cap, sizeof *s->trs);
		if (!s->trk || !s->trv || !s->trs)
			ax_die("out of memory");
		s->trcap = cap;
		s->trstamp = 1;
		s->trn = 0;
		for (size_t i = 0; i < n; i++)
			if (st[i] == was) {
				size_t j = tr_slot(s, k[i]);
				s->trk[j] = k[i], s->trv[j] = v[i], s->trs[j] = 1, s->trn++;
			}
		free(k);
		free(v);
		free(st);
	}
	size_t i = tr_slot(s, t);
	s->trk[i] = t, s->trv[i] = x, s->trs[i] = s->trstamp, s->trn++;
}

static Z3_ast
tr_rec(SmtCore *s, const Term *t, const char **why)
{
	Z3_ast a[16];
	if (*why)
		return NULL;
	if (s->trcap) {
		size_t i = tr_slot(s, t);
		if (s->trs[i] == s->trstamp)
			return s->trv[i];
	}
	if (t->kind == TK_SUM || t->kind == TK_RMAX || t->kind == TK_RMIN || t->kind == TK_FOLD) {
		*why = "the term has a reduction; reductions are canonicalised by the equivalence checker";
		return NULL;
	}
	for (int i = 0; i < t->n && i < 16; i++) {
		a[i] = tr_rec(s, t->a[i], why);
		if (*why)
			return NULL;
	}
	Z3_ast x = tr_node(s, t, a, why);
	if (x && !*why)
		tr_keep(s, t, x);
	return x;
}

/* t as a Z3 term (NULL with *why if it cannot be translated) */
static Z3_ast
tr(SmtCore *s, const Term *t, const char **why)
{
	if (++s->trstamp == 0) {   /* wrapped: no entry may look current */
		for (size_t i = 0; i < s->trcap; i++)
			s->trs[i] = 0;
		s->trstamp = 1;
	}
	s->trn = 0;
	return tr_rec(s, t, why);
}

/* The solver sv, holding the assertions, checked.  prove: the text for a
 * proof (proved / counterexample / unknown), else for a satisfiability query. */
static Z3_lbool
check_solver(SmtCore *s, Z3_solver sv, int prove, char *why, size_t n)
{
	Z3_lbool r = Z3_solver_check(s->z, sv);
	if (!prove)
		snprintf(why, n, "%s", r == Z3_L_TRUE ? "sat" : r == Z3_L_FALSE ? "unsat" : "unknown");
	else if (r == Z3_L_FALSE)
		snprintf(why, n, "proved");
	else if (r == Z3_L_TRUE) {
		Z3_model model = Z3_solver_get_model(s->z, sv);
		Z3_model_inc_ref(s->z, model);
		snprintf(why, n, "counterexample: %s", Z3_model_to_string(s->z, model));
		Z3_model_dec_ref(s->z, model);
	} else
		snprintf(why, n, "rejected: solver says unknown (%s)", Z3_solver_get_reason_unknown(s->z, sv));
	return r;
}

/* The solver on the assertions, in this process. */
static Z3_lbool
check_here(SmtCore *s, Z3_ast *as, int na, int prove, char *why, size_t n)
{
	Z3_solver sv = new_solver(s);
	for (int i = 0; i < na; i++)
		Z3_solver_assert(s->z, sv, as[i]);
	Z3_lbool r = check_solver(s, sv, prove, why, n);
	Z3_solver_dec_ref(s->z, sv);
	return r;
}

/* ---- the prover process ------------------------------------------------------------ *
 * Z3 4.8 does not always stop by itself: on some nonlinear queries with
 * uninterpreted fns (products of tensor elements under a max, integer division
 * beside them) it heeds neither its timeout, Z3_interrupt nor rlimit
 * (tests/unit/test_equiv.c keeps three such pairs the fuzzer found).  So such
 * queries run in a child process killed at the time limit.  A fork per query
 * cost more than the queries (the child copies the page tables, the parent's
 * pages are copied on its next write: GQA's fusion search, 226 forks, 0.62 s
 * against 0.19 s in process), so one child, forked at the first such query,
 * serves them all: each query goes to it as its terms (smt_wire.c), which
 * it builds in its own context with tr_node as tr builds them here (Z3's
 * SMT-LIB printing of a query, and the parsing of it, cost about a millisecond
 * a query, more than most queries), and the answer comes back as text.  Past the limit the child is killed and the query is unknown; the next
 * query forks a new one.  A process forked from the owner (a compile worker)
 * gets a prover of its own. */

static int
put_all(int fd, const void *buf, size_t len)
{
	for (const char *p = buf; len > 0;) {
		ssize_t k = write(fd, p, len);
		if (k <= 0)
			return -1;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* len bytes from fd, waiting at most limit ms for each piece (limit < 0: no limit) */
static int
get_all(int fd, void *buf, size_t len, int limit)
{
	for (char *p = buf; len > 0;) {
		struct pollfd q = { fd, POLLIN, 0 };
		if (limit >= 0 && poll(&q, 1, limit) != 1)
			return -1;
		ssize_t k = read(fd, p, len);
		if (k <= 0)
			return -1;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

static void
server_stop(SmtCore *s)
{
	if (s->srv <= 0 || s->srv_owner != getpid())
		return;
	close(s->srv_in);
	close(s->srv_out);
	kill(s->srv, SIGKILL);
	waitpid(s->srv, NULL, 0);
	s->srv = 0;
}

/* The prover's side: the payload's terms built in its context (smt_wire.c); the
 * assertions of the query in as (1 or 2 of them), or -1 if the payload cannot be read. */
static int
wire_build(SmtCore *s, const char *p, size_t len, int prove, Z3_ast *as)
{
	const char *end = p + len;
	uint32_t root[2];
	if (wire_roots(&p, end, root) != 0)
		return -1;
	Z3_ast *node = NULL;
	size_t nnode = 0, cap = 0;
	WireNode wn = { 0 };
	int bad = 0, got;
	while (!bad && (got = wire_node(&p, end, &wn)) > 0) {
		Z3_ast a[WIRE_MAXARGS];
		for (int k = 0; k < wn.na && !bad; k++) {
			bad = wn.arg[k] >= nnode;
			if (!bad)
				a[k] = node[wn.arg[k]];
		}
		const char *why = NULL;
		Z3_ast x = bad ? NULL : tr_node(s, &wn.t, a, &why);
		if (why || !x || Z3_get_error_code(s->z) != Z3_OK) {
			bad = 1;
			break;
		}
		if (nnode == cap) {
			cap = cap ? 2 * cap : 256;
			Z3_ast *m = realloc(node, cap * sizeof *m);
			if (!m)
				ax_die("out of memory");
			node = m;
		}
		node[nnode++] = x;
	}
	int na = -1;
	if (!bad && got == 0 && (root[0] == WIRE_NONE || root[0] < nnode) && (root[1] == WIRE_NONE || root[1] < nnode)) {
		if (!prove && root[0] != WIRE_NONE) {
			as[0] = node[root[0]];
			na = 1;
		} else if (prove && root[1] != WIRE_NONE) {
			as[0] = root[0] == WIRE_NONE ? Z3_mk_true(s->z) : node[root[0]];
			as[1] = Z3_mk_not(s->z, node[root[1]]);
			na = 2;
		}
	}
	free(node);
	wire_node_free(&wn);
	return na;
}

/* The child: queries (prove flag, length, time limit, payload) until its parent closes the pipe. */
static void
server_loop(SmtCore *s, int in, int out)
{
	for (;;) {
		uint32_t head[3];
		if (get_all(in, head, sizeof head, -1) != 0)
			_exit(0);
		char *text = malloc((size_t)head[1] + 1);
		if (!text || get_all(in, text, head[1], -1) != 0)
			_exit(1);
		text[head[1]] = 0;
		s->timeout_ms = (int)head[2];
		char why[1024];
		Z3_lbool r = Z3_L_UNDEF;
		Z3_ast as[2];
		int na = wire_build(s, text, head[1], (int)head[0], as);
		if (na < 0)
			snprintf(why, sizeof why, "rejected: the prover could not read the query");
		else {
			Z3_solver sv = new_solver(s);
			for (int i = 0; i < na; i++)
				Z3_solver_assert(s->z, sv, as[i]);
			r = check_solver(s, sv, (int)head[0], why, sizeof why);
			Z3_solver_dec_ref(s->z, sv);
		}
		free(text);
		char ans[1040];
		uint32_t len = (uint32_t)snprintf(ans + 4, sizeof ans - 4, "%d%s", (int)r + 1, why);
		if (len > sizeof ans - 5)
			len = sizeof ans - 5;
		memcpy(ans, &len, 4);
		if (put_all(out, ans, 4 + (size_t)len) != 0)
			_exit(1);
	}
}

static int
server_start(SmtCore *s)
{
	int req[2], ans[2];
	if (pipe(req) != 0)
		return -1;
	if (pipe(ans) != 0) {
		close(req[0]);
		close(req[1]);
		return -1;
	}
	fflush(NULL);
	pid_t pid = ax_fork();
	if (pid < 0) {
		close(req[0]), close(req[1]), close(ans[0]), close(ans[1]);
		return -1;
	}
	if (pid == 0) {
		close(req[1]);
		close(ans[0]);
		signal(SIGPIPE, SIG_DFL);
		if (!s->z) {   /* forked before the owner made its context */
			ax_heap_reserve(HEAP_RESERVE / 2);
			core_context(s);
		}
		server_loop(s, req[0], ans[1]);
	}
	close(req[0]);
	close(ans[1]);
	s->srv = pid;
	s->srv_owner = getpid();
	s->srv_in = req[1];
	s->srv_out = ans[0];
	return 0;
}

/* The query in the prover process, killed at the time limit: unknown past it.  prove:
 * hyp (NULL: true) => goal; else the satisfiability of hyp. */
static Z3_lbool
check_isolated(SmtCore *s, const Term *hyp, const Term *goal, int prove, char *why, size_t n)
{
	if (s->srv > 0 && s->srv_owner != getpid())
		s->srv = 0;   /* the owner's prover, inherited by a fork: not ours to use */
	if (s->srv <= 0 && server_start(s) != 0) {
		snprintf(why, n, "rejected: cannot fork to bound the solver's time");
		return Z3_L_UNDEF;
	}
	Wire w;
	wire_query(&w, hyp, goal);
	uint32_t head[3] = { (uint32_t)prove, (uint32_t)w.len, (uint32_t)(s->timeout_ms > 0 ? s->timeout_ms : 0) };
	void (*was)(int) = signal(SIGPIPE, SIG_IGN);
	int ok = put_all(s->srv_in, head, sizeof head) == 0 && put_all(s->srv_in, w.buf, w.len) == 0;
	wire_free(&w);
	int limit = s->timeout_ms > 0 ? s->timeout_ms + 100 : 60000;
	uint32_t len = 0;
	char buf[1040];
	Z3_lbool r = Z3_L_UNDEF;
	if (ok && get_all(s->srv_out, &len, 4, limit) == 0 && len < sizeof buf && len > 0 &&
	    get_all(s->srv_out, buf, len, limit) == 0) {
		buf[len] = 0;
		r = (Z3_lbool)(buf[0] - '0' - 1);
		snprintf(why, n, "%s", buf + 1);
	} else {
		snprintf(why, n, "%s", prove ? "rejected: the solver ran past its time limit" : "unknown");
		server_stop(s);
	}
	signal(SIGPIPE, was);
	return r;
}

static int
prove_with(SmtCore *s, Term *hyp, Term *goal, char *why, size_t n, int isolate)
{
	const char *w = NULL;
	s->idiv = 0;
	Z3_ast h = hyp ? tr(s, hyp, &w) : Z3_mk_true(s->z);
	Z3_ast g = w ? NULL : tr(s, goal, &w);
	if (w || Z3_get_error_code(s->z) != Z3_OK) {
		snprintf(why, n, "rejected: %s", w ? w : Z3_get_error_msg(s->z, Z3_get_error_code(s->z)));
		return 0;
	}
	Memo *m = memo_slot(s, h, g);
	if (m->hyp && !s->solver_only) {
		snprintf(why, n, "%s", m->why);
		return m->answer;
	}
	if (!s->solver_only && t_counterexample(hyp, goal, why, n)) {
		memo_keep(s, m, h, g, 0, why);
		return 0;
	}
	Z3_ast as[2] = { h, Z3_mk_not(s->z, g) };
	Z3_lbool r = isolate || s->idiv ? check_isolated(s, hyp, goal, 1, why, n) : check_here(s, as, 2, 1, why, n);
	int ok = r == Z3_L_FALSE;
	if (r != Z3_L_UNDEF)
		memo_keep(s, memo_slot(s, h, g), h, g, ok, why);
	return ok;
}

/* 1 if hyp => goal holds for every value of the free variables; 0 otherwise,
 * with the reason (counterexample, unknown, untranslatable) in why. */
int
smt_prove(Smt *s, Term *hyp, Term *goal, char *why, size_t n)
{
	s->c->timeout_ms = s->timeout_ms;
	s->c->solver_only = s->solver_only;
	return prove_with(s->c, hyp, goal, why, n, 0);
}

/* smt_prove with the query in a child process killed at the time limit:
 * for the checker's computation condition, nonlinear with fns, where Z3 may
 * not stop by itself.  (Size questions, linear, stay in this process unless
 * they hold integer // or %.) */
int
smt_prove_isolated(Smt *s, Term *hyp, Term *goal, char *why, size_t n)
{
	s->c->timeout_ms = s->timeout_ms;
	s->c->solver_only = s->solver_only;
	return prove_with(s->c, hyp, goal, why, n, 1);
}

/* 1 if the boolean term can be true; 0 if it cannot or the solver cannot say */
int
smt_satisfiable(Smt *h, Term *t, char *why, size_t n)
{
	SmtCore *s = h->c;
	s->timeout_ms = h->timeout_ms;
	s->solver_only = h->solver_only;
	const char *w = NULL;
	s->idiv = 0;
	Z3_ast a = tr(s, t, &w);
	if (w) {
		snprintf(why, n, "%s", w);
		return 0;
	}
	Memo *m = memo_slot(s, a, NULL);
	if (m->hyp && !s->solver_only) {
		snprintf(why, n, "%s", m->why);
		return m->answer;
	}
	Z3_lbool r;
	if (!s->solver_only && t_witness(t)) {
		snprintf(why, n, "sat");
		r = Z3_L_TRUE;
	} else
		r = s->idiv ? check_isolated(s, t, NULL, 0, why, n) : check_here(s, &a, 1, 0, why, n);
	if (r != Z3_L_UNDEF)
		memo_keep(s, memo_slot(s, a, NULL), a, NULL, r == Z3_L_TRUE, why);
	return r == Z3_L_TRUE;
}

/* A size or condition term with maxof/minof decided wherever the sizes
 * allowed by hyp decide them (broadcasting leaves maxof(M, M), maxof(N, 1)). */
Term *
size_simplify(Smt *smt, TermCtx *tc, Term *hyp, Term *t)
{
	if (t->n == 0 || t->sort == TS_REAL)
		return t;
	switch ((TermKind)t->kind) {
	case TK_ADD: case TK_SUB: case TK_MUL: case TK_DIV: case TK_MOD: case TK_MAX: case TK_MIN:
	case TK_LT: case TK_LE: case TK_EQ: case TK_NE: case TK_AND: case TK_OR:
		break;
	case TK_NOT:
		return t_not(tc, size_simplify(smt, tc, hyp, t->a[0]));
	default:
		return t;
	}
	Term *a = size_simplify(smt, tc, hyp, t->a[0]), *b = size_simplify(smt, tc, hyp, t->a[1]);
	if (t->kind == TK_MAX || t->kind == TK_MIN) {
		if (a == b)
			return a;
		char why[256];
		int upper = t->kind == TK_MAX;
		int a_wins = smt_prove(smt, hyp, t_bin(tc, TK_LE, upper ? b : a, upper ? a : b), why, sizeof why);
		int b_wins = smt_prove(smt, hyp, t_bin(tc, TK_LE, upper ? a : b, upper ? b : a), why, sizeof why);
		if (a_wins && b_wins)
			return t_size(a) <= t_size(b) ? a : b;
		if (a_wins)
			return a;
		if (b_wins)
			return b;
	}
	return t_bin(tc, (TermKind)t->kind, a, b);
}
