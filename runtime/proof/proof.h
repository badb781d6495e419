/*
 * proof.h — the proof stage (runtime/proof/): is one computation the other,
 * for every size?  Takes graphs (core) and terms; gives verdicts with what
 * they assume (equiv.c, the checker), normal forms of element terms
 * (canon*.c), and the one boundary to Z3 (smt.c), also for questions about
 * sizes.  Every stage above it asks it; it asks none of them.
 */
#ifndef AXON_PROOF_H
#define AXON_PROOF_H
#include "axon.h"

/* ---- canon.c: normal forms of element terms --------------------------------- */
typedef struct Canon Canon;
Canon *canon_new(TermCtx *tc, const AxTarget *t);
void canon_free(Canon *c);
void canon_range(Canon *c, Term *index, Term *hi);    /* index ranges over [0, hi) */
void canon_deadline(Canon *c, double deadline_ms);    /* gives up past ax_now_ms() == deadline */
/* facts about sizes it may ask (lo <= s <= hi to split a sum); 1 = proved */
void canon_prover(Canon *c, int (*prove)(void *env, Term *goal), void *env);
Term *canon_term(Canon *c, Term *t);
int canon_overflowed(const Canon *c);                 /* then nothing it made may be trusted */
const char *canon_why(const Canon *c);                /* why, when it overflowed */
int canon_denominators(const Canon *c, Term *const **dens);  /* non-constant real divisors met */

/* ---- equiv.c: the equivalence checker ------------------------------------------ */
/* verdicts: EQ_ERROR, the pair is no question (its parameters do not line up,
 * its assumptions contradict); EQ_INTERNAL, a proof the spot check refuted (a
 * bug of the checker, reported on stderr, never a verdict to act on) */
enum { EQ_INTERNAL = -3, EQ_ERROR = -2, EQ_NOT_EQUIVALENT = -1, EQ_NOT_PROVED = 0, EQ_EQUIVALENT = 1 };
typedef struct EquivResult {
	int verdict;             /* EQ_* */
	char reason[1024];
	/* with equiv_report(q, 1), in the TermCtx's arena: */
	int nassume;             /* what the proof assumed: "M >= 1", "D % 2 == 0 (rhs)", "Y[i0, i1] != 0" */
	const char *assume[64];
	const char *explain;     /* the normal forms compared, output by output, or where they first differ */
	int spot_runs;           /* runs of the spot check behind "equivalent" (0: none was possible) */
} EquivResult;
Equiv *equiv_new(const AxTarget *t, TermCtx *tc, int timeout_ms);
void equiv_free(Equiv *q);
void equiv_report(Equiv *q, int on);                   /* fill EquivResult's texts */
/* on (the default): the first runs of the counterexample search before the main proof goes
 * to Z3; off: Z3 first (tests/unit/test_equiv.c reaches the prover's time limit so) */
void equiv_runs_first(Equiv *q, int on);
/* Do a and b compute the same outputs for every size?  Parameters line up by
 * position, sizes by the rule of equiv_sides.c; a proof holds under both
 * sides' assumptions and non-zero denominators (listed with equiv_report);
 * --timeout-ms bounds the whole check.  Both graphs live in q's TermCtx. */
int equiv_graphs(Equiv *q, const AxGraph *a, const AxGraph *b, EquivResult *r);
typedef struct EquivStats {
	int checks, hits;        /* checks asked; answered by the verdict cache */
	int spot_run, spot_none; /* proofs the spot check ran both sides behind; proofs it could not run */
} EquivStats;
void equiv_stats(const Equiv *q, EquivStats *st);
void equiv_clear_cache(Equiv *q);
Smt *equiv_smt(Equiv *q);                             /* its solver, for shape questions */

/* ---- smt.c: the Z3 boundary ------------------------------------------------ */
Smt *smt_new(const AxTarget *t);
void smt_free(Smt *s);
void smt_set_timeout(Smt *s, int ms);                  /* per query; 0: none */
/* on: every question to the solver, none answered by a witness (smt_witness.c) or from the
 * memo (tests/unit/test_equiv.c checks the witnesses against the solver so); off: the default */
void smt_solver_only(Smt *s, int on);
/* 1 if hyp => goal for all values of the free variables; else 0 and why */
int smt_prove(Smt *s, Term *hyp, Term *goal, char *why, size_t n);
/* the same in a child process killed at the time limit (Z3 4.8 does not always stop
 * by itself on nonlinear queries with fns); the checker's computation condition */
int smt_prove_isolated(Smt *s, Term *hyp, Term *goal, char *why, size_t n);
/* 1 if t can be true; 0 if not or unknown */
int smt_satisfiable(Smt *s, Term *t, char *why, size_t n);
/* smt_witness.c: 1 if the boolean t is true with every size at one of a few values, evaluated
 * exactly as translated for Z3 (a model: t is satisfiable); 0 says nothing */
int t_witness(const Term *t);
/* ... and 1 if some such assignment makes hyp (NULL: true) true and goal false: a
 * counterexample, written into why as the solver would ("counterexample: M -> 3, N -> 1") */
int t_counterexample(const Term *hyp, const Term *goal, char *why, size_t n);

/* a size or condition term with maxof/minof decided wherever the sizes allowed by hyp
 * decide them (broadcasting leaves maxof(M, M), maxof(N, 1)) */
Term *size_simplify(Smt *smt, TermCtx *tc, Term *hyp, Term *t);

#endif
