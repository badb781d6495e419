/*
 * pipeline.c — a loop of each loop nest software-pipelined (one pass over
 * a candidate's statements, nest.h).
 *
 * Every engine runs its instructions in program order.  A loop body whose
 * second part waits for its first part's results on other engines keeps
 * the engines idle in turn: attention's row block makes its scores on one
 * engine, their softmax on two others, then P @ V on the first again, and
 * the next block's scores queue behind that.  An affine loop's iterations
 * are independent (none reads what another writes), so its body may be
 * split into a first stage A and a second B and run as
 *
 *     A(0); for i < n - 1: { A(i + 1); B(i) }; B(n - 1)
 *
 * which queues every engine's part of A(i + 1) before its part of B(i).
 * What A makes for B now lives across an iteration: a block buffer declared
 * in A and read in B gets a slot dim of 2 (A(i) writes slot i % 2), declared
 * before the loop, and the loop becomes sequential (its iterations share
 * the slots).  Refused: a loop whose body writes anything made outside it
 * (a running value across its iterations), a split after which B reads a
 * tile of A other than a block buffer declared at the top of A, or A reads
 * anything of B, or no engine works in both stages.  Of the splits left in
 * a loop nest the one whose stages' work (elements touched) is most even
 * is taken, one loop per nest; if the tiles then do not fit on chip, the
 * nest stays as it was.
 *
 * With `ahead`, A's fills (a block buffer A declares and fills right after
 * from off-chip tensors the nest does not write, read by A only: the
 * attention's Q^T of the next row block) go a further iteration ahead:
 *
 *     A(0); F(1); for i < n - 2: { F(i + 2); A'(i + 1); B(i) };
 *     A'(n - 1); B(n - 2); B(n - 1)
 *
 * A' being A without them, each such buffer given slots too.  The DMA
 * queues run in program order, so F(i + 1) at the top of the iteration
 * waited behind B(i - 1)'s stores, and those for B(i - 1)'s arithmetic:
 * the Tensor engine's next scores waited for the whole chain.  Loops of
 * fewer than 3 trips, and tiles that then do not fit, keep the plain form.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nest.h"

enum { MAXRING = 8 };

typedef struct Split {
	int loop, at;                      /* the loop; the first statement of B */
	int nring, ring[MAXRING];          /* block buffers of A that B reads: given slots */
	int nmove, move[MAXRING];          /* ... declared in A, used in B only: declared in B */
	int nfill, fill[MAXRING][2];       /* fills of A made a stage ahead (their first and last statements) */
	double score;
} Split;

/* Elements statement i touches per iteration of loop l around it, and its engine bit. */
static double
work(const Nest *ns, const int *up, int l, int i, uint32_t *eng)
{
	const NsStmt *s = &ns->s[i];
	double n = 0;
	int e = -1;
	if (s->kind == NS_INST) {
		n = (double)ax_numel(&s->shape);
		const AxOp *op = &ns->g->t->insts[s->inst];
		for (int o = 0; o < op->nopnd && o < AX_MAXOPND; o++)
			if (s->opnd[o].var != NS_NONE && (double)ax_numel(&s->opnd[o].shape) > n)
				n = (double)ax_numel(&s->opnd[o].shape);
		e = s->engine;
	} else if (s->kind == NS_STORE) {
		n = (double)ax_numel(&s->src.shape);
		e = ax_xfer_engine(ns->g->t);
	}
	if (e >= 0 && e < 32)
		*eng |= 1u << e;
	for (int k = up[i]; k >= 0 && k != l; k = up[k])
		n *= (double)ns->s[k].hi;
	return n;
}

