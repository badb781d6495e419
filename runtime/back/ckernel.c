/*
 * ckernel.c — a candidate's C rendering (emit_c.c) compiled in process by
 * libtcc and run: the bridge functions it calls, nest_run(), and the
 * numerics check of `axonc compile --validate`.
 *
 * The bridge keeps, per run, the off-chip tensors (by node) and the on-chip
 * variables (v<k>) as row-major float32 arrays in one arena.  A value
 * reference (an array, see emit_c.c) is resolved into a strided view of its base; a read
 * gathers the view into a contiguous tile (a whole variable or tensor is
 * read in place), a write scatters a tile into it with NumPy's assignment
 * broadcasting.  Slices are checked against their base: an index out of
 * range is an error, where NumPy would clip.  Instructions and views run
 * through the reference kernels of the target's tables, by index; nothing
 * here knows an operator, an instruction or a memory by name.
 *
 * The rendering includes no header and calls nothing but the bridge, so it
 * is compiled with -nostdlib: neither libc nor tcc's runtime library
 * (libtcc1.a, part of Debian's tcc package, not of libtcc-dev) is linked,
 * and tcc needs no library or include path.
 */
#include <libtcc.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "nest.h"

typedef struct AxkCtx AxkCtx;   /* one run of a rendering */

typedef struct Val {           /* a tensor or a variable */
	float *data;
	AxShape shape;
	int64_t cap;             /* elements data holds */
	int set, input;          /* written (or given); a kernel input: read only */
} Val;

struct AxkCtx {
	const AxTarget *t;
	Arena *a;                /* the run's tensors and variables */
	int nnodes, nvars;
	Val *tens, *vars;
	float *spare;            /* gathered tiles of one call */
	int64_t scap;
	int nout;
	AxShape oshape[16];
	char why[600];
	int bad;
};

typedef struct View {          /* a strided view of a tensor or variable */
	float *base;
	int whole;               /* the base itself, contiguous */
	int writable;
	AxShape shape;
	int64_t stride[AX_MAXR + 2];
	int64_t off;
} View;

static int
kfail(AxkCtx *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int
kfail(AxkCtx *k, const char *fmt, ...)
{
	if (!k->bad) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(k->why, sizeof k->why, fmt, ap);
		va_end(ap);
	}
	k->bad = 1;
	return 1;
}

/* the reason so far, behind what (the context of a failed call) */
static int
kwrap(AxkCtx *k, const char *what)
{
	char t[sizeof k->why];
	snprintf(t, sizeof t, "%.80s: %.500s", what, k->why);
	memcpy(k->why, t, sizeof t);
	return 1;
}


static int
set_shape(AxkCtx *k, AxShape *s, int rank, const int64_t *dims)
{
	if (rank < 0 || rank > AX_MAXR)
		return kfail(k, "a shape of rank %d", rank);
	s->rank = rank;
	int64_t n = 1;
	for (int d = 0; d < rank; d++) {
		if (dims[d] < 1 || dims[d] > ((int64_t)1 << 31))
			return kfail(k, "a dim of size %lld", (long long)dims[d]);
		s->d[d] = dims[d];
		n *= dims[d];
		if (n > ((int64_t)1 << 31))
			return kfail(k, "a tensor of more than 2^31 elements");
	}
	return 0;
}

static void
zero(float *p, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		p[i] = 0;
}

/* room for n elements in v (kept across calls: a variable's tile has one shape) */
static void
reserve(AxkCtx *k, Val *v, int64_t n)
{
	if (v->cap < n) {
		v->data = arena_alloc(k->a, sizeof(float) * (size_t)(n ? n : 1));
		v->cap = n;
	}
}

static int
var_ok(AxkCtx *k, int var)
{
	if (var < 0 || var >= k->nvars)
		return kfail(k, "variable v%d is outside the statements' %d variables", var, k->nvars);
	return 0;
}

