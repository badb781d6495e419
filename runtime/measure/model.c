/*
 * model.c — the performance model (`--measure model`): a candidate's
 * latency on one core of the target, from the target tables alone.
 *
 * The candidate's statements (nest.h) are its instruction stream.  Each
 * engine runs its instructions in program order (one sequencer per engine,
 * as on the hardware); an instruction starts when its engine is free, its
 * operands are ready and the buffer it writes may be reused.  Costs come
 * from the instruction's `cost` in the spec: cycles on the engine's clock,
 * or, on an engine that `transfers`, bytes: a transfer over P partitions is
 * split over the queues those partitions map to (partitions / queues per
 * queue), each piece taking its bytes at the queue's share of the engine's
 * bandwidth plus the engine's `gap`, one transfer at a time per queue.  An
 * engine's `latency` is the fixed delay before a result may be read, not
 * time the engine is busy: a compute engine's SBUF/PSUM access overhead, a
 * transfer's descriptor and semaphore latency (paid on the dependency, so
 * transfers on a queue pipeline behind each other).
 *
 * Dependencies: a value is ready when the instruction that makes it (or,
 * for block buffers and running values, every instruction that writes it)
 * has finished; an accumulation in place (NS_ACC) and a running value set
 * from another (NS_SET) cost nothing but chain the dependency; an off-chip
 * tensor is ready when every write of the loop nest that makes it has
 * finished (results round-trip through off-chip memory); a view is ready
 * with its operands.  Capacity: a candidate whose footprint does not fit
 * cannot run; a tile made inside a loop gets a second buffer when memory
 * allows (innermost loops first, see capacity below), and a new instance of
 * a tile may only be written once the readers of the instance one or two
 * iterations back are done, so loads run ahead of compute only as far as
 * memory allows.
 *
 * Loops are not unrolled.  The schedule's state (engine and queue free
 * times, ready and release times, counters) evolves from one iteration of
 * a loop body to the next by max and + only, so after a transient it moves
 * by the same delta every period of p iterations (p is 2 when double
 * buffers alternate).  A loop is run iteration by iteration until two
 * consecutive periods (p <= MAXPER) move it by the same delta, then whole
 * periods are jumped over by adding the delta, and one more period run from
 * the jumped state must move it by the same delta again; if it does not,
 * the regime changed somewhere in between (two of a max's arguments
 * crossed), and the jump is halved and retried.  Every argument of every
 * max is linear in the iteration count while a regime lasts, and two lines
 * ordered alike at both ends of a jump are ordered alike in between, so a
 * checked jump is exact, not an estimate (tests compare it with the
 * schedule run iteration by iteration: model_no_jump).  A loop whose body
 * is one loop is one loop over the product of their trips.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model_state.h"

/* ---- the schedule ----------------------------------------------------------------- */

/* A new instance of variable v: it may be written once the readers of the
 * instance nbuf back are done. */
static void
fresh(Model *m, int v)
{
	double *x = m->x;
	int nb = m->nbuf[v];
	for (int k = nb - 1; k > 0; k--)
		x[G(m, v, k)] = x[G(m, v, k - 1)];
	x[G(m, v, 0)] = x[L(m, v)];
	x[A(m, v)] = x[G(m, v, nb - 1)];
	x[R(m, v)] = x[L(m, v)] = x[A(m, v)];
	for (int k = 0; k < m->nsl[v]; k++)
		x[S(m, v, k)] = x[A(m, v)];
}

/* The slot of tile reference k at the current iterations. */
static int
slot_at(const Model *m, int k)
{
	const SlotRef *r = &m->sref[k];
	int64_t at = 0;
	for (int d = 0; d < r->nd; d++) {
		int64_t i = r->lit[d];
		if (r->loop[d] >= 0) {
			int l = r->loop[d];
			i += (m->cnt[m->host[l]] / m->div[l]) % m->mod[l];
		}
		if (r->mod[d] > 0)
			i %= r->mod[d];
		at += i * r->stride[d];
	}
	return at >= 0 && at < m->nsl[r->var] ? (int)at : 0;
}

