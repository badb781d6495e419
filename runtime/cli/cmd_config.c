/*
 * cmd_config.c — `axonc compile --config CFG.json`: a configuration replayed.
 *
 * A configuration is a candidate's choices as compile writes them
 * (select_config_json: the report's best.config, a --measure command's
 * {config}, compile --sizes's table): its variant, the sequence of each
 * operation (by its text), the engine of each instruction (by name), the
 * fusion form, the blocks per axis class and the tile sizes.  Here it is
 * read back and the candidate's loop nests written at other sizes, with
 * no search: every tile size at most the configured one (at most its axis's
 * extent; the emitter writes a tail tile for the rest), the blocks as
 * configured (the emitter takes the largest divisor of the tile count not
 * above them).  At the sizes the configuration was chosen at, the nests
 * are those compile wrote.  What the sequences' limits refuse at these
 * tiles (a tail tile too small, a reduction that must span its axis) or
 * what does not fit on chip is an error, never another kernel.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* ---- a small JSON reader (objects, arrays, strings, numbers) --------------------------- */

typedef struct Jv {
	int kind;                /* 'o' object, 'a' array, 's' string, 'n' number, 'l' literal (true, false, null) */
	char *s;                 /* 's' */
	double num;              /* 'n' */
	int n;                   /* 'o', 'a': members */
	char **keys;             /* 'o' */
	struct Jv *items;
} Jv;

typedef struct Jp {
	const char *p, *start;
	char err[200];
	int depth;
} Jp;

static void
jv_free(Jv *v)
{
	for (int i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
}

static int
jp_fail(Jp *j, const char *what)
{
	if (!j->err[0])
		snprintf(j->err, sizeof j->err, "at byte %ld: %s", (long)(j->p - j->start), what);
	return -1;
}

static void
jp_ws(Jp *j)
{
	while (*j->p && isspace((unsigned char)*j->p))
		j->p++;
}

static int
jp_string(Jp *j, char **out)
{
	if (*j->p != '"')
		return jp_fail(j, "expected a string");
	j->p++;
	size_t cap = 64, n = 0;
	char *s = malloc(cap);
	if (!s)
		ax_die("out of memory");
	for (;;) {
		char ch = *j->p++;
		if (!ch) {
			free(s);
			j->p--;
			return jp_fail(j, "unterminated string");
		}
		if (ch == '"')
			break;
		if (ch == '\\') {
			char e = *j->p++;
			if (e == 'u') {   /* \u00XX only (what json_fstr writes) */
				unsigned x = 0;
				for (int k = 0; k < 4; k++, j->p++)
					if (!isxdigit((unsigned char)*j->p) ||
					    (x = x * 16 + (unsigned)(isdigit((unsigned char)*j->p) ? *j->p - '0' : (tolower((unsigned char)*j->p) - 'a' + 10))) > 0xff) {
						free(s);
						return jp_fail(j, "an escape \\uXXXX past \\u00ff");
					}
				ch = (char)x;
			} else
				ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
			if (!e) {
				free(s);
				return jp_fail(j, "unterminated string");
			}
		}
		if (n + 2 > cap && !(s = realloc(s, cap *= 2)))
			ax_die("out of memory");
		s[n++] = ch;
	}
	s[n] = 0;
	*out = s;
	return 0;
}

static int
jp_value(Jp *j, Jv *v)
{
	*v = (Jv){ 0 };
	jp_ws(j);
	if (++j->depth > 32)
		return jp_fail(j, "nested too deeply");
	int rc = 0;
	if (*j->p == '{' || *j->p == '[') {
		int obj = *j->p == '{';
		char close = obj ? '}' : ']';
		v->kind = obj ? 'o' : 'a';
		j->p++;
		jp_ws(j);
		int cap = 0;
		while (rc == 0 && *j->p != close) {
			if (v->n && (*j->p != ',' || (j->p++, 0)))
				return j->depth--, jp_fail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
			jp_ws(j);
			if (v->n >= cap) {
				cap = cap ? 2 * cap : 8;
				v->items = realloc(v->items, sizeof *v->items * (size_t)cap);
				if (obj)
					v->keys = realloc(v->keys, sizeof *v->keys * (size_t)cap);
				if (!v->items || (obj && !v->keys))
					ax_die("out of memory");
			}
			char *key = NULL;
			if (obj) {
				if (jp_string(j, &key) != 0)
					return j->depth--, -1;
				jp_ws(j);
				if (*j->p != ':') {
					free(key);
					return j->depth--, jp_fail(j, "expected ':'");
				}
				j->p++;
				v->keys[v->n] = key;
			}
			rc = jp_value(j, &v->items[v->n]);
			v->n++;
			jp_ws(j);
		}
		if (rc == 0)
			j->p++;
	} else if (*j->p == '"') {
		v->kind = 's';
		rc = jp_string(j, &v->s);
	} else if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
		char *end;
		v->kind = 'n';
		v->num = strtod(j->p, &end);
		j->p = end;
	} else if (strncmp(j->p, "true", 4) == 0 || strncmp(j->p, "null", 4) == 0 || strncmp(j->p, "false", 5) == 0) {
		v->kind = 'l';
		j->p += *j->p == 'f' ? 5 : 4;
	} else
		rc = jp_fail(j, *j->p ? "expected a value" : "the text ends early");
	j->depth--;
	return rc;
}