/* Is statement i a definition of a variable (its number, else -1)? */
static int
defines(const NsStmt *s)
{
	return (s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 ? s->var : -1;
}

static int
has(const int *a, int n, int v)
{
	for (int k = 0; k < n; k++)
		if (a[k] == v)
			return 1;
	return 0;
}

/* The split of loop l before statement at (a statement of its body's top level): 1 if allowed. */
static int
try_split(Nest *ns, const int *up, const int *endof, const int *defat, int l, int at, Split *sp)
{
	int e = endof[l];
	*sp = (Split){ .loop = l, .at = at };
	uint32_t ea = 0, eb = 0;
	double wa = 0, wb = 0;
	for (int i = l + 1; i < e; i++) {
		NsStmt *s = &ns->s[i];
		if (i < at)
			wa += work(ns, up, l, i, &ea);
		else
			wb += work(ns, up, l, i, &eb);
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, s, r, wr);
		for (int k = 0; k < nr; k++) {
			int v = r[k]->var;
			if (v < 0 || v >= ns->nvars)
				continue;
			int d = defat[v];
			if (i < at && d >= at)
				return 0;   /* A reads what B makes */
			if (i < at || d >= at || d <= l)
				continue;
			/* B reads v of A: a block buffer declared at the top of A, given slots or moved */
			if (ns->s[d].kind != NS_BUF || up[d] != l || ns->s[d].onetile || ns->s[d].shape.rank + 1 > AX_MAXR)
				return 0;
			if (has(sp->ring, sp->nring, v) || has(sp->move, sp->nmove, v))
				continue;
			int inA = 0;
			for (int j = d + 1; j < at && !inA; j++) {
				NsRef *q[AX_MAXOPND + 2];
				int wq[AX_MAXOPND + 2], nq = nest_refs(ns, &ns->s[j], q, wq);
				for (int m = 0; m < nq; m++)
					inA |= q[m]->var == v;
			}
			if (inA && sp->nring < MAXRING)
				sp->ring[sp->nring++] = v;
			else if (!inA && sp->nmove < MAXRING)
				sp->move[sp->nmove++] = v;
			else
				return 0;
		}
	}
	if (!sp->nring || !(ea & eb))
		return 0;
	sp->score = wa < wb ? wa : wb;
	return 1;
}

/* May loop l be pipelined at all: affine, two iterations or more, its body writing nothing made
 * outside it and declaring no tensor or size? */
static int
loop_ok(const Nest *ns, const int *defat, const int *endof, int l)
{
	const NsStmt *L = &ns->s[l];
	if (L->kind != NS_LOOP || L->seq || L->hi < 2 || endof[l] < 0)
		return 0;
	for (int i = l + 1; i < endof[l]; i++) {
		NsStmt *s = &ns->s[i];
		if (s->kind == NS_TENSOR || s->kind == NS_VIEW || s->kind == NS_SIZE || (s->kind == NS_LOOP && s->piped))
			return 0;
		NsRef *r[AX_MAXOPND + 2];
		int wr[AX_MAXOPND + 2], nr = nest_refs(ns, s, r, wr);
		for (int k = 0; k < nr; k++)
			if (wr[k] && r[k]->var >= 0 && r[k]->var < ns->nvars && defat[r[k]->var] <= l)
				return 0;
	}
	return 1;
}

/* A copy of statement s: loop variable lv replaced by `with` (NULL: kept), variables renamed by
 * map (-1: kept), references to the slotted buffers at slot `slot`; 0 if an index does not fit. */
static int
copy_stmt(const Nest *ns, const int *defat, const NsStmt *s, NsStmt *o, int ddepth, const char *lv, const char *with,
          const int *map, const Split *sp, const char *slot)
{
	*o = *s;
	o->depth += ddepth;
	int d = defines(o);
	if (d >= 0 && map && map[d] >= 0)
		o->var = map[d];
	NsRef *r[AX_MAXOPND + 2];
	int wr[AX_MAXOPND + 2], nr = nest_refs(ns, o, r, wr);
	for (int k = 0; k < nr; k++) {
		NsRef *x = r[k];
		for (int q = 0; with && q < x->nidx; q++)
			if (nest_subst_var(x->idx[q].start, sizeof x->idx[q].start, lv, with) != 0 ||
			    (x->idx[q].fold > 0 && nest_subst_var(x->idx[q].fin, sizeof x->idx[q].fin, lv, with) != 0))
				return 0;
		if (x->var >= 0 && has(sp->ring, sp->nring, x->var)) {
			NsStmt ch = { .kind = NS_LOOP };
			snprintf(ch.name, sizeof ch.name, "%s", slot);
			const NsStmt *chain[1] = { &ch };
			int v = x->var, at = v < ns->nvars ? defat[v] : -1;
			AxShape whole = at >= 0 && ns->s[at].kind == NS_BUF ? ns->s[at].shape : x->shape;
			*x = nest_chain_ref(x, v, chain, 1, &whole);
		}
		if (x->var >= 0 && map && map[x->var] >= 0)
			x->var = map[x->var];
	}
	return 1;
}

