/*
 * target.c — looking up and describing the generated target tables.
 */
#include <string.h>
#include "axon.h"

const AxTarget *
ax_find_target(const char *name)
{
	if (!name)
		return ax_default_target;
	for (int i = 0; ax_targets[i]; i++)
		if (strcmp(ax_targets[i]->name, name) == 0)
			return ax_targets[i];
	return NULL;
}

static const AxOp *
find_in(const AxOp *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

const AxOp *
ax_find_op(const AxTarget *t, const char *name)
{
	return find_in(t->ops, t->nops, name);
}

const AxOp *
ax_find_inst(const AxTarget *t, const char *name)
{
	return find_in(t->insts, t->ninsts, name);
}

int
ax_has_role(const AxOp *op, const char *role)
{
	for (int k = 0; op->python && op->python[k]; k++)
		if (strcmp(op->python[k], role) == 0)
			return 1;
	return 0;
}

uint32_t
ax_inst_mems(const AxTarget *t, const AxOp *op, int o, uint32_t engines)
{
	uint32_t reach = 0;
	for (int e = 0; e < t->nengines && e < 32; e++)
		if (engines & op->engines & (1u << e))
			reach |= o < 0 ? t->engines[e].writes : t->engines[e].reads;
	return (o < 0 ? op->out_mems : op->opnd[o].mems) & reach;
}

int
ax_xfer_engine(const AxTarget *t)
{
	for (int e = 0; e < t->nengines; e++)
		if (t->engines[e].dma)
			return e;
	return -1;
}

int
ax_nth_bit(uint32_t mask, int k)
{
	int first = -1;
	for (int e = 0; e < 32; e++)
		if (mask & (1u << e)) {
			if (first < 0)
				first = e;
			if (k-- == 0)
				return e;
		}
	return first;
}

static void
print_si(FILE *f, double v, const char *unit)
{
	static const char *pre[] = { "", "k", "M", "G", "T" };
	int k = 0;
	while (v >= 1000 && k < 4) {
		v /= 1000;
		k++;
	}
	fprintf(f, "%g %s%s", v, pre[k], unit);
}

void
ax_print_target(FILE *f, const AxTarget *t)
{
	fprintf(f, "target %s, generated from", t->name);
	for (int i = 0; t->files[i]; i++)
		fprintf(f, "%s %s", i ? "," : "", t->files[i]);
	fprintf(f, "\n  %d tensor ops, %d instructions, %d scalar fns, %d axioms, %d enums\n", t->nops, t->ninsts,
	        t->nfns, t->naxioms, t->nenums);
	fprintf(f, "  engines:\n");
	for (int i = 0; i < t->nengines; i++) {
		const AxEngine *e = &t->engines[i];
		fprintf(f, "    %-10s", e->name);
		if (e->clock_hz > 0) {
			fputs(" clock ", f);
			print_si(f, e->clock_hz, "Hz");
		}
		if (e->queues)
			fprintf(f, " queues %d", e->queues);
		if (e->bandwidth > 0) {
			fputs(" bandwidth ", f);
			print_si(f, e->bandwidth, "B/s");
		}
		if (e->latency_s > 0)
			fprintf(f, " latency %g ns", e->latency_s * 1e9);
		if (e->gap_s > 0)
			fprintf(f, " gap %g ns", e->gap_s * 1e9);
		if (e->dma)
			fputs(" (moves data)", f);
		uint32_t all = t->nmems >= 32 ? 0xffffffffu : (1u << t->nmems) - 1;
		for (int w = 0; w < 2; w++) {
			uint32_t m = w ? e->writes : e->reads;
			if ((m & all) == all)
				continue;
			fputs(w ? " writes " : " reads ", f);
			for (int k = 0, n = 0; k < t->nmems; k++)
				if (m & (1u << k))
					fprintf(f, "%s%s", n++ ? "|" : "", t->mems[k].name);
		}
		fputc('\n', f);
	}
	fprintf(f, "  memories:\n");
	for (int i = 0; i < t->nmems; i++) {
		const AxMemory *m = &t->mems[i];
		fprintf(f, "    %-10s", m->name);
		if (m->partitions)
			fprintf(f, " %d partitions x %lld bytes", m->partitions, (long long)m->bytes);
		if (m->banks)
			fprintf(f, " in %d banks", m->banks);
		if (m->bandwidth > 0) {
			fputs(" bandwidth ", f);
			print_si(f, m->bandwidth, "B/s");
		}
		if (m->offchip)
			fputs(" (off chip)", f);
		fputc('\n', f);
	}
	fprintf(f, "  kernel templates:");
	for (int i = 0; i < t->ntemplates; i++)
		fprintf(f, " %s", t->templates[i].name);
	fputc('\n', f);
}
