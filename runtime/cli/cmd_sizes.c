/*
 * cmd_sizes.c — `axonc compile FILE.py --sizes 'M=512..8192,N=1024,4096' -o kernels.py`:
 * one kernel selection per bucket of sizes, and one Python module that runs them all.
 *
 * Each size gets a range LO..HI, cut at powers of two ([512,1024), [1024,2048), ...,
 * up to HI inclusive), or a list of values, each its own bucket; the buckets of several
 * sizes are their cross product.  Phase 1 (variants, tiling, synthesis, fusion: no
 * sizes) runs once; Phase 2 (selection, as compile at --dims) once per bucket, at its
 * representative sizes: each range's lower bound.  Out come the module (-o) and a JSON
 * table of buckets and their configurations (-o's stem + .json).  The module's kernel()
 * reads the sizes from its inputs' shapes (the program's annotations say which axis is
 * which size), finds their bucket and runs its configuration at those very sizes: the
 * kernel selected for the bucket at its representative sizes, else the one that
 * `axonc compile --dims ... --config` writes (cmd_config.c), kept in the cache.  The
 * whole result is cached too, under a hash of what it depends on.  The Python written
 * here is glue around the target's kernels, in no target's syntax.
 */
#define _DEFAULT_SOURCE   /* realpath */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

enum { MAXNAMES = 16, MAXPER = 64, MAXBUCKETS = 256 };

typedef struct Range {
	int64_t lo, hi;          /* inclusive */
	int listed;              /* a value given by itself */
} Range;

typedef struct SizeSpec {
	int n;
	char name[MAXNAMES][64];
	int nr[MAXNAMES];
	int at[MAXNAMES];        /* where the name is in the spec */
	Range r[MAXNAMES][MAXPER];
} SizeSpec;

/* a usage error located in the spec: exit code 2 */
static int
spec_fail(const char *spec, const char *at, const char *what)
{
	fprintf(stderr, "axonc: error: --sizes '%s': at column %d: %s\n", spec, (int)(at - spec) + 1, what);
	fprintf(stderr, "  %s\n  %*s^\n(run 'axonc --help' for usage)\n", spec, (int)(at - spec), "");
	return 2;
}

static int
read_int(const char **p, int64_t *v)
{
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	long long x = strtoll(s, &end, 10);
	if (errno == ERANGE || x > AX_MAX_SIZE)
		return -2;
	*v = x;
	*p = end;
	return 0;
}

/* adds [lo, hi] to size k, cut at powers of two, or the value lo itself */
static int
add_range(SizeSpec *s, int k, int64_t lo, int64_t hi, int listed, const char *spec, const char *at)
{
	for (int i = 0; i < s->nr[k]; i++)
		if (lo <= s->r[k][i].hi && s->r[k][i].lo <= hi)
			return spec_fail(spec, at, "overlaps a value or range already given for this size");
	int64_t b = lo;
	for (;;) {
		if (s->nr[k] == MAXPER)
			return spec_fail(spec, at, "more than 64 buckets for one size");
		int64_t next = 1;
		while (next <= b)
			next <<= 1;
		Range *r = &s->r[k][s->nr[k]++];
		*r = (Range){ b, next >= hi ? hi : next - 1, listed };
		if (next >= hi)
			return 0;
		b = next;
	}
}

