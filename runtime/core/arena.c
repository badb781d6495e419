/*
 * arena.c — region allocation for axonc.
 *
 * Each stage and each query allocates from an arena and frees it whole
 * (QBE alloc/freeall).  Blocks grow geometrically; allocations are zeroed.
 */
#define _DEFAULT_SOURCE   /* madvise */
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "axon.h"

#ifndef MADV_POPULATE_WRITE   /* Linux 5.14; older kernels refuse it, and pages fault as before */
#define MADV_POPULATE_WRITE 23
#endif

typedef struct Block {
	struct Block *next;
	size_t used, cap;
	size_t ready;            /* a mapped block: the bytes faulted in so far (arena_alloc) */
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
 * and a TLB flush per unmap.  Under AddressSanitizer a kept block is poisoned until it is
 * taken again, so that a use after arena_free is still caught (freeing them instead made
 * every query map fresh memory: a compile 15x slower than without the sanitizer). */
#if defined(__SANITIZE_ADDRESS__)
#define AX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AX_ASAN 1
#endif
#endif
#ifdef AX_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define AX_ASAN 0
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif
enum { KEEP_MAX_BLOCK = 1 << 20, KEEP_MAX_BYTES = 32 << 20 };
static Block *kept;
static size_t kept_bytes;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static Block *
block_new(size_t cap)
{
	if (cap <= KEEP_MAX_BLOCK) {
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
		if (b) {
			UNPOISON(b->data, b->cap);
			return b;
		}
	}
	Block *b;
	if (cap > KEEP_MAX_BLOCK) {   /* mapped: its pages zero when first touched */
		void *p = mmap(NULL, sizeof *b + cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		b = p == MAP_FAILED ? NULL : p;
	} else
		b = calloc(1, sizeof *b + cap);   /* zeroed: allocations are */
	if (!b)
		ax_die("out of memory");
	return b;
}

static void
block_free(Block *b)
{
	if (b->cap <= KEEP_MAX_BLOCK) {
		for (size_t i = 0; i < b->used; i++)   /* zeroed again (the compiler's loop) */
			b->data[i] = 0;
		b->used = 0;
		pthread_mutex_lock(&kept_lock);
		int keep = kept_bytes + b->cap <= KEEP_MAX_BYTES;
		if (keep) {
			POISON(b->data, b->cap);
			b->next = kept;
			kept = b;
			kept_bytes += b->cap;
		}
		pthread_mutex_unlock(&kept_lock);
		if (keep)
			return;
	}
	if (b->cap > KEEP_MAX_BLOCK)
		munmap(b, sizeof *b + b->cap);
	else
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
		b->ready = 0;
		b->cap = cap;
		a->head = b;
	}
	if (b->cap > KEEP_MAX_BLOCK && b->used + n > b->ready) {
		/* a mapped block faulted in a megabyte at a time, by one call each (block_new) */
		size_t to = (b->used + n + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
		to = to < b->cap ? to : b->cap;
		uintptr_t lo = (uintptr_t)(b->data + b->ready) & ~(uintptr_t)4095;
		uintptr_t hi = ((uintptr_t)(b->data + to) + 4095) & ~(uintptr_t)4095;
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
		b->ready = to;
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

/* bytes of this thread's malloc heap faulted in by one call, and malloc told to keep its
 * heap (blocks up to 16 MB from it, 128 MB of free heap kept): page by page, each first touch
 * is a trap, and on a virtual machine the traps cost more than the pages (a Z3 context
 * alone fills 17 MB: 4200 faults, three quarters of its making).  Called once per process
 * that will use a solver, after any fork that should not share these pages.  Nothing
 * under AddressSanitizer (its own allocator), nor where the kernel cannot populate. */
void
ax_heap_reserve(size_t bytes)
{
#if !AX_ASAN
	static int done;
	if (done)
		return;
	done = 1;
	mallopt(M_MMAP_THRESHOLD, 16 << 20);   /* Z3's tables (8.5 MB) from the heap */
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	enum { PIECE = 8 << 20 };   /* below the threshold: from the heap, and together again when freed */
	char *p[64];
	int n = 0;
	for (size_t got = 0; got < bytes && n < 64; got += PIECE) {
		if (!(p[n] = malloc(PIECE)))
			break;
		uintptr_t a = ((uintptr_t)p[n] + 4095) & ~(uintptr_t)4095;
		madvise((void *)a, PIECE - 4096, MADV_POPULATE_WRITE);
		n++;
	}
	while (n > 0)
		free(p[--n]);
#else
	(void)bytes;
#endif
}

/* Large scratch buffers (a loop nest's statements are ~8 KiB each) kept for the next taker:
 * a compile builds thousands of candidates, and each had its arrays mapped, faulted in and
 * unmapped again (malloc maps every allocation this large; the sanitizer's allocator does
 * too).  Not zeroed; poisoned under AddressSanitizer while kept. */
enum { SPARES = 8 };
#define SPARE_MAX ((size_t)64 << 20)   /* larger ones are freed: at most 8 x 64 MB kept */
static struct { void *p; size_t cap; } spare[SPARES];

void *
ax_spare_take(size_t want, size_t *cap)
{
	int best = -1;
	pthread_mutex_lock(&kept_lock);
	for (int i = 0; i < SPARES; i++)
		if (spare[i].p && spare[i].cap >= want && (best < 0 || spare[i].cap < spare[best].cap))
			best = i;
	void *p = NULL;
	if (best >= 0) {
		p = spare[best].p;
		*cap = spare[best].cap;
		spare[best].p = NULL;
	}
	pthread_mutex_unlock(&kept_lock);
	if (p) {
		UNPOISON(p, *cap);
		return p;
	}
	if (!(p = malloc(want ? want : 1)))
		ax_die("out of memory");
	*cap = want;
	return p;
}

void *
ax_spare_zeroed(size_t want, size_t *cap)
{
	unsigned char *p = ax_spare_take(want, cap);
	for (size_t i = 0; i < want; i++)   /* the compiler's loop */
		p[i] = 0;
	return p;
}

void
ax_spare_give(void *p, size_t cap)
{
	if (!p)
		return;
	pthread_mutex_lock(&kept_lock);
	int slot = -1, small = -1;   /* an empty slot, else the smallest kept if p is larger */
	for (int i = 0; i < SPARES && cap <= SPARE_MAX; i++) {
		if (!spare[i].p && slot < 0)
			slot = i;
		if (spare[i].p && spare[i].cap < cap && (small < 0 || spare[i].cap < spare[small].cap))
			small = i;
	}
	if (slot < 0)
		slot = small;
	void *drop = p;
	size_t dropcap = cap;
	if (slot >= 0) {
		drop = spare[slot].p;
		dropcap = spare[slot].cap;
		POISON(p, cap);
		spare[slot].p = p;
		spare[slot].cap = cap;
	}
	pthread_mutex_unlock(&kept_lock);
	if (drop) {
		UNPOISON(drop, dropcap);
		free(drop);
	}
}

/* Milliseconds on a monotonic clock, for timings in reports. */
double
ax_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
