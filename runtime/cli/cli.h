/*
 * cli.h — what the axonc command files share (private to runtime/cli/).
 */
#ifndef AXON_CLI_H
#define AXON_CLI_H
#include "measure.h"
#include "front.h"

typedef struct Opts {
	const char *cmd;
	const char *args[4];
	int nargs;
	const char *target, *fn, *dims, *inputs, *out, *dotfile, *report, *emit_all;
	const char *measure;     /* compile: "model" (NULL) or a command with {kernel} and {config} */
	int jobs, dtype;         /* compile: worker processes (0: every core); bytes per element for the model */
	uint64_t seed;
	int timeout_ms, json, explain, variant_cap, no_algebraic, depth, tile_cap, no_fusion, budget, validate;
	int list, no_jump;       /* model: every candidate listed; every loop iteration scheduled */
	const char *show;        /* model: the candidates whose `i=` this is (with ",F": and fused=F) printed as kernels */
	int slurm, max_tasks;    /* compile --slurm: the command through a Slurm array job of at most max_tasks tasks */
	const char *partition, *workdir;
	const char *slurm_opt;   /* the first Slurm option given (to say which one needs --slurm) */
	const char *config;      /* compile --config CFG.json: that configuration replayed, no search */
	const char *timeline;    /* compile --timeline T.csv: the selected kernel's modelled schedule (model_timeline) */
	const char *sizes;       /* compile --sizes SPEC: one kernel per bucket of sizes (cmd_sizes.c) */
	const char *cache;       /* compile --sizes: the cache directory (default $XDG_CACHE_HOME/axon) */
	const char *argv0;       /* how axonc was run */
} Opts;

/* cli.c */
int fail(const char *fmt, const char *arg);                       /* usage error: exit code 2 */
void json_str(const char *s);                                    /* a JSON string on stdout */
AxGraph *program_graph(const AxTarget *t, TermCtx *tc, const Opts *o);
/* the program's variants (operator propagation), NULL after errors.  lowered: they are to be
 * tiled and lowered, so a program has at most LOWER_MAX_OPS operations and, unless
 * --max-variants says, variants x operations stay within LOWER_WORK (each variant's
 * lowering and fusion search costs memory in proportion to its operations) */
enum { LOWER_MAX_OPS = 512, LOWER_WORK = 512 };
NuGraph *program_variants(const AxTarget *t, TermCtx *tc, const Opts *o, int lowered);
/* ... and the sizes of --dims (names[0..*nsizes) malloc'd, the caller frees them, also
 * after an error); NULL after an error, *rc its exit code */
NuGraph *program_at_sizes(const AxTarget *t, TermCtx *tc, const Opts *o, const char **names, double *vals, int *n,
                          int *nsizes, int *rc);
/* 0 if some variant has an instruction sequence for every operation (that fits the sizes,
 * if given, with some tile sizes, and whose reductions combine their partial tiles where
 * --max-tile, maxtile > 0, splits them); else the located error at the first operation of
 * variant 0 without one, before Phase 2 (exit code 1) */
int variants_writable(const AxTarget *t, int nv, AxTiling *const *T, LowerNode *const *L, const AxEnv *sizes,
                      int maxtile);
/* a note on stderr when the variants lowered with c spent the fusion search's budget */
void fusion_budget_note(LowerCache *c, int nv);
/* the commands, one file each stage: cmd_target.c, cmd_run.c, cmd_equiv.c, cmd_synth.c,
 * cmd_compile.c; 0 = done, else the exit code */
int cmd_targets(const AxTarget *t, const Opts *o);
int cmd_target(const AxTarget *t, const Opts *o);
int cmd_ops(const AxTarget *t, const Opts *o);
int cmd_insts(const AxTarget *t, const Opts *o);
int cmd_show(const AxTarget *t, const Opts *o);
int cmd_demo(const AxTarget *t, const Opts *o);
int cmd_graph(const AxTarget *t, const Opts *o);
int cmd_run(const AxTarget *t, const Opts *o);
int cmd_equiv(const AxTarget *t, const Opts *o);
int cmd_variants(const AxTarget *t, const Opts *o);
int cmd_synth(const AxTarget *t, const Opts *o);
int cmd_tile(const AxTarget *t, const Opts *o);
int cmd_fuse(const AxTarget *t, const Opts *o);
int cmd_compile(const AxTarget *t, const Opts *o);
int cmd_sizes(const AxTarget *t, const Opts *o);

/* cmd_config.c: a configuration (compile's best.config, select_config_json) read back and
 * its loop nests written at other sizes: tiles at most the configured ones, blocks as
 * configured; NULL and why where its limits or on-chip memory refuse it there */
typedef struct Config Config;
Config *config_read(const char *path, char *why, size_t nwhy);
void config_free(Config *cf);
/* c gets its choices (valid until the next call), *variant its variant */
Nest *config_nest(Config *cf, int nv, AxTiling *const *T, LowerNode *const *L, const char *const *names,
                  const double *vals, int n, int no_fusion, int dtype, ExtractCand *c, int *variant, char *why, size_t nwhy);

/* cmd_compile.c, for compile --sizes: Phase 1 once (at o->dims), then Phase 2 at the sizes of
 * each bucket; the winner's kernel and configuration (JSON) per call */
typedef struct Compile Compile;
Compile *compile_phase1(const AxTarget *t, const Opts *o, int *rc);
/* 0 = a kernel selected at dims: *src and *config malloc'd (the caller frees), *latency_s */
int compile_phase2_at(Compile *c, const char *dims, char **src, char **config, double *latency_s);
void compile_close(Compile *c);
int cmd_model(const AxTarget *t, const Opts *o);

#endif