/* "M=512..8192,N=1024,4096" (a bare value continues the size before it); 0 = ok, else 2 */
static int
parse_spec(const char *spec, SizeSpec *s)
{
	const char *p = spec;
	int cur = -1;
	*s = (SizeSpec){ 0 };
	if (!*p)
		return spec_fail(spec, p, "no sizes (write NAME=LO..HI or NAME=V1,V2)");
	for (;;) {
		const char *tok = p;
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *q = p;
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
			if (*q != '=')
				return spec_fail(spec, q, "expected '=' after the size's name");
			if (q - p >= 64)
				return spec_fail(spec, p, "a name of 64 characters or more");
			for (int k = 0; k < s->n; k++)
				if ((size_t)(q - p) == strlen(s->name[k]) && strncmp(s->name[k], p, (size_t)(q - p)) == 0)
					return spec_fail(spec, p, "this size is given twice");
			if (s->n == MAXNAMES)
				return spec_fail(spec, p, "more than 16 sizes");
			cur = s->n++;
			s->at[cur] = (int)(p - spec);
			memcpy(s->name[cur], p, (size_t)(q - p));
			p = q + 1;
		} else if (cur < 0)
			return spec_fail(spec, p, "expected a size's name (NAME=...)");
		const char *vat = p;
		int64_t lo, hi;
		int e = read_int(&p, &lo);
		if (e == -2)
			return spec_fail(spec, vat, "too large (a size is at most 2^48)");
		if (e || lo < 1)
			return spec_fail(spec, vat, "expected a positive integer");
		if (p[0] == '.' && p[1] == '.') {
			p += 2;
			const char *hat = p;
			e = read_int(&p, &hi);
			if (e == -2)
				return spec_fail(spec, hat, "too large (a size is at most 2^48)");
			if (e || hi < 1)
				return spec_fail(spec, hat, "expected a positive integer after '..'");
			if (hi < lo)
				return spec_fail(spec, hat, "the range ends below its start");
			if (add_range(s, cur, lo, hi, 0, spec, tok))
				return 2;
		} else if (add_range(s, cur, lo, lo, 1, spec, tok))
			return 2;
		if (*p == 0)
			return 0;
		if (*p != ',')
			return spec_fail(spec, p, "expected ',' or the end");
		p++;
	}
}

/* ---- files ----------------------------------------------------------------------------- */

/* text into path, whole or not at all (a name of this process's own, then renamed) */
static int
put_file(const char *path, const char *text)
{
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "axonc: error: cannot write %s: %s\n", path, strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

/* ---- the module ------------------------------------------------------------------------ */

/* the shortest %g that reads back as v */
static void
num_text(double v, char *b, size_t n)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(b, n, "%.*g", p, v);
		if (strtod(b, NULL) == v)
			return;
	}
}

static void
py_str(FILE *f, const char *s)   /* a JSON string is a Python string literal */
{
	json_fstr(f, s);
}

/* Which axis of which tensor parameter gives each size (READ), the literal axes (FIXED),
 * the ranks; -1 (said) if a size cannot be read from the shapes. */
static int
module_shapes(FILE *f, const AxGraph *g)
{
	fputs("READ = {", f);
	for (int k = 0; k < g->nsyms; k++) {
		fprintf(f, "%s", k ? ", " : "");
		py_str(f, g->syms[k]);
		fputs(": [", f);
		int any = 0;
		for (int p = 0, tp = 0; p < g->nparams; p++) {
			if (!g->params[p].tensor)
				continue;
			const AxNode *nd = &g->nodes[g->params[p].node];
			for (int a = 0; a < nd->rank; a++)
				if (nd->dim[a]->kind == TK_VAR && strcmp(nd->dim[a]->name, g->syms[k]) == 0)
					fprintf(f, "%s(%d, %d)", any++ ? ", " : "", tp, a);
			tp++;
		}
		fputs("]", f);
		if (!any) {
			fprintf(stderr, "axonc: error: --sizes: size %s of %s is no axis of a tensor parameter by itself, so a "
			        "kernel cannot read it from its inputs' shapes\n", g->syms[k], g->fn);
			return -1;
		}
	}
	fputs("}\nFIXED = [", f);
	int any = 0;
	for (int p = 0, tp = 0; p < g->nparams; p++) {
		if (!g->params[p].tensor)
			continue;
		const AxNode *nd = &g->nodes[g->params[p].node];
		for (int a = 0; a < nd->rank; a++)
			if (nd->dim[a]->kind == TK_NUM && nd->dim[a]->den == 1)
				fprintf(f, "%s(%d, %d, %lld)", any++ ? ", " : "", tp, a, (long long)nd->dim[a]->num);
		tp++;
	}
	fputs("]\nRANKS = [", f);
	for (int p = 0, tp = 0; p < g->nparams; p++)
		if (g->params[p].tensor)
			fprintf(f, "%s%d", tp++ ? ", " : "", g->nodes[g->params[p].node].rank);
	fputs("]\n", f);
	return 0;
}

