/*
 * axonc.c — the command-line driver.
 *
 * Commands land here as the pipeline grows (DESIGN.md, "Data flow").  What
 * exists today is the spec layer: the targets this build was generated for,
 * their operators and instructions, and a demo that exercises the generated
 * tables end to end (preconditions, shapes, encoders, reference kernels).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "axon.h"
#include "cli.h"

static const char usage[] =
	"usage: axonc COMMAND [OPTIONS]\n"
	"\n"
	"commands:\n"
	"  targets                 list the targets built into this axonc\n"
	"  target                  summarise a target: engines, memories, counts\n"
	"  ops                     list the operators (specs/) with signatures\n"
	"  insts                   list the target's instructions with engines\n"
	"  show NAME               everything the specs say about one op or instruction\n"
	"  demo                    run the generated tables on an example (see README)\n"
	"  graph FILE.py           the dataflow graph of a program (ops, shapes, assumptions)\n"
	"  run FILE.py --dims M=64,K=32 [--seed S] [--inputs a.npy,b.npy] -o out.npy\n"
	"                          run a program with the reference kernels\n"
	"  equiv FILE.py LHS RHS [--timeout-ms T] [--json] [--explain]\n"
	"                          prove that two functions of FILE.py agree for every size,\n"
	"                          saying what the proof assumes; --explain: the normal forms\n"
	"  variants FILE.py [--fn NAME] [--json] [--dot OUT.dot] [--max-variants N] [--no-algebraic]\n"
	"                          every proved reordering of the program (operator propagation)\n"
	"  tile FILE.py [--dims M=7,K=9] [--seed S]\n"
	"                          every variant tiled: loops, shared strips, block and tile sizes per\n"
	"                          op, reductions across tiles; with --dims, each tiled op is run tile\n"
	"                          by tile and compared with the op run whole\n"
	"  synth OP|FILE.py [--depth D] [--json]\n"
	"                          instruction sequences proved to compute a 2-D tile of one op; for a\n"
	"                          program, every tile op of every variant lowered, data movement included\n"
	"  fuse FILE.py [--json]   single instructions proved to do what two adjacent ones do (fusion)\n"
	"  compile FILE.py --dims M=2048,K=2048 [-o kernel.py] [--report r.json] [--measure model|'CMD']\n"
	"          [--jobs N] [--budget N] [--no-algebraic] [--no-fusion] [--max-tile T] [--dtype-bytes 2|4]\n"
	"          [--emit-all DIR [--validate]] [--seed S]\n"
	"                          the fastest proved NKI kernel: every candidate structure validated at\n"
	"                          reduced sizes (C rendering run by libtcc against the program), every\n"
	"                          candidate measured by the performance model (default) or by CMD, run\n"
	"                          with {kernel} (its NKI file) and {config} (a JSON of its choices), which\n"
	"                          prints its latency in microseconds (the last number it prints; a failing\n"
	"                          command makes the candidate infeasible); the winner validated again at\n"
	"                          the requested sizes (or the largest that fit the check's limits);\n"
	"                          --emit-all writes an even sample of candidates (NAME.py, NAME.c),\n"
	"                          with --validate each one run at the requested sizes\n"
	"  model FILE.py --dims M=2048,K=2048,N=2048 [--dtype-bytes 2|4] [--list]\n"
	"                          the performance model: roofline, naive lowering, candidates ranked\n"
	"  help                    this text\n"
	"\n"
	"options:\n"
	"  --target NAME           the target to use (default: the first built in)\n"
	"  --fn NAME               the function of FILE.py to compile (default: kernel)\n"
	"  --budget N              compile: candidates to visit at most, spread evenly over the\n"
	"                          variants and their choices (default 20000)\n"
	"  --jobs N                compile: worker processes (default: every core)\n"
	"  --help, -h              this text\n"
	"  --version               print the version\n"
	"\n"
	"Every latency axonc reports is modelled for one core; with --measure, it is what the command printed.\n";

int
fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "axonc: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(run 'axonc --help' for usage)\n");
	return 2;
}

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
 * reduction, symbolically and on numbers.  It exercises the spec layer only:
 * the compilation pipeline comes with the next issues and the output says so. */
static int
demo(const AxTarget *t)
{
	printf("axonc demo: the generated target's tables at work (the pipeline so far: graph, variants,\n"
	       "tile, synth; fusion, extraction, measurement and emission are not built yet).\n\n");
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

/* --name VALUE or --name=VALUE; 1 if argv[*i] is that option. */
static int
opt_value(int argc, char **argv, int *i, const char *name, const char **val, int *bad)
{
	size_t n = strlen(name);
	if (strncmp(argv[*i], name, n) != 0)
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
		return 1;
	}
	if (argv[*i][n] != 0)
		return 0;
	if (*i + 1 >= argc) {
		fail("%s needs a value", name);
		*bad = 1;
		return 1;
	}
	*val = argv[++*i];
	return 1;
}

