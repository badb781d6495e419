/*
 * copies.c — the target's copy instructions: which instructions copy a
 * tile (their semantics are their operand), and of the copies between the
 * same memories which one synthesis and the moves use (lower.c, synth.c;
 * back/balance.c places copies on the others).
 */
#include "search.h"

Term *
lower_read_input(TermCtx *tc, void *env, int o, Term *const *idx, int n)
{
	(void)env;
	return t_tensor(tc, o, o ? "@b" : "@a", n, idx);
}

int
lower_is_copy(const AxTarget *t, TermCtx *tc, int inst)
{
	const AxOp *in = &t->insts[inst];
	/* a copy of [P, F] tiles (groups, as in [par P, ...F], are inferred from the rank: it copies
	 * tiles of more free axes too) */
	if (in->nopnd != 1 || in->nattr || !in->layout_only || in->opnd[0].nfixed > 2 ||
	    (in->opnd[0].nfixed < 2 && !in->opnd[0].groups))
		return 0;
	AxSym s = { 0 };
	s.rank[0] = 2;
	s.dim[0][0] = t_var(tc, "@P", TS_INT);
	s.dim[0][1] = t_var(tc, "@F", TS_INT);
	s.access = lower_read_input;
	Term *idx[2] = { t_var(tc, "@p", TS_INT), t_var(tc, "@f", TS_INT) };
	return in->enc(tc, &s, idx) == t_tensor(tc, 0, "@a", 2, idx);
}

static int
bits(uint32_t m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

static int copy_root(const AxTarget *t, TermCtx *tc, int i);

/* a property of the target alone, asked per synthesis and per candidate: found once per target
 * (axonc runs one thread; a new target starts the table again) */
int
lower_copy_root(const AxTarget *t, TermCtx *tc, int i)
{
	static const AxTarget *of;
	static int *root, n;
	if (i < 0 || i >= t->ninsts)
		return -1;
	if (of != t || n < t->ninsts) {
		free(root);
		n = t->ninsts;
		if (!(root = malloc(sizeof *root * (size_t)n)))
			ax_die("out of memory");
		for (int k = 0; k < n; k++)
			root[k] = -2;
		of = t;
	}
	if (root[i] == -2)
		root[i] = copy_root(t, tc, i);
	return root[i];
}

static int
copy_root(const AxTarget *t, TermCtx *tc, int i)
{
	if (!lower_is_copy(t, tc, i))
		return -1;
	const AxOp *a = &t->insts[i];
	int root = i;
	for (int j = 0; j < t->ninsts; j++) {
		const AxOp *b = &t->insts[j], *r = &t->insts[root];
		int nb = bits(b->engines), nr = bits(r->engines);
		if (j != i && a->opnd[0].mems == b->opnd[0].mems && a->out_mems == b->out_mems &&
		    (nb > nr || (nb == nr && j < root)) && lower_is_copy(t, tc, j))
			root = j;
	}
	return root;
}
