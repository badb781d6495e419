/*
 * fuse_apply.c — instruction fusion applied (paper section 4.5): the
 * fusions fuse.c finds become choices of the lowering, next to the
 * sequences they fuse (which stay), so that extraction, emission, the C
 * rendering, the footprint and the performance model all see them.
 *
 * A loop nest variant of fuse_nests (one operation's sequence over its loaded
 * inputs, or a producer's and its only consumer's in one loop nest, possibly
 * after moves the second round proved) is an instruction graph; each fusion
 * found in it names a window (two instructions, the first read by the second
 * alone) and one instruction that synthesis proved equal to it.  The graph
 * with the window's reader replaced by that instruction over the window's
 * inputs computes the same tile, and so does the graph with several disjoint
 * windows replaced.  Such a graph is made a sequence again: its instructions
 * in dependence order from the result, the copies that load the tile's
 * inputs left out (the lowering places loads wherever an instruction cannot
 * read its operand where it is, as for any sequence).  One operation's
 * becomes another choice of that operation; a producer's and consumer's
 * becomes a choice of the consumer that includes the producer's computation,
 * written only when the producer is loop-fused into the consumer.  Nothing
 * here is keyed on an instruction: which instruction replaces which window is
 * what synthesis proved.
 */
#include <string.h>
#include "search.h"

enum { MAXADD = 8,     /* fused choices added per operation */
       MAXN = 64 };    /* nodes of a loop nest's instruction graph */

typedef struct Applier {
	const AxTiling *T;
	LowerNode *L;
	int *added;              /* per node: fused choices added */
	char (*key)[512];        /* every choice's key: node, producer, instructions */
	int nkeys, capkeys;
} Applier;

typedef struct Build {         /* one graph made a sequence */
	const AxTarget *t;
	TermCtx *tc;
	AxNode nd[MAXN];
	int map[MAXN];           /* per node: instruction j >= 0, input -1 - k, or UNSET */
	int out, bad;
	SynthSeq q;
} Build;

enum { UNSET = -999999 };

static void
seq_key(const AxTarget *t, const SynthSeq *q, int id, int absorb, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%d/%d:", id, absorb);
	for (int j = 0; j < q->ninsts && k < n; j++) {
		const AxOp *op = &t->insts[q->inst[j]];
		k += (size_t)snprintf(buf + k, n - k, "%d(", q->inst[j]);
		for (int o = 0; o < op->nopnd && k < n; o++)
			k += (size_t)snprintf(buf + k, n - k, "%d,", q->src[j][o]);
		for (int a = 0; a < op->nattr && k < n; a++)
			k += (size_t)snprintf(buf + k, n - k, "%d:%p,", q->attr[j][a], (void *)q->sattr[j][a]);
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, ")");
	}
}

/* 1 if the key is new (and now kept) */
static int
key_add(Applier *ap, const char *key)
{
	for (int i = 0; i < ap->nkeys; i++)
		if (strcmp(ap->key[i], key) == 0)
			return 0;
	if (ap->nkeys == ap->capkeys) {
		ap->capkeys = ap->capkeys ? 2 * ap->capkeys : 64;
		ap->key = realloc(ap->key, sizeof *ap->key * (size_t)ap->capkeys);
		if (!ap->key)
			ax_die("out of memory");
	}
	snprintf(ap->key[ap->nkeys++], sizeof *ap->key, "%s", key);
	return 1;
}

