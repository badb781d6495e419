/*
 * lower.c — from a tiled variant to instruction choices (paper section 4.4,
 * "DMA Operations and Engine Selection").
 *
 * Every 2-D tile operation of the tiling is synthesized (synth.c), once per
 * distinct semantics: the cache key is the tile graph with its sizes renamed
 * in order of appearance (S0, S1, ...), so `multiply` over [t0_3, t1_3] and over
 * [t0_9, t1_9] share one search; the found sequences are renamed back to the
 * node's own tile parameters, whose hardware limits they become.  A reduction
 * that crosses tiles gets its combining operation: the spec'd binary op whose
 * element equation is a + b (max, min) is found by its equation and
 * synthesized over the partial tiles like any other tile.
 *
 * Then data movement: the program's tensors live in the target's off-chip
 * memory and each operation reads its operands from there and writes its
 * result back (fusion, a later stage, keeps them on chip).  Where an
 * instruction's operand or result memory differs from where the data is, the
 * shortest chain of the target's copy instructions (those whose element
 * equation is the identity) is inserted.  Constants are made on chip by an
 * instruction without operands whose element equation is proved equal to the
 * constant.  Nothing here names an instruction or a memory.
 */
#include <stdlib.h>
#include <string.h>
#include "search.h"

struct LowerCache {
	const AxTarget *t;
	TermCtx *tc;
	int depth;
	int n, cap;
	char **key;
	int *first, *count;
	SynthSeq *seq;
	int nseq, seqcap;
	int hits, checked;
	double ms;
	int first_only;      /* the search under way ends at its first sequence (lower_tile_first) */
	Equiv *eq;   /* every search's checker (synth_tile) */
	LowerCache *c1;      /* the fusion search's depth-1 cache, shared by every variant lowered here */
	int fuse_windows;    /* windows the fusion searches of the variants lowered here tried */
	int fuse_skipped;    /* variants lowered here without a fusion search: the budget was spent */
};

LowerCache *
lower_cache_new(const AxTarget *t, TermCtx *tc, int depth)
{
	LowerCache *c = arena_alloc(tc_arena(tc), sizeof *c);
	c->t = t;
	c->tc = tc;
	c->depth = depth;
	return c;
}

void
lower_cache_free(LowerCache *c)
{
	free(c->key);
	free(c->first);
	free(c->count);
	free(c->seq);
	equiv_free(c->eq);
	if (c->c1 && c->c1 != c)
		lower_cache_free(c->c1);
}

LowerCache *
lower_cache_fusion(LowerCache *c, int **windows, int **skipped)
{
	if (!c->c1)
		c->c1 = c->depth == 1 ? c : lower_cache_new(c->t, c->tc, 1);
	*windows = &c->fuse_windows;
	*skipped = &c->fuse_skipped;
	return c->c1;
}

void
lower_cache_stats(const LowerCache *c, int *tiles, int *hits, int *checked, double *ms)
{
	*tiles = c->n;
	*hits = c->hits;
	*checked = c->checked;
	*ms = c->ms;
}

static int
collect(void *env, const SynthSeq *q)
{
	LowerCache *c = env;
	if (c->nseq == c->seqcap) {
		c->seqcap = c->seqcap ? 2 * c->seqcap : 64;
		c->seq = realloc(c->seq, sizeof *c->seq * (size_t)c->seqcap);
		if (!c->seq)
			ax_die("out of memory");
	}
	c->seq[c->nseq++] = *q;
	return c->first_only;
}

/* ---- renaming sizes ------------------------------------------------------------ */