/* Times the operation waits for; then its results' times from its end. */
static double
ready_at(Model *m, const MOp *o)
{
	double *x = m->x, t = 0;
	for (int k = 0; k < o->nin; k++)
		t = dmax(t, x[o->in[k]]);
	for (int k = 0; k < o->nsr; k++)
		t = dmax(t, x[S(m, m->sref[o->sr[k]].var, slot_at(m, o->sr[k]))]);
	if (o->def >= 0) {
		fresh(m, o->def);
		t = dmax(t, x[A(m, o->def)]);
	}
	if (o->wvar >= 0)
		t = dmax(t, x[A(m, o->wvar)]);
	return t;
}

static void
finish(Model *m, const MOp *o, double end, double ready)
{
	double *x = m->x;
	for (int k = 0; k < o->nrd; k++)
		x[L(m, o->rd[k])] = dmax(x[L(m, o->rd[k])], end);
	if (o->def >= 0) {
		x[R(m, o->def)] = ready;
		x[L(m, o->def)] = end;
	}
	if (o->wvar >= 0) {
		int v = o->wvar;
		x[R(m, v)] = dmax(x[R(m, v)], ready);
		x[L(m, v)] = dmax(x[L(m, v)], end);
		if (o->wsr >= 0) {   /* one tile of a block buffer: it alone is ready then */
			int k = S(m, v, slot_at(m, o->wsr));
			x[k] = dmax(x[k], ready);
		} else
			for (int k = 0; k < m->nsl[v]; k++)
				x[S(m, v, k)] = dmax(x[S(m, v, k)], ready);
	}
	if (o->wten >= 0)
		x[T(m, o->wten)] = dmax(x[T(m, o->wten)], ready);
}

/* model_refine_copies: passes over the copies at most; model_pick_form: the forms refined are
 * those at most this much slower than the fastest before refining */
enum { REFINE_PASSES = 2 };
#define REFINE_NEAR 1.1
#define REFINE_WORK 4e6   /* model_refine_copies: operations run per twin at most (GQA at S = 2048: 74e3 a try) */
enum { REFINE_TRIES = 8 };

static void run_loop(Model *m, int at);
int model_no_jump;

/* model_timeline's row of operation i: its statement, variable, instruction, engine, the loops'
 * iterations around it, start and end, and how long its engine (queue) was idle before it */
static void
trace_row(Model *m, int i, double start, double end, double idle)
{
	const NsStmt *s = &m->ns->s[i];
	const MOp *o = &m->op[i];
	char it[256] = "";
	size_t k = 0;
	for (int d = 0; d < m->nrun && d < 64 && k + 24 < sizeof it; d++)
		k += (size_t)snprintf(it + k, sizeof it - k, "%s%lld", d ? " " : "", (long long)m->iter[d]);
	char var[24] = "";
	if (s->kind == NS_INST && s->var >= 0)
		snprintf(var, sizeof var, "v%d", s->var);
	fprintf(m->trace, "%d,%s,%s,%s,%s,%.4f,%.4f,%.4f\n", i, var,
	        s->kind == NS_INST && s->inst >= 0 ? m->t->insts[s->inst].name : "store", m->t->engines[o->eng].name, it,
	        start * 1e6, end * 1e6, (idle > 0 ? idle : 0) * 1e6);
}

