/*
 * measure.h — Phase 2 (runtime/measure/): which candidate is fastest.  Takes
 * the candidates the back end writes (nest.h); gives the performance model
 * of one (model.c), the roofline bound (roofline.c) and the naive lowering
 * (naive.c) it is read against, and selection (select.c): every candidate
 * validated by structure at reduced sizes, measured by the model or a
 * user's command in parallel worker processes (command.c) or through a
 * Slurm array job (slurm.c), the best chosen deterministically.
 */
#ifndef AXON_MEASURE_H
#define AXON_MEASURE_H

#include <stdio.h>
#include "back.h"
#include "nest.h"

/* model.c: the performance model of one candidate on the target (seconds) */
typedef struct ModelStats {
	double latency;          /* seconds (HUGE_VAL when its tiles do not fit) */
	double busy[32];         /* per engine: seconds busy (a transferring engine: summed over queues / queues) */
	int bottleneck;          /* the engine busiest */
	double bytes;            /* moved by transferring engines */
	double transfers, insts; /* transfers, and instructions of every engine */
	double xfer_queues;      /* transfers: queues each was split over, summed */
	double xfer_fixed;       /* transfers: seconds of busy (as in busy[]) that are the fixed per-transfer latency */
	int dbl[32];             /* per memory: tiles made inside this many loops or more get two buffers */
	int fits;
	double unrefined;        /* model_pick_form: the kept form's latency before its copies were placed */
	double ran;              /* operations the model ran (its work: jumped loop iterations not counted) */
} ModelStats;
/* fp: the nest's footprint (nest_room), NULL to measure it here; dtype_bytes: 4 as
 * emitted (float32), 2 for bf16 */
double model_latency(const Nest *ns, int dtype_bytes, const Footprint *fp, ModelStats *st);
/* The bottleneck said so that the next optimisation shows: the busiest engine's name and, for an
 * engine that transfers, its queues, how many a transfer used on average, the share of its busy
 * time that is the fixed per-transfer latency and the mean transfer's bytes. */
void model_bottleneck_text(const AxTarget *t, const ModelStats *st, char *buf, size_t n);
/* The candidate *ns (c's) and, for a loop-fused form, its scheduled twins (nest_schedule: a loop
 * software-pipelined, its stages in sequence or interleaved, copies balanced over engines; and
 * each with the loads of tail tiles made first, where one moved),
 * modelled: the fastest twin, its copies placed by the model (model_refine_copies), becomes *ns
 * where that is faster than the candidate (c->sched its form, its footprint in c->fp); the
 * latency of the one kept.  The search calls it after its rounds, on the best by their own
 * latencies, so that the twins change no path it takes. */
double model_pick_form(Nest **ns, ExtractCand *c, int dtype_bytes, ModelStats *st);
/* Each copy between on-chip memories of ns, in program order, made by the other copy
 * instructions and engines that could make it (nest_copy_alts), kept where the model finds ns
 * faster so; at most two passes, and as many tries as a bound on the model's work allows (none
 * where a try costs more than an eighth of it).  lat, ran: ns's latency as it is and the
 * operations the model ran for it (ModelStats.ran); the latency after. */
double model_refine_copies(Nest *ns, int dtype_bytes, double lat, double ran);
/* The scheduled twin of form `form` made of ns (nest_schedule), its copies then placed as
 * model_pick_form places them: how many changes (0: ns as it was, its copies unplaced). */
int model_schedule(Nest *ns, int form, int dtype_bytes);
extern int model_no_jump;    /* for tests: run every iteration of every loop (no steady-state jumps) */
/* The schedule model_latency finds, every iteration run, as CSV into f: a row per instruction
 * run (its statement, variable, instruction, engine, the iterations of the loops around it,
 * start, end, and how long its engine or queue sat idle before it, in microseconds); the
 * latency (HUGE_VAL, and no rows, if it does not fit). */
double model_timeline(const Nest *ns, int dtype_bytes, FILE *f);

/* roofline.c: the physical bound of a program at sizes */
typedef struct ModelRoof {
	double bytes, mem_s;     /* least off-chip traffic (inputs read once, outputs written once) and its time */
	double bandwidth;        /* bytes/s: the least of off-chip memory's and the transferring engines' */
	double macs, macs_rate;  /* contraction work (sums of products) and the fastest instruction's rate */
	double flops, flops_rate;/* other arithmetic, and every engine's fastest instruction's rate, summed */
	double compute_s;        /* the larger of the two works over their rates */
	double ref_ops;          /* the reference kernels' work, an upper bound counted as macs + flops; -1 if unknown */
} ModelRoof;
/* max(memory time, compute time) in seconds; r (may be NULL) gets the parts */
double model_roofline(const AxGraph *g0, const AxEnv *sizes, int dtype_bytes, ModelRoof *r);