static int
is_word(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* s with every whole word from[k] replaced by to[k], in place (bounded by n). */
static void
rename_words(char *s, size_t n, const char *const *from, const char *const *to, int nw)
{
	char out[1024];
	size_t k = 0;
	for (const char *p = s; *p && k < sizeof out - 1;) {
		if (is_word(*p) && (p == s || !is_word(p[-1]))) {
			const char *e = p;
			while (is_word(*e))
				e++;
			int w;
			for (w = 0; w < nw; w++)
				if (strlen(from[w]) == (size_t)(e - p) && strncmp(from[w], p, (size_t)(e - p)) == 0)
					break;
			const char *rep = w < nw ? to[w] : NULL;
			size_t len = rep ? strlen(rep) : (size_t)(e - p);
			if (k + len >= sizeof out - 1)
				break;
			memcpy(out + k, rep ? rep : p, len);
			k += len;
			p = e;
			continue;
		}
		out[k++] = *p++;
	}
	out[k] = 0;
	if (k >= n)
		k = n - 1;   /* cut: the texts are for reading */
	memcpy(s, out, k);
	s[k] = 0;
}

/* The tile graph with its tile sizes renamed S0, S1, ... in order of
 * appearance (names of the program's own sizes are skipped). */
static AxGraph *
canonical(const AxGraph *tile, const char **from, const char **to, int *nren)
{
	/* not P, F, ...: those are attribute names of instructions, and the
	 * names are renamed back word by word */
	static const char *const letters[] = { "S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9" };
	TermCtx *tc = tile->tc;
	AxGraph *c = graph_copy(tile);
	Term *vf[16], *vt[16];
	int n = 0, next = 0;
	for (int i = 0; i < c->nnodes; i++)
		for (int d = 0; d < c->nodes[i].rank; d++) {
			Term *x = c->nodes[i].dim[d];
			if (x->kind != TK_VAR || n == 16)
				continue;
			int k;
			for (k = 0; k < n && vf[k] != x; k++)
				;
			if (k < n)
				continue;
			int s, clash;
			do {
				clash = 0;
				for (s = 0; s < tile->nsyms && next < 10; s++)
					clash |= strcmp(tile->syms[s], letters[next]) == 0 && strcmp(tile->syms[s], x->name) != 0;
				next += clash;
			} while (clash && next < 10);
			if (next == 10)
				return NULL;
			vf[n] = x;
			vt[n] = t_var(tc, letters[next++], TS_INT);
			from[n] = letters[next - 1];
			to[n] = x->name;
			n++;
		}
	for (int i = 0; i < c->nnodes; i++) {
		for (int d = 0; d < c->nodes[i].rank; d++)
			c->nodes[i].dim[d] = t_subst(tc, c->nodes[i].dim[d], vf, vt, n);
		for (int a = 0; a < AX_MAXATTR; a++)
			if (c->nodes[i].sattr[a])
				c->nodes[i].sattr[a] = t_subst(tc, c->nodes[i].sattr[a], vf, vt, n);
	}
	c->nsyms = 0;
	for (int k = 0; k < n; k++)
		c->syms[c->nsyms++] = from[k];
	for (int s = 0; s < tile->nsyms && c->nsyms < 64; s++) {
		int renamed = 0;
		for (int k = 0; k < n; k++)
			renamed |= strcmp(tile->syms[s], to[k]) == 0;
		if (!renamed)
			c->syms[c->nsyms++] = tile->syms[s];
	}
	*nren = n;
	return c;
}

/* The sequences for a tile graph, from the cache or found now; renamed to
 * the tile's own sizes into out[] (at most max); returns how many. */
static int
lower_cached(LowerCache *c, const AxGraph *tile, SynthSeq *out, int cap, int first_only)
{
	const char *from[16], *to[16];
	int nren = 0;
	AxGraph *cg = canonical(tile, from, to, &nren);
	if (!cg)
		return 0;
	char *canon = graph_canon(cg), key[2048];
	size_t k = (size_t)snprintf(key, sizeof key, "%s|%d|", c->t->name, c->depth);
	k += (size_t)snprintf(key + k, sizeof key - k, "%s%s|", first_only ? "first|" : "", canon);
	for (int n = 0; n < cg->nnodes && k < sizeof key - 64; n++)
		for (int d = 0; d < cg->nodes[n].rank && k < sizeof key - 64; d++)
			k += (size_t)snprintf(key + k, sizeof key - k, "%s,", t_str(c->tc, cg->nodes[n].dim[d]));
	int m;
	for (m = 0; m < c->n && strcmp(c->key[m], key) != 0; m++)
		;
	if (m < c->n)
		c->hits++;
	else {
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 32;
			c->key = realloc(c->key, sizeof *c->key * (size_t)c->cap);
			c->first = realloc(c->first, sizeof *c->first * (size_t)c->cap);
			c->count = realloc(c->count, sizeof *c->count * (size_t)c->cap);
			if (!c->key || !c->first || !c->count)
				ax_die("out of memory");
		}
		double t0 = ax_now_ms();
		int ch = 0;
		c->key[m] = arena_strdup(tc_arena(c->tc), key);
		c->first[m] = c->nseq;
		c->first_only = first_only;
		synth_tile(c->t, c->tc, cg, c->depth, &c->eq, collect, c, &ch);
		c->first_only = 0;
		c->count[m] = c->nseq - c->first[m];
		c->checked += ch;
		c->ms += ax_now_ms() - t0;
		c->n++;
	}
	int n = 0;
	for (int q = 0; q < c->count[m] && n < cap; q++) {
		out[n] = c->seq[c->first[m] + q];
		rename_words(out[n].text, sizeof out[n].text, from, to, nren);
		rename_words(out[n].constraints, sizeof out[n].constraints, from, to, nren);
		Term *vf[16], *vt[16];
		for (int k = 0; k < nren; k++) {
			vf[k] = t_var(c->tc, from[k], TS_INT);
			vt[k] = t_var(c->tc, to[k], TS_INT);
		}
		if (out[n].limit)
			out[n].limit = t_subst(c->tc, out[n].limit, vf, vt, nren);
		for (int i = 0; i < out[n].ninsts; i++)
			for (int a = 0; a < AX_MAXATTR; a++)
				if (out[n].sattr[i][a])
					out[n].sattr[i][a] = t_subst(c->tc, out[n].sattr[i][a], vf, vt, nren);
		n++;
	}
	return n;
}