static void
run_range(Model *m, int lo, int hi)
{
	double *x = m->x;
	m->ran += hi - lo;
	for (int i = lo; i < hi; i++) {
		const MOp *o = &m->op[i];
		switch (o->kind) {
		case MK_EXEC: {
			int s = m->eslot[o->eng];
			double t = dmax(ready_at(m, o), x[s]), end = t + o->dur;
			if (m->trace)
				trace_row(m, i, t, end, t - x[s]);
			x[s] = end;
			x[m->st + o->eng] += o->dur;
			x[m->st + ST_INSTS] += 1;
			finish(m, o, end, end + o->lat);
			break;
		}
		case MK_XFER: {   /* the queues free first, kept sorted */
			double t = ready_at(m, o), end = 0;
			double *q = x + m->eslot[o->eng];
			int nq = m->nslot[o->eng];
			double q0 = q[0], t0 = dmax(t, q0);   /* the queue free first (kept sorted) */
			for (int k = 0; k < o->nq; k++) {
				q[k] = dmax(q[k], t) + o->dur;
				end = dmax(end, q[k]);
			}
			for (int k = 1; k < nq; k++)
				for (int j = k; j > 0 && q[j] < q[j - 1]; j--) {
					double w = q[j];
					q[j] = q[j - 1];
					q[j - 1] = w;
				}
			if (m->trace)
				trace_row(m, i, t0, end, t0 - q0);
			x[m->st + o->eng] += o->dur * o->nq / nq;
			x[m->st + ST_BYTES] += o->bytes;
			x[m->st + ST_INSTS] += 1;
			x[m->st + ST_XFERS] += 1;
			x[m->st + ST_QUEUES] += o->nq;
			x[m->st + ST_FIXED] += m->t->engines[o->eng].gap_s * o->nq / nq;
			finish(m, o, end, end + o->lat);
			break;
		}
		case MK_FREE: {
			double t = ready_at(m, o);
			finish(m, o, t, t);
			break;
		}
		case MK_BUF:
			fresh(m, o->def);
			break;
		case MK_VIEW: {
			double t = 0;
			for (int k = 0; k < o->nin; k++)
				t = dmax(t, x[o->in[k]]);
			x[T(m, o->wten)] = dmax(x[T(m, o->wten)], t);
			break;
		}
		case MK_LOOP:
			run_loop(m, i);
			i = o->end;
			break;
		default:
			break;
		}
	}
}

static int
same(double a, double b)
{
	return fabs(a - b) <= 1e-12 + 1e-9 * fabs(b);
}

/* Does the state h[k] - h[k - p] equal h[k - p] - h[k - 2p] (history rows of nt)? */
static int
periodic(const double *h, int w, int64_t k, int p, int nt)
{
	const double *a = h + (k % w) * nt, *b = h + ((k - p) % w) * nt, *c = h + ((k - 2 * p) % w) * nt;
	for (int i = 0; i < nt; i++)
		if (!same(a[i] - b[i], b[i] - c[i]))
			return 0;
	return 1;
}

static void
record(Model *m, const int *tv, int nt, double *h, int w, int64_t k)
{
	double *row = h + (k % w) * nt;
	for (int i = 0; i < nt; i++)
		row[i] = m->x[tv[i]];
}

/* One loop: iterations until the state moves by the same delta over two
 * consecutive periods of p iterations (p <= MAXPER), then a checked jump
 * over whole periods (see the top of the file). */
static void
run_loop(Model *m, int at)
{
	const MOp *lp = &m->op[at];
	const int *tv = m->touch + lp->touch;
	int nt = lp->ntouch, lo = at + 1, hi = lp->end, w = HIST;
	double *x = m->x, *h = m->scr + lp->hist, *pre = h + w * nt;
	int64_t k = 0, n = lp->trip, base = 0, wait = 0;
	int d = m->nrun++;
	record(m, tv, nt, h, w, 0);
	while (k < n) {
		m->cnt[at] = k;
		if (d < 64)
			m->iter[d] = k;
		run_range(m, lo, hi);
		record(m, tv, nt, h, w, ++k);
		if (k < wait || model_no_jump || m->trace)
			continue;
		int p = 1;
		while (p <= MAXPER && !(p % lp->sper == 0 && k - base >= 2 * p && periodic(h, w, k, p, nt)))
			p++;
		if (p > MAXPER)
			continue;
		/* jump c whole periods, then run one more period and compare */
		int64_t c = (n - k) / p - 1;
		const double *now = h + (k % w) * nt, *was = h + ((k - p) % w) * nt;
		while (c > 0) {
			for (int i = 0; i < nt; i++)
				pre[i] = x[tv[i]] = now[i] + (double)c * (now[i] - was[i]);
			for (int r = 0; r < p; r++) {
				m->cnt[at] = k + c * p + r;
				run_range(m, lo, hi);
			}
			int ok = 1;
			for (int i = 0; i < nt && ok; i++)
				ok = same(x[tv[i]] - pre[i], now[i] - was[i]);
			if (ok)
				break;
			for (int i = 0; i < nt; i++)
				x[tv[i]] = now[i];
			c /= 2;
		}
		if (c > 0) {
			k += (c + 1) * p;
			base = k;
			record(m, tv, nt, h, w, k);
		} else
			wait = k + 2 * p;   /* the regime is changing: run on before trying again */
	}
	m->nrun--;
}

