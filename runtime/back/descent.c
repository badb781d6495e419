/*
 * descent.c — the steps of a descent over a combination's tile/block
 * choices (select.c and axonc model take them alike).
 *
 * The first rounds sample a combination's choices evenly: a matmul chain
 * has tens of thousands (blocks and tile scales per axis class), of which
 * a hundred are visited.  The blocks and tiles that suit it lie next to the
 * good ones, so from the best choice of each of the best combinations a
 * step visits the choices one move away (extract_neighbours: one axis
 * class's blocks or tiles a step up or down, or both); where one is better
 * the next step starts from it.  When a step improves nothing, one more
 * goes two moves out; when that improves nothing either, the descent ends.
 * A choice is visited once.
 */
#include <stdlib.h>
#include "nest.h"

enum { MAXNB = 512 };   /* neighbours of one choice at most (6 moves per axis class, and tails) */

typedef struct Seen {         /* (variant + 1, combination, choice) visited: open addressing */
	int64_t (*k)[3];
	size_t n, cap;
} Seen;

struct Descent {
	Seen seen;
	int wide;                /* the next step goes two moves out */
	int64_t nb[MAXNB], nb2[MAXNB];
};

Descent *
descent_new(void)
{
	Descent *d = calloc(1, sizeof *d);
	if (!d)
		ax_die("out of memory");
	return d;
}

void
descent_free(Descent *d)
{
	if (d)
		free(d->seen.k);
	free(d);
}

/* 1 if (v, combo, sub) was visited, else it is marked so */
static int
seen(Seen *s, int v, int64_t combo, int64_t sub)
{
	if (2 * (s->n + 1) > s->cap) {   /* at most half full: twice the room, every key again */
		Seen t = { .cap = s->cap ? 2 * s->cap : 1024 };
		t.k = calloc(t.cap, sizeof *t.k);
		if (!t.k)
			ax_die("out of memory");
		for (size_t i = 0; i < s->cap; i++)
			if (s->k[i][0])
				seen(&t, (int)s->k[i][0] - 1, s->k[i][1], s->k[i][2]);
		free(s->k);
		*s = t;
	}
	uint64_t h = (((uint64_t)v * 1000003u) ^ (uint64_t)combo) * 1099511628211ull ^ (uint64_t)sub;
	size_t i = (size_t)((h * 11400714819323198485ull) >> 20) % s->cap;
	for (; s->k[i][0]; i = (i + 1) % s->cap)
		if (s->k[i][0] == v + 1 && s->k[i][1] == combo && s->k[i][2] == sub)
			return 1;
	s->k[i][0] = v + 1;
	s->k[i][1] = combo;
	s->k[i][2] = sub;
	s->n++;
	return 0;
}

void
descent_start(Descent *d, int v, int64_t combo, int64_t sub)
{
	seen(&d->seen, v, combo, sub);
}

int
descent_around(Descent *d, Extract *x, int v, int64_t combo, int64_t sub, int64_t (*out)[2], int room)
{
	int n = 0, k = extract_neighbours(x, combo, sub, d->nb, MAXNB);
	for (int j = 0; j < k && n < room; j++) {
		int k2 = d->wide ? extract_neighbours(x, combo, d->nb[j], d->nb2, MAXNB) : 1;
		for (int j2 = 0; j2 < k2 && n < room; j2++) {
			int64_t s = d->wide ? d->nb2[j2] : d->nb[j];
			if (seen(&d->seen, v, combo, s))
				continue;
			out[n][0] = combo;
			out[n++][1] = s;
		}
	}
	return n;
}

int
descent_next(Descent *d, int improved)
{
	if (!improved && d->wide)
		return 0;
	d->wide = !improved;
	return 1;
}