/* An integer option in [lo, hi]; 0 = ok, else the error was said. */
static int
int_option(const char *name, const char *v, long lo, long hi, int *out)
{
	char *end;
	long x = strtol(v, &end, 10);
	if (*end || end == v || x < lo || x > hi) {
		fprintf(stderr, "axonc: error: %s needs an integer from %ld to %ld, got '%s'\n(run 'axonc --help' for usage)\n",
		        name, lo, hi, v);
		return 1;
	}
	*out = (int)x;
	return 0;
}

AxGraph *
program_graph(const AxTarget *t, TermCtx *tc, const Opts *o)
{
	if (o->nargs < 1) {
		fail("%s needs a program file", o->cmd);
		return NULL;
	}
	return frontend_read(t, tc, o->args[0], o->fn);
}

void
json_str(const char *s)
{
	json_fstr(stdout, s);
}

/* The program's variants (operator propagation), their invariants checked;
 * NULL after the front end reported errors. */
NuGraph *
program_variants(const AxTarget *t, TermCtx *tc, const Opts *o)
{
	AxGraph *g = frontend_read(t, tc, o->args[0], o->fn);
	if (!g)
		return NULL;
	PropOpts po = { .variant_cap = o->variant_cap, .no_algebraic = o->no_algebraic, .timeout_ms = 2000 };
	NuGraph *ng = propagate(g, &po);
	char err[256];
	if (ng_check(ng, err, sizeof err) != 0)
		ax_die("νGraph invariant: %s", err);
	return ng;
}

/* axonc variants FILE: every equivalent reordering, as NumPy functions */
static int
cmd_variants(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "variants");
	TermCtx *tc = tc_new(t);
	NuGraph *ng = program_variants(t, tc, o);
	if (!ng) {
		tc_free(tc);
		return 1;
	}
	const AxGraph *g = ng->g0;
	int rc = 0;
	if (o->json)
		printf("{\"variants\": [");
	for (int v = 0; v < ng->nvariants; v++) {
		char why[256];
		char *src = graph_numpy(ng->variants[v], g->fn, why, sizeof why);
		if (!src) {
			fprintf(stderr, "axonc: error: variant %d: %s\n", v, why);
			rc = 1;
			continue;
		}
		if (o->json) {
			printf("%s\n  {\"id\": %d, \"numpy\": ", v ? "," : "", v);
			json_str(src);
			printf("}");
		} else
			printf("# variant %d\n%s\n", v, src);
	}
	if (o->json)
		printf("\n], \"checks\": %d, \"cache_hits\": %d, \"swaps\": %d, \"stop\": \"%s\", \"ms\": %.3f}\n",
		       ng->checks, ng->cache_hits, ng->swaps, ng->stop, ng->ms);
	else
		printf("# %d variant%s, %d checks (%d answered by the cache), stopped: %s, %.1f ms\n", ng->nvariants,
		       ng->nvariants == 1 ? "" : "s", ng->checks, ng->cache_hits, ng->stop, ng->ms);
	if (strcmp(ng->stop, "saturated") != 0)
		fprintf(stderr, "axonc: note: propagation stopped early (%s): raise --max-variants to see more\n", ng->stop);
	if (o->dotfile) {
		FILE *f = fopen(o->dotfile, "w");
		if (!f) {
			fprintf(stderr, "axonc: error: cannot write %s\n", o->dotfile);
			rc = 1;
		} else {
			graph_dot(f, ng);
			fclose(f);
		}
	}
	tc_free(tc);
	return rc;
}

/* axonc equiv FILE LHS RHS: 0 equivalent, 1 not proved or not equivalent,
 * 2 errors (the program's, or a pair that is no question), 3 a bug of the
 * checker that its spot check caught */