/* naive.c: the in-house baseline: every operation its own loop nest (no fusion, results
 * round-trip through off-chip memory), its first sequence on first engines, no blocks,
 * tiles of at most NAIVE_TILE (the largest each limit allows below it); tile sizes are
 * appended to names/vals (cap entries), which the nest refers to */
enum { NAIVE_TILE = 512 };
Nest *naive_nest(const AxTiling *T, const LowerNode *L, const char **names, double *vals, int nsizes, int cap,
                 char *why, size_t nwhy);
/* its modelled latency in seconds at the sizes names/vals (st: the model's view of it);
 * -1 if it cannot be written, -2 if its tiles do not fit on chip (why says so) */
double naive_latency(const AxTiling *T, const LowerNode *L, const char *const *names, const double *vals, int n,
                     int dtype_bytes, ModelStats *st, char *why, size_t nwhy);

enum { SEL_LEVELS = 3,         /* reduced size sets at most */
       SEL_TOP = 4,          /* best candidates kept, in order (the winner's validation may refuse one) */
       SEL_TOPC = 4,         /* best combinations kept (the second round visits more of their tiles and blocks) */
       SEL_TOPV = 4,         /* ... the best combination of each of the best variants (the neighbours' origins) */
       SEL_XCOMBO = 256,     /* combinations visited past the first round, per variant (neighbours) */
       SEL_TWINS = 16,       /* best candidates by their own latencies whose scheduled twins are modelled at the end */
       SEL_TWINS_PER = 4,    /* ... at most this many of one combination */
       SEL_STANDINS = 32,    /* tile/block choices at the requested sizes tried as a structure's stand-in */
       SEL_MAXJOBS = 64 };

/* --slurm: where and how the command runs on a cluster (slurm.c) */
typedef struct SlurmOpts {
	const char *workdir;     /* a directory every node sees (made if missing) */
	const char *partition;   /* NULL: the cluster's default */
	int max_tasks;           /* array tasks at most per job */
} SlurmOpts;

typedef struct SelIn {
	const AxGraph *g0;
	int nv;                  /* variants, each tiled and lowered */
	AxTiling **T;
	LowerNode **L;
	const char *const *names;   /* the requested sizes, then the scalar parameters */
	const double *vals;
	int n;
	const char *const *rnames;  /* the reduced sizes structures are validated at (NULL: none): */
	const double *const *rvals; /* nlevels sets, each larger; a structure that cannot be written */
	int rn, nlevels;            /* at one (its fusion differs there) is tried at the next, */
	int validate_requested;     /* and at last as itself at the requested sizes, if set */
	int maxtile, no_fusion;
	int64_t budget;          /* visits per variant in the first round */
	int64_t refine;          /* visits in the second round, all variants (0: none; the model only) */
	int jobs;                /* worker processes (1: in this one) */
	int progress;            /* a progress line on stderr */
	const char *cmd;         /* --measure CMD ({kernel}, {config}, {modelled_us}); NULL: the model */
	const SlurmOpts *slurm;  /* with cmd: run it through Slurm (NULL: on the workers) */
	int dtype;               /* bytes per element for the model */
	const char *fn;          /* the kernel's name */
	uint64_t seed;
} SelIn;

typedef struct SelPick {     /* a candidate, by its place in the stream */
	int have, v;
	int64_t visit;           /* its (combination, tiles, blocks) among the variant's visits */
	int64_t combo, sub;      /* ... its combination and tile/block choice */
	int unfused;             /* the unfused form of that visit */
	int fused;               /* ... else its count of fusions (nest_build's; NEST_EPILOGUE per epilogue) */
	int fold;                /* ... its folded form (its sub says so too) */
	int sched;               /* ... its scheduled twin's form (model_pick_form; 0: none) */
	double latency;          /* seconds (its twin's where sched) */
	ModelStats st;           /* the model's view of it (also with a command) */
} SelPick;