double
model_refine_copies(Nest *ns, int dtype_bytes, double lat, double ran)
{
	/* operations the model runs: at most REFINE_WORK (a bound that does not depend on the
	 * machine), and none where that would be fewer than REFINE_TRIES tries */
	double work = ran * REFINE_TRIES > REFINE_WORK ? REFINE_WORK : 0;
	for (int pass = 0, moved = 1; pass < REFINE_PASSES && moved; pass++) {
		moved = 0;
		for (int i = 0; i < ns->n; i++) {
			int alt[16][2], na = work < REFINE_WORK ? nest_copy_alts(ns, i, alt, 16) : 0;
			int inst = ns->s[i].inst, eng = ns->s[i].engine;
			for (int k = 0; k < na && work < REFINE_WORK; k++) {
				ns->s[i].inst = alt[k][0];
				ns->s[i].engine = alt[k][1];
				ModelStats st;
				double l = model_latency(ns, dtype_bytes, NULL, &st);
				work += st.ran;
				if (l < lat * (1 - 1e-9)) {
					lat = l;
					inst = alt[k][0], eng = alt[k][1];
					moved = 1;
				}
			}
			ns->s[i].inst = inst;
			ns->s[i].engine = eng;
		}
	}
	return lat;
}

int
model_schedule(Nest *ns, int form, int dtype_bytes)
{
	int k = nest_schedule(ns, form, NULL, NULL, NULL);
	if (k > 0) {
		ModelStats st = { 0 };
		double lat = model_latency(ns, dtype_bytes, NULL, &st);
		model_refine_copies(ns, dtype_bytes, lat, st.ran);
	}
	return k;
}

double
model_pick_form(Nest **ns, ExtractCand *c, int dtype_bytes, ModelStats *st)
{
	double lat = model_latency(*ns, dtype_bytes, &c->fp, st);
	st->unrefined = lat;
	if (!st->fits || c->fused < 0)
		return lat;
	/* form 1 (stages in sequence), and form 2 (interleaved) where a loop was pipelined; forms 3
	 * and 4 the same with tails first where one moved; forms 5 to 8 as 1 to 4 with fills ahead
	 * where a loop has some; forms 9 to 12 as 3, 4, 7, 8 with the tails' loads moved near where
	 * that stops short of where 3 takes them (nest_form_parts); each made from the candidate as
	 * it is.  Those within REFINE_NEAR of the fastest get their copies placed by the model
	 * (model_refine_copies); the fastest then replaces the candidate if it is faster still. */
	Nest *own = *ns, *tw[NEST_FORMS + 1] = { NULL };
	double tl[NEST_FORMS + 1], ran[NEST_FORMS + 1], fastest = HUGE_VAL;
	for (int form = 1, piped = 0, tails = 1; form <= NEST_FORMS; form++) {
		int ft, fi, fa, fp, ahead = 1, moved = 1;
		nest_form_parts(form, &ft, &fi, &fa, &fp);
		if ((fi && !piped) || (ft && !tails) || (fp && !tw[fp]))
			continue;
		tw[form] = nest_dup(own);
		int k = nest_schedule(tw[form], form, form <= 4 ? &piped : NULL, ft ? &moved : NULL, &ahead);
		if (form == 3)
			tails = moved;
		ModelStats ts;
		tl[form] = k && (!ft || moved) && (!fa || ahead) ? model_latency(tw[form], dtype_bytes, NULL, &ts) : HUGE_VAL;
		ran[form] = tl[form] < HUGE_VAL ? ts.ran : 0;
		if (tl[form] == HUGE_VAL) {
			nest_free(tw[form]);
			tw[form] = NULL;
		} else if (tl[form] < fastest)
			fastest = tl[form];
	}
	int best = 0;
	double blat = lat, unrefined = lat;
	for (int form = 1; form <= NEST_FORMS; form++) {
		if (!tw[form])
			continue;
		double was = tl[form];
		if (was <= fastest * REFINE_NEAR)
			tl[form] = model_refine_copies(tw[form], dtype_bytes, was, ran[form]);
		if (tl[form] < blat) {
			blat = tl[form];
			unrefined = was;
			best = form;
		}
	}
	for (int form = 1; form <= NEST_FORMS; form++)
		if (form != best)
			nest_free(tw[form]);
	if (!best)
		return lat;
	Footprint fp;
	nest_room(tw[best], &fp);
	blat = model_latency(tw[best], dtype_bytes, &fp, st);
	st->unrefined = unrefined;
	c->fp = fp;
	c->sched = best;
	nest_free(own);
	*ns = tw[best];
	return blat;
}