static int
cmd_equiv(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 3)
		return fail("%s needs FILE.py LHS RHS", "equiv");
	double t0 = ax_now_ms();
	TermCtx *tc = tc_new(t);
	AxGraph *a = frontend_read(t, tc, o->args[0], o->args[1]);
	AxGraph *b = a ? frontend_read(t, tc, o->args[0], o->args[2]) : NULL;
	if (!a || !b) {
		tc_free(tc);
		return 2;
	}
	Equiv *q = equiv_new(t, tc, o->timeout_ms);
	equiv_report(q, 1);
	EquivResult r;
	equiv_graphs(q, a, b, &r);
	double ms = ax_now_ms() - t0;
	static const char *const names[] = { "internal-error", "error", "not-proved", "not-proved", "equivalent" };
	const char *v = names[r.verdict + 3];
	if (o->json) {
		char reason[1100];
		snprintf(reason, sizeof reason, "%s%.1024s", r.verdict == EQ_NOT_EQUIVALENT ? "not equivalent: " : "", r.reason);
		printf("{\"verdict\": \"%s\", \"reason\": ", v);
		json_str(reason);
		printf(", \"assumptions\": [");
		for (int i = 0; i < r.nassume; i++) {
			printf("%s", i ? ", " : "");
			json_str(r.assume[i]);
		}
		printf("], \"spot_check_runs\": %d", r.spot_runs);
		if (o->explain) {
			printf(", \"explain\": ");
			json_str(r.explain ? r.explain : "");
		}
		printf(", \"ms\": %.3f}\n", ms);
	} else {
		if (r.verdict == EQ_EQUIVALENT)
			printf("equivalent\n");
		else if (r.verdict == EQ_ERROR)
			fprintf(stderr, "%s: error: %s and %s: %s\n", o->args[0], o->args[1], o->args[2], r.reason);
		else if (r.verdict != EQ_INTERNAL)
			printf("%s: %s\n", r.verdict == EQ_NOT_EQUIVALENT ? "not equivalent" : "not proved", r.reason);
		if (r.verdict == EQ_EQUIVALENT || r.verdict == EQ_NOT_PROVED)
			for (int i = 0; i < r.nassume; i++)
				printf("%s%s\n", i ? "  and " : "assuming: ", r.assume[i]);
		if (r.verdict == EQ_EQUIVALENT && r.spot_runs > 0)
			printf("spot check: both sides agree when run at %d small sizes\n", r.spot_runs);
		else if (r.verdict == EQ_EQUIVALENT)
			printf("spot check: not run (no sizes small enough satisfy the assumptions)\n");
		if (o->explain && r.explain)
			fputs(r.explain, stdout);
	}
	equiv_free(q);
	tc_free(tc);
	return r.verdict == EQ_EQUIVALENT ? 0 : r.verdict == EQ_ERROR ? 2 : r.verdict == EQ_INTERNAL ? 3 : 1;
}