typedef struct SelOut {
	int64_t visits;          /* (combination, tiles, blocks) visited, all variants */
	int64_t considered;      /* candidates (a visit's fused and unfused forms) */
	int64_t failed;          /* could not be written */
	int64_t dropped;         /* their tiles do not fit on chip */
	int64_t emitted;         /* written and fit */
	int64_t infeasible;      /* the command failed or printed no latency (with cmd) */
	int64_t rejected;        /* dropped because their structure failed validation */
	int64_t unvalidated;     /* dropped because their structure could not be validated */
	int64_t feasible;        /* measured */
	int64_t unmeasured;      /* --slurm: their array task failed twice (first_unmeasured says how) */
	int64_t structures, validated, struct_rejected, struct_unvalidated;
	int64_t runs;            /* renderings run (structures differing only in engines share one) */
	double validate_ms;
	SelPick top[SEL_TOP];    /* the best, in order (latency, then stream order) */
	SelPick topc[SEL_TOPC];  /* the best of distinct combinations, in order */
	SelPick topv[SEL_TOPV];  /* the best of distinct variants, in order */
	SelPick topp[SEL_TWINS]; /* the best by their own latencies (their twins modelled after the rounds) */
	int64_t refined;         /* visits of the rounds after the first */
	int64_t neighbours;      /* ... of them, of combinations next to the first round's best */
	char first_failure[600];    /* why a candidate (or any) could not be written */
	int failure_variant, failure_node;   /* ... in which variant; the operation being written (-1: none) */
	char first_rejection[600];
	char first_infeasible[600];
	char first_unmeasured[600];
} SelOut;

/* Validates, measures and ranks every candidate; 0 = ok (out->top[0].have: a winner). */
int select_run(const SelIn *in, SelOut *out);
/* The candidate p again (its statements; the caller frees them and extract_free's *xo). */
Nest *select_rebuild(const SelIn *in, const SelPick *p, ExtractCand *c, Extract **xo);
/* A candidate's choices as a JSON object: variant, instructions, engines, fusion, blocks, tiles. */
void select_config_json(FILE *f, const SelIn *in, int v, const ExtractCand *c);
/* Sizes shrunk (the largest halved first, the program's assumptions kept) until the
 * program's work as its reference kernels do it (multiply-adds and other flops, a range
 * that moves with the index at its longest: roofline.c's ref_ops) is at most
 * max_ops and its tensors at most max_bytes; vals is changed in place (the first
 * nsizes entries are sizes).  Returns 1 if anything was shrunk, -1 if it could not
 * get under the limits. */
int select_shrink(const AxGraph *g0, const char *const *names, double *vals, int n, int nsizes, double max_ops,
                  double max_bytes);

/* command.c: the user's command on one candidate */
/* cmd with every {kernel} and {config} replaced by the quoted paths and {modelled_us} by the
 * model's latency in microseconds (malloc'd) */
char *command_line(const char *cmd, const char *kernel, const char *config, double modelled_s);
/* the last word of a run's standard output that is a whole finite number (NAN: none) */
double command_last_number(FILE *out);
/* a run's latency in seconds from its exit code and that number, or -1 and why (its standard
 * error, in errpath, quoted) */
double command_verdict(int code, double last, const char *errpath, char *why, size_t nwhy);

/* slurm.c: candidates measured by one Slurm array job (and one retry), results kept on disk
 * under the hash of the candidate, the target and the command */
typedef struct SlurmRun SlurmRun;
/* 0 if sbatch, squeue and scancel can be run and the work directory made; else why */
int slurm_ready(const SlurmOpts *o, char *why, size_t nwhy);
/* opens the work directory for a command on a target (NULL and why on failure) */
SlurmRun *slurm_open(const SlurmOpts *o, const char *target, const char *cmd, char *why, size_t nwhy);
/* writes a candidate (unless there already) and gives its key (32 hex digits); -1 and why */
int slurm_put(const SlurmRun *r, const char *kernel, const char *config, double modelled_s, char key[33], char *why,
              size_t nwhy);
/* measures the keys without a result on disk (keys may repeat): one array job, then one
 * retry of what a failed task left; 0 when every job ended (some keys may be unmeasured),
 * -1 if nothing could be submitted or followed, or on SIGINT/SIGTERM (the job cancelled) */
int slurm_measure(SlurmRun *r, char (*keys)[33], int64_t n, int progress);
/* a key's latency in seconds; -1 infeasible, -2 unmeasured (why says so) */
double slurm_latency(const SlurmRun *r, const char *key, char *why, size_t nwhy);
void slurm_close(SlurmRun *r);

#endif
