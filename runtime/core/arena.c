/*
 * arena.c — region allocation for axonc.
 *
 * Each stage and each query allocates from an arena and frees it whole
 * (QBE alloc/freeall).  Blocks grow geometrically; allocations are zeroed.
 */
#include <pthread.h>
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

/* Blocks of freed arenas, kept for the next arenas (zeroed again as far as they were
 * used): an arena per query (a graph run by the reference kernels, thousands in a
 * compile) had its blocks mapped and unmapped by malloc each time, a page fault per page
 * and a TLB flush per unmap.  Under AddressSanitizer, freed, so that it sees use after
 * arena_free. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_KEEP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_KEEP 0
#endif
#endif
#ifndef ARENA_KEEP
#define ARENA_KEEP 1
#endif
enum { KEEP_MAX_BLOCK = 1 << 20, KEEP_MAX_BYTES = 32 << 20 };
static Block *kept;
static size_t kept_bytes;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static Block *
block_new(size_t cap)
{
	if (ARENA_KEEP && cap <= KEEP_MAX_BLOCK) {
		pthread_mutex_lock(&kept_lock);
		Block **p = &kept;
		while (*p && (*p)->cap != cap)
			p = &(*p)->next;
		Block *b = *p;
		if (b) {
			*p = b->next;
			kept_bytes -= cap;
		}
		pthread_mutex_unlock(&kept_lock);
		if (b)
			return b;
	}
	Block *b = calloc(1, sizeof *b + cap);   /* zeroed: allocations are */
	if (!b)
		ax_die("out of memory");
	return b;
}

static void
block_free(Block *b)
{
	if (ARENA_KEEP && b->cap <= KEEP_MAX_BLOCK) {
		memset(b->data, 0, b->used);
		b->used = 0;
		pthread_mutex_lock(&kept_lock);
		int keep = kept_bytes + b->cap <= KEEP_MAX_BYTES;
		if (keep) {
			b->next = kept;
			kept = b;
			kept_bytes += b->cap;
		}
		pthread_mutex_unlock(&kept_lock);
		if (keep)
			return;
	}
	free(b);
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
		b = block_new(cap);
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
		block_free(b);
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