int
lower_tile(LowerCache *c, const AxGraph *tile, SynthSeq *out, int cap)
{
	return lower_cached(c, tile, out, cap, 0);
}

int
lower_tile_first(LowerCache *c, const AxGraph *tile, SynthSeq *out)
{
	return lower_cached(c, tile, out, 1, 1);
}

/* ---- ops and instructions found by their element equations ------------------------ */

static Term *
read_input(TermCtx *tc, void *env, int o, Term *const *idx, int n)
{
	(void)env;
	return t_tensor(tc, o, o ? "@b" : "@a", n, idx);
}

/* The op whose element equation over two scalars a, b is a k b (or b k a, where
 * either_order); -1 if the specs have none. */
int
spec_binary_op(const AxTarget *t, TermCtx *tc, TermKind k, int either_order)
{
	Term *none[1] = { NULL };
	Term *a = t_tensor(tc, 0, "@a", 0, none), *b = t_tensor(tc, 1, "@b", 0, none);
	Term *want1 = t_bin(tc, k, a, b), *want2 = either_order ? t_bin(tc, k, b, a) : want1;
	for (int i = 0; i < t->nops; i++) {
		const AxOp *op = &t->ops[i];
		if (op->nopnd != 2 || op->nattr || !op->broadcast || op->ngroups != 1 || op->opnd[0].nfixed ||
		    op->opnd[1].nfixed)
			continue;
		AxSym s = { 0 };
		s.access = read_input;
		Term *e = op->enc(tc, &s, none);
		if (e == want1 || e == want2)
			return i;
	}
	return -1;
}

/* The op that combines partial tiles of a reduction of kind TR_SUM, TR_MAX, TR_MIN (TR_SCAN
 * carries a sum): a + b, max(a, b) or min(a, b); -1 if the specs have none. */
static int
combiner(const AxTarget *t, TermCtx *tc, int kind)
{
	return spec_binary_op(t, tc, kind == TR_MAX ? TK_MAX : kind == TR_MIN ? TK_MIN : TK_ADD, 1);
}

