/*
 * axonc.c — the command-line driver: the options (one Opts for every
 * command), the table of commands, and the thread with a large stack they
 * run on.  Each command lives in the cmd_*.c of its stage; cmd_compile.c is
 * the whole pipeline as one list of stages.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"

static const char usage[] =
	"usage: axonc COMMAND [OPTIONS]\n"
	"\n"
	"targets built in: @TARGETS@\n"
	"\n"
	"commands:\n"
	"  targets                 list the targets built into this axonc\n"
	"  target                  summarise a target: engines, memories, counts\n"
	"  ops                     list the operators (specs/) with signatures\n"
	"  insts                   list the target's instructions with engines\n"
	"  show NAME               everything the specs say about one op or instruction\n"
	"  demo                    the generated tables at work on one op (the spec layer alone)\n"
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
	"          [--emit-all DIR [--validate]] [--seed S] [--timeline T.csv]\n"
	"          [--slurm [--partition P] [--max-tasks N] [--workdir DIR]] [--config CFG.json]\n"
	"                          the fastest proved @LANG@ kernel: every candidate structure validated at\n"
	"                          reduced sizes (C rendering run by libtcc against the program), every\n"
	"                          candidate measured by the performance model (default) or by CMD, run\n"
	"                          with {kernel} (its @LANG@ file), {config} (a JSON of its choices) and\n"
	"                          {modelled_us} (the model's latency), which prints its latency in\n"
	"                          microseconds (the last number it prints; a failing command makes the\n"
	"                          candidate infeasible); with --slurm, CMD runs in one Slurm array job\n"
	"                          (sbatch; at most N tasks, default 16; in partition P) on candidates\n"
	"                          written under DIR (default ./axonc-slurm, shared by the nodes), a\n"
	"                          failed task's candidates retried once, results kept there for the next\n"
	"                          run, Ctrl-C cancelling the job; the winner validated again at\n"
	"                          the requested sizes (or the largest that fit the check's limits);\n"
	"                          --emit-all writes an even sample of candidates (NAME.py, NAME.c),\n"
	"                          with --validate each one run at the requested sizes; --config CFG.json:\n"
	"                          no search, the kernel of that configuration (a report's best.config)\n"
	"                          at these sizes, tiles at most its own, validated; --timeline T.csv:\n"
	"                          the selected kernel's modelled schedule, a row per instruction run\n"
	"  compile FILE.py --sizes 'M=512..8192,N=1024,4096' -o kernels.py [--cache DIR] [compile's options]\n"
	"                          one selection per bucket of sizes (a range cut at powers of two, each\n"
	"                          listed value its own), Phase 1 once; kernels.py's kernel() finds the\n"
	"                          bucket of its inputs' shapes and runs `axonc compile --config` at them\n"
	"                          (cached; axonc must be on that machine); kernels.json: bucket -> config;\n"
	"                          results cached in DIR (default $XDG_CACHE_HOME/axon, ~/.cache/axon)\n"
	"  model FILE.py --dims M=2048,K=2048,N=2048 [--dtype-bytes 2|4] [--list] [--no-jump] [--show I[,F]]\n"
	"                          the performance model: roofline, naive lowering, candidates ranked\n"
	"                          (--list: every candidate; --no-jump: every loop iteration scheduled,\n"
	"                          slow, the check of the model's steady-state jumps; --show I[,F]: the\n"
	"                          kernel of candidate i=I of --list, of its form fused=F if given)\n"
	"  help                    this text\n"
	"\n"
	"options:\n"
	"  --target NAME           the target to use (default: @DEFAULT@, the build's DEFAULT_TARGET)\n"
	"  --fn NAME               the function of FILE.py to compile (default: kernel)\n"
	"  --budget N              compile: candidates to visit at most, spread evenly over the\n"
	"                          variants and their choices (default 20000)\n"
	"  --jobs N                compile: worker processes (default: every core)\n"
	"  --help, -h              this text\n"
	"  --version               print the version\n"
	"\n"
	"Every latency axonc reports is modelled for one core; with --measure, it is what the command printed.\n";

/* The usage text with the words of this build's targets: @LANG@ the kernel language of
 * the target used (--target, else the default), @DEFAULT@ the default target's name,
 * @TARGETS@ every target with its kernel language. */
