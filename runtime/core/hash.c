/*
 * hash.c — a 128-bit hash of strings (two 64-bit FNV-style lanes), for keys
 * of results kept on disk: slurm.c's candidates, compile --sizes's cache.
 * Not cryptographic: it tells apart what a user runs, not what an adversary
 * writes.
 */
#include <stdio.h>
#include "axon.h"

void
ax_hash_add(uint64_t h[2], const char *s)
{
	for (const char *p = s;; p++) {   /* the terminating 0 too: "ab","c" differs from "a","bc" */
		h[0] = (h[0] ^ (unsigned char)*p) * 1099511628211ull;
		h[1] = (h[1] ^ (unsigned char)*p) * 0x100000001b3ull * 31 + 0x9e3779b97f4a7c15ull;
		if (!*p)
			break;
	}
}

void
ax_hash_hex(const uint64_t h[2], char out[33])
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
}