static int
axonc_main(int argc, char **argv)
{
	Opts o = { 0 };
	o.timeout_ms = 10000;
	if (argc > 1 && strcmp(argv[1], "model") == 0)
		return cmd_model(argc, argv);   /* its own options (cmd_model.c) */
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		int bad = 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("axonc 0.2\n");
			return 0;
		}
		if (strcmp(argv[i], "--json") == 0)
			o.json = 1;
		else if (strcmp(argv[i], "--explain") == 0)
			o.explain = 1;
		else if (strcmp(argv[i], "--no-algebraic") == 0)
			o.no_algebraic = 1;
		else if (strcmp(argv[i], "--no-fusion") == 0)
			o.no_fusion = 1;
		else if (strcmp(argv[i], "--validate") == 0)
			o.validate = 1;
		else if (opt_value(argc, argv, &i, "--dot", &o.dotfile, &bad)) {
			if (bad)
				return 2;
		} else if (opt_value(argc, argv, &i, "--depth", &v, &bad)) {
			if (bad || int_option("--depth", v, 1, 3, &o.depth))
				return 2;
		} else if (opt_value(argc, argv, &i, "--max-variants", &v, &bad)) {
			if (bad || int_option("--max-variants", v, 1, 1 << 20, &o.variant_cap))
				return 2;
		} else if (opt_value(argc, argv, &i, "--max-tile", &v, &bad)) {
			if (bad || int_option("--max-tile", v, 1, 1 << 20, &o.tile_cap))
				return 2;
		} else if (opt_value(argc, argv, &i, "--budget", &v, &bad)) {
			if (bad || int_option("--budget", v, 1, 1 << 30, &o.budget))
				return 2;
		} else if (opt_value(argc, argv, &i, "--jobs", &v, &bad)) {
			if (bad || int_option("--jobs", v, 1, 64, &o.jobs))
				return 2;
		} else if (opt_value(argc, argv, &i, "--dtype-bytes", &v, &bad)) {
			if (bad || int_option("--dtype-bytes", v, 1, 8, &o.dtype))
				return 2;
		} else if (opt_value(argc, argv, &i, "--measure", &o.measure, &bad)) {
			if (bad)
				return 2;
			if (strcmp(o.measure, "model") == 0)
				o.measure = NULL;
			else if (!strstr(o.measure, "{kernel}"))
				return fail("--measure '%s': the command must name the kernel file as {kernel}", o.measure);
		}
		else if (opt_value(argc, argv, &i, "--target", &o.target, &bad) ||
		         opt_value(argc, argv, &i, "--fn", &o.fn, &bad) ||
		         opt_value(argc, argv, &i, "--dims", &o.dims, &bad) ||
		         opt_value(argc, argv, &i, "--inputs", &o.inputs, &bad) ||
		         opt_value(argc, argv, &i, "-o", &o.out, &bad) ||
		         opt_value(argc, argv, &i, "--report", &o.report, &bad) ||
		         opt_value(argc, argv, &i, "--emit-all", &o.emit_all, &bad)) {
			if (bad)
				return 2;
		} else if (opt_value(argc, argv, &i, "--seed", &v, &bad) ||
		           (v = NULL, opt_value(argc, argv, &i, "--timeout-ms", &v, &bad) ? (bad = bad ? bad : -1) : 0)) {
			if (bad > 0)
				return 2;
			char *end;
			long long x = strtoll(v, &end, 10);
			if (*end || end == v || x < 0)
				return fail("'%s' is not an integer >= 0", v);
			if (bad == -1)
				o.timeout_ms = (int)(x > 1000000 ? 1000000 : x);
			else
				o.seed = (uint64_t)x;
		} else if (argv[i][0] == '-')
			return fail("unknown option '%s'", argv[i]);
		else if (!o.cmd)
			o.cmd = argv[i];
		else if (o.nargs < 4)
			o.args[o.nargs++] = argv[i];
		else
			return fail("unexpected argument '%s'", argv[i]);
	}
	if (!o.cmd) {
		fputs(usage, stderr);
		return 2;
	}
	const AxTarget *t = ax_find_target(o.target);
	if (!t)
		return fail("no target '%s' in this build (see 'axonc targets')", o.target ? o.target : "");
	const char *arg = o.nargs ? o.args[0] : NULL;
	if (strcmp(o.cmd, "targets") == 0) {
		for (int i = 0; ax_targets[i]; i++)
			printf("%s\n", ax_targets[i]->name);
		return 0;
	}
	if (strcmp(o.cmd, "target") == 0) {
		ax_print_target(stdout, t);
		return 0;
	}
	if (strcmp(o.cmd, "ops") == 0) {
		list_ops(t->ops, t->nops);
		return 0;
	}
	if (strcmp(o.cmd, "insts") == 0) {
		list_ops(t->insts, t->ninsts);
		return 0;
	}
	if (strcmp(o.cmd, "show") == 0) {
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
	if (strcmp(o.cmd, "demo") == 0)
		return demo(t);
	if (strcmp(o.cmd, "equiv") == 0)
		return cmd_equiv(t, &o);
	if (strcmp(o.cmd, "variants") == 0)
		return cmd_variants(t, &o);
	if (strcmp(o.cmd, "synth") == 0)
		return cmd_synth(t, &o);
	if (strcmp(o.cmd, "tile") == 0)
		return cmd_tile(t, &o);
	if (strcmp(o.cmd, "fuse") == 0)
		return cmd_fuse(t, &o);
	if (strcmp(o.cmd, "compile") == 0)
		return cmd_compile(t, &o);
	if (strcmp(o.cmd, "graph") == 0 || strcmp(o.cmd, "run") == 0) {
		TermCtx *tc = tc_new(t);
		AxGraph *g = program_graph(t, tc, &o);
		int rc = 1;
		if (g && strcmp(o.cmd, "graph") == 0) {
			printf("%s(", g->fn);
			for (int p = 0; p < g->nparams; p++)
				printf("%s%s", p ? ", " : "", g->params[p].name);
			printf(")\n");
			graph_print(stdout, g);
			for (int i = 0; i < g->nassume; i++)
				printf("  assumes %s\n", t_infix(tc, g->assume[i]));
			rc = 0;
		} else if (g) {
			if (!o.out)
				rc = fail("%s needs -o OUT.npy", "run");
			else
				rc = cmd_run(g, o.dims, o.inputs, o.seed, o.out);
		}
		tc_free(tc);
		return rc;
	}
	return fail("unknown command '%s'", o.cmd);
}

/* The commands run on a thread with a 1 GiB stack (reserved, committed as
 * used): the checker's walks recurse along a program's depth, and a program
 * thousands of operations deep must end with an answer, not a stack overflow
 * (equiv.c bounds the depth it checks as well). */
static struct {
	int argc, rc;
	char **argv;
} run;

static void *
run_thread(void *arg)
{
	(void)arg;
	run.rc = axonc_main(run.argc, run.argv);
	return NULL;
}

int
main(int argc, char **argv)
{
	run.argc = argc;
	run.argv = argv;
	pthread_attr_t at;
	pthread_t th;
	if (pthread_attr_init(&at) != 0 || pthread_attr_setstacksize(&at, (size_t)1 << 30) != 0 ||
	    pthread_create(&th, &at, run_thread, NULL) != 0)
		return axonc_main(argc, argv);   /* no thread: the process's own stack */
	pthread_join(th, NULL);
	pthread_attr_destroy(&at);
	return run.rc;
}