/* The combining tile of a cross-tile reduction: op over two result tiles. */
static AxGraph *
combine_tile(const AxGraph *tile, int opi, int scan)
{
	const AxNode *res = &tile->nodes[tile->outputs[0]];
	AxGraph *g = graph_new(tile->t, tile->tc);
	g->params = arena_alloc(tc_arena(tile->tc), sizeof *g->params * 2);
	for (int p = 0; p < 2; p++) {
		AxNode in = { .op = -1, .input = p, .rank = res->rank };
		memcpy(in.dim, res->dim, sizeof in.dim);
		if (scan && p == 1 && in.rank == 2)
			in.dim[1] = t_int(tile->tc, 1);   /* the carry: the last column of the tile before */
		g->params[g->nparams++] = (AxParam){ .name = p ? (scan ? "carry" : "partial") : "acc", .tensor = 1, .node = p, .dtype = "f32" };
		graph_add(g, &in);
	}
	AxNode x = { .op = opi, .nin = 2, .in = { 0, 1 }, .rank = res->rank };
	x.grank[0] = res->rank;
	memcpy(x.dim, res->dim, sizeof x.dim);
	g->outputs[0] = graph_add(g, &x);
	g->noutputs = 1;
	memcpy(g->syms, tile->syms, sizeof g->syms);
	g->nsyms = tile->nsyms;
	return g;
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
	s.access = read_input;
	Term *idx[2] = { t_var(tc, "@p", TS_INT), t_var(tc, "@f", TS_INT) };
	return in->enc(tc, &s, idx) == t_tensor(tc, 0, "@a", 2, idx);
}

/* ---- data movement ----------------------------------------------------------------- */

typedef struct Movers {
	int n;
	int inst[16], from[16], to[16];   /* a copy instruction and one memory pair it moves between */
	uint32_t eng[16];                 /* ... on these of its engines */
	int offchip;                      /* where the program's tensors live */
} Movers;

static void
movers_init(const AxTarget *t, TermCtx *tc, Movers *mv)
{
	mv->n = 0;
	mv->offchip = -1;
	for (int m = 0; m < t->nmems && mv->offchip < 0; m++)
		if (t->mems[m].offchip)
			mv->offchip = m;
	for (int i = 0; i < t->ninsts; i++) {
		const AxOp *in = &t->insts[i];
		if (!lower_is_copy(t, tc, i))
			continue;
		for (int e = 0; e < t->nengines && e < 32; e++) {
			uint32_t from = ax_inst_mems(t, in, 0, 1u << e), to = ax_inst_mems(t, in, -1, 1u << e);
			for (int a = 0; a < t->nmems; a++)
				for (int b = 0; b < t->nmems; b++) {
					if (a == b || !(from & (1u << a)) || !(to & (1u << b)))
						continue;
					int k = 0;
					while (k < mv->n && !(mv->from[k] == a && mv->to[k] == b))
						k++;
					/* the instruction with the most engines that moves a -> b serves (the first
					 * by name of those): a copy that only one engine makes is the back end's
					 * to choose (balance.c) */
					if (k < mv->n && mv->inst[k] != i &&
					    __builtin_popcount(in->engines) > __builtin_popcount(t->insts[mv->inst[k]].engines)) {
						mv->inst[k] = i;
						mv->eng[k] = 1u << e;
					} else if (k < mv->n) {
						if (mv->inst[k] == i)
							mv->eng[k] |= 1u << e;
					} else if (mv->n < 16) {
						mv->inst[mv->n] = i;
						mv->from[mv->n] = a;
						mv->to[mv->n] = b;
						mv->eng[mv->n] = 1u << e;
						mv->n++;
					}
				}
		}
	}
}

/* The shortest chain of moves from memory a into one of the memories in
 * mask: appended to steps; returns the memory reached, -1 if none. */
