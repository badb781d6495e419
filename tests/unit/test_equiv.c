/*
 * test_equiv.c — pieces of the equivalence checker that the pairs of
 * tests/equiv/ cannot reach from a program:
 *
 *   1. integer // and % are NumPy's (floored) for every sign, in the C
 *      helpers and in what Z3 is told (Z3's own div/mod are Euclidean)
 *   2. De Bruijn binding: an outer index abstracted over a term that holds
 *      an inner reduction is never captured by it, and alpha-equivalent
 *      reductions are one term
 *   3. the verdict cache keys on the compared index range: a pair proved
 *      over one range is checked again over another
 *   4. the normal form's budget: a product of sums past it answers
 *      "resource limit", and the time limit bounds the whole check, also
 *      where Z3 4.8 heeds neither its timeout nor Z3_interrupt (three pairs
 *      found by tests/fuzz_equiv.py: softmaxes over reshaped, split
 *      reductions, and a max inside a chain of matmuls)
 *   5. the witness (smt_witness.c), which answers "sat" without Z3: on random
 *      size conditions, never where Z3 proves the condition false; floored //
 *      and %, and truth values as Z3 reads them; and its counterexamples, which
 *      answer "not proved" without Z3: never to an implication Z3 proves, over
 *      sizes, indices and tensor elements
 *
 * The last line is "N passed, M failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front.h"
#include "measure.h"

#include "check.h"

static const AxTarget *T;

/* does hyp => goal hold? */
static int
proves(Smt *smt, Term *hyp, Term *goal)
{
	char why[512];
	return smt_prove(smt, hyp, goal, why, sizeof why);
}

static void
floored(TermCtx *tc, Smt *smt)
{
	static const int64_t cases[][4] = {   /* a, b, a // b, a % b as Python says */
		{ 7, 2, 3, 1 }, { -7, 2, -4, 1 }, { 7, -2, -4, -1 }, { -7, -2, 3, -1 }, { 6, -3, -2, 0 }, { -1, 5, -1, 4 },
	};
	Term *a = t_var(tc, "a", TS_INT), *b = t_var(tc, "b", TS_INT);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const int64_t *c = cases[i];
		CHECK_MSG(ax_idiv(c[0], c[1]) == c[2], "ax_idiv(%lld, %lld) = %lld", (long long)c[0], (long long)c[1],
		          (long long)ax_idiv(c[0], c[1]));
		CHECK_MSG(ax_imod(c[0], c[1]) == c[3], "ax_imod(%lld, %lld) = %lld", (long long)c[0], (long long)c[1],
		          (long long)ax_imod(c[0], c[1]));
		/* through Z3 with a and b unknown but pinned by the hypothesis (no constant folding) */
		Term *hyp = t_bin(tc, TK_AND, t_bin(tc, TK_EQ, a, t_int(tc, c[0])), t_bin(tc, TK_EQ, b, t_int(tc, c[1])));
		CHECK_MSG(proves(smt, hyp, t_bin(tc, TK_EQ, t_bin(tc, TK_DIV, a, b), t_int(tc, c[2]))),
		          "Z3: %lld // %lld is not %lld", (long long)c[0], (long long)c[1], (long long)c[2]);
		CHECK_MSG(proves(smt, hyp, t_bin(tc, TK_EQ, t_bin(tc, TK_MOD, a, b), t_int(tc, c[3]))),
		          "Z3: %lld %% %lld is not %lld", (long long)c[0], (long long)c[1], (long long)c[3]);
	}
	/* and never both answers: 7 // -2 is not -3 (Euclidean would say so) */
	Term *hyp = t_bin(tc, TK_AND, t_bin(tc, TK_EQ, a, t_int(tc, 7)), t_bin(tc, TK_EQ, b, t_int(tc, -2)));
	CHECK(!proves(smt, hyp, t_bin(tc, TK_EQ, t_bin(tc, TK_DIV, a, b), t_int(tc, -3))));
	CHECK(!proves(smt, hyp, t_bin(tc, TK_EQ, t_bin(tc, TK_MOD, a, b), t_int(tc, 1))));
}