/* Node v as sequence input or instruction (operands first). */
static int
visit(Build *b, int v)
{
	if (b->map[v] != UNSET)
		return b->map[v];
	const AxNode *x = &b->nd[v];
	if (x->op < 0)
		return b->map[v] = -1 - x->input;
	/* a copy of an input: the load the lowering places again where it is needed */
	if (v != b->out && x->nin == 1 && x->in[0] >= 0 && b->nd[x->in[0]].op < 0 && lower_is_copy(b->t, b->tc, x->op))
		return b->map[v] = -1 - b->nd[x->in[0]].input;
	int src[AX_MAXOPND];
	for (int o = 0; o < AX_MAXOPND; o++)
		src[o] = o < x->nin && x->in[o] >= 0 ? visit(b, x->in[o]) : SYNTH_OMITTED;
	if (b->q.ninsts == 8 || b->bad) {
		b->bad = 1;
		return 0;
	}
	int j = b->q.ninsts++;
	const AxOp *op = &b->t->insts[x->op];
	b->q.inst[j] = x->op;
	b->q.insts[j] = op->name;
	b->q.engines[j] = op->engines;
	memcpy(b->q.src[j], src, sizeof src);
	memcpy(b->q.attr[j], x->attr, sizeof x->attr);
	memcpy(b->q.sattr[j], x->sattr, sizeof x->sattr);
	return b->map[v] = j;
}

/* The sequence's instruction j as text over the inputs' names. */
static size_t
render(const Build *b, const AxGraph *in, int j, char *buf, size_t n)
{
	const AxOp *op = &b->t->insts[b->q.inst[j]];
	size_t k = (size_t)snprintf(buf, n, "%s(", op->name);
	int first = 1;
	for (int o = 0; o < op->nopnd && k < n; o++) {
		int s = b->q.src[j][o];
		if (s == SYNTH_OMITTED)
			continue;
		k += (size_t)snprintf(buf + k, n - k, "%s%s=", first ? "" : ", ", op->opnd[o].name);
		first = 0;
		if (s >= 0)
			k += render(b, in, s, buf + k, n - k);
		else if (k < n)
			k += (size_t)snprintf(buf + k, n - k, "%s", in->params[-1 - s].name);
	}
	for (int a = 0; a < op->nattr && k < n; a++) {
		const Term *v = b->q.sattr[j][a];
		if (op->attr[a].kind == AX_ATTR_ENUM)
			k += (size_t)snprintf(buf + k, n - k, "%s%s=%s", first ? "" : ", ", op->attr[a].name,
			                      b->t->enums[op->attr[a].enum_id].items[b->q.attr[j][a]]);
		else if (v)
			k += (size_t)snprintf(buf + k, n - k, "%s%s=%s", first ? "" : ", ", op->attr[a].name,
			                      t_infix(b->tc, v));
		else
			continue;
		first = 0;
	}
	if (k < n)
		k += (size_t)snprintf(buf + k, n - k, ")");
	return k < n ? k : n;
}

/* The inputs of a producer-and-consumer choice: the nest graph's inputs, the
 * producer's named after it. */
static AxGraph *
nest_inputs(const AxGraph *g, const AxGraph *h, int p, int nprod)
{
	AxGraph *in = graph_new(g->t, g->tc);
	in->params = arena_alloc(tc_arena(g->tc), sizeof *in->params * (size_t)(h->nparams + 1));
	for (int k = 0; k < h->nparams; k++) {
		const AxNode *x = NULL;
		for (int i = 0; i < h->nnodes && !x; i++)
			if (h->nodes[i].op < 0 && h->nodes[i].input == k)
				x = &h->nodes[i];
		if (!x)
			return NULL;
		AxNode y = *x;
		y.input = k;
		const char *name = h->params[k].name;
		if (k < nprod) {
			char buf[96];
			snprintf(buf, sizeof buf, "%s.%s", node_op(g, &g->nodes[p])->name, name);
			name = arena_strdup(tc_arena(g->tc), buf);
		}
		in->params[in->nparams++] = (AxParam){ .name = name, .tensor = 1, .node = graph_add(in, &y), .dtype = "f32" };
	}
	return in;
}