/* ref = { base, nidx, ellipsis, start0, len0, ... } as a view of its base; ellipsis 2: per dim
 * start, len, fold, fin, flen (fold > 0: that dim seen as (groups, fold), start/len over the
 * groups, fin/flen the row) */
static int
resolve(AxkCtx *k, const int64_t *ref, View *v)
{
	int64_t b = ref[0], nidx = ref[1];
	Val *val;
	char nm[32];
	if (b >= 0) {
		if (var_ok(k, (int)b))
			return 1;
		val = &k->vars[b];
		snprintf(nm, sizeof nm, "v%lld", (long long)b);
	} else {
		if (-1 - b >= k->nnodes)
			return kfail(k, "a reference to node %lld, which the graph does not have", (long long)(-1 - b));
		val = &k->tens[-1 - b];
		snprintf(nm, sizeof nm, "the tensor of node %lld", (long long)(-1 - b));
	}
	if (!val->set)
		return kfail(k, "%s is read before it is written", nm);
	const AxShape *s = &val->shape;
	*v = (View){ .base = val->data };
	v->writable = !val->input;
	if (nidx == 0) {
		v->whole = 1;
		v->shape = *s;
		return 0;
	}
	int per = ref[2] == 2 ? 5 : 2;
	if ((ref[2] && per == 2) || nidx < 0 || nidx > s->rank)
		return kfail(k, "%lld indices into %s, of rank %d", (long long)nidx, nm, s->rank);
	int64_t st[AX_MAXR + 2];
	st[s->rank - 1 < 0 ? 0 : s->rank - 1] = 1;
	for (int d = s->rank - 2; d >= 0; d--)
		st[d] = st[d + 1] * s->d[d + 1];
	for (int d = 0; d < s->rank; d++) {
		const int64_t *x = ref + 3 + per * d;
		int64_t start = d < nidx ? x[0] : 0, len = d < nidx ? x[1] : s->d[d], fold = d < nidx && per == 5 ? x[2] : 0;
		/* a folded dim: (groups, fold) of strides (fold rows, one row), groups first */
		int64_t size = fold > 0 ? s->d[d] / fold : s->d[d], stride = fold > 0 ? st[d] * fold : st[d];
		if (fold < 0 || (fold > 0 && s->d[d] % fold) || v->shape.rank + 2 > AX_MAXR)
			return kfail(k, "dim %d of %s cannot be seen in groups of %lld rows", d, nm, (long long)fold);
		for (int part = 0; part < (fold > 0 ? 2 : 1); part++) {
			if (part) {
				start = x[3], len = x[4], size = fold, stride = st[d];
			}
			if (len < 0 || start < 0 || (len == 0 ? start >= size : start + len > size))
				return kfail(k, "index %lld%s%lld of dim %d of %s (size %lld) is out of range", (long long)start,
				             len ? " + " : "", (long long)(len ? len : 0), d, nm, (long long)size);
			v->off += start * stride;
			if (len) {
				v->shape.d[v->shape.rank] = len;
				v->stride[v->shape.rank++] = stride;
			}
		}
	}
	return 0;
}

/* the view's elements in row-major order into dst */
static void
gather(const View *v, float *dst)
{
	if (v->whole) {
		memcpy(dst, v->base, sizeof(float) * (size_t)ax_numel(&v->shape));
		return;
	}
	int r = v->shape.rank;
	int64_t idx[AX_MAXR + 2] = { 0 }, n = ax_numel(&v->shape), inner = r ? v->shape.d[r - 1] : 1;
	int64_t is = r ? v->stride[r - 1] : 1;
	for (int64_t i = 0; i < n; i += inner) {
		int64_t off = v->off;
		for (int d = 0; d + 1 < r; d++)
			off += idx[d] * v->stride[d];
		for (int64_t j = 0; j < inner; j++)
			dst[i + j] = v->base[off + j * is];
		for (int d = r - 2; d >= 0; d--) {   /* the odometer over the outer dims */
			if (++idx[d] < v->shape.d[d])
				break;
			idx[d] = 0;
		}
	}
}