static void
binding(TermCtx *tc)
{
	/* inner = sum over k < N of X[j, k] (j free), bound by De Bruijn index */
	Term *j = t_fresh(tc, TS_INT), *k = t_fresh(tc, TS_INT), *N = t_var(tc, "N", TS_INT);
	Term *b = t_binder(tc, TS_INT);
	Term *xjk = t_tensor(tc, 0, "X", 2, (Term *[]){ j, k });
	Term *inner = t_red(tc, TK_SUM, b, t_int(tc, 0), N, t_abstract(tc, t_toreal(tc, xjk), &k, 1));
	CHECK(inner->a[3] == t_tensor(tc, 0, "X", 2, (Term *[]){ j, t_dbvar(tc, 0, TS_INT) }));
	/* binding j outside: j is index 1 inside the inner sum, never 0 (the inner k) */
	Term *outer = t_abstract(tc, inner, &j, 1);
	Term *want = t_tensor(tc, 0, "X", 2, (Term *[]){ t_dbvar(tc, 1, TS_INT), t_dbvar(tc, 0, TS_INT) });
	CHECK(outer->a[3] == want);
	/* the transpose X[k, j] binds differently: no confusion of the two */
	Term *xkj = t_tensor(tc, 0, "X", 2, (Term *[]){ k, j });
	Term *inner_t = t_red(tc, TK_SUM, b, t_int(tc, 0), N, t_abstract(tc, t_toreal(tc, xkj), &k, 1));
	CHECK(t_abstract(tc, inner_t, &j, 1) != outer);
	/* alpha-equivalence: another name for k gives the same term */
	Term *k2 = t_fresh(tc, TS_INT);
	Term *inner2 = t_red(tc, TK_SUM, b, t_int(tc, 0), N,
	                     t_abstract(tc, t_toreal(tc, t_tensor(tc, 0, "X", 2, (Term *[]){ j, k2 })), &k2, 1));
	CHECK(inner2 == inner);
	/* renumbering free indices: a swap of 0 and 1 under one binder */
	static const int swap[2] = { 1, 0 };
	Term *body = t_toreal(tc, want);   /* X[@1, @0] */
	CHECK(t_dbmap(tc, body, swap, 2, 0) ==
	      t_toreal(tc, t_tensor(tc, 0, "X", 2, (Term *[]){ t_dbvar(tc, 0, TS_INT), t_dbvar(tc, 1, TS_INT) })));
}

/* a file of functions for the checks below */
static const char *
write_program(void)
{
	static char path[] = "/tmp/axon_test_equiv_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	fputs("import numpy as np\n"
	      "def cat4(X: \"f32[M,8]\", Y: \"f32[M,8]\"):\n"
	      "    return np.concatenate([X[:, :4], Y], axis=1)[:, :4]\n"
	      "def head4(X: \"f32[M,8]\", Y: \"f32[M,8]\"):\n"
	      "    return X[:, :4]\n"
	      "def cat5(X: \"f32[M,8]\", Y: \"f32[M,8]\"):\n"
	      "    return np.concatenate([X[:, :4], Y], axis=1)[:, :5]\n"
	      "def head5(X: \"f32[M,8]\", Y: \"f32[M,8]\"):\n"
	      "    return X[:, :5]\n"
	      "def blow(A: \"f32[M,N]\", B: \"f32[M,N]\", C: \"f32[M,N]\", D: \"f32[M,N]\"):\n"
	      "    s = A + B + C + D\n"
	      "    return s * s * s * s * s * s * s\n"
	      "def blow2(A: \"f32[M,N]\", B: \"f32[M,N]\", C: \"f32[M,N]\", D: \"f32[M,N]\"):\n"
	      "    s = A + B + C + D\n"
	      "    return s * s * s * s * s * (s * s)\n"
	      "def hang_l(Z: \"f32[N,N]\", W: \"f32[N,N]\", X: \"f32[N,1]\"):\n"
	      "    return Z\n"
	      "def hang_r(Z: \"f32[N,N]\", W: \"f32[N,N]\", X: \"f32[N,1]\"):\n"
	      "    t0 = np.exp(W - X)\n"
	      "    return np.exp(np.max(W[:, :-1], axis=1)) / np.sum(t0.reshape(t0.shape[0], t0.shape[1] // 2, 2)"
	      ".sum(axis=2), axis=1, keepdims=True)\n"
	      "def hang2_l(X: \"f32[D,D]\", Z: \"f32[D,1]\"):\n"
	      "    return np.exp(X) / Z\n"
	      "def hang2_r(X: \"f32[D,D]\", Z: \"f32[D,1]\"):\n"
	      "    return np.exp(X) / np.sum(X.reshape(X.shape[0], X.shape[1] // 2, 2).sum(axis=2)[:, :-1], axis=1, keepdims=True)\n"
	      "def hang3_l(W: \"f32[N,2]\", U: \"f32[2,4]\", H: \"f32[4,4]\", P8: \"f32[4,2]\", P9: \"f32[6,1]\", X: \"f32[1,4]\"):\n"
	      "    return (W @ U) @ (np.concatenate([H, P8], axis=1) @ P9)\n"
	      "def hang3_r(W: \"f32[N,2]\", U: \"f32[2,4]\", H: \"f32[4,4]\", P8: \"f32[4,2]\", P9: \"f32[6,1]\", X: \"f32[1,4]\"):\n"
	      "    return np.maximum(W @ U, X) @ (np.concatenate([H, P8], axis=1) @ P9)\n",
	      f);
	fclose(f);
	return path;
}