/* Is statement i a declaration of a slotted or a moved buffer (made before the loop, or in B)? */
static int
set_aside(const Nest *ns, const Split *sp, int i)
{
	return ns->s[i].kind == NS_BUF && (has(sp->ring, sp->nring, ns->s[i].var) || has(sp->move, sp->nmove, ns->s[i].var));
}

/* Stage A's and B's statements of the loop body's top level into o (at *no): all of A and then
 * B, or (interleave) one of each in turn, each with what it holds.  A's are copied with the loop
 * variable as awith (slots aslot, variables renamed by amap), B's as bwith (bslot, bmap); the
 * slotted buffers' and moved buffers' declarations and the fills (fill[]) are left out. */
static int
body(Nest *ns, const int *endof, const int *defat, const Split *sp, int interleave, const char *fill, int ddepth,
     const char *awith, const char *aslot, const int *amap, const char *bwith, const char *bslot, const int *bmap,
     NsStmt *o, int *no)
{
	const NsStmt *L = &ns->s[sp->loop];
	int l = sp->loop, e = endof[l], at = sp->at, ok = 1;
	for (int pa = l + 1, pb = at; ok && (pa < at || pb < e);) {
		while (pa < at && (set_aside(ns, sp, pa) || fill[pa]))
			pa++;
		if (pa < at) {
			int qa = ns->s[pa].kind == NS_LOOP ? endof[pa] : pa;
			for (; pa <= qa && ok; pa++)
				ok = copy_stmt(ns, defat, &ns->s[pa], &o[(*no)++], ddepth, L->name, awith, amap, sp, aslot);
		}
		if (pb < e && (!interleave ? pa >= at : 1)) {
			int qb = ns->s[pb].kind == NS_LOOP ? endof[pb] : pb;
			for (; pb <= qb && ok; pb++)
				ok = copy_stmt(ns, defat, &ns->s[pb], &o[(*no)++], ddepth, L->name, bwith, bmap, sp, bslot);
		}
	}
	return ok;
}

/* The fills of A (statements fill[] marks) into o at *no, loop variable as `with`, slots `slot`. */
static int
fills(Nest *ns, const int *defat, const Split *sp, const char *fill, const char *with, const char *slot,
      const int *map, int ddepth, NsStmt *o, int *no)
{
	int ok = 1;
	for (int i = sp->loop + 1; i < sp->at && ok; i++)
		if (fill[i])
			ok = copy_stmt(ns, defat, &ns->s[i], &o[(*no)++], ddepth, ns->s[sp->loop].name, with, map, sp, slot);
	return ok;
}

/* The nest with sp applied into o (room for 3 * n statements): how many, 0 if it cannot be.
 * Without fills, A(0); for i < n - 1: {A(i + 1); B(i)}; B(n - 1).  With them (sp->nfill, the
 * buffers among sp->ring), each fill F made a stage ahead of the rest of A, A':
 * A(0); F(1); for i < n - 2: {F(i + 2); A'(i + 1); B(i)}; A'(n - 1); B(n - 2); B(n - 1). */
