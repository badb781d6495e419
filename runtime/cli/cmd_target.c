/*
 * cmd_target.c — the commands about the target itself, from its generated
 * tables: targets, target, ops, insts, show NAME, demo.
 */
#include <stdio.h>
#include "cli.h"

static void
list_ops(const AxOp *v, int n)
{
	for (int i = 0; i < n; i++)
		printf("%-24s %s\n", v[i].name, v[i].sig);
}

static void
show(const AxTarget *t, const AxOp *op)
{
	printf("%s\n  defined at %s\n", op->sig, op->loc);
	printf("  element:   %s\n", op->body_src);
	if (op->limits_src && *op->limits_src)
		printf("  requires:  %s\n", op->limits_src);
	if (op->cost_src)
		printf("  cost:      %s\n", op->cost_src);
	printf("  granular:  ");
	for (int i = 0; op->gran[i]; i++)
		printf("%s%s", i ? ", " : "", op->gran[i]);
	printf("%s\n", op->layout_only ? "(moves data only)" : "");
	if (op->engines) {
		printf("  engines:  ");
		for (int e = 0; e < t->nengines; e++)
			if (op->engines & (1u << e))
				printf(" %s", t->engines[e].name);
		printf("\n");
		/* the memories per engine, as its reads(...) and writes(...) narrow them */
		for (int e = 0; e < t->nengines && op->is_inst; e++) {
			if (!(op->engines & (1u << e)))
				continue;
			printf("  on %-8s", t->engines[e].name);
			for (int o = 0; o <= op->nopnd; o++) {
				uint32_t m = ax_inst_mems(t, op, o < op->nopnd ? o : -1, 1u << e);
				printf("%s%s ", o == op->nopnd ? "-> " : "", o < op->nopnd ? op->opnd[o].name : "result");
				for (int k = 0, n = 0; k < t->nmems; k++)
					if (m & (1u << k))
						printf("%s%s", n++ ? "|" : "", t->mems[k].name);
				printf("%s", o + 1 < op->nopnd ? ", " : o < op->nopnd ? " " : "");
			}
			if (op->apart_opnds) {
				printf("; at most one of");
				for (int o = 0; o < op->nopnd; o++)
					if (op->apart_opnds & (1u << o))
						printf(" %s", op->opnd[o].name);
				for (int k = 0; k < t->nmems; k++)
					if (op->apart_mems & (1u << k))
						printf(" in %s", t->mems[k].name);
			}
			printf("\n");
		}
	}
	for (int a = 0; a < op->nattr; a++) {
		const AxAttr *at = &op->attr[a];
		printf("  attribute %s:", at->name);
		if (at->kind == AX_ATTR_ENUM) {
			const AxEnum *en = &t->enums[at->enum_id];
			for (int k = 0; k < en->nitems; k++)
				printf(" %s", en->items[k]);
		} else
			printf(" %s", at->kind == AX_ATTR_SIZE ? "size" : "float");
		printf("\n");
	}
	if (op->emit)
		printf("  emit:      %s\n", op->emit);
}

/* A symbolic instance whose operands are input tensors named after them. */
static Term *
access_input(TermCtx *c, void *env, int o, Term *const *idx, int n)
{
	const AxOp *op = env;
	return t_tensor(c, o, op->opnd[o].name, n, idx);
}

/* A symbolic instance of op with every group of rank 0 and named sizes. */
static void
sym_instance(TermCtx *tc, const AxOp *op, AxSym *s)
{
	static const AxSym zero;
	char name[32];
	*s = zero;
	s->access = access_input;
	s->env = (void *)op;
	for (int o = 0; o < op->nopnd; o++) {
		s->rank[o] = op->opnd[o].nfixed;
		for (int d = 0; d < s->rank[o]; d++) {
			snprintf(name, sizeof name, "%s%d", op->opnd[o].name, d);
			s->dim[o][d] = t_var(tc, name, TS_INT);
		}
	}
}

/* demo: the generated tables on the first two-operand op whose element is a
 * reduction, symbolically and on numbers.  It exercises the spec layer only,
 * and says so. */