static int
route(const Movers *mv, int a, uint32_t mask, const char *what, int before, int opnd, LowerChoice *ch)
{
	if (a < 0 || mask == 0 || (mask & (1u << a)))
		return a < 0 ? 0 : a;   /* a memory the specs do not say: no movement to insert */
	int prev[32], via[32], queue[32], qh = 0, qt = 0;
	for (int m = 0; m < 32; m++)
		prev[m] = -2;
	prev[a] = -1;
	queue[qt++] = a;
	while (qh < qt) {
		int x = queue[qh++];
		for (int k = 0; k < mv->n; k++) {
			int y = mv->to[k];
			if (mv->from[k] != x || prev[y] != -2)
				continue;
			prev[y] = x;
			via[y] = k;
			if (mask & (1u << y)) {
				int chain[32], n = 0;
				for (int z = y; prev[z] >= 0; z = prev[z])
					chain[n++] = via[z];
				while (n > 0 && ch->nmoves < LOWER_MAXSTEPS) {
					int m = chain[--n];
					ch->move[ch->nmoves++] =
					    (LowerMove){ mv->inst[m], mv->from[m], mv->to[m], what, before, opnd, mv->eng[m] };
				}
				return y;
			}
			queue[qt++] = y;
		}
	}
	return -1;
}

static void
step_text(const AxTarget *t, const LowerMove *m, char *buf, size_t *len, size_t n)
{
	*len += (size_t)snprintf(buf + *len, n - *len, "%s%s %s %s->%s", *len ? "; " : "", t->insts[m->inst].name,
	                         m->what, t->mems[m->from].name, t->mems[m->to].name);
}

/* The sequence with its data movement, instruction j on the engines eng[j]
 * (which all read and write the same memories): loads of the operands, moves
 * between instructions, the store of the result.  0 = ok, -1 if a memory
 * cannot be reached (then the sequence is not usable so). */
static int
place(const AxTarget *t, const Movers *mv, const SynthSeq *q, const AxGraph *tile, uint32_t onchip_inputs,
      const int *const_mem, const uint32_t *eng, LowerChoice *ch)
{
	int mem[8];
	uint32_t loaded[AX_MAXOPND] = { 0 };   /* memories each input was already moved to */
	size_t len = 0;
	ch->text[0] = 0;
	ch->nmoves = 0;
	for (int j = 0; j < q->ninsts; j++) {
		const AxOp *in = &t->insts[q->inst[j]];
		uint32_t apart = 0;   /* the instruction's `apart` memories one of its operands already takes */
		for (int o = 0; o < in->nopnd; o++) {
			int s = q->src[j][o];
			if (s == SYNTH_OMITTED)
				continue;
			uint32_t need = ax_inst_mems(t, in, o, eng[j]);
			if (in->apart_opnds & (1u << o))
				need &= ~apart;
			int at = s >= 0 ? mem[s] : (onchip_inputs & (1u << (-1 - s))) ? const_mem[-1 - s] : mv->offchip;
			int first = ch->nmoves;
			const char *what = s >= 0 ? t->insts[q->inst[s]].name : tile->params[-1 - s].name;
			uint32_t there = s < 0 ? loaded[-1 - s] & need : 0;   /* an input already moved where needed */
			int got = there ? ax_nth_bit(there, 0) : route(mv, at, need, what, j, o, ch);
			if (got < 0)
				return -1;
			if (in->apart_opnds & (1u << o))
				apart |= in->apart_mems & (1u << got);
			if (there)
				continue;
			if (s < 0)
				loaded[-1 - s] |= 1u << got;
			for (int k = first; k < ch->nmoves; k++)
				step_text(t, &ch->move[k], ch->text, &len, sizeof ch->text);
		}
		/* its result: a memory the next users read, else its first */
		uint32_t want = 0;
		for (int u = j + 1; u < q->ninsts; u++)
			for (int o = 0; o < t->insts[q->inst[u]].nopnd; o++)
				if (q->src[u][o] == j)
					want |= ax_inst_mems(t, &t->insts[q->inst[u]], o, eng[u]);
		if (j == q->ninsts - 1 && mv->offchip >= 0)   /* the result tile on chip, then moved off chip */
			for (int m = 0; m < t->nmems && m < 32; m++)
				want |= t->mems[m].offchip ? 0 : 1u << m;
		uint32_t outm = ax_inst_mems(t, in, -1, eng[j]);
		mem[j] = -1;
		for (int m = 0; m < t->nmems && mem[j] < 0; m++)
			if ((outm & want & (1u << m)))
				mem[j] = m;
		for (int m = 0; m < t->nmems && mem[j] < 0; m++)
			if (outm & (1u << m))
				mem[j] = m;
		if (mem[j] < 0)
			return -1;
		ch->mem[j] = mem[j];
		ch->seq.engines[j] = eng[j];
		len += (size_t)snprintf(ch->text + len, sizeof ch->text - len, "%s%s ->%s", len ? "; " : "", in->name,
		                        t->mems[mem[j]].name);
	}
	int first = ch->nmoves;
	if (mv->offchip >= 0 && route(mv, mem[q->ninsts - 1], 1u << mv->offchip, "result", q->ninsts, -1, ch) < 0)
		return -1;
	for (int k = first; k < ch->nmoves; k++)
		step_text(t, &ch->move[k], ch->text, &len, sizeof ch->text);
	return 0;
}