static void
checks(void)
{
	const char *path = write_program();
	CHECK(path != NULL);
	if (!path)
		return;
	TermCtx *tc = tc_new(T);
	AxGraph *cat4 = frontend_read(T, tc, path, "cat4"), *head4 = frontend_read(T, tc, path, "head4");
	AxGraph *cat5 = frontend_read(T, tc, path, "cat5"), *head5 = frontend_read(T, tc, path, "head5");
	AxGraph *blow = frontend_read(T, tc, path, "blow"), *blow2 = frontend_read(T, tc, path, "blow2");
	CHECK(cat4 && head4 && cat5 && head5 && blow && blow2);
	if (!(cat4 && head4 && cat5 && head5 && blow && blow2)) {
		tc_free(tc);
		remove(path);
		return;
	}
	Equiv *q = equiv_new(T, tc, 10000);
	EquivResult r;
	/* 3: one pair of normal forms, two ranges: the first 4 columns of [X[:, :4], Y]
	 * are X's, the first 5 are not (column 4 is Y's first) */
	CHECK_INT(equiv_graphs(q, cat4, head4, &r), EQ_EQUIVALENT);
	int v = equiv_graphs(q, cat5, head5, &r);
	CHECK_MSG(v != EQ_EQUIVALENT, "cat5 and head5 proved: %s", r.reason);
	/* 4: (A+B+C+D)^7 has 4^7 monomials, past the product's budget */
	v = equiv_graphs(q, blow, blow2, &r);
	CHECK_MSG(v == EQ_NOT_PROVED && strstr(r.reason, "resource limit"), "blow: %d %s", v, r.reason);
	equiv_free(q);
	/* a time limit of 1 ms bounds the whole check, normal forms included */
	q = equiv_new(T, tc, 1);
	double t0 = ax_now_ms();
	v = equiv_graphs(q, blow, blow2, &r);
	CHECK_MSG(v != EQ_EQUIVALENT && ax_now_ms() - t0 < 2000, "1 ms limit: %d after %.0f ms: %s", v, ax_now_ms() - t0,
	          r.reason);
	equiv_free(q);
	/* a query Z3 does not stop by itself: the check still ends near its limit */
	static const char *const hang[3][2] = { { "hang_l", "hang_r" }, { "hang2_l", "hang2_r" }, { "hang3_l", "hang3_r" } };
	for (int i = 0; i < 3; i++) {
		AxGraph *hl = frontend_read(T, tc, path, hang[i][0]), *hr = frontend_read(T, tc, path, hang[i][1]);
		CHECK(hl && hr);
		if (!hl || !hr)
			continue;
		q = equiv_new(T, tc, 1500);
		equiv_runs_first(q, 0);   /* the runs would refute them before the solver is asked */
		t0 = ax_now_ms();
		v = equiv_graphs(q, hl, hr, &r);
		CHECK_MSG(v != EQ_EQUIVALENT && ax_now_ms() - t0 < 6000, "%s: %d after %.0f ms: %s", hang[i][1], v,
		          ax_now_ms() - t0, r.reason);
		equiv_free(q);
		/* and they are refuted so, with the counterexample the whole search would report */
		q = equiv_new(T, tc, 1500);
		t0 = ax_now_ms();
		EquivResult r2;
		int v2 = equiv_graphs(q, hl, hr, &r2);
		CHECK_MSG(v2 == EQ_NOT_EQUIVALENT && ax_now_ms() - t0 < 1000, "%s, runs first: %d after %.0f ms: %s",
		          hang[i][1], v2, ax_now_ms() - t0, r2.reason);
		CHECK_MSG(v != EQ_NOT_EQUIVALENT || strcmp(r.reason, r2.reason) == 0, "%s: '%s' then '%s'", hang[i][1],
		          r.reason, r2.reason);
		equiv_free(q);
	}
	tc_free(tc);
	remove(path);
}