static int
apply(Nest *ns, const int *endof, const int *defat, const Split *sp, int interleave, NsStmt *o, int *nvars)
{
	const NsStmt *L = &ns->s[sp->loop];
	int l = sp->loop, e = endof[l], at = sp->at, no = 0, nv = ns->nvars, nf = sp->nfill;
	char next[64], ahead[64], last[24], s0[24], s1[64], s2[64], s3[24], one[24], pa[24], pb[24], sa[24], sb[24];
	snprintf(next, sizeof next, "(%s + 1)", L->name);
	snprintf(ahead, sizeof ahead, "(%s + 2)", L->name);
	snprintf(last, sizeof last, "%lld", (long long)(L->hi - 1));
	snprintf(s0, sizeof s0, "0");
	snprintf(one, sizeof one, "1");
	snprintf(s1, sizeof s1, "(%s + 1) %% 2", L->name);
	snprintf(s2, sizeof s2, "%s %% 2", L->name);
	snprintf(s3, sizeof s3, "%lld", (long long)((L->hi - 1) % 2));
	snprintf(pa, sizeof pa, "%lld", (long long)(L->hi - 1));   /* the peeled iteration: A'(n - 1), B(n - 2) */
	snprintf(pb, sizeof pb, "%lld", (long long)(L->hi - 2));
	snprintf(sa, sizeof sa, "%lld", (long long)((L->hi - 1) % 2));
	snprintf(sb, sizeof sb, "%lld", (long long)((L->hi - 2) % 2));
	if (strlen(s1) >= sizeof L->name || strlen(next) >= sizeof L->name || strlen(ahead) >= sizeof L->name)
		return 0;
	char *fill = calloc((size_t)ns->n, 1);
	int *map[5];   /* A(0), B(n - 1), F(1), A'(n - 1), B(n - 2): their own variables */
	for (int k = 0; k < 5; k++)
		if (!(map[k] = malloc(sizeof(int) * (size_t)ns->nvars)))
			ax_die("out of memory");
	if (!fill)
		ax_die("out of memory");
	for (int k = 0; k < nf; k++)
		for (int i = sp->fill[k][0]; i <= sp->fill[k][1]; i++)
			fill[i] = 1;
	for (int v = 0; v < ns->nvars; v++) {
		int d = defat[v], ring = has(sp->ring, sp->nring, v);
		int inA = d > l && d < at && !ring, inB = (d >= at && d < e) || (d > l && d < at && has(sp->move, sp->nmove, v));
		map[0][v] = inA ? nv++ : -1;
		map[1][v] = inB ? nv++ : -1;
		map[2][v] = nf && inA && fill[d] ? nv++ : -1;
		map[3][v] = nf && inA && !fill[d] ? nv++ : -1;
		map[4][v] = nf && inB ? nv++ : -1;
	}
	int ok = 1;
	for (int i = 0; i < l; i++)
		o[no++] = ns->s[i];
	for (int k = 0; k < sp->nring; k++) {   /* the slotted buffers, before the loop */
		NsStmt *b = &o[no++];
		*b = ns->s[defat[sp->ring[k]]];
		b->depth = L->depth;
		for (int q = b->shape.rank; q > 1; q--)
			b->shape.d[q] = b->shape.d[q - 1];
		b->shape.d[1] = 2;
		b->shape.rank++;
	}
	/* A(0), then F(1) */
	for (int i = l + 1; i < at && ok; i++)
		if (!set_aside(ns, sp, i))
			ok = copy_stmt(ns, defat, &ns->s[i], &o[no++], -1, L->name, s0, map[0], sp, s0);
	if (nf && ok)
		ok = fills(ns, defat, sp, fill, one, one, map[2], -1, o, &no);
	o[no] = *L;
	o[no].hi = L->hi - 1 - (nf > 0);
	o[no].seq = 1;
	o[no++].piped = 1;
	/* F(i + 2), A(i + 1) and B(i) (the buffers moved into it declared first): all of A first, or
	 * their statements of the body's top level taken in turn, each with what it holds, so that
	 * each engine alternates between the two iterations */
	for (int k = 0; k < sp->nmove; k++)
		o[no++] = ns->s[defat[sp->move[k]]];
	if (nf && ok)
		ok = fills(ns, defat, sp, fill, ahead, s2, NULL, 0, o, &no);
	ok = ok && body(ns, endof, defat, sp, interleave, fill, 0, next, s1, NULL, NULL, s2, NULL, o, &no);
	o[no++] = ns->s[e];
	/* A'(n - 1) and B(n - 2), as in the loop */
	for (int k = 0; k < sp->nmove && nf && ok; k++)
		ok = copy_stmt(ns, defat, &ns->s[defat[sp->move[k]]], &o[no++], -1, L->name, pb, map[4], sp, sb);
	if (nf && ok)
		ok = body(ns, endof, defat, sp, interleave, fill, -1, pa, sa, map[3], pb, sb, map[4], o, &no);
	/* B(n - 1) */
	for (int k = 0; k < sp->nmove && ok; k++)
		ok = copy_stmt(ns, defat, &ns->s[defat[sp->move[k]]], &o[no++], -1, L->name, last, map[1], sp, s3);
	for (int i = at; i < e && ok; i++)
		ok = copy_stmt(ns, defat, &ns->s[i], &o[no++], -1, L->name, last, map[1], sp, s3);
	for (int i = e + 1; i < ns->n; i++)
		o[no++] = ns->s[i];
	for (int k = 0; k < 5; k++)
		free(map[k]);
	free(fill);
	*nvars = nv;
	return ok ? no : 0;
}