enum { PLACE_MAX = 16 };   /* engine choices tried per sequence */

static int
same_placement(const LowerChoice *a, const LowerChoice *b)
{
	if (a->nmoves != b->nmoves || memcmp(a->mem, b->mem, sizeof(int) * (size_t)a->seq.ninsts) != 0)
		return 0;
	for (int k = 0; k < a->nmoves; k++)
		if (a->move[k].inst != b->move[k].inst || a->move[k].from != b->move[k].from ||
		    a->move[k].to != b->move[k].to || a->move[k].before != b->move[k].before ||
		    a->move[k].opnd != b->move[k].opnd)
			return 0;
	return 1;
}

/* The placements of sequence q: its instructions' engines split by the
 * memories they read and write (per the target's engines), one placement per
 * combination of those classes that reaches its memories; combinations that
 * place alike are one choice over the union of their engines.  Each is
 * proto with q placed; the number written to out (at most PLACE_MAX). */
static int
place_all(const AxTarget *t, const Movers *mv, const SynthSeq *q, const AxGraph *tile, uint32_t onchip,
          const int *cmem, const LowerChoice *proto, LowerChoice *out)
{
	uint32_t cls[8][8];
	int ncls[8];
	int64_t combos = 1;
	for (int j = 0; j < q->ninsts; j++) {
		const AxOp *in = &t->insts[q->inst[j]];
		uint32_t engines = q->engines[j] ? q->engines[j] : in->engines;
		ncls[j] = 0;
		for (int e = 0; e < t->nengines && e < 32; e++) {
			if (!(engines & (1u << e)))
				continue;
			int c = 0;
			for (; c < ncls[j]; c++) {
				int r = ax_nth_bit(cls[j][c], 0), same = ax_inst_mems(t, in, -1, 1u << e) == ax_inst_mems(t, in, -1, 1u << r);
				for (int o = 0; o < in->nopnd && same; o++)
					same = ax_inst_mems(t, in, o, 1u << e) == ax_inst_mems(t, in, o, 1u << r);
				if (same)
					break;
			}
			if (c == ncls[j] && ncls[j] < 8)
				cls[j][ncls[j]++] = 0;
			if (c < ncls[j])
				cls[j][c] |= 1u << e;
		}
		if (!ncls[j])
			return 0;
		combos = combos * ncls[j] > PLACE_MAX ? PLACE_MAX : combos * ncls[j];
	}
	int n = 0;
	for (int64_t c = 0; c < combos; c++) {
		uint32_t eng[8];
		int64_t k = c;
		for (int j = q->ninsts - 1; j >= 0; j--) {
			eng[j] = cls[j][k % ncls[j]];
			k /= ncls[j];
		}
		LowerChoice ch = *proto;
		ch.seq = *q;
		if (place(t, mv, q, tile, onchip, cmem, eng, &ch) != 0)
			continue;
		int merged = 0;
		for (int i = 0; i < n && !merged; i++)
			if (same_placement(&out[i], &ch)) {
				for (int j = 0; j < q->ninsts; j++)
					out[i].seq.engines[j] |= ch.seq.engines[j];
				merged = 1;
			}
		if (!merged)
			out[n++] = ch;
	}
	return n;
}

/* ---- a variant ---------------------------------------------------------------------- */

/* The instruction without operands that makes the constant node's value in
 * a [P, 1] tile, proved by its element equation; -1 if none. */