static int
demo(const AxTarget *t)
{
	printf("axonc demo: the generated target's tables at work, the spec layer alone (`make demo` runs\n"
	       "the whole pipeline on an example).\n\n");
	ax_print_target(stdout, t);
	TermCtx *tc = tc_new(t);
	const AxOp *op = NULL;
	AxSym s;
	Term *out[AX_MAXR], *idx[AX_MAXR], *elem = NULL;
	int r = 0;
	char name[32];
	for (int i = 0; i < t->nops && !op; i++) {
		if (t->ops[i].nopnd != 2 || t->ops[i].nattr != 0)
			continue;
		sym_instance(tc, &t->ops[i], &s);
		r = t->ops[i].shape(tc, &s, out);
		for (int d = 0; d < r; d++) {
			snprintf(name, sizeof name, "i%d", d);
			idx[d] = t_var(tc, name, TS_INT);
		}
		elem = t->ops[i].enc(tc, &s, idx);
		if (elem->kind == TK_SUM)
			op = &t->ops[i];
	}
	if (!op) {
		printf("\n(no two-operand reduction op to demonstrate)\n");
		tc_free(tc);
		return 0;
	}
	printf("\n%s\n  element: %s\n", op->sig, op->body_src);
	printf("  precondition term: %s\n", t_str(tc, op->pre(tc, &s)));
	printf("  result shape: [");
	for (int d = 0; d < r; d++)
		printf("%s%s", d ? ", " : "", t_str(tc, out[d]));
	printf("]\n  element term at [i0, ...]: %s\n", t_str(tc, elem));
	tc_free(tc);

	AxConc c = { 0 };
	c.nopnd = op->nopnd;
	int64_t n = 3;
	float data[2][64];
	const float *in[2] = { data[0], data[1] };
	for (int o = 0; o < op->nopnd; o++) {
		c.rank[o] = op->opnd[o].nfixed;
		int64_t numel = 1;
		for (int d = 0; d < c.rank[o]; d++) {
			c.dim[o][d] = n;
			numel *= n;
		}
		for (int64_t k = 0; k < numel && k < 64; k++)
			data[o][k] = (float)(k + 1);
	}
	AxShape os;
	char err[256];
	float res[64];
	if (op->check(&c, &os, err, sizeof err) || ax_numel(&os) > 64 || op->ref(&c, in, res, err, sizeof err)) {
		printf("  reference kernel: %s\n", err);
		return 1;
	}
	printf("  reference kernel, both operands %lldx%lld holding 1, 2, 3, ...:", (long long)n, (long long)n);
	for (int64_t k = 0; k < ax_numel(&os); k++)
		printf(" %g", res[k]);
	printf("\n");
	return 0;
}

int
cmd_targets(const AxTarget *t, const Opts *o)
{
	(void)t;
	(void)o;
	int several = ax_targets[0] && ax_targets[1];   /* then the default is marked */
	for (int i = 0; ax_targets[i]; i++)
		printf("%s%s\n", ax_targets[i]->name, several && ax_targets[i] == ax_default_target ? " (default)" : "");
	return 0;
}

int
cmd_target(const AxTarget *t, const Opts *o)
{
	(void)o;
	ax_print_target(stdout, t);
	return 0;
}

int
cmd_ops(const AxTarget *t, const Opts *o)
{
	(void)o;
	list_ops(t->ops, t->nops);
	return 0;
}

int
cmd_insts(const AxTarget *t, const Opts *o)
{
	(void)o;
	list_ops(t->insts, t->ninsts);
	return 0;
}

int
cmd_show(const AxTarget *t, const Opts *o)
{
	const char *arg = o->nargs ? o->args[0] : NULL;
	if (!arg)
		return fail("%s needs an op or instruction name", "show");
	const AxOp *op = ax_find_op(t, arg);
	const AxOp *in = ax_find_inst(t, arg);
	if (!op && !in)
		return fail("no op or instruction '%s' (see 'axonc ops', 'axonc insts')", arg);
	if (op)
		show(t, op);
	if (in)
		show(t, in);
	return 0;
}

int
cmd_demo(const AxTarget *t, const Opts *o)
{
	(void)o;
	return demo(t);
}