/* The fills of A a stage ahead (apply): a block buffer A declares at its body's top level and
 * fills right after from off-chip tensors the loop nest does not write (nest_fill), read by A
 * only, the fill's own values read nowhere else; given slots (sp->ring).  None for a loop of
 * fewer than 3 trips. */
static void
find_fills(Nest *ns, const int *up, const int *endof, const int *defat, Split *sp)
{
	int l = sp->loop, e = endof[l], at = sp->at;
	sp->nfill = 0;
	if (ns->s[l].hi < 3)
		return;
	int *wrote = calloc((size_t)ns->g->nnodes + 1, sizeof(int));
	if (!wrote)
		ax_die("out of memory");
	nest_written(ns, l, e, wrote);
	for (int d = l + 1; d < at && sp->nring < MAXRING; d++) {
		const NsStmt *b = &ns->s[d];
		if (b->kind != NS_BUF || up[d] != l || b->onetile || b->shape.rank + 1 > AX_MAXR || set_aside(ns, sp, d))
			continue;
		int q = nest_fill(ns, endof, d, l + 1, e - 1, wrote), ok = q > d && q < at;
		for (int i = l + 1; i < e && ok; i++) {
			NsRef *r[AX_MAXOPND + 2];
			int wr[AX_MAXOPND + 2], nr = nest_refs(ns, &ns->s[i], r, wr);
			for (int k = 0; k < nr && ok; k++) {
				int v = r[k]->var;
				ok = !(v == b->var && i >= at) &&   /* read by B */
				     !(v >= 0 && v < ns->nvars && defat[v] > d && defat[v] <= q && (i < d || i > q));
			}
		}
		if (!ok)
			continue;
		sp->fill[sp->nfill][0] = d + 1;
		sp->fill[sp->nfill++][1] = q;
		sp->ring[sp->nring++] = b->var;
	}
	free(wrote);
}

/* The best split of a loop in the nest [a, e] (0 if none). */
static int
best_split(Nest *ns, const int *up, const int *endof, const int *defat, int a, int e, Split *best)
{
	int found = 0;
	for (int l = a; l <= e; l++) {
		if (!loop_ok(ns, defat, endof, l))
			continue;
		for (int at = l + 2; at < endof[l]; at++) {   /* B starts at a statement of the body's top level */
			if (up[at] != l || ns->s[at].kind == NS_END)
				continue;
			Split sp;
			if (try_split(ns, up, endof, defat, l, at, &sp) && (!found || sp.score > best->score)) {
				*best = sp;
				found = 1;
			}
		}
	}
	return found;
}

int
nest_pipeline(Nest *ns, int interleave, int ahead, int *nahead)
{
	int done = 0;
	*nahead = 0;
	for (int a = 0; a < ns->n; a++) {
		if (ns->s[a].kind != NS_LOOP || ns->s[a].depth != 0)
			continue;
		int n = ns->n;
		int *up = malloc(sizeof(int) * (size_t)n), *endof = malloc(sizeof(int) * (size_t)n);
		int *defat = malloc(sizeof(int) * (size_t)(ns->nvars + 1));
		if (!up || !endof || !defat)
			ax_die("out of memory");
		nest_loops(ns, up, endof);
		for (int v = 0; v < ns->nvars; v++)
			defat[v] = -1;
		for (int i = 0; i < n; i++) {
			int d = defines(&ns->s[i]);
			if (d >= 0 && d < ns->nvars && defat[d] < 0)
				defat[d] = i;
		}
		int e = endof[a] < 0 ? n - 1 : endof[a];
		Split sp;
		if (best_split(ns, up, endof, defat, a, e, &sp)) {
			NsStmt *o = malloc(sizeof *o * (size_t)(3 * n + MAXRING));
			if (!o)
				ax_die("out of memory");
			Split fa = sp;
			if (ahead)
				find_fills(ns, up, endof, defat, &fa);
			for (int k = ahead && fa.nfill ? 0 : 1; k < 2; k++) {   /* with the fills ahead, else without */
				int nv, no = apply(ns, endof, defat, k ? &sp : &fa, interleave, o, &nv);
				if (no && nest_install(ns, o, no, nv)) {
					e += no - n;
					done++;
					*nahead += !k;
					break;
				}
			}
			free(o);
		}
		free(up), free(endof), free(defat);
		a = e;
	}
	return done;
}