static int
constant_inst(Smt *smt, const AxGraph *g, const AxNode *nd, Term *psize, Term **sattr)
{
	const AxTarget *t = g->t;
	TermCtx *tc = g->tc;
	const AxOp *op = node_op(g, nd);
	AxSym cs = { 0 };
	memcpy(cs.sattr, nd->sattr, sizeof cs.sattr);
	memcpy(cs.attr, nd->attr, sizeof cs.attr);
	cs.access = read_input;
	Term *none[1] = { NULL };
	Term *want = op->enc(tc, &cs, none);
	int found = -1;
	for (int i = 0; i < t->ninsts && found < 0; i++) {
		const AxOp *in = &t->insts[i];
		if (in->nopnd != 0)
			continue;
		AxSym s = { 0 };
		int sizes = 0, floats = 0, fa = 0, ok = 1;
		for (int a = 0; a < in->nattr; a++) {
			if (in->attr[a].kind == AX_ATTR_SIZE)
				s.sattr[a] = sizes++ == 0 ? psize : t_int(tc, 1);
			else if (in->attr[a].kind == AX_ATTR_FLOAT) {
				while (fa < op->nattr && op->attr[fa].kind != AX_ATTR_FLOAT)
					fa++;
				ok &= fa < op->nattr;
				s.sattr[a] = fa < op->nattr ? nd->sattr[fa++] : NULL;
				floats++;
			} else
				ok = 0;
		}
		if (!ok || !floats)
			continue;
		s.access = read_input;
		Term *idx[2] = { t_var(tc, "@p", TS_INT), t_var(tc, "@f", TS_INT) };
		Term *e = in->enc(tc, &s, idx);
		char why[128];
		if (smt_prove(smt, t_bool(tc, 1), t_bin(tc, TK_EQ, e, want), why, sizeof why)) {
			found = i;
			memcpy(sattr, s.sattr, sizeof s.sattr);
		}
	}
	return found;
}

LowerNode *
lower_variant_plain(LowerCache *c, const AxTiling *T, int maxchoices)
{
	const AxGraph *g = T->g;
	const AxTarget *t = g->t;
	TermCtx *tc = g->tc;
	Arena *a = tc_arena(tc);
	LowerNode *L = arena_alloc(a, sizeof *L * (size_t)(g->nnodes + 1));
	Movers mv;
	movers_init(t, tc, &mv);
	SynthSeq *buf = arena_alloc(a, sizeof *buf * (size_t)maxchoices);
	Smt *smt = NULL;         /* for the constants' proofs, made when one is needed */
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &T->op[id];
		LowerNode *ln = &L[id];
		if (to->kind != TO_COMPUTE || !to->tile)
			continue;
		const AxNode *nd = &g->nodes[id];
		/* operands made on chip: constants */
		uint32_t onchip = 0;
		int cmem[AX_MAXOPND] = { 0 };
		for (int o = 0; o < nd->nin && o < AX_MAXOPND; o++) {
			int src = nd->in[o] >= 0 ? tile_const_of(T, nd->in[o]) : -1;   /* through views of it */
			if (src < 0)
				continue;
			Term *sattr[AX_MAXATTR];
			if (!smt)
				smt = smt_new(t);
			int ci = constant_inst(smt, g, &g->nodes[src], to->tile->nodes[o].dim[0], sattr);
			if (ci < 0)
				continue;
			onchip |= 1u << o;
			ln->const_inst[o] = ci;
			memcpy(ln->const_sattr[o], sattr, sizeof sattr);
			for (int m = 0; m < t->nmems; m++)
				if (t->insts[ci].out_mems & (1u << m)) {
					cmem[o] = m;
					break;
				}
			char *txt = arena_alloc(a, 256);
			size_t k = (size_t)snprintf(txt, 256, "%s = %s(", to->tile->params[o].name, t->insts[ci].name);
			for (int at = 0; at < t->insts[ci].nattr && k < 200; at++)
				k += (size_t)snprintf(txt + k, 256 - k, "%s%s=%s", at ? ", " : "", t->insts[ci].attr[at].name,
				                      sattr[at] ? t_infix(tc, sattr[at]) : "?");
			snprintf(txt + k, 256 - k, ")");
			ln->constant[o] = txt;
		}
		int n = lower_tile(c, to->tile, buf, maxchoices);
		LowerChoice *all = malloc(sizeof *all * (size_t)(n * PLACE_MAX + 1)), proto = { 0 };
		if (!all)
			ax_die("out of memory");
		for (int q = 0; q < n; q++) {
			int k = place_all(t, &mv, &buf[q], to->tile, onchip, cmem, &proto, all + ln->nchoices);
			ln->nchoices += k;
			ln->unplaced += k == 0;
		}
		ln->choice = arena_alloc(a, sizeof *ln->choice * (size_t)(ln->nchoices + 1));
		memcpy(ln->choice, all, sizeof *all * (size_t)ln->nchoices);
		free(all);
		for (int k = 0; k < to->naxes; k++) {
			const TileAxis *ax = &to->ax[k];
			if (!ax->red || !ax->tiled || ax->whole)
				continue;
			int op = combiner(t, tc, ax->red);
			if (op < 0) {
				ln->combine_why = "no op of the specs combines partial tiles of this reduction";
				continue;
			}
			AxGraph *cg = combine_tile(to->tile, op, ax->red == TR_SCAN);
			int m = lower_tile_first(c, cg, buf);
			ln->combine = arena_alloc(a, sizeof *ln->combine * (size_t)(m + 1));
			memcpy(ln->combine, buf, sizeof *buf * (size_t)m);
			ln->ncombine = m;
			ln->combine_op = t->ops[op].name;
			ln->red = ax->red;
			break;
		}
	}
	if (smt)
		smt_free(smt);
	return L;
}

