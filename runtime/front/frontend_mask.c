/*
 * frontend_mask.c — NumPy's bool arrays in the front end.
 *
 * A comparison gives NumPy a bool array; the graph holds it as 1.0 and 0.0.
 * Where NumPy promotes the bools to numbers (a mask times a float tensor, a
 * sum of a mask) or computes in bool with the values arithmetic gives on 0
 * and 1 (mask * mask, np.maximum of masks, a slice of a mask), the two
 * agree; where NumPy's bool arithmetic differs (mask + mask is a logical
 * or, mask @ mask too, -mask and mask - mask raise) the program is refused.
 * Which case applies is read off the op's element equation at the node,
 * not off its name: the operands that reach the value (not only a
 * condition), and whether that value stays in {0, 1} when the masks do.
 */
#include <string.h>
#include "fe.h"

int
fe_is_mask(Fe *fe, int node)
{
	return node >= 0 && node < fe->maskcap && fe->mask[node];
}

void
fe_set_mask(Fe *fe, int node, int v)
{
	if (node >= fe->maskcap) {
		int cap = fe->maskcap ? 2 * fe->maskcap : 64;
		while (cap <= node)
			cap *= 2;
		unsigned char *m = arena_alloc(fe->a, (size_t)cap);
		if (fe->maskcap)
			memcpy(m, fe->mask, (size_t)fe->maskcap);
		fe->mask = m;
		fe->maskcap = cap;
	}
	fe->mask[node] = (unsigned char)(v != 0);
}

static Term *
mask_access(TermCtx *c, void *env, int o, Term *const *idx, int n)
{
	(void)env;
	return t_tensor(c, o, "operand", n, idx);
}

/* counts the operand reads that reach t's value (not only a condition): of masks, of numbers */
static void
value_reads(Fe *fe, const AxNode *n, const Term *t, int cond, int *masks, int *nums)
{
	switch ((TermKind)t->kind) {
	case TK_TENSOR:
		if (!cond)
			(*(fe_is_mask(fe, n->in[t->id]) ? masks : nums))++;
		return;
	case TK_ITE:
		value_reads(fe, n, t->a[0], 1, masks, nums);
		value_reads(fe, n, t->a[1], cond, masks, nums);
		value_reads(fe, n, t->a[2], cond, masks, nums);
		return;
	case TK_LT: case TK_LE: case TK_EQ: case TK_NE: case TK_AND: case TK_OR: case TK_NOT:
		cond = 1;
		break;
	case TK_SUM: case TK_RMAX: case TK_RMIN:
		value_reads(fe, n, t->a[3], cond, masks, nums);
		return;
	case TK_FOLD:
		value_reads(fe, n, t->a[4], cond, masks, nums);
		value_reads(fe, n, t->a[5], cond, masks, nums);
		return;
	case TK_CALL: {
		const AxFn *fn = &fe->t->fns[t->id];
		if (fn->unfold) {
			value_reads(fe, n, fn->unfold(fe->tc, t->a), cond, masks, nums);
			return;
		}
		break;
	}
	default:
		break;
	}
	for (int i = 0; i < t->n; i++)
		value_reads(fe, n, t->a[i], cond, masks, nums);
}

/* t is 0 or 1 whenever the masks it reads are */
static int
zero_one(Fe *fe, const AxNode *n, const Term *t)
{
	switch ((TermKind)t->kind) {
	case TK_TENSOR:
		return fe_is_mask(fe, n->in[t->id]);
	case TK_NUM:
		return t->den == 1 && (t->num == 0 || t->num == 1);
	case TK_ITE:
		return zero_one(fe, n, t->a[1]) && zero_one(fe, n, t->a[2]);
	case TK_MUL: case TK_MAX: case TK_MIN:
		return zero_one(fe, n, t->a[0]) && zero_one(fe, n, t->a[1]);
	case TK_RMAX: case TK_RMIN:
		return zero_one(fe, n, t->a[3]);
	case TK_CALL: {
		const AxFn *fn = &fe->t->fns[t->id];
		return fn->unfold && zero_one(fe, n, fn->unfold(fe->tc, t->a));
	}
	default:
		return 0;
	}
}

/* Records whether node id (just added) holds a bool array in NumPy; refuses
 * the op when NumPy would compute it on bools with other values. */
void
fe_mark_mask(Fe *fe, int id, AxLoc loc)
{
	const AxNode *n = &fe->g->nodes[id];
	const AxOp *op = &fe->t->ops[n->op];
	fe_set_mask(fe, id, 0);
	if (op->nopnd == 0)
		return;   /* a Python number is no bool */
	AxSym s = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		s.rank[o] = n->in[o] >= 0 ? fe->g->nodes[n->in[o]].rank : -1;
		for (int d = 0; d < s.rank[o]; d++)
			s.dim[o][d] = fe->g->nodes[n->in[o]].dim[d];
	}
	memcpy(s.grank, n->grank, sizeof s.grank);
	memcpy(s.attr, n->attr, sizeof s.attr);
	memcpy(s.sattr, n->sattr, sizeof s.sattr);
	s.access = mask_access;
	Term *idx[AX_MAXR];
	char name[32];
	for (int d = 0; d < n->rank; d++) {
		snprintf(name, sizeof name, "%%mask_i%d", d);
		idx[d] = t_var(fe->tc, name, TS_INT);
	}
	Term *t = op->enc(fe->tc, &s, idx);
	int masks = 0, nums = 0;
	value_reads(fe, n, t, 0, &masks, &nums);
	if (nums)          /* NumPy promotes the bools to the numbers' type */
		return;
	if (!masks) {      /* a comparison: its value comes from conditions only */
		fe_set_mask(fe, id, zero_one(fe, n, t));
		return;
	}
	if (zero_one(fe, n, t)) {   /* bool in, bool out, the same values */
		fe_set_mask(fe, id, 1);
		return;
	}
	int64_t at[AX_MAXR];
	if (op->nopnd == 1 && !op->layout_only && fe_kept_axes(fe, n, at) > 0)
		return;    /* NumPy's reductions count bools as integers (a sum of a mask counts it) */
	fe_error(fe, loc, "%s of %s (a comparison's bools) is not supported: NumPy's result on bool arrays is not "
	         "the one on 1.0 and 0.0 (True + True is True, -mask raises, a float function of a mask is float16); "
	         "write mask * 1.0 to compute with numbers", op->name, masks > 1 ? "boolean masks" : "a boolean mask");
}