/* spare room for n floats (the call's tiles; valid until the next call) */
static float *
spare(AxkCtx *k, int64_t n)
{
	if (n < 1)
		n = 1;
	if (k->scap < n) {
		free(k->spare);
		k->scap = n > 2 * k->scap ? n : 2 * k->scap;
		k->spare = malloc(sizeof(float) * (size_t)k->scap);
		if (!k->spare)
			ax_die("out of memory");
	}
	return k->spare;
}

/* dst (a view) = src (or += with accum), src broadcast to dst's shape as NumPy
 * assigns: leading 1-dims of src dropped, then aligned right, 1 stretches */
static int
assign(AxkCtx *k, const View *dst, const float *src, const AxShape *ss, int accum, const char *what)
{
	if (!dst->writable)
		return kfail(k, "%s writes into a kernel input", what);
	const AxShape *ds = &dst->shape;
	int sr = ss->rank, lead = 0;
	while (sr - lead > ds->rank && ss->d[lead] == 1)
		lead++;
	int64_t sst[AX_MAXR + 2] = { 0 }, step = 1;
	int ok = sr - lead <= ds->rank;
	for (int d = sr - 1; ok && d >= lead; d--) {
		int dd = ds->rank - (sr - d);
		if (ss->d[d] == ds->d[dd])
			sst[dd] = step;
		else if (ss->d[d] != 1)
			ok = 0;
		step *= ss->d[d];
	}
	if (!ok) {
		char a[96], b[96];
		ax_shape_str(ss, a, sizeof a);
		ax_shape_str(ds, b, sizeof b);
		return kfail(k, "%s: a value of shape %s does not broadcast into %s", what, a, b);
	}
	int r = ds->rank;
	int64_t st[AX_MAXR + 2];
	if (dst->whole) {
		if (r)
			st[r - 1] = 1;
		for (int d = r - 2; d >= 0; d--)
			st[d] = st[d + 1] * ds->d[d + 1];
	} else
		memcpy(st, dst->stride, sizeof st);
	int64_t idx[AX_MAXR + 2] = { 0 }, n = ax_numel(ds);
	for (int64_t i = 0; i < n; i++) {
		int64_t doff = dst->off, soff = 0;
		for (int d = 0; d < r; d++) {
			doff += idx[d] * st[d];
			soff += idx[d] * sst[d];
		}
		dst->base[doff] = accum ? dst->base[doff] + src[soff] : src[soff];
		for (int d = r - 1; d >= 0; d--) {
			if (++idx[d] < ds->d[d])
				break;
			idx[d] = 0;
		}
	}
	return 0;
}

/* ---- the bridge: what the rendering calls ------------------------------------------ */

/* Declared for the rendering by its prelude (emit_c.c); passed to tcc by name. */

int
axk_input(AxkCtx *k, int node, const float *data, int rank, const int64_t *dims)
{
	if (node < 0 || node >= k->nnodes || !data)
		return kfail(k, "input node %d: no data", node);
	Val *v = &k->tens[node];
	if (set_shape(k, &v->shape, rank, dims))
		return 1;
	v->data = (float *)data;   /* read only: writes into inputs are refused */
	v->set = v->input = 1;
	return 0;
}

int
axk_tensor(AxkCtx *k, int node, int rank, const int64_t *dims)
{
	if (node < 0 || node >= k->nnodes)
		return kfail(k, "tensor of node %d, which the graph does not have", node);
	Val *v = &k->tens[node];
	if (v->input || set_shape(k, &v->shape, rank, dims))
		return kfail(k, "node %d cannot be declared an off-chip tensor", node);
	int64_t n = ax_numel(&v->shape);
	reserve(k, v, n);
	zero(v->data, n);
	v->set = 1;
	return 0;
}