static const char module_code[] =
	"_loaded = {}\n"
	"\n"
	"\n"
	"def _sizes(args):\n"
	"    for p, rank in enumerate(RANKS):\n"
	"        if len(args[p].shape) != rank:\n"
	"            raise ValueError(f\"axon: {TENSORS[p]} has shape {tuple(args[p].shape)}, not of rank {rank}\")\n"
	"    for p, a, v in FIXED:\n"
	"        if int(args[p].shape[a]) != v:\n"
	"            raise ValueError(f\"axon: {TENSORS[p]} has shape {tuple(args[p].shape)}, its axis {a} must be {v}\")\n"
	"    sizes = {}\n"
	"    for name, reads in READ.items():\n"
	"        seen = {int(args[p].shape[a]) for p, a in reads}\n"
	"        if len(seen) != 1:\n"
	"            raise ValueError(f\"axon: the inputs disagree on size {name}: \" + \", \".join(\n"
	"                f\"{TENSORS[p]} axis {a} is {int(args[p].shape[a])}\" for p, a in reads))\n"
	"        sizes[name] = seen.pop()\n"
	"    return sizes\n"
	"\n"
	"\n"
	"def _dims(sizes):\n"
	"    return \",\".join(f\"{n}={sizes[n]}\" for n in READ)\n"
	"\n"
	"\n"
	"def _btext(b):\n"
	"    return \", \".join(f\"{n}={lo}\" if lo == hi else f\"{n} in [{lo}, {hi}]\" for n, (lo, hi) in b[\"sizes\"].items())\n"
	"\n"
	"\n"
	"def _bucket(sizes):\n"
	"    for i, b in enumerate(TABLE[\"buckets\"]):\n"
	"        if all(lo <= sizes[n] <= hi for n, (lo, hi) in b[\"sizes\"].items()):\n"
	"            return i\n"
	"    raise ValueError(f\"axon: {_dims(sizes)} is in no bucket of --sizes '{TABLE['sizes']}' (compiled for \"\n"
	"                     + \"; \".join(_btext(b) for b in TABLE[\"buckets\"]) + \")\")\n"
	"\n"
	"\n"
	"def _source(i, dims):\n"
	"    b = TABLE[\"buckets\"][i]\n"
	"    if dims == b[\"at\"]:\n"
	"        return KERNELS[i]\n"
	"    cache = os.path.join(os.environ.get(\"AXON_CACHE\") or CACHE, \"kernels\")\n"
	"    axonc = os.environ.get(\"AXONC\") or AXONC\n"
	"    config = json.dumps(b[\"config\"], sort_keys=True)\n"
	"    key = hashlib.sha256(\"\\0\".join([PROGRAM, TARGET, \" \".join(OPTIONS), config, dims]).encode()).hexdigest()[:32]\n"
	"    path = os.path.join(cache, key + \".py\")\n"
	"    if os.path.exists(path):\n"
	"        with open(path) as f:\n"
	"            return f.read()\n"
	"    os.makedirs(cache, exist_ok=True)\n"
	"    tmp = f\"{path}.{os.getpid()}\"\n"
	"    with open(tmp + \".program.py\", \"w\") as f:\n"
	"        f.write(PROGRAM)\n"
	"    with open(tmp + \".config.json\", \"w\") as f:\n"
	"        f.write(config)\n"
	"    cmd = [axonc, \"compile\", tmp + \".program.py\", \"--target\", TARGET, \"--fn\", FN, \"--dims\", dims,\n"
	"           \"--config\", tmp + \".config.json\", \"-o\", tmp + \".py\"] + OPTIONS\n"
	"    try:\n"
	"        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)\n"
	"    except OSError as e:\n"
	"        raise RuntimeError(f\"axon: bucket {i + 1} ({_btext(b)}) at {dims}: cannot run axonc ({e}); these \"\n"
	"                           \"kernels are written by axonc at each new shape: set AXONC to its path\") from None\n"
	"    finally:\n"
	"        for ext in (\".program.py\", \".config.json\"):\n"
	"            if os.path.exists(tmp + ext):\n"
	"                os.remove(tmp + ext)\n"
	"    if r.returncode != 0:\n"
	"        if os.path.exists(tmp + \".py\"):\n"
	"            os.remove(tmp + \".py\")\n"
	"        why = \" \".join(line.strip() for line in r.stderr.strip().splitlines()[-3:])\n"
	"        raise RuntimeError(f\"axon: the configuration of bucket {i + 1} ({_btext(b)}) cannot run at {dims}: {why}\")\n"
	"    os.replace(tmp + \".py\", path)\n"
	"    with open(path) as f:\n"
	"        return f.read()\n"
	"\n"
	"\n"
	"def _kernel(args):\n"
	"    sizes = _sizes(args)\n"
	"    dims = _dims(sizes)\n"
	"    fn = _loaded.get(dims)\n"
	"    if fn is None:\n"
	"        i = _bucket(sizes)\n"
	"        ns = {\"__name__\": \"axon_kernel\"}\n"
	"        exec(compile(_source(i, dims), f\"<axon kernel at {dims}>\", \"exec\"), ns)\n"
	"        fn = _loaded[dims] = ns[FN]\n"
	"    return fn\n";