static void
print_usage(FILE *f, const AxTarget *t)
{
	for (const char *p = usage; *p;) {
		if (strncmp(p, "@LANG@", 6) == 0) {
			fputs(t->kernel, f);
			p += 6;
		} else if (strncmp(p, "@DEFAULT@", 9) == 0) {
			fputs(ax_default_target->name, f);
			p += 9;
		} else if (strncmp(p, "@TARGETS@", 9) == 0) {
			for (int i = 0; ax_targets[i]; i++)
				fprintf(f, "%s%s (%s kernels%s)", i ? ", " : "", ax_targets[i]->name, ax_targets[i]->kernel,
				        ax_targets[i] == ax_default_target ? ", the default" : "");
			p += 9;
		} else
			fputc(*p++, f);
	}
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

/* every command, as `axonc help` lists them */
static const struct {
	const char *name;
	int (*run)(const AxTarget *t, const Opts *o);
} commands[] = {
	{ "targets", cmd_targets }, { "target", cmd_target },     { "ops", cmd_ops },
	{ "insts", cmd_insts },     { "show", cmd_show },         { "demo", cmd_demo },
	{ "graph", cmd_graph },     { "run", cmd_run },           { "equiv", cmd_equiv },
	{ "variants", cmd_variants }, { "tile", cmd_tile },       { "synth", cmd_synth },
	{ "fuse", cmd_fuse },       { "compile", cmd_compile },   { "model", cmd_model },
};

static int
axonc_main(int argc, char **argv)
{
	Opts o = { 0 };
	o.timeout_ms = 10000;
	o.argv0 = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		int bad = 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "help") == 0) {
			const AxTarget *t = NULL;   /* the words of the target named anywhere, else the default's */
			for (int k = 1; k + 1 < argc && !t; k++)
				if (strcmp(argv[k], "--target") == 0)
					t = ax_find_target(argv[k + 1]);
			print_usage(stdout, t ? t : ax_find_target(NULL));
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
		else if (strcmp(argv[i], "--slurm") == 0)
			o.slurm = 1;
		else if (strcmp(argv[i], "--list") == 0)
			o.list = 1;
		else if (strcmp(argv[i], "--no-jump") == 0)
			o.no_jump = 1;
		else if (opt_value(argc, argv, &i, "--show", &o.show, &bad)) {
			if (bad)
				return 2;
		} else if (opt_value(argc, argv, &i, "--dot", &o.dotfile, &bad)) {
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
		} else if (opt_value(argc, argv, &i, "--max-tasks", &v, &bad)) {
			if (bad || int_option("--max-tasks", v, 1, 100000, &o.max_tasks))
				return 2;
			o.slurm_opt = o.slurm_opt ? o.slurm_opt : "--max-tasks";
		} else if (opt_value(argc, argv, &i, "--partition", &o.partition, &bad) ||
		           opt_value(argc, argv, &i, "--workdir", &o.workdir, &bad)) {
			if (bad)
				return 2;
			o.slurm_opt = o.slurm_opt ? o.slurm_opt : o.partition ? "--partition" : "--workdir";
		} else if (opt_value(argc, argv, &i, "--dtype-bytes", &v, &bad)) {
			if (bad || int_option("--dtype-bytes", v, 2, 4, &o.dtype))
				return 2;
			if (o.dtype == 3)
				return fail("--dtype-bytes %s: the model knows 2 (bf16) and 4 (fp32)", v);
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
		         opt_value(argc, argv, &i, "--sizes", &o.sizes, &bad) ||
		         opt_value(argc, argv, &i, "--config", &o.config, &bad) ||
		         opt_value(argc, argv, &i, "--cache", &o.cache, &bad) ||
		         opt_value(argc, argv, &i, "--inputs", &o.inputs, &bad) ||
		         opt_value(argc, argv, &i, "-o", &o.out, &bad) ||
		         opt_value(argc, argv, &i, "--report", &o.report, &bad) ||
		         opt_value(argc, argv, &i, "--emit-all", &o.emit_all, &bad) ||
		         opt_value(argc, argv, &i, "--timeline", &o.timeline, &bad)) {
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
	const AxTarget *t = ax_find_target(o.target);
	if (!t)
		return fail("no target '%s' in this build (see 'axonc targets')", o.target ? o.target : "");
	if (!o.cmd) {
		print_usage(stderr, t);
		return 2;
	}
	if (o.slurm_opt && !o.slurm)
		return fail("%s is an option of --slurm (compile --measure 'CMD {kernel}' --slurm)", o.slurm_opt);
	if (o.slurm && strcmp(o.cmd, "compile") != 0)
		return fail("--slurm is an option of compile, not of %s", o.cmd);
	if ((o.sizes || o.config || o.cache) && strcmp(o.cmd, "compile") != 0)
		return fail("%s is an option of compile", o.sizes ? "--sizes" : o.config ? "--config" : "--cache");
	if (o.sizes && (o.dims || o.config))
		return fail("--sizes compiles one kernel per bucket of sizes: %s does not go with it",
		            o.dims ? "--dims" : "--config");
	if (o.slurm && !o.measure)
		return fail("--slurm runs the --measure command on a Slurm cluster: it needs --measure 'CMD {kernel}' "
		            "(the model%s runs here)", " (--measure model, the default)");
	for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
		if (strcmp(o.cmd, commands[k].name) == 0)
			return (commands[k].run == cmd_compile && o.sizes ? cmd_sizes : commands[k].run)(t, &o);   /* --sizes: per bucket */
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