/* Fusions pick[0..np) of variant v of nest applied, made a choice. */
static void
build(Applier *ap, const FuseNest *nest, const FuseInstVariant *v, const int *pick, int np)
{
	const AxGraph *g = ap->T->g;
	const AxGraph *h = v->g;
	int cross = nest->nodes[0] != nest->nodes[1], id = nest->nodes[1];
	if (h->nnodes > MAXN || ap->added[id] >= MAXADD)
		return;
	Build *b = calloc(1, sizeof *b);
	if (!b)
		ax_die("out of memory");
	b->t = g->t;
	b->tc = g->tc;
	memcpy(b->nd, h->nodes, sizeof *b->nd * (size_t)h->nnodes);
	for (int i = 0; i < MAXN; i++)
		b->map[i] = UNSET;
	b->out = h->outputs[0];
	char fusion[600];
	size_t fk = 0;
	fusion[0] = 0;
	if (!np)   /* no window: the two sequences as they are, one choice of the consumer */
		fk = (size_t)snprintf(fusion, sizeof fusion, "%s's sequence in its reader's (loaded with its blocks)",
		                      node_op(g, &g->nodes[nest->nodes[0]])->name);
	for (int i = 0; i < np; i++) {
		const FuseFound *f = &v->found[pick[i]];
		const SynthSeq *q = &f->fused;
		AxNode *x = &b->nd[f->inst[1]];
		x->op = q->inst[0];
		x->inst = 1;
		x->nin = g->t->insts[q->inst[0]].nopnd;
		memcpy(x->attr, q->attr[0], sizeof x->attr);
		memcpy(x->sattr, q->sattr[0], sizeof x->sattr);
		for (int o = 0; o < AX_MAXOPND; o++) {
			int s = o < x->nin ? q->src[0][o] : SYNTH_OMITTED;
			if (s >= 0 || (s != SYNTH_OMITTED && -1 - s >= f->nwsrc))
				b->bad = 1;
			x->in[o] = s == SYNTH_OMITTED || b->bad ? -1 : f->wsrc[-1 - s];
		}
		fk += (size_t)snprintf(fusion + fk, sizeof fusion - fk, "%s%s => %s", i ? "; " : "", f->window, q->text);
		if (fk >= sizeof fusion)
			fk = sizeof fusion - 1;
	}
	if (v->nmoves && fk < sizeof fusion)
		snprintf(fusion + fk, sizeof fusion - fk, " (after %s%s)", v->moves[v->nmoves - 1],
		         v->nmoves > 1 ? " and earlier moves" : "");
	visit(b, b->out);
	LowerChoice ch = { .seq = b->q, .fused = 1, .fusion = arena_strdup(tc_arena(g->tc), fusion), .hyp = nest->hyp };
	int nprod = cross ? ap->T->op[nest->nodes[0]].tile->nparams : 0;
	if (!b->bad && cross) {
		ch.tile = nest_inputs(g, h, nest->nodes[0], nprod);
		ch.absorb = nest->nodes[0];
		ch.absorb_opnd = nest->opnd;
		ch.absorb_choice = nest->choice[0];
		ch.nprod = nprod;
		ch.ntie = nest->nsub;
		memcpy(ch.tie_from, nest->from, sizeof nest->from);
		memcpy(ch.tie_to, nest->to, sizeof nest->to);
		b->bad = !ch.tile || nest->opnd < 0;
	}
	char key[512];
	if (!b->bad && b->q.ninsts > 0) {
		seq_key(g->t, &ch.seq, id, cross ? nest->nodes[0] : -1, key, sizeof key);
		const AxGraph *in = ch.tile ? ch.tile : ap->T->op[id].tile;
		render(b, in, ch.seq.ninsts - 1, ch.seq.text, sizeof ch.seq.text);
		int cinst[32];
		for (int k = 0; k < in->nparams && k < 32; k++) {
			int o, node = lower_input(g, &ch, id, k, &o);
			cinst[k] = o < g->nodes[node].nin && ap->L[node].constant[o] ? ap->L[node].const_inst[o] : -1;
		}
		if (in->nparams <= 32 && key_add(ap, key) && lower_add_choice(ap->T, ap->L, id, &ch, cinst) == 0)
			ap->added[id]++;
	}
	free(b);
}