/* the module's text (malloc'd); NULL after an error (said) */
static char *
module_text(const AxGraph *g, const char *prog, const char *axonc, const char *cache, const char *options,
            const char *table, char **kernels, int nb, const Opts *o, const AxTarget *t)
{
	char *m = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&m, &len);
	if (!f)
		ax_die("out of memory");
	fprintf(f, "\"\"\"Axon kernels of %s (%s) for the sizes %s: one configuration per bucket.\n\n", o->args[0], g->fn,
	        o->sizes);
	fputs("Written by `axonc compile --sizes` (docs/cli.md).  The kernel function reads the sizes from its\n"
	      "inputs' shapes, finds their bucket and runs the bucket's configuration at those very sizes: the\n"
	      "kernel selected for the bucket if they are its representative sizes (its lower bounds), else\n"
	      "the one `axonc compile --dims ... --config` writes for them, kept in the cache.  So axonc must be\n"
	      "on the machine that runs this module ($AXONC, else AXONC below); the cache is $AXON_CACHE, else\n"
	      "CACHE below.  A configuration that cannot be written at some sizes raises an error there.\n\"\"\"\n", f);
	fputs("import hashlib\nimport json\nimport os\nimport subprocess\n\n", f);
	fputs("AXONC = ", f);
	py_str(f, axonc);
	fputs("\nCACHE = ", f);
	py_str(f, cache);
	fputs("\nTARGET = ", f);
	py_str(f, t->name);
	fputs("\nFN = ", f);
	py_str(f, g->fn);
	fprintf(f, "\nOPTIONS = [%s]\nTENSORS = [", options);
	for (int p = 0, tp = 0; p < g->nparams; p++)
		if (g->params[p].tensor) {
			fputs(tp++ ? ", " : "", f);
			py_str(f, g->params[p].name);
		}
	fputs("]\n", f);
	if (module_shapes(f, g) != 0) {
		fclose(f);
		free(m);
		return NULL;
	}
	fputs("PROGRAM = ", f);
	py_str(f, prog);
	fputs("\nTABLE = json.loads(", f);
	py_str(f, table);
	fputs(")\nKERNELS = [\n", f);
	for (int i = 0; i < nb; i++) {
		fputs("    ", f);
		py_str(f, kernels[i]);
		fputs(",\n", f);
	}
	fputs("]\n", f);
	fputs(module_code, f);
	/* the program's own signature: tensors by position, scalars by keyword with their defaults */
	fprintf(f, "\n\ndef %s(", g->fn);
	for (int p = 0; p < g->nparams; p++) {
		char num[40] = "";
		if (!g->params[p].tensor)
			num_text(g->params[p].defval, num, sizeof num);
		fprintf(f, "%s%s%s%s", p ? ", " : "", g->params[p].name, num[0] ? "=" : "", num);
	}
	fputs("):\n    \"\"\"The program's function: the kernel of the bucket of these shapes, at these shapes.\"\"\"\n", f);
	fputs("    return _kernel((", f);
	for (int p = 0, tp = 0; p < g->nparams; p++)
		if (g->params[p].tensor)
			fprintf(f, "%s%s", tp++ ? ", " : "", g->params[p].name);
	int ntensors = 0;
	for (int p = 0; p < g->nparams; p++)
		ntensors += g->params[p].tensor != 0;
	fprintf(f, "%s))(", ntensors == 1 ? "," : "");
	for (int p = 0; p < g->nparams; p++) {
		fprintf(f, "%s%s", p ? ", " : "", g->params[p].name);
		if (!g->params[p].tensor)
			fprintf(f, "=%s", g->params[p].name);
	}
	fputs(")\n", f);
	fclose(f);
	return m;
}