/* ---- capacity ----------------------------------------------------------------------- */

/* ---- the model -------------------------------------------------------------------- */

/* The schedule of ns (trace: each instruction's row written there, every iteration run). */
static double
model_run(const Nest *ns, int dtype_bytes, const Footprint *fp, ModelStats *st, FILE *trace)
{
	const AxTarget *t = ns->g->t;
	Model m = { .ns = ns, .t = t, .n = ns->n, .nv = ns->nvars > 0 ? ns->nvars : 1, .nn = ns->g->nnodes + 1,
	            .trace = trace };
	if (dtype_bytes <= 0)
		dtype_bytes = 4;
	Footprint own;
	if (!fp) {
		nest_room(ns, &own);
		fp = &own;
	}
	/* fits: the footprint (4 bytes per element) at dtype_bytes, but for a banked
	 * memory (accumulators stay 4 bytes).  Then per memory, the fewest loops a
	 * tile must be made in to get a second buffer, such that it all still fits:
	 * the innermost loops' tiles, which turn over most often, first. */
	int fits = footprint_fits(t, fp, dtype_bytes), dmin[32];
	NestLive lv;
	nest_live(ns, dtype_bytes / 4.0, &lv);
	int maxd = 0;
	for (int v = 0; v < lv.nv; v++)
		if (lv.mem[v] >= 0 && lv.depth[v] > maxd)
			maxd = lv.depth[v];
	for (int k = 0; k < 32; k++) {
		dmin[k] = maxd + 1;
		if (k >= t->nmems || t->mems[k].offchip)
			continue;
		const AxMemory *mm = &t->mems[k];
		for (int d = 1; d <= maxd; d++) {
			double b, u;
			nest_live_peak(&lv, mm, k, d, &b, &u);
			if (b <= (double)mm->bytes && (mm->banks <= 0 || u <= mm->banks)) {
				dmin[k] = d;
				break;
			}
		}
	}
	if (!fits) {   /* it cannot run: nothing to schedule */
		nest_live_free(&lv);
		if (st) {
			*st = (ModelStats){ 0 };
			st->latency = HUGE_VAL;
			st->bottleneck = -1;
		}
		return HUGE_VAL;
	}
	int z = 0;
	for (int e = 0; e < t->nengines && e < MAXENG; e++) {
		m.eslot[e] = z;
		m.nslot[e] = t->engines[e].dma ? (t->engines[e].queues > 0 ? t->engines[e].queues : 1) : 1;
		if (m.nslot[e] > MAXQ)
			m.nslot[e] = MAXQ;
		z += m.nslot[e];
	}
	m.vr = z;
	m.vl = m.vr + m.nv;
	m.va = m.vl + m.nv;
	m.vg = m.va + m.nv;
	m.tn = m.vg + m.nv * MAXBUF;
	m.st = m.tn + m.nn;
	m.z = m.st + ST_N;
	model_slot_plan(&m);
	for (int v = 0; v < m.nv; v++) {   /* block buffers kept per tile: their slots after the rest */
		m.sbase[v] = m.z;
		m.z += m.nsl[v];
	}
	m.host = malloc(sizeof(int) * (size_t)(m.n + 1));
	m.div = malloc(sizeof(int) * (size_t)(m.n + 1));
	m.mod = malloc(sizeof(int) * (size_t)(m.n + 1));
	m.cnt = calloc((size_t)(m.n + 1), sizeof(int64_t));
	if (!m.host || !m.div || !m.mod || !m.cnt)
		ax_die("out of memory");
	m.x = calloc((size_t)m.z, sizeof(double));
	m.op = calloc((size_t)(m.n + 1), sizeof(MOp));
	m.nbuf = malloc(sizeof(int) * (size_t)m.nv);
	if (!m.x || !m.op || !m.nbuf)
		ax_die("out of memory");
	for (int v = 0; v < m.nv; v++)   /* off-chip values: no on-chip room to wait for */
		m.nbuf[v] = lv.mem[v] < 0 ? MAXBUF : lv.depth[v] >= dmin[lv.mem[v]] ? 2 : 1;
	nest_live_free(&lv);
	model_compile_ops(&m, dtype_bytes);
	model_slot_periods(&m);
	model_collect_touch(&m);
	run_range(&m, 0, m.n);
	double lat = 0;   /* the engines done, and the off-chip tensors written (a transfer's latency after it) */
	for (int s = 0; s < m.vr; s++)
		lat = dmax(lat, m.x[s]);
	for (int s = m.tn; s < m.tn + m.nn; s++)
		lat = dmax(lat, m.x[s]);
	if (st) {
		*st = (ModelStats){ 0 };
		st->latency = lat;
		st->fits = fits;
		st->bottleneck = -1;
		double most = -1;
		for (int e = 0; e < t->nengines && e < MAXENG; e++) {
			st->busy[e] = m.x[m.st + e];
			if (st->busy[e] > most) {
				most = st->busy[e];
				st->bottleneck = e;
			}
		}
		st->bytes = m.x[m.st + ST_BYTES];
		st->insts = m.x[m.st + ST_INSTS];
		st->transfers = m.x[m.st + ST_XFERS];
		st->xfer_queues = m.x[m.st + ST_QUEUES];
		st->xfer_fixed = m.x[m.st + ST_FIXED];
		st->ran = m.ran;
		memcpy(st->dbl, dmin, sizeof st->dbl);
	}
	free(m.x);
	free(m.op);
	free(m.nbuf);
	free(m.nsl);
	free(m.sbase);
	free(m.dims);
	free(m.bdim);
	free(m.sref);
	free(m.host);
	free(m.div);
	free(m.mod);
	free(m.cnt);
	free(m.touch);
	free(m.scr);
	return fits ? lat : HUGE_VAL;
}