int
lower_input(const AxGraph *g, const LowerChoice *ch, int id, int k, int *o)
{
	int node = id, j = k;
	if (ch->tile) {
		if (k < ch->nprod)
			node = ch->absorb;
		else if ((j = k - ch->nprod) >= ch->absorb_opnd)
			j++;
	}
	const AxNode *nd = &g->nodes[node];
	for (*o = 0; *o < nd->nin; (*o)++)
		if (nd->in[*o] >= 0 && j-- == 0)
			break;
	return node;
}

int
lower_add_choice(const AxTiling *T, LowerNode *L, int id, const LowerChoice *proto, const int *cinst)
{
	const AxGraph *g = T->g;
	const AxTarget *t = g->t;
	const AxGraph *tile = proto->tile ? proto->tile : T->op[id].tile;
	Movers mv;
	movers_init(t, g->tc, &mv);
	uint32_t onchip = 0;
	int cmem[32] = { 0 };
	for (int k = 0; k < tile->nparams && k < 32; k++) {
		if (cinst[k] < 0)
			continue;
		onchip |= 1u << k;
		for (int m = 0; m < t->nmems; m++)
			if (t->insts[cinst[k]].out_mems & (1u << m)) {
				cmem[k] = m;
				break;
			}
	}
	LowerChoice *placed = malloc(sizeof *placed * PLACE_MAX);
	if (!placed)
		ax_die("out of memory");
	int k = place_all(t, &mv, &proto->seq, tile, onchip, cmem, proto, placed);
	if (k > 0) {
		LowerNode *ln = &L[id];
		LowerChoice *nc = arena_alloc(tc_arena(g->tc), sizeof *nc * (size_t)(ln->nchoices + k + 1));
		if (ln->nchoices)
			memcpy(nc, ln->choice, sizeof *nc * (size_t)ln->nchoices);
		memcpy(nc + ln->nchoices, placed, sizeof *nc * (size_t)k);
		ln->nchoices += k;
		ln->choice = nc;
	}
	free(placed);
	return k > 0 ? 0 : -1;
}

const char *
lower_unwritable(const AxTiling *T, const LowerNode *L, int id)
{
	const TileOp *to = &T->op[id];
	if (to->kind == TO_UNTILED)
		return to->why;
	if (to->kind == TO_COMPUTE && !L[id].nchoices)
		return L[id].unplaced ? "its sequences use memories no copy instruction of the target connects"
		                      : "no instruction sequence found";
	return NULL;
}