/* ---- the command ----------------------------------------------------------------------- */

/* the bucket's sizes, in the program's order: as --dims (at the representative) and as words */
static void
bucket_text(const SizeSpec *sp, const int *map, const int *pick, const AxGraph *g, char *dims, size_t nd, char *words,
            size_t nw)
{
	size_t a = 0, b = 0;
	dims[0] = words[0] = 0;
	for (int k = 0; k < g->nsyms; k++) {
		const Range *r = &sp->r[map[k]][pick[map[k]]];
		a += (size_t)snprintf(dims + a, a < nd ? nd - a : 0, "%s%s=%lld", k ? "," : "", g->syms[k], (long long)r->lo);
		if (r->lo == r->hi)
			b += (size_t)snprintf(words + b, b < nw ? nw - b : 0, "%s%s=%lld", k ? ", " : "", g->syms[k], (long long)r->lo);
		else
			b += (size_t)snprintf(words + b, b < nw ? nw - b : 0, "%s%s in [%lld, %lld]", k ? ", " : "", g->syms[k],
			                      (long long)r->lo, (long long)r->hi);
	}
}

/* the options the configuration's kernel depends on, as a Python list's items, for the module's
 * `axonc compile --config` */
static void
replay_options(const Opts *o, char *b, size_t n)
{
	size_t k = 0;
	b[0] = 0;
#define OPT(cond, ...) if (cond && k < n) k += (size_t)snprintf(b + k, n - k, __VA_ARGS__)
	OPT(o->no_fusion, "%s\"--no-fusion\"", k ? ", " : "");
	OPT(o->no_algebraic, "%s\"--no-algebraic\"", k ? ", " : "");
	OPT(o->variant_cap, "%s\"--max-variants\", \"%d\"", k ? ", " : "", o->variant_cap);
	OPT(o->tile_cap, "%s\"--max-tile\", \"%d\"", k ? ", " : "", o->tile_cap);
	OPT(o->dtype, "%s\"--dtype-bytes\", \"%d\"", k ? ", " : "", o->dtype);
	OPT(o->depth, "%s\"--depth\", \"%d\"", k ? ", " : "", o->depth);
	OPT(o->seed, "%s\"--seed\", \"%llu\"", k ? ", " : "", (unsigned long long)o->seed);
#undef OPT
}

static int
copy_file(const char *from, const char *to)
{
	char *t = ax_read_text(from, NULL);
	int rc = t ? put_file(to, t) : -1;
	free(t);
	return rc;
}