int
axk_buf(AxkCtx *k, int var, int rank, const int64_t *dims)
{
	if (var_ok(k, var))
		return 1;
	Val *v = &k->vars[var];
	if (set_shape(k, &v->shape, rank, dims))
		return 1;
	int64_t n = ax_numel(&v->shape);
	reserve(k, v, n);
	zero(v->data, n);   /* a fresh buffer each time, as the simulator's */
	v->set = 1;
	return 0;
}

int
axk_inst(AxkCtx *k, int var, int inst, int engine, const int *attr, const double *aval,
         const int64_t *const *opnd, const int64_t *out, int rank, const int64_t *dims)
{
	if (inst < 0 || inst >= k->t->ninsts)
		return kfail(k, "instruction %d is not in the target's table", inst);
	const AxOp *op = &k->t->insts[inst];
	if (var_ok(k, var))
		return 1;
	AxConc c = { .nopnd = op->nopnd, .engine = engine };
	View v[AX_MAXOPND];
	const float *in[AX_MAXOPND] = { 0 };
	int64_t need = 0, at[AX_MAXOPND];
	int alias = 0;   /* the result replaces a variable an operand reads in place */
	for (int o = 0; o < op->nopnd; o++) {
		if (!opnd[o]) {
			c.rank[o] = -1;
			continue;
		}
		if (resolve(k, opnd[o], &v[o]))
			return kwrap(k, op->name);
		c.rank[o] = v[o].shape.rank;
		memcpy(c.dim[o], v[o].shape.d, sizeof c.dim[o]);
		at[o] = need;
		if (v[o].whole) {
			in[o] = v[o].base;
			alias |= opnd[o][0] == var;
		} else
			need += ax_numel(&v[o].shape);
	}
	for (int a = 0; a < op->nattr; a++) {
		if (op->attr[a].kind == AX_ATTR_ENUM)
			c.attr[a] = attr[a];
		else if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)llround(aval[a]);
		else
			c.fval[a] = aval[a];
	}
	AxShape rs, want;
	char err[300], a1[96], a2[96];
	if (op->check(&c, &rs, err, sizeof err) != 0)
		return kfail(k, "%s: %s", op->name, err);
	if (set_shape(k, &want, rank, dims))
		return 1;
	if (rs.rank != want.rank || memcmp(rs.d, want.d, sizeof(int64_t) * (size_t)rs.rank) != 0) {
		ax_shape_str(&rs, a1, sizeof a1);
		ax_shape_str(&want, a2, sizeof a2);
		return kfail(k, "%s makes a tile of shape %s, but its statement says %s", op->name, a1, a2);
	}
	int64_t n = ax_numel(&rs);
	int own = out && out[0] == var;   /* written into a slice of its own variable */
	float *s = spare(k, need + (alias || own ? n : 0));
	for (int o = 0; o < op->nopnd; o++)
		if (opnd[o] && !v[o].whole) {
			gather(&v[o], s + at[o]);
			in[o] = s + at[o];
		}
	Val *res = &k->vars[var];
	float *dst = s + need;
	if (!alias && !own) {
		reserve(k, res, n);
		dst = res->data;
	}
	if (op->ref(&c, in, dst, err, sizeof err) != 0)
		return kfail(k, "%s: %s", op->name, err);
	if (out) {   /* its result written into a slice of a tensor or of a variable */
		View ov;
		if (resolve(k, out, &ov))
			return kwrap(k, op->name);
		if (assign(k, &ov, dst, &rs, 0, op->name))
			return 1;
		if (own)
			return 0;   /* into its own buffer: the variable stays the buffer */
	}
	if (dst != res->data) {
		reserve(k, res, n);
		memcpy(res->data, dst, sizeof(float) * (size_t)n);
	}
	res->shape = rs;
	res->set = 1;
	return 0;
}

/* src gathered into a tile (in place if whole): its data and shape */
static const float *
read_ref(AxkCtx *k, const int64_t *src, AxShape *s)
{
	View v;
	if (resolve(k, src, &v))
		return NULL;
	*s = v.shape;
	if (v.whole)
		return v.base;
	float *t = spare(k, ax_numel(&v.shape));
	gather(&v, t);
	return t;
}