int
fuse_apply(LowerCache *c, const AxTiling *T, LowerNode *L)
{
	const AxGraph *g = T->g;
	Applier ap = { .T = T, .L = L };
	ap.added = calloc((size_t)g->nnodes + 1, sizeof *ap.added);
	if (!ap.added)
		ax_die("out of memory");
	for (int id = 0; id < g->nnodes; id++)   /* the synthesized choices: not added again */
		for (int q = 0; q < L[id].nchoices; q++) {
			char key[512];
			seq_key(g->t, &L[id].choice[q].seq, id, -1, key, sizeof key);
			key_add(&ap, key);
		}
	int *windows, *skipped;
	LowerCache *c1 = lower_cache_fusion(c, &windows, &skipped);
	if (*windows >= FUSE_BUDGET) {
		(*skipped)++;
		free(ap.key);
		free(ap.added);
		return 0;
	}
	FuseResult *r = fuse_nests(c1, T, L, NULL);
	*windows += r->nwindows;
	int total = 0;
	for (int k = 0; k < r->nnests; k++) {
		const FuseNest *nest = &r->nest[k];
		/* a producer's and its only consumer's sequences as they are, one choice of the consumer:
		 * what loop fusion writes, but the producer's loads are the consumer's own, made once
		 * per block of the consumer with its other loads.  Only for a producer of one sequence:
		 * such a choice is one per producer sequence, and extraction skips every combination
		 * whose producer sequence is not the one absorbed, so more would thin out what a
		 * budget visits (SiLU MLP: 1344 candidates at budget 2000 down to 112) */
		for (int vi = 0; nest->nodes[0] != nest->nodes[1] && vi < nest->nvariants &&
		                 L[nest->nodes[0]].nchoices == 1; vi++) {
			/* as lowered, and each order the second round proved (MaxPool: the window's
			 * other half combined first, on another engine) */
			int before = ap.added[nest->nodes[1]];
			build(&ap, nest, &nest->v[vi], NULL, 0);
			total += ap.added[nest->nodes[1]] - before;
		}
		for (int vi = 0; vi < nest->nvariants; vi++) {
			const FuseInstVariant *v = &nest->v[vi];
			/* each fusion alone, then all whose windows are disjoint together */
			for (int s = 0; s <= v->nfound && v->nfound; s++) {
				int pick[16], np = 0;
				if (s < v->nfound)
					pick[np++] = s;
				else
					for (int i = 0; i < v->nfound && np < 16; i++) {
						const FuseFound *f = &v->found[i];
						int clash = 0;
						for (int j = 0; j < np; j++) {
							const FuseFound *e = &v->found[pick[j]];
							clash |= e->inst[0] == f->inst[0] || e->inst[0] == f->inst[1] ||
							         e->inst[1] == f->inst[0] || e->inst[1] == f->inst[1];
						}
						if (!clash)
							pick[np++] = i;
					}
				if (s == v->nfound && np < 2)
					continue;
				/* a producer's and consumer's: at least one window across the two */
				int across = nest->nodes[0] == nest->nodes[1];
				for (int j = 0; j < np; j++)
					across |= v->found[pick[j]].nodes[0] != v->found[pick[j]].nodes[1];
				if (!across)
					continue;
				int before = ap.added[nest->nodes[1]];
				build(&ap, nest, v, pick, np);
				total += ap.added[nest->nodes[1]] - before;
			}
		}
	}
	free(ap.key);
	free(ap.added);
	return total;
}

/* a variant lowered: its sequences, then the fusions found among them as more choices */
LowerNode *
lower_variant(LowerCache *c, const AxTiling *T, int maxchoices)
{
	LowerNode *L = lower_variant_plain(c, T, maxchoices);
	fuse_apply(c, T, L);
	return L;
}
