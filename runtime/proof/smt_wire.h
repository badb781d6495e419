/*
 * smt_wire.h — a query's terms on their way to the prover process (smt.c's
 * check_isolated): smt_wire.c writes and reads them, smt.c builds the Z3
 * terms.  Nothing else includes it.
 */
#ifndef SMT_WIRE_H
#define SMT_WIRE_H
#include "proof.h"

enum { WIRE_MAXARGS = 16 };   /* a node's arguments, as many as smt.c's tr translates */
#define WIRE_NONE 0xffffffffu

typedef struct Wire {
	char *buf;            /* the payload */
	size_t len, cap;
	const Term **key;     /* open addressing: the nodes written, their numbers in val */
	uint32_t *val;
	size_t nkey, capkey;
	uint32_t count;
} Wire;

/* The payload of hyp (NULL: none) and goal (NULL: none) into w (wire_free after) */
void wire_query(Wire *w, const Term *hyp, const Term *goal);
void wire_free(Wire *w);

typedef struct WireNode {
	Term t;               /* the node's own fields; t.a is not filled */
	uint32_t arg[WIRE_MAXARGS];   /* its arguments' numbers (earlier nodes) */
	int na;
	char *name;           /* t.name's storage, reused node to node */
	size_t namecap;
} WireNode;

/* The payload read back: the two roots' numbers, then node by node (1 a node, 0 at the
 * end, -1 if it cannot be read) */
int wire_roots(const char **p, const char *end, uint32_t root[2]);
int wire_node(const char **p, const char *end, WireNode *n);
void wire_node_free(WireNode *n);
#endif