int
axk_store(AxkCtx *k, const int64_t *dst, const int64_t *src)
{
	AxShape ss;
	View dv;
	const float *s = read_ref(k, src, &ss);
	if (!s || resolve(k, dst, &dv))
		return kwrap(k, "a store");
	if (dv.base == s) {   /* a value stored into a part of itself */
		float *t = spare(k, ax_numel(&ss));
		memcpy(t, s, sizeof(float) * (size_t)ax_numel(&ss));
		s = t;
	}
	return assign(k, &dv, s, &ss, 0, "a store");
}

int
axk_acc(AxkCtx *k, const int64_t *dst, const int64_t *src)
{
	AxShape ss;
	View dv;
	const float *s = read_ref(k, src, &ss);
	if (!s || resolve(k, dst, &dv))
		return kwrap(k, "an accumulation");
	if (dv.base == s) {   /* v += v */
		float *t = spare(k, ax_numel(&ss));
		memcpy(t, s, sizeof(float) * (size_t)ax_numel(&ss));
		s = t;
	}
	return assign(k, &dv, s, &ss, 1, "an accumulation");
}

int
axk_set(AxkCtx *k, int var, const int64_t *src)
{
	AxShape ss;
	if (var_ok(k, var))
		return 1;
	Val *v = &k->vars[var];
	const float *s = read_ref(k, src, &ss);
	if (!s)
		return kwrap(k, "a running value");
	int64_t n = ax_numel(&ss);
	if (s == v->data)
		return 0;
	if (v->cap < n) {   /* s may be v's old data: copy before replacing it */
		float *t = arena_alloc(k->a, sizeof(float) * (size_t)(n ? n : 1));
		memcpy(t, s, sizeof(float) * (size_t)n);
		v->data = t;
		v->cap = n;
	} else
		memmove(v->data, s, sizeof(float) * (size_t)n);
	v->shape = ss;
	v->set = 1;
	return 0;
}

int
axk_view(AxkCtx *k, int node, int opi, int is_inst, int engine, const int *in, const int *grank, const int *attr,
         const double *aval)
{
	if (node < 0 || node >= k->nnodes || opi < 0 || opi >= (is_inst ? k->t->ninsts : k->t->nops))
		return kfail(k, "a view of node %d through op %d", node, opi);
	const AxOp *op = is_inst ? &k->t->insts[opi] : &k->t->ops[opi];
	AxConc c = { .nopnd = op->nopnd, .engine = engine };
	const float *args[AX_MAXOPND] = { 0 };
	for (int o = 0; o < op->nopnd; o++) {
		if (in[o] < 0) {
			c.rank[o] = -1;
			continue;
		}
		if (in[o] >= k->nnodes || !k->tens[in[o]].set)
			return kfail(k, "%s reads node %d before it is written", op->name, in[o]);
		const Val *x = &k->tens[in[o]];
		c.rank[o] = x->shape.rank;
		memcpy(c.dim[o], x->shape.d, sizeof c.dim[o]);
		args[o] = x->data;
	}
	memcpy(c.grank, grank, sizeof c.grank);
	for (int a = 0; a < op->nattr; a++) {
		if (op->attr[a].kind == AX_ATTR_ENUM)
			c.attr[a] = attr[a];
		else if (op->attr[a].kind == AX_ATTR_SIZE)
			c.size[a] = (int64_t)llround(aval[a]);
		else
			c.fval[a] = aval[a];
	}
	Val *v = &k->tens[node];
	char err[300];
	if (v->input || op->check(&c, &v->shape, err, sizeof err) != 0)
		return kfail(k, "%s: %s", op->name, v->input ? "a view cannot replace an input" : err);
	reserve(k, v, ax_numel(&v->shape));
	if (op->ref(&c, args, v->data, err, sizeof err) != 0)
		return kfail(k, "%s: %s", op->name, err);
	v->set = 1;
	return 0;
}

