/*
 * nest.c — the statements of a candidate's loop nests (nest.h), and the
 * room their tiles take on chip.
 */
#include <stdlib.h>
#include <string.h>
#include "nest.h"

NsStmt *
nest_push(Nest *ns, int kind, int depth)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		ns->s = realloc(ns->s, sizeof *ns->s * (size_t)ns->cap);
		if (!ns->s)
			ax_die("out of memory");
	}
	NsStmt *s = &ns->s[ns->n++];
	*s = (NsStmt){ 0 };
	s->kind = kind;
	s->depth = depth;
	s->var = NS_NONE;
	s->out.var = s->src.var = NS_NONE;
	return s;
}

void
nest_free(Nest *ns)
{
	if (ns) {
		free(ns->s);
		free(ns);
	}
}

NsRef
ns_var(int var, const AxShape *s)
{
	NsRef r = { 0 };
	r.var = var;
	r.shape = *s;
	return r;
}

/* The tiles live on chip: a tile lives from the instruction that makes it
 * to its last reader; one made before a loop and read inside lives to the
 * loop's end (every iteration reads it).  Per memory, the most bytes per
 * partition (and banks) live at any statement. */
void
nest_room(const Nest *ns, NkiFootprint *fp)
{
	const AxTarget *t = ns->g->t;
	int nv = ns->nvars > 0 ? ns->nvars : 1, n = ns->n;
	int *def = malloc(sizeof(int) * (size_t)nv), *last = malloc(sizeof(int) * (size_t)nv);
	int *mem = malloc(sizeof(int) * (size_t)nv), *endof = malloc(sizeof(int) * (size_t)(n + 1));
	int *open = malloc(sizeof(int) * (size_t)(n + 1));
	int64_t *bytes = malloc(sizeof(int64_t) * (size_t)nv);
	if (!def || !last || !mem || !endof || !open || !bytes)
		ax_die("out of memory");
	*fp = (NkiFootprint){ .fits = 1 };
	for (int v = 0; v < nv; v++)
		def[v] = last[v] = mem[v] = -1;
	int nopen = 0;
	for (int i = 0; i < n; i++) {
		if (ns->s[i].kind == NS_LOOP)
			open[nopen++] = i;
		else if (ns->s[i].kind == NS_END && nopen)
			endof[open[--nopen]] = i;
	}
	nopen = 0;
	for (int i = 0; i < n; i++) {
		const NsStmt *s = &ns->s[i];
		if (s->kind == NS_LOOP) {
			open[nopen++] = i;
			continue;
		}
		if (s->kind == NS_END) {
			nopen -= nopen > 0;
			continue;
		}
		int use[AX_MAXOPND + 3], nu = 0;
		/* the instruction's operands only: the slots past them are zero (v0) in the statements */
		for (int o = 0; s->kind == NS_INST && o < t->insts[s->inst].nopnd; o++)
			if (s->opnd[o].var >= 0)
				use[nu++] = s->opnd[o].var;
		if ((s->kind == NS_STORE || s->kind == NS_ACC || s->kind == NS_SET) && s->src.var >= 0)
			use[nu++] = s->src.var;   /* src is theirs alone (an instruction's is zero, v0) */
		if (s->out.var >= 0)
			use[nu++] = s->out.var;
		for (int k = 0; k < nu; k++) {
			int v = use[k];
			if (v >= nv || def[v] < 0)
				continue;
			if (i > last[v])
				last[v] = i;
			for (int l = 0; l < nopen; l++)
				if (open[l] > def[v]) {
					if (endof[open[l]] > last[v])
						last[v] = endof[open[l]];
					break;
				}
		}
		if ((s->kind == NS_INST || s->kind == NS_BUF) && s->var >= 0 && s->var < nv && s->mem >= 0 &&
		    !t->mems[s->mem].offchip && s->out.var == NS_NONE) {
			int64_t per = 4;   /* bytes per partition: every dim but the first */
			for (int d = 1; d < s->shape.rank; d++)
				per *= s->shape.d[d];
			def[s->var] = last[s->var] = i;
			mem[s->var] = s->mem;
			bytes[s->var] = per;
		}
	}
	/* the sweep: per memory, bytes and banks live at each statement */
	for (int m = 0; m < t->nmems && m < 32; m++) {
		if (t->mems[m].offchip)
			continue;
		int64_t bank = t->mems[m].banks > 0 ? t->mems[m].bytes / t->mems[m].banks : 0;
		for (int i = 0; i < n; i++) {
			int64_t b = 0, u = 0;
			for (int v = 0; v < nv; v++)
				if (mem[v] == m && def[v] <= i && i <= last[v]) {
					b += bytes[v];
					u += bank > 0 ? (bytes[v] + bank - 1) / bank : 0;
				}
			if (b > fp->bytes[m])
				fp->bytes[m] = b;
			if (u > fp->banks[m])
				fp->banks[m] = u;
		}
		if (fp->bytes[m] > t->mems[m].bytes || (t->mems[m].banks > 0 && fp->banks[m] > t->mems[m].banks))
			fp->fits = 0;
	}
	free(def);
	free(last);
	free(mem);
	free(endof);
	free(open);
	free(bytes);
}