static const Jv *
jv_get(const Jv *o, const char *key, int kind)
{
	for (int i = 0; o && o->kind == 'o' && i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return kind == 0 || o->items[i].kind == kind ? &o->items[i] : NULL;
	return NULL;
}

/* ---- the configuration ------------------------------------------------------------------ */

struct Config {
	Jv root;
	const Jv *c;             /* the configuration object itself */
	int variant, unfused;
	int fused;               /* fused_producers (-1: not said) */
	int *choice, *engsel;    /* filled by config_nest */
	int blocks[64];
	int fold;                /* "fold": 1, the blocks along partition axes folded (emit_fold.c) */
	int sched;               /* "scheduled": 1 to 12, the scheduled twin's form (nest_schedule) */
	const char *names[512];
	double vals[512];
};

Config *
config_read(const char *path, char *why, size_t nwhy)
{
	size_t len = 0;
	char *text = ax_read_text(path, &len);
	if (!text) {
		snprintf(why, nwhy, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (!len || len > (1 << 24)) {
		free(text);
		snprintf(why, nwhy, "%s: %s", path, len ? "larger than 16 MiB" : "empty");
		return NULL;
	}
	Config *cf = calloc(1, sizeof *cf);
	if (!cf)
		ax_die("out of memory");
	Jp j = { .p = text, .start = text };
	int rc = jp_value(&j, &cf->root);
	jp_ws(&j);
	if (rc == 0 && *j.p)
		rc = jp_fail(&j, "text after the value");
	free(text);
	if (rc != 0) {
		snprintf(why, nwhy, "%s: not JSON: %s", path, j.err);
		config_free(cf);
		return NULL;
	}
	/* the configuration itself, or a report whose best.config it is */
	cf->c = jv_get(&cf->root, "variant", 'n') ? &cf->root : jv_get(jv_get(&cf->root, "best", 'o'), "config", 'o');
	const Jv *var = jv_get(cf->c, "variant", 'n'), *fu = jv_get(cf->c, "fusion", 's');
	if (!var || !fu || !jv_get(cf->c, "instructions", 'o') || !jv_get(cf->c, "engines", 'o') ||
	    !jv_get(cf->c, "blocks", 'o') || !jv_get(cf->c, "tiles", 'o')) {
		snprintf(why, nwhy, "%s: not a configuration (an object with variant, instructions, engines, fusion, blocks "
		         "and tiles, as compile's report writes best.config)", path);
		config_free(cf);
		return NULL;
	}
	cf->variant = var->num >= 0 && var->num <= 1e6 && var->num == (int)var->num ? (int)var->num : -1;
	const Jv *fp = jv_get(cf->c, "fused_producers", 'n');
	cf->fused = fp && fp->num >= 0 && fp->num <= 1e6 ? (int)fp->num : -1;
	cf->unfused = strcmp(fu->s, "unfused") == 0;
	return cf;
}

void
config_free(Config *cf)
{
	if (!cf)
		return;
	jv_free(&cf->root);
	free(cf->choice);
	free(cf->engsel);
	free(cf);
}

/* engsel of instruction j of q for the engine named e (its index among those q may use); -1 */
static int
engine_sel(const AxTarget *t, const SynthSeq *q, int j, const char *e)
{
	uint32_t m = q->engines[j] ? q->engines[j] : t->insts[q->inst[j]].engines;
	for (int k = 0, sel = 0; k < t->nengines && k < 32; k++)
		if ((m >> k) & 1) {
			if (strcmp(t->engines[k].name, e) == 0)
				return sel;
			sel++;
		}
	return -1;
}

/* operation id's sequence and engines from the configuration; 0 = found */
static int
pick_choice(Config *cf, const AxTiling *T, const LowerNode *L, int id, int no_fusion, char *why, size_t nwhy)
{
	const AxGraph *g = T->g;
	char key[96], ekey[32];
	snprintf(key, sizeof key, "%%%d %s", id, node_op(g, &g->nodes[id])->name);
	snprintf(ekey, sizeof ekey, "%%%d", id);
	const Jv *text = jv_get(jv_get(cf->c, "instructions", 'o'), key, 's');
	const Jv *eng = jv_get(jv_get(cf->c, "engines", 'o'), ekey, 'a');
	if (!text || !eng) {
		snprintf(why, nwhy, "the configuration has no %s for operation %s of variant %d", text ? "engines" : "sequence",
		         key, cf->variant);
		return -1;
	}
	for (int q = 0; q < L[id].nchoices; q++) {
		const SynthSeq *s = &L[id].choice[q].seq;
		if (strcmp(s->text, text->s) != 0 || s->ninsts != eng->n || s->ninsts > 8 || (no_fusion && L[id].choice[q].fused))
			continue;
		int ok = 1;
		for (int j = 0; j < s->ninsts && ok; j++) {
			int e = eng->items[j].kind == 's' ? engine_sel(g->t, s, j, eng->items[j].s) : -1;
			ok = e >= 0;
			cf->engsel[id * 8 + j] = e;
		}
		if (ok) {
			cf->choice[id] = q;
			return 0;
		}
	}
	snprintf(why, nwhy, "operation %s has no sequence '%.200s' on those engines%s", key, text->s,
	         no_fusion ? " without instruction fusion (--no-fusion)" : "");
	return -1;
}

/* The tile sizes into cf->names/vals after the sizes (as tile_sizes_capped lays them out):
 * each the configured one, at most its axis's extent, a producer's where a fused choice ties
 * them; every sequence's limits checked at the full tiles and at each tail.  n: the entries. */
static int
tile_env(Config *cf, const AxTiling *T, const LowerNode *L, int *n, char *why, size_t nwhy)
{
	const AxGraph *g = T->g;
	const Jv *tiles = jv_get(cf->c, "tiles", 'o');
	for (int id = 0; id < g->nnodes; id++) {
		const TileOp *to = &T->op[id];
		if (to->kind != TO_COMPUTE || !L[id].nchoices)
			continue;
		const LowerChoice *ch = &L[id].choice[cf->choice[id]];
		int base = *n;
		for (int k = 0; k < to->naxes; k++) {
			if (!to->ax[k].t)
				continue;
			if (*n >= 512)
				return snprintf(why, nwhy, "too many tile sizes"), -1;
			const Term *tv = t_var(g->tc, to->ax[k].t, TS_INT);
			const Jv *cv = jv_get(tiles, tv->name, 'n');
			if (!cv || !(cv->num >= 1 && cv->num <= (double)AX_MAX_SIZE) || cv->num != (double)(int64_t)cv->num)
				return snprintf(why, nwhy, "the configuration has no tile size %s (a whole number from 1 to 2^48)",
				                tv->name), -1;
			cf->names[*n] = tv->name;
			cf->vals[(*n)++] = cv->num;
		}
		AxEnv env = { *n, cf->names, cf->vals };
		for (int k = 0, p = base; k < to->naxes; k++) {
			if (!to->ax[k].t)
				continue;
			const Term *tv = t_var(g->tc, to->ax[k].t, TS_INT);
			double ext;
			for (int j = 0; ch->tile && j < ch->ntie; j++)
				if (ch->tie_from[j] == tv && t_eval(ch->tie_to[j], &env, &cf->vals[p]) != 0)
					return snprintf(why, nwhy, "cannot evaluate the producer's tile size for %s", tv->name), -1;
			if (t_eval(to->ax[k].extent, &env, &ext) != 0)
				return snprintf(why, nwhy, "cannot evaluate the extent of %s", tv->name), -1;
			if (cf->vals[p] > ext)
				cf->vals[p] = ext;
			p++;
		}
		Term *limit = seq_limit(T, L, id, cf->choice[id], cf->engsel + id * 8);
		const char *opname = node_op(g, &g->nodes[id])->name;
		if (!tile_limits_hold(L, id, limit, &env))
			return snprintf(why, nwhy, "%s (%%%d): its sequence's limits do not hold at its tiles (%s)", opname, id,
			                L[id].choice[cf->choice[id]].seq.constraints), -1;
		for (int k = 0, p = base; k < to->naxes; k++) {   /* each tail tile on its own, as tile sizes are chosen */
			if (!to->ax[k].t)
				continue;
			double ext, tsz = cf->vals[p];
			t_eval(to->ax[k].extent, &env, &ext);
			int64_t tail = (int64_t)ext % (int64_t)tsz;
			if (tail) {
				cf->vals[p] = (double)tail;
				int ok = tile_limits_hold(L, id, limit, &env);
				cf->vals[p] = tsz;
				if (!ok)
					return snprintf(why, nwhy, "%s (%%%d): its tail tile of %lld along %s breaks its sequence's limits (%s)",
					                opname, id, (long long)tail, t_infix(g->tc, to->ax[k].extent),
					                L[id].choice[cf->choice[id]].seq.constraints), -1;
			}
			p++;
		}
	}
	return 0;
}

/* At these sizes a producer whose computation a fused sequence includes cannot be loop-fused
 * into its reader (a reduction cut by a tail, say): each such sequence replaced by the first
 * sequence of the same operation that includes no producer and whose limits hold at the
 * configured tiles (on the first engines its placement allows), the producer computing on its
 * own; the tile sizes laid out again after the n sizes (*m entries).  0, or -1 and why. */
static int
plain_in_place(Config *cf, const AxTiling *T, const LowerNode *L, int n, int *m, char *why, size_t nwhy)
{
	const AxGraph *g = T->g;
	for (int id = 0; id < g->nnodes; id++) {
		if (T->op[id].kind != TO_COMPUTE || !L[id].nchoices || !L[id].choice[cf->choice[id]].tile)
			continue;
		int was = cf->choice[id], ok = 0;
		for (int q = 0; q < L[id].nchoices && !ok; q++) {
			if (L[id].choice[q].tile)
				continue;
			cf->choice[id] = q;
			for (int j = 0; j < 8; j++)
				cf->engsel[id * 8 + j] = 0;
			*m = n;
			ok = tile_env(cf, T, L, m, why, nwhy) == 0;
		}
		if (!ok) {
			cf->choice[id] = was;
			snprintf(why, nwhy, "a fused sequence needs its producer loop-fused, which these tiles do not allow, and "
			         "no other sequence of %s (%%%d) fits them", node_op(g, &g->nodes[id])->name, id);
			return -1;
		}
		fprintf(stderr, "axonc: note: at these sizes %s (%%%d) cannot take its producer's computation into its "
		        "sequence (the producer is not loop-fused at these tiles); it runs '%s'\n",
		        node_op(g, &g->nodes[id])->name, id, L[id].choice[cf->choice[id]].seq.text);
	}
	*m = n;
	return tile_env(cf, T, L, m, why, nwhy);
}

Nest *
config_nest(Config *cf, int nv, AxTiling *const *Ts, LowerNode *const *Ls, const char *const *names, const double *vals,
            int n, int no_fusion, int dtype, ExtractCand *c, int *variant, char *why, size_t nwhy)
{
	*c = (ExtractCand){ .visit = -1, .fused = -1 };
	if (cf->variant < 0 || cf->variant >= nv) {
		snprintf(why, nwhy, "the configuration's variant is not one of the program's %d, numbered from 0 (was it "
		         "made with other --max-variants or --no-algebraic?)", nv);
		return NULL;
	}
	*variant = cf->variant;
	const AxTiling *T = Ts[cf->variant];
	const LowerNode *L = Ls[cf->variant];
	const AxGraph *g = T->g;
	free(cf->choice);
	free(cf->engsel);
	cf->choice = calloc((size_t)g->nnodes + 1, sizeof(int));
	cf->engsel = calloc((size_t)g->nnodes * 8 + 8, sizeof(int));
	if (!cf->choice || !cf->engsel)
		ax_die("out of memory");
	int absorbing = 0;
	for (int id = 0; id < g->nnodes; id++)
		if (T->op[id].kind == TO_COMPUTE && L[id].nchoices) {
			if (pick_choice(cf, T, L, id, no_fusion, why, nwhy) != 0)
				return NULL;
			absorbing |= L[id].choice[cf->choice[id]].tile != NULL;
		}
	for (int id = 0; id < g->nnodes; id++) {
		const LowerChoice *ch = T->op[id].kind == TO_COMPUTE && L[id].nchoices ? &L[id].choice[cf->choice[id]] : NULL;
		if (ch && ch->tile && cf->choice[ch->absorb] != ch->absorb_choice) {
			snprintf(why, nwhy, "operation %%%d's fused sequence was found with another sequence of its producer %%%d",
			         id, ch->absorb);
			return NULL;
		}
	}
	const Jv *blocks = jv_get(cf->c, "blocks", 'o');
	for (int k = 0; k < 64; k++) {
		const Jv *b = k < T->nbcls ? jv_get(blocks, T->bname[k], 'n') : NULL;
		cf->blocks[k] = b && b->num >= 1 && b->num <= 1024 ? (int)b->num : 1;
	}
	const Jv *fo = jv_get(cf->c, "fold", 'n');
	cf->fold = fo && fo->num == 1;
	const Jv *sc = jv_get(cf->c, "scheduled", 'n');
	cf->sched = sc && sc->num >= 1 && sc->num <= NEST_FORMS && sc->num == (int)sc->num ? (int)sc->num : 0;
	if (n > 256)
		return snprintf(why, nwhy, "too many sizes"), NULL;
	memcpy(cf->names, names, sizeof *names * (size_t)n);
	memcpy(cf->vals, vals, sizeof *vals * (size_t)n);
	int m = n;
	if (tile_env(cf, T, L, &m, why, nwhy) != 0)
		return NULL;
	AxEnv env = { m, cf->names, cf->vals };
	int fuse = !cf->unfused && !no_fusion ? NEST_FUSE_OF(cf->fused < 0 ? NEST_EPILOGUE : cf->fused) : 0, nf = 0;
	if (absorbing && (!fuse || !nest_can_absorb(T, L, cf->choice, &env))) {
		if (plain_in_place(cf, T, L, n, &m, why, nwhy) != 0)
			return NULL;
		env.n = m;
	}
	Nest *ns = nest_build(T, L, cf->choice, cf->engsel, cf->blocks, cf->fold, &env, fuse, &nf, why, nwhy);
	if (!ns && cf->fold) {   /* at these sizes the blocks do not fold: the same blocks unfolded */
		fprintf(stderr, "axonc: note: at these sizes the configuration's blocks do not fold (%s)\n", why);
		cf->fold = 0;
		ns = nest_build(T, L, cf->choice, cf->engsel, cf->blocks, 0, &env, fuse, &nf, why, nwhy);
	}
	if (!ns)
		return NULL;
	*c = (ExtractCand){ .visit = -1, .fused = fuse ? nf : -1, .choice = cf->choice, .engsel = cf->engsel,
	                    .blocks = cf->blocks, .fold = cf->fold, .env = env };
	if (fuse && cf->fused >= 0 && nf != cf->fused)
		fprintf(stderr, "axonc: note: at these sizes %d producer%s loop-fused, and the configuration says %d\n", nf,
		        nf == 1 ? " is" : "s are", cf->fused);
	if (cf->sched && fuse)   /* the twin compile chose: scheduled again at these sizes */
		c->sched = model_schedule(ns, cf->sched, dtype) > 0 ? cf->sched : 0;
	nest_room(ns, &c->fp);
	char need[160];
	if (!footprint_explain(T->g->t, &c->fp, dtype, need, sizeof need)) {   /* at the element size, as compile judges */
		snprintf(why, nwhy, "its tiles do not fit on chip at these sizes (%s)", need);
		nest_free(ns);
		return NULL;
	}
	return ns;
}