double
model_latency(const Nest *ns, int dtype_bytes, const Footprint *fp, ModelStats *st)
{
	return model_run(ns, dtype_bytes, fp, st, NULL);
}

double
model_timeline(const Nest *ns, int dtype_bytes, FILE *f)
{
	fprintf(f, "statement,variable,instruction,engine,iterations,start_us,end_us,idle_before_us\n");
	return model_run(ns, dtype_bytes, NULL, NULL, f);
}

void
model_bottleneck_text(const AxTarget *t, const ModelStats *st, char *buf, size_t n)
{
	int e = st->bottleneck;
	if (e < 0 || e >= t->nengines) {
		snprintf(buf, n, "-");
		return;
	}
	const AxEngine *en = &t->engines[e];
	if (!en->dma || st->transfers <= 0 || st->busy[e] <= 0) {
		snprintf(buf, n, "%s", en->name);
		return;
	}
	double b = st->bytes / st->transfers;
	snprintf(buf, n, "%s: %d queues, %.1f per transfer, %.0f%% of busy time fixed per-transfer gap, %.*f %s per transfer",
	         en->name, en->queues > 0 ? en->queues : 1, st->xfer_queues / st->transfers,
	         100 * st->xfer_fixed / st->busy[e], b >= 1024 * 1024 ? 1 : 0,
	         b >= 1024 * 1024 ? b / 1048576 : b >= 1024 ? b / 1024 : b, b >= 1024 * 1024 ? "MiB" : b >= 1024 ? "KiB" : "B");
}