/* a random integer term over sizes M and N (depth d) */
static Term *
rnd_int(TermCtx *tc, unsigned *seed, int d)
{
	static const TermKind op[] = { TK_ADD, TK_SUB, TK_MUL, TK_DIV, TK_MOD, TK_MAX, TK_MIN };
	int r = (int)(rand_r(seed) % (d > 0 ? 10u : 3u));
	if (r == 0)
		return t_var(tc, "M", TS_INT);
	if (r == 1)
		return t_var(tc, "N", TS_INT);
	if (r == 2)
		return t_int(tc, (int64_t)(rand_r(seed) % 300u) - 150);
	if (r == 3)
		return t_bin(tc, TK_SUB, t_int(tc, 0), rnd_int(tc, seed, d - 1));
	TermKind k = op[rand_r(seed) % 7u];
	Term *a = rnd_int(tc, seed, d - 1), *b = rnd_int(tc, seed, d - 1);
	if (k == TK_DIV || k == TK_MOD)   /* a divisor that is never 0: a constant of either sign */
		b = t_int(tc, (rand_r(seed) % 2u ? 1 : -1) * (int64_t)(1 + rand_r(seed) % 130u));
	return t_bin(tc, k, a, b);
}

static Term *
rnd_cond(TermCtx *tc, unsigned *seed, int d)
{
	static const TermKind cmp[] = { TK_LT, TK_LE, TK_EQ, TK_NE };
	int r = (int)(rand_r(seed) % (d > 0 ? 5u : 1u));
	if (r == 1 || r == 2)
		return t_bin(tc, r == 1 ? TK_AND : TK_OR, rnd_cond(tc, seed, d - 1), rnd_cond(tc, seed, d - 1));
	if (r == 3)
		return t_not(tc, rnd_cond(tc, seed, d - 1));
	return t_bin(tc, cmp[rand_r(seed) % 4u], rnd_int(tc, seed, 2), rnd_int(tc, seed, 2));
}

static void
witness(TermCtx *tc, Smt *smt)
{
	Term *M = t_var(tc, "M", TS_INT), *one = t_int(tc, 1);
	/* M % 128 == 0 and 1 <= M: M = 128 */
	CHECK(t_witness(t_bin(tc, TK_AND, t_bin(tc, TK_EQ, t_bin(tc, TK_MOD, M, t_int(tc, 128)), t_int(tc, 0)),
	                      t_bin(tc, TK_LE, one, M))));
	/* (0 - M) // 2 == 0 holds for no M >= 1 (floored; truncated, M = 1 would make it so) */
	CHECK(!t_witness(t_bin(tc, TK_EQ, t_bin(tc, TK_DIV, t_bin(tc, TK_SUB, t_int(tc, 0), M), t_int(tc, 2)),
	                       t_int(tc, 0))));
	/* (0 - M) % 3 == 2 at M = 1 (NumPy's %: the sign of the divisor) */
	CHECK(t_witness(t_bin(tc, TK_EQ, t_bin(tc, TK_MOD, t_bin(tc, TK_SUB, t_int(tc, 0), M), t_int(tc, 3)),
	                      t_int(tc, 2))));
	CHECK(!t_witness(t_bin(tc, TK_LT, M, t_int(tc, 0))));
	/* random conditions: a witness is never one Z3 refutes, and some are found (the solver
	 * alone: smt_prove would answer from the witnesses themselves) */
	smt_solver_only(smt, 1);
	unsigned seed = 7;
	int found = 0, bad = 0;
	Term *sizes = t_bin(tc, TK_AND, t_bin(tc, TK_LE, one, M), t_bin(tc, TK_LE, one, t_var(tc, "N", TS_INT)));
	for (int i = 0; i < 400; i++) {
		Term *c = rnd_cond(tc, &seed, 2);
		if (!t_witness(c))
			continue;
		found++;
		if (proves(smt, sizes, t_not(tc, c)))
			bad++;
	}
	CHECK(bad == 0);
	CHECK(found >= 50);
	printf("witness: %d of 400 random conditions with a witness, %d refuted by Z3\n", found, bad);
	/* random implications: a counterexample found without the solver is never to one Z3 proves,
	 * and Z3 finds one wherever the search does */
	int cex = 0, proved = 0;
	bad = 0;
	for (int i = 0; i < 400; i++) {
		Term *hyp = t_bin(tc, TK_AND, sizes, rnd_cond(tc, &seed, 1)), *goal = rnd_cond(tc, &seed, 2);
		char why[256];
		if (!t_counterexample(hyp, goal, why, sizeof why))
			continue;
		cex++;
		bad += strncmp(why, "counterexample:", 15) != 0;
		if (smt_prove(smt, hyp, goal, why, sizeof why)) {
			proved++;
			printf("  a counterexample to what Z3 proves: %s => %s\n", t_infix(tc, hyp), t_infix(tc, goal));
		}
	}
	CHECK(bad == 0);
	CHECK(proved == 0);
	CHECK(cex >= 50);
	printf("counterexample: %d of 400 random implications refuted without the solver, %d proved by Z3\n", cex,
	       proved);
	smt_solver_only(smt, 0);
}