int
axk_output(AxkCtx *k, float **out, int idx, int node)
{
	if (idx < 0 || idx >= 16 || node < 0 || node >= k->nnodes || !k->tens[node].set)
		return kfail(k, "result %d: node %d is not computed", idx, node);
	const Val *v = &k->tens[node];
	int64_t n = ax_numel(&v->shape);
	out[idx] = malloc(sizeof(float) * (size_t)(n ? n : 1));
	if (!out[idx])
		ax_die("out of memory");
	memcpy(out[idx], v->data, sizeof(float) * (size_t)n);
	k->oshape[idx] = v->shape;
	if (idx >= k->nout)
		k->nout = idx + 1;
	return 0;
}

/* ---- compiling and running the rendering ------------------------------------------- */

typedef int (*KernelFn)(AxkCtx *k, float *const *in, float **out);

static void
tcc_message(void *opaque, const char *msg)
{
	char *why = opaque;
	if (!*why)
		snprintf(why, 400, "%s", msg);
}

int
nest_run_c(const Nest *ns, const char *src, const char *name, const float *const *inputs, float **outputs,
           AxShape *oshapes, char *why, size_t nwhy)
{
	const AxGraph *g = ns->g;
	char tccwhy[400] = "";
	TCCState *s = tcc_new();
	if (!s)
		ax_die("out of memory");
	tcc_set_error_func(s, tccwhy, tcc_message);
	tcc_set_options(s, "-nostdlib");
	tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
	static const struct { const char *name; const void *fn; } syms[] = {
		{ "axk_input", (const void *)axk_input }, { "axk_tensor", (const void *)axk_tensor },
		{ "axk_buf", (const void *)axk_buf },     { "axk_inst", (const void *)axk_inst },
		{ "axk_store", (const void *)axk_store }, { "axk_acc", (const void *)axk_acc },
		{ "axk_set", (const void *)axk_set },     { "axk_view", (const void *)axk_view },
		{ "axk_output", (const void *)axk_output },
	};
	KernelFn fn = NULL;
	int rc = -1;
	if (tcc_compile_string(s, src) != 0) {
		snprintf(why, nwhy, "the C rendering does not compile: %s", tccwhy);
		goto done;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
		tcc_add_symbol(s, syms[i].name, syms[i].fn);
	if (tcc_relocate(s, TCC_RELOCATE_AUTO) < 0 || !(fn = (KernelFn)tcc_get_symbol(s, name))) {
		snprintf(why, nwhy, "the C rendering does not link: %s", tccwhy);
		goto done;
	}
	AxkCtx k = { .t = g->t, .a = arena_new(), .nnodes = g->nnodes, .nvars = ns->nvars };
	k.tens = arena_alloc(k.a, sizeof(Val) * (size_t)(k.nnodes + 1));
	k.vars = arena_alloc(k.a, sizeof(Val) * (size_t)(k.nvars + 1));
	for (int i = 0; i < g->noutputs; i++)
		outputs[i] = NULL;
	int line = fn(&k, (float *const *)inputs, outputs);
	if (line != 0 || k.bad || k.nout != g->noutputs) {
		snprintf(why, nwhy, "line %d of the C rendering: %s", line, k.bad ? k.why : "not every result is made");
		for (int i = 0; i < g->noutputs; i++) {
			free(outputs[i]);
			outputs[i] = NULL;
		}
	} else {
		memcpy(oshapes, k.oshape, sizeof(AxShape) * (size_t)g->noutputs);
		rc = 0;
	}
	free(k.spare);
	arena_free(k.a);
done:
	tcc_delete(s);
	return rc;
}

int
nest_run(const Nest *ns, const float *const *inputs, float **outputs, AxShape *oshapes, char *why, size_t nwhy)
{
	char *src = nest_c(ns, "axk_kernel", why, nwhy);
	if (!src)
		return -1;
	int rc = nest_run_c(ns, src, "axk_kernel", inputs, outputs, oshapes, why, nwhy);
	free(src);
	return rc;
}
