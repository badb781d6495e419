/*
 * arena.c — region allocation for axonc.
 *
 * Each stage and each query allocates from an arena and frees it whole
 * (QBE alloc/freeall).  Blocks grow geometrically; allocations are zeroed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "axon.h"

typedef struct Block {
	struct Block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
} Block;

struct Arena {
	Block *head;
	size_t next_cap;
};

void
ax_die_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: axonc: internal error: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

Arena *
arena_new(void)
{
	Arena *a = calloc(1, sizeof *a);
	if (!a)
		ax_die("out of memory");
	a->next_cap = 64 * 1024;
	return a;
}

void *
arena_alloc(Arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	Block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = a->next_cap;
		while (cap < n)
			cap *= 2;
		if (a->next_cap < (size_t)64 << 20)
			a->next_cap *= 2;
		b = calloc(1, sizeof *b + cap);   /* zeroed once: the arena never reuses memory */
		if (!b)
			ax_die("out of memory");
		b->next = a->head;
		b->used = 0;
		b->cap = cap;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

char *
arena_strdup(Arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);
	memcpy(p, s, n);
	return p;
}

void
arena_free(Arena *a)
{
	if (!a)
		return;
	for (Block *b = a->head, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(a);
}

/* Milliseconds on a monotonic clock, for timings in reports. */
double
ax_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