/* counterexamples over indices (least values from the hypothesis: 0 <= i) and tensor elements
 * (every element one constant: a function the solver could choose): the checker's "is this
 * denominator always 0" and front-end size questions; never where Z3 proves the implication */
static void
counterexample(TermCtx *tc, Smt *smt)
{
	Term *M = t_var(tc, "M", TS_INT), *i = t_var(tc, "$i0", TS_INT), *zero = t_int(tc, 0), *one = t_int(tc, 1);
	Term *Hq = t_var(tc, "Hq", TS_INT), *Hkv = t_var(tc, "Hkv", TS_INT);
	Term *hyp = t_bin(tc, TK_AND, t_bin(tc, TK_LE, one, M),
	                  t_bin(tc, TK_AND, t_bin(tc, TK_LE, zero, i), t_bin(tc, TK_LT, i, M)));
	Term *x = t_tensor(tc, 0, "X", 1, &i), *rz = t_num(tc, 0, 1, TS_REAL), *two = t_num(tc, 2, 1, TS_REAL);
	Term *heads = t_bin(tc, TK_AND, t_bin(tc, TK_LE, one, Hq),
	                    t_bin(tc, TK_AND, t_bin(tc, TK_LE, one, Hkv),
	                          t_bin(tc, TK_EQ, t_bin(tc, TK_MUL, Hkv, t_bin(tc, TK_DIV, Hq, Hkv)), Hq)));
	struct {
		Term *hyp, *goal;
		int refuted;
		const char *what;
	} c[] = {
		{ hyp, t_bin(tc, TK_EQ, x, rz), 1, "X[i] == 0" },
		{ hyp, t_bin(tc, TK_EQ, t_bin(tc, TK_MUL, x, rz), rz), 0, "X[i] * 0 == 0" },
		{ hyp, t_bin(tc, TK_EQ, t_bin(tc, TK_ADD, x, x), t_bin(tc, TK_MUL, two, x)), 0, "X[i] + X[i] == 2 X[i]" },
		{ hyp, t_bin(tc, TK_EQ, t_bin(tc, TK_MUL, x, x), x), 1, "X[i] * X[i] == X[i] (not at X = 2)" },
		{ hyp, t_bin(tc, TK_LT, i, t_bin(tc, TK_ADD, M, one)), 0, "i < M + 1" },
		{ hyp, t_bin(tc, TK_LE, one, i), 1, "1 <= i (not at i = 0)" },
		{ heads, t_bin(tc, TK_EQ, Hq, Hkv), 1, "Hq == Hkv" },
		{ heads, t_bin(tc, TK_LE, Hkv, Hq), 0, "Hkv <= Hq" },
		{ heads, t_bin(tc, TK_EQ, t_bin(tc, TK_MOD, Hq, Hkv), zero), 0, "Hq % Hkv == 0" },
		{ heads, t_bin(tc, TK_EQ, t_bin(tc, TK_DIV, Hq, Hkv), one), 1, "Hq // Hkv == 1" },
	};
	smt_solver_only(smt, 1);
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		char why[256];
		int got = t_counterexample(c[k].hyp, c[k].goal, why, sizeof why);
		if (got != c[k].refuted)
			printf("  counterexample: %s: %d, expected %d\n", c[k].what, got, c[k].refuted);
		CHECK(got == c[k].refuted);
		CHECK(smt_prove(smt, c[k].hyp, c[k].goal, why, sizeof why) == !c[k].refuted);
	}
	smt_solver_only(smt, 0);
}

int
main(void)
{
	T = ax_find_target(NULL);
	TermCtx *tc = tc_new(T);
	Smt *smt = smt_new(T);
	floored(tc, smt);
	binding(tc);
	witness(tc, smt);
	counterexample(tc, smt);
	smt_free(smt);
	tc_free(tc);
	checks();
	return check_done();
}