int
cmd_sizes(const AxTarget *t, const Opts *o)
{
	if (o->nargs != 1)
		return fail("%s needs FILE.py", "compile");
	if (!o->out)
		return fail("%s needs -o kernels.py (the module; the table of buckets goes beside it, as .json)", "--sizes");
	if (o->report || o->emit_all || o->timeline)
		return fail("%s is an option of compile at one --dims, not of --sizes",
		            o->report ? "--report" : o->emit_all ? "--emit-all" : "--timeline");
	SizeSpec *sp = calloc(1, sizeof *sp);
	if (!sp)
		ax_die("out of memory");
	int rc = parse_spec(o->sizes, sp);
	TermCtx *tc = NULL;
	AxGraph *g = NULL;
	char *prog = NULL, *table = NULL, *module = NULL, **kernels = NULL;
	Compile *c = NULL;
	int nb = 1, map[64], pick[MAXNAMES] = { 0 };
	if (rc == 0 && !(prog = ax_read_text(o->args[0], NULL))) {
		fprintf(stderr, "axonc: error: cannot read %s: %s\n", o->args[0], strerror(errno));
		rc = 1;
	}
	if (rc == 0) {
		tc = tc_new(t);
		g = program_graph(t, tc, o);
		rc = g ? 0 : 1;
	}
	/* every size of the program named, and only those */
	for (int k = 0; rc == 0 && k < sp->n; k++) {
		int known = 0;
		for (int s = 0; s < g->nsyms; s++)
			known |= strcmp(g->syms[s], sp->name[k]) == 0;
		if (!known) {
			char what[300];
			size_t w = (size_t)snprintf(what, sizeof what, "%s is not a size of %s (its sizes:", sp->name[k], g->fn);
			for (int s = 0; s < g->nsyms && w < sizeof what; s++)
				w += (size_t)snprintf(what + w, sizeof what - w, " %s", g->syms[s]);
			if (w < sizeof what)
				snprintf(what + w, sizeof what - w, ")");
			rc = spec_fail(o->sizes, o->sizes + sp->at[k], what);
		}
	}
	for (int s = 0; rc == 0 && s < g->nsyms && s < 64; s++) {
		map[s] = -1;
		for (int k = 0; k < sp->n; k++)
			if (strcmp(g->syms[s], sp->name[k]) == 0)
				map[s] = k;
		if (map[s] < 0) {
			fprintf(stderr, "axonc: error: --sizes '%s': size %s of %s is not given (give %s=LO..HI or %s=V1,V2)\n"
			        "(run 'axonc --help' for usage)\n", o->sizes, g->syms[s], g->fn, g->syms[s], g->syms[s]);
			rc = 2;
		} else if ((nb *= sp->nr[map[s]]) > MAXBUCKETS) {
			fprintf(stderr, "axonc: error: --sizes '%s': more than %d buckets\n(run 'axonc --help' for usage)\n",
			        o->sizes, MAXBUCKETS);
			rc = 2;
		}
	}
	if (rc == 0 && g->nsyms > 64)
		rc = fail("%s has more than 64 sizes", g->fn);
	/* outputs, cache and its key */
	char jpath[PATH_MAX], cache[PATH_MAX], self[PATH_MAX], opts[512], key[33], cpy[PATH_MAX + 64], cjs[PATH_MAX + 64];
	if (rc == 0) {
		snprintf(jpath, sizeof jpath, "%s", o->out);
		char *dot = strrchr(jpath, '.'), *slash = strrchr(jpath, '/');
		if (dot && (!slash || dot > slash))
			*dot = 0;
		strncat(jpath, ".json", sizeof jpath - strlen(jpath) - 1);
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		if (o->cache)
			snprintf(cache, sizeof cache, "%s", o->cache);
		else if (xdg && xdg[0] == '/')
			snprintf(cache, sizeof cache, "%s/axon", xdg);
		else
			snprintf(cache, sizeof cache, "%s/.cache/axon", home && home[0] ? home : "/tmp");
		char absdir[PATH_MAX];
		if (ax_mkdir_p(cache) != 0 || !realpath(cache, absdir)) {
			fprintf(stderr, "axonc: error: cannot make the cache directory %s: %s\n", cache, strerror(errno));
			rc = 1;
		} else
			snprintf(cache, sizeof cache, "%s", absdir);
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n > 0)
			self[n] = 0;
		else if (!realpath(o->argv0, self))
			snprintf(self, sizeof self, "%s", o->argv0);
		replay_options(o, opts, sizeof opts);
		uint64_t h[2] = { 1469598103934665603ull, 0x84222325cbf29ce4ull };
		char num[64], build[96] = "";
		struct stat st;   /* the binary as built: a rebuilt axonc at the same path selects anew */
		if (stat(self, &st) == 0)
			snprintf(build, sizeof build, "%lld %lld.%09ld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			         (long)st.st_mtim.tv_nsec);
		const char *parts[] = { "axonc compile --sizes 1", prog, o->args[0], t->name, o->sizes, g ? g->fn : "", opts,
		                        o->measure ? o->measure : "model", self, build, cache };
		for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
			ax_hash_add(h, parts[k]);
		snprintf(num, sizeof num, "%d", o->budget);
		ax_hash_add(h, num);
		ax_hash_hex(h, key);
		snprintf(cpy, sizeof cpy, "%s/sizes/%s.py", cache, key);
		snprintf(cjs, sizeof cjs, "%s/sizes/%s.json", cache, key);
	}
	if (rc == 0 && access(cpy, R_OK) == 0 && access(cjs, R_OK) == 0) {
		rc = copy_file(cpy, o->out) || copy_file(cjs, jpath) ? 1 : 0;
		if (rc == 0)
			fprintf(stderr, "axonc: the cache answered (%s): %d bucket%s, no search; wrote %s and %s\n", cpy, nb,
			        nb == 1 ? "" : "s", o->out, jpath);
		goto done;
	}
	/* Phase 1 once, at the first bucket's sizes; Phase 2 per bucket */
	Opts o1 = *o;
	char dims[1024], words[1024];
	if (rc == 0) {
		bucket_text(sp, map, pick, g, dims, sizeof dims, words, sizeof words);
		o1.dims = dims;
		double t0 = ax_now_ms();
		c = compile_phase1(t, &o1, &rc);
		if (c)
			fprintf(stderr, "axonc: target %s; phase 1 %.2f s, once for %d bucket%s\n", t->name, (ax_now_ms() - t0) / 1e3,
			        nb, nb == 1 ? "" : "s");
	}
	size_t tlen = 0;
	FILE *tf = rc == 0 ? open_memstream(&table, &tlen) : NULL;
	if (tf) {
		fputs("{\"program\": ", tf);
		json_fstr(tf, o->args[0]);
		fprintf(tf, ", \"fn\": \"%s\", \"target\": \"%s\", \"sizes\": ", g->fn, t->name);
		json_fstr(tf, o->sizes);
		fprintf(tf, ", \"representative\": \"the lower bound of each range\", \"measure\": \"%s\", \"buckets\": [",
		        o->measure ? "command" : "model");
		kernels = calloc((size_t)nb, sizeof *kernels);
		if (!kernels)
			ax_die("out of memory");
	}
	for (int i = 0; tf && rc == 0 && i < nb; i++) {
		/* bucket i: mixed radix over the program's sizes, the last fastest */
		for (int s = g->nsyms - 1, r = i; s >= 0; s--) {
			pick[map[s]] = r % sp->nr[map[s]];
			r /= sp->nr[map[s]];
		}
		bucket_text(sp, map, pick, g, dims, sizeof dims, words, sizeof words);
		double t0 = ax_now_ms(), lat = 0;
		char *cfg = NULL;
		rc = compile_phase2_at(c, dims, &kernels[i], &cfg, &lat);
		if (rc) {
			fprintf(stderr, "axonc: error: bucket %d of %d (%s): no kernel at %s (said above)\n", i + 1, nb, words, dims);
			free(cfg);
			break;
		}
		fprintf(stderr, "axonc: bucket %d of %d (%s) at %s: best %.4f ms (%s), %.2f s\n", i + 1, nb, words, dims,
		        lat * 1e3, o->measure ? "measured by the command" : "modelled", (ax_now_ms() - t0) / 1e3);
		fprintf(tf, "%s\n  {\"sizes\": {", i ? "," : "");
		for (int s = 0; s < g->nsyms; s++) {
			const Range *r = &sp->r[map[s]][pick[map[s]]];
			fprintf(tf, "%s\"%s\": [%lld, %lld]", s ? ", " : "", g->syms[s], (long long)r->lo, (long long)r->hi);
		}
		fprintf(tf, "}, \"at\": \"%s\", \"latency_us\": %.3f, \"config\": %s}", dims, lat * 1e6, cfg);
		free(cfg);
	}
	if (tf) {
		fputs("\n]}\n", tf);
		fclose(tf);
	}
	if (rc == 0 && !(module = module_text(g, prog, self, cache, opts, table, kernels, nb, o, t)))
		rc = 1;
	if (rc == 0 && (put_file(o->out, module) != 0 || put_file(jpath, table) != 0))
		rc = 1;
	if (rc == 0) {   /* kept for the next run with the same arguments */
		char d[PATH_MAX + 16];
		snprintf(d, sizeof d, "%s/sizes", cache);
		if (ax_mkdir_p(d) != 0 || put_file(cjs, table) != 0 || put_file(cpy, module) != 0)
			fprintf(stderr, "axonc: note: the result could not be kept in the cache %s\n", cache);
		fprintf(stderr, "axonc: wrote %s (%d bucket%s) and %s; kept in the cache as %s\n", o->out, nb, nb == 1 ? "" : "s",
		        jpath, cpy);
	}
done:
	for (int i = 0; kernels && i < nb; i++)
		free(kernels[i]);
	free(kernels);
	free(module);
	free(table);
	free(prog);
	compile_close(c);
	if (tc)
		tc_free(tc);
	free(sp);
	return rc;
}
