#!/usr/bin/python3
"""bench/sweep.py — the size sweep of the paper's evaluation, through the performance model.

For every example (examples/*.py) and every size of its `# sizes:` lines, runs the whole
pipeline (`axonc compile --report`, selection by the built-in performance model) and writes
OUT/results.json, OUT/RESULTS.md and OUT/speedup.svg:

  * per benchmark: Phase 1 / Phase 2 time, #variants, #emitted, #feasible, #validated, beside
    the paper's compile-time table (tab:compile-times);
  * per benchmark and size: the modelled latency of the selected kernel, of the naive lowering
    and the roofline bound, speedup vs naive, fraction of roofline, the bottleneck engine where
    the kernel is worse than 1.3x the roofline; geomean per benchmark;
  * the ablation of the paper's Table 4 (--no-algebraic, --no-fusion) beside the paper's figures;
  * odd sizes: each benchmark's first size with one size symbol + 1, and with every one + 1, beside
    it (fraction of roofline, and its ratio to the even size's);
  * the scoreboard of issue 19: points within 1.25x of the roofline, benchmarks at >= 60%;
  * a plot of speedup vs size per benchmark (SVG, written by bench/plot.py).

Every latency is modelled (one NeuronCore-v2, fp32), never measured on Trainium.

Each run is `axonc compile`: Phase 1, then every candidate visited modelled and every candidate
structure validated numerically (libtcc), the winner validated again; its --report is the record.

  sweep.py [--axonc build/bench/axonc] [--jobs 2] [--budget N] [--out bench] [--quick]
           [--examples a,b,...] [--pick-sizes N] [--ablation a,b,...|none] [--odd|--no-odd]
  sweep.py --render OUT/results.json [--out DIR]      the tables and the plot again, no runs

Only the standard library.
"""
import argparse
import concurrent.futures
import datetime
import itertools
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import plot  # noqa: E402  (bench/plot.py)

# the paper's benchmark names (its tables) for each example file
PAPER_NAMES = {
    "multiply": "Tensor Multiply", "cumsum": "Cumsum", "rmsnorm": "RMSNorm", "softmax": "Softmax",
    "relu": "ReLU", "silu": "SiLU", "glu": "GLU", "swiglu": "SwiGLU", "maxpool": "MaxPool",
    "rope": "RoPE", "matmul": "MatMul", "transpose_matmul": "Transpose+MatMul",
    "rmsnorm_matmul": "RMSNorm+MatMul", "matmul_add_rmsnorm": "MatMul+Add+RMSNorm",
    "softmax_matmul": "Softmax+MatMul", "matmul_matmul_silu_mul": "MM+MM+SiLU+Mul",
    "qkv_projection": "QKV Projection", "gqa": "Group Query Attention", "silu_mlp": "SiLU Gated MLP",
    "swiglu_mlp": "SwiGLU Gated MLP",
}
# the paper's ablation table names its rows a little differently
ABLATION_PAPER_NAMES = {"rmsnorm_matmul": "RMSNorm+MatMul", "qkv_projection": "QKV Projection",
                        "gqa": "Group Query Attention", "silu_mlp": "SiLU MLP"}
ABLATION_DEFAULT = ["rmsnorm_matmul", "qkv_projection", "gqa", "silu_mlp"]
ABLATIONS = {"no-algebraic": "--no-algebraic", "no-fusion": "--no-fusion"}
# odd sizes: the first size of a sweep with its first size symbol + 1 ("odd-one"), with every
# size symbol + 1 ("odd-all"); a size symbol is one whose value is at least a tile (128): counts
# such as heads stay as they are
ODD = ("odd-one", "odd-all")
ODD_MIN = 128
WITHIN = 1.25     # issue 19: a point counts if its kernel is within this x the roofline
GOAL_FRACTION = 0.60
# the paper's table order: single operators, multi-operator kernels, LLM layers
ORDER = list(PAPER_NAMES)
QUICK = {"examples": ["multiply", "softmax", "rmsnorm_matmul", "qkv_projection"], "pick_sizes": 2,
         "ablation": ["rmsnorm_matmul"]}
ROOFLINE_NOTE = 1.3   # name the bottleneck where the kernel is worse than this x the roofline


# ---- sizes ---------------------------------------------------------------------------------
def parse_sizes(path):
    """The sweep of one example: a list of ordered dicts {symbol: value} from its '# sizes:' lines."""
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"#\s*sizes:\s*(.*)$", line.strip())
            if not m:
                continue
            spec = m.group(1).strip()
            g = re.match(r"([A-Za-z_][\w,\s]*?)\s+in\s+([\d\s]+)$", spec)
            if g:
                syms = [s.strip() for s in g.group(1).split(",") if s.strip()]
                vals = [int(v) for v in g.group(2).split()]
                for combo in itertools.product(vals, repeat=len(syms)):
                    out.append(dict(zip(syms, combo)))
            else:
                pairs = re.findall(r"([A-Za-z_]\w*)\s*=\s*(\d+)", spec)
                if not pairs:
                    raise SystemExit(f"{path}: cannot read '# sizes: {spec}'")
                out.append({k: int(v) for k, v in pairs})
    return out


def odd_size(size, which, by=1):
    """size with its first size symbol (which='odd-one') or every one ('odd-all') + by; None if none."""
    keys = [k for k, v in size.items() if v >= ODD_MIN]
    if not keys:
        return None
    bump = keys[:1] if which == "odd-one" else keys
    return {k: v + by if k in bump else v for k, v in size.items()}


def dims_arg(size):
    return ",".join(f"{k}={v}" for k, v in size.items())


def short(v):
    return f"{v // 1024}K" if v >= 1024 and v % 1024 == 0 else str(v)


def size_label(size):
    """'2K×4K×8K' for a grid sweep, 'S=2K' for the symbols that vary in explicit lines."""
    return "×".join(short(v) for v in size.values())


def pick(seq, n):
    """n elements of seq evenly spread, first and last included."""
    if n <= 0 or n >= len(seq):
        return list(seq)
    if n == 1:
        return [seq[0]]
    idx = sorted({round(i * (len(seq) - 1) / (n - 1)) for i in range(n)})
    return [seq[i] for i in idx]


# ---- the paper's figures ---------------------------------------------------------------------
def _num(s):
    s = s.strip().replace("{,}", "").replace(",", "").rstrip("x")
    try:
        return float(s)
    except ValueError:
        return None


def read_paper(tex):
    """{'compile': {name: {...}}, 'ablation': {name: {...}}} from the paper's LaTeX tables."""
    with open(tex) as f:
        text = f.read()
    out = {"source": "the paper (axon-paper.tex)", "compile": {}, "ablation": {}}

    def table(label):
        i = text.find("\\label{%s}" % label)
        if i < 0:
            return []
        j = text.find("\\end{tabular}", i)
        body = text[text.find("\\midrule", i):j]
        rows = []
        for line in body.split("\\\\"):
            line = re.sub(r"\\(midrule|bottomrule|toprule)", "", line).strip()
            cells = [c.strip() for c in line.split("&")]
            if len(cells) >= 5:
                rows.append(cells)
        return rows

    for c in table("tab:compile-times"):
        out["compile"][c[0]] = {"ops": _num(c[1]), "phase1_s": _num(c[2]), "emitted": _num(c[3]),
                                "compilable": _num(c[4]), "phase2_s": _num(c[5]), "total_s": _num(c[6])}
    for c in table("tab:ablation"):
        v = [_num(x) for x in c[1:7]]
        out["ablation"][c[0]] = {"no-algebraic": {"min": v[0], "max": v[1], "geomean": v[2]},
                                 "no-fusion": {"min": v[3], "max": v[4], "geomean": v[5]}}
    return out


def load_paper(path):
    """The paper's tables: from the LaTeX when it is there, else the copy in bench/paper.json."""
    if path and os.path.exists(path):
        p = read_paper(path)
        if p["compile"] and p["ablation"]:
            return p
    copy = os.path.join(HERE, "paper.json")
    if os.path.exists(copy):
        with open(copy) as f:
            return json.load(f)
    return {"source": None, "compile": {}, "ablation": {}}


# ---- running axonc -----------------------------------------------------------------------------
def run_one(axonc, path, size, ablation, budget, timeout, measure=None, cjobs=1):
    """One compile: the record of results.json.  For an odd-size config, size is the even size: the
    odd one is it + 1, + 2 where the program refuses + 1 (GLU halves N, MaxPool pairs rows), + 3."""
    if ablation in ODD:
        for by in (1, 2, 3):
            rec = run_one(axonc, path, odd_size(size, ablation, by), None, budget, timeout, measure, cjobs)
            if "these sizes break" not in rec.get("error", ""):
                break
        rec["config"] = ablation
        return rec
    name = os.path.basename(path)[:-3]
    rec = {"bench": name, "size": size, "dims": dims_arg(size), "config": ablation or "full"}
    flags = [ABLATIONS[ablation]] if ablation in ABLATIONS else []
    if budget:
        flags += ["--budget", str(budget)]
    if measure:
        flags += ["--measure", measure]
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="axon_sweep_") as tmp:
        cmd = [axonc, "compile", path, "--dims", rec["dims"], "-o", os.path.join(tmp, "kernel.py"),
               "--report", os.path.join(tmp, "report.json"), "--jobs", str(cjobs)] + flags
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            rec.update(error=f"timeout after {timeout} s", wall_s=time.time() - t0)
            return rec
        rec["wall_s"] = time.time() - t0
        if p.returncode != 0:
            rec["error"] = f"exit {p.returncode}: " + (p.stderr.strip().splitlines() or [""])[-1][:300]
            return rec
        try:
            with open(os.path.join(tmp, "report.json")) as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            rec["error"] = f"no report: {e}"
            return rec
        rep["source"] = "compile-report"
    rec["command"] = " ".join(["axonc"] + cmd[1:3] + ["--dims", rec["dims"]] + flags)
    for k in ("source", "measure", "phase1_s", "phase2_s", "variants", "emitted", "feasible", "validated",
              "rejected_numerics", "naive_latency_us", "roofline_us", "speedup_vs_naive"):
        rec[k] = rep.get(k)
    best = rep.get("best") or {}
    rec["latency_us"] = best.get("latency_us")
    rec["bottleneck"] = best.get("bottleneck")
    rec["bottleneck_detail"] = best.get("bottleneck_detail")
    rec["busy_us"] = best.get("busy_us")
    rec["best_config"] = best.get("config")
    val = rep.get("validation") or {}
    rec["validated_at"] = val.get("winner_dims")
    if rec["latency_us"] is None:
        rec["error"] = "no kernel selected"
    if rec["speedup_vs_naive"] is None and rec.get("naive_latency_us") and rec["latency_us"]:
        rec["speedup_vs_naive"] = rec["naive_latency_us"] / rec["latency_us"]
    return rec


# ---- statistics --------------------------------------------------------------------------------
def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summarize(data):
    """Per-benchmark figures from the records (added to results.json as 'summary')."""
    recs = data["records"]
    benches = [b for b in ORDER if any(r["bench"] == b for r in recs)]
    benches += sorted({r["bench"] for r in recs} - set(benches))
    summ = {}
    for b in benches:
        full = [r for r in recs if r["bench"] == b and r["config"] == "full"]
        ok = [r for r in full if not r.get("error")]
        s = {"sizes": len(full), "ok": len(ok), "errors": len(full) - len(ok)}
        for k in ("phase1_s", "phase2_s", "variants", "emitted", "feasible", "validated"):
            s[k] = median([r.get(k) for r in ok])
        s["phase2_total_s"] = sum(r.get("phase2_s") or 0 for r in ok)
        s["wall_total_s"] = sum(r.get("wall_s") or 0 for r in full)
        s["geomean_speedup_vs_naive"] = geomean([r.get("speedup_vs_naive") for r in ok])
        s["geomean_fraction_of_roofline"] = geomean([r["roofline_us"] / r["latency_us"] for r in ok
                                                     if r.get("roofline_us") and r.get("latency_us")])
        s["geomean_naive_over_roofline"] = geomean([r["naive_latency_us"] / r["roofline_us"] for r in ok
                                                    if r.get("roofline_us") and r.get("naive_latency_us")])
        abl = {}
        for a in ABLATIONS:
            ratios = []
            for r in recs:
                if r["bench"] != b or r["config"] != a or r.get("error"):
                    continue
                f = next((x for x in ok if x["dims"] == r["dims"]), None)
                if f and r.get("latency_us"):
                    ratios.append(f["latency_us"] / r["latency_us"])
            if ratios:
                abl[a] = {"n": len(ratios), "min": min(ratios), "max": max(ratios), "geomean": geomean(ratios)}
        if abl:
            s["ablation"] = abl
        odd = {}
        for k in ODD:
            r = next((x for x in recs if x["bench"] == b and x["config"] == k), None)
            if r is None:
                continue
            even = next((x for x in recs if x["bench"] == b and x["config"] == "full" and
                         all(0 <= v - x["size"].get(s_, -9) <= 3 for s_, v in r["size"].items())), None)
            fe, fo = fraction(even), fraction(r)
            odd[k] = {"dims": r["dims"], "even_dims": even and even["dims"], "fraction": fo, "even_fraction": fe,
                      "ratio": fe / fo if fe and fo else None, "error": r.get("error")}
        if odd:
            s["odd"] = odd
        summ[b] = s
    return summ


def fraction(r):
    """the roofline's share of the selected kernel's latency (None if either is missing)"""
    if not r or r.get("error") or not r.get("roofline_us") or not r.get("latency_us"):
        return None
    return r["roofline_us"] / r["latency_us"]


def scoreboard(data):
    """issue 19's figures: points within WITHIN x the roofline, benchmarks whose geomean fraction
    is at least GOAL_FRACTION, odd sizes within 1.2x of their even neighbour's fraction"""
    full = [r for r in data["records"] if r["config"] == "full"]
    within = sum(1 for r in full if fraction(r) and fraction(r) >= 1 / WITHIN)
    summ = data["summary"]
    goal = [b for b, s in summ.items() if (s.get("geomean_fraction_of_roofline") or 0) >= GOAL_FRACTION]
    odd = [o for s in summ.values() for o in s.get("odd", {}).values()]
    odd_ok = sum(1 for o in odd if o["ratio"] is not None and o["ratio"] <= 1.2)
    return {"points": len(full), "within": within, "benchmarks": len(summ), "at_goal": len(goal),
            "below_goal": [b for b in summ if b not in goal], "odd": len(odd), "odd_within": odd_ok}


# ---- RESULTS.md --------------------------------------------------------------------------------
def f_(x, fmt="{:.2f}", dash="—"):
    return dash if x is None else fmt.format(x)


def fms(us):
    """a latency in us, printed in ms"""
    return "—" if us is None else f"{us / 1e3:.3f}"


def fint(x):
    return "—" if x is None else f"{int(round(x)):,}"


def bottleneck_note(r):
    if not r.get("latency_us") or not r.get("roofline_us"):
        return ""
    if r["latency_us"] <= ROOFLINE_NOTE * r["roofline_us"]:
        return ""
    b = r.get("bottleneck") or "?"
    busy = (r.get("busy_us") or {}).get(b)
    text = r.get("bottleneck_detail") or b
    return f"{text} ({busy / 1e3:.3f} ms busy)" if busy is not None else text


def render_md(data, paper):
    meta, summ, recs = data["meta"], data["summary"], data["records"]
    L = []
    w = L.append
    w("# Benchmarks" if meta.get("title") is None else meta["title"])
    w("")
    w(f"Written by `{meta['command']}` on {meta['date']} ({meta['cores']} cores, {meta['machine']}; "
      f"{meta['jobs']} compiles at a time; the sweep took {meta['wall_s'] / 60:.1f} min wall).")
    w("")
    if meta.get("measure_cmd"):
        w(f"**The selected kernels' latencies below are measured** by `{meta['measure_cmd']}` (compile "
          "`--measure`); the naive lowering and the roofline are still the performance model's.")
        w("")
    w(("**Every latency below is modelled, not measured on Trainium**" if not meta.get("measure_cmd") else
       "**The naive and roofline figures are modelled**") + ": the built-in performance model of one "
      "NeuronCore-v2 (fp32; see docs/performance-model.md for what it does and does not model). "
      "The naive lowering is one loop nest per operation, 128x512 tiles, no fusion, no blocks; the roofline is "
      "the bound of compute at peak rate and of HBM traffic at the DMA queues' bandwidth. "
      "To time the selected kernels on a Trainium machine instead, run the sweep with `--measure CMD` "
      "(`bench/sweep.py --measure 'CMD {kernel} {config}'`, passed to `axonc compile --measure`; see docs/cli.md).")
    w("")
    w(f"Each row: `axonc compile FILE --dims ... --report r.json` (selection by the model, every candidate "
      f"structure validated numerically), budget {meta['budget'] if meta['budget'] else 'the default'} candidates "
      f"per compile{' (' + meta['budget_note'] + ')' if meta.get('budget_note') else ''}. Sizes per example from "
      "its `# sizes:` lines; the ablation compiles add `--no-algebraic` or `--no-fusion`.")
    if meta.get("subset"):
        w("")
        w(f"**A subset** of the sweep: {meta['subset']}.")
    errs = [r for r in recs if r.get("error")]
    if errs:
        w("")
        w(f"**{len(errs)} compile(s) failed**: " + "; ".join(
            f"{r['bench']} {r['dims']} {r['config']}: {r['error']}" for r in errs[:10]) + ("; ..." if len(errs) > 10 else ""))
    w("")
    w("## Summary: modelled speedup over the naive lowering, fraction of the roofline")
    w("")
    w("Geomean over the sizes of each benchmark. `naive / roofline` is the most any kernel could gain over the "
      "naive lowering in the model.")
    w("")
    w("| benchmark | sizes | geomean speedup vs naive | geomean fraction of roofline | geomean naive / roofline |")
    w("| --- | --- | --- | --- | --- |")
    for b, s in summ.items():
        w(f"| {PAPER_NAMES.get(b, b)} | {s['ok']}{'' if not s['errors'] else ' (' + str(s['errors']) + ' failed)'} | "
          f"{f_(s['geomean_speedup_vs_naive'], '{:.2f}x')} | {f_(s['geomean_fraction_of_roofline'], '{:.1%}')} | "
          f"{f_(s['geomean_naive_over_roofline'], '{:.1f}x')} |")
    allsp = geomean([s["geomean_speedup_vs_naive"] for s in summ.values()])
    w(f"| **all** | {sum(s['ok'] for s in summ.values())} | {f_(allsp, '{:.2f}x')} | "
      f"{f_(geomean([s['geomean_fraction_of_roofline'] for s in summ.values()]), '{:.1%}')} | |")
    w("")
    sb = scoreboard(data)
    w(f"**Scoreboard** (issue 19's aims): {sb['within']} of {sb['points']} (benchmark, size) points within "
      f"{WITHIN}x of the roofline ({sb['within'] / max(1, sb['points']):.1%}; aim: 80%); {sb['at_goal']} of "
      f"{sb['benchmarks']} benchmarks at a geomean fraction of roofline of at least {GOAL_FRACTION:.0%}"
      + (f" (below: {', '.join(PAPER_NAMES.get(b, b) for b in sb['below_goal'])})" if sb["below_goal"] else "")
      + (f"; {sb['odd_within']} of {sb['odd']} odd sizes within 1.2x of their even neighbour's fraction"
         if sb["odd"] else "") + ".")
    w("")
    w(f"Plot: [`{meta.get('svg', 'speedup.svg')}`]({meta.get('svg', 'speedup.svg')}) (modelled speedup over the "
      "naive lowering per size, with the roofline's bound on it).")
    w("")
    # ---- compile times ----
    w("## Compile time and candidates (the paper's Table 5)")
    w("")
    w("Ours: median over the sizes of each benchmark; Phase 1 is variants, tiling, synthesis and fusion "
      "(no size involved), Phase 2 is extraction and the model over the candidates"
      + ", with compile's numerical validation" +
      " (the paper's Phase 2 is the "
      "Neuron compiler and runs on Trainium, over all its sizes). #emitted is candidates written, "
      "#feasible those that fit on chip (the paper: compilable by the Neuron compiler), #validated those run "
      "against the program through their C rendering. The paper's figures are from "
      f"{paper.get('source') or 'the paper'}, its compile-time table (tab:compile-times).")
    w("")
    w("| benchmark | Phase 1 s | Phase 2 s | Phase 2 s, all sizes | #variants | #emitted | #feasible | #validated "
      "| paper Phase 1 s | paper Phase 2 s | paper #emitted | paper #compilable |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for b, s in summ.items():
        p = paper["compile"].get(PAPER_NAMES.get(b, b), {})
        w(f"| {PAPER_NAMES.get(b, b)} | {f_(s['phase1_s'], '{:.2f}')} | {f_(s['phase2_s'], '{:.2f}')} | "
          f"{f_(s['phase2_total_s'], '{:.1f}')} | {fint(s['variants'])} | {fint(s['emitted'])} | "
          f"{fint(s['feasible'])} | {fint(s['validated'])} | {f_(p.get('phase1_s'), '{:.1f}')} | "
          f"{f_(p.get('phase2_s'), '{:,.1f}')} | {fint(p.get('emitted'))} | {fint(p.get('compilable'))} |")
    w("")
    # ---- ablation ----
    abl = {b: s["ablation"] for b, s in summ.items() if s.get("ablation")}
    if abl:
        w("## Ablation (the paper's Table 4)")
        w("")
        w("Modelled latency of the full pipeline divided by that with one optimisation off, per size (below 1.0x: "
          "the ablated compile is slower); min / max / geomean over the sizes run. The paper's figures are "
          "measured on Trainium over its 27 sizes.")
        w("")
        w("| benchmark | sizes | no algebraic: min | max | geomean | paper min | max | geomean "
          "| no fusion: min | max | geomean | paper min | max | geomean |")
        w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for b, a in abl.items():
            p = paper["ablation"].get(ABLATION_PAPER_NAMES.get(b, PAPER_NAMES.get(b, b)), {})
            cells = []
            for k in ABLATIONS:
                x, q = a.get(k, {}), p.get(k, {})
                cells += [f_(x.get(m), "{:.2f}x") for m in ("min", "max", "geomean")]
                cells += [f_(q.get(m), "{:.2f}x") for m in ("min", "max", "geomean")]
            n = max(v["n"] for v in a.values())
            w(f"| {PAPER_NAMES.get(b, b)} | {n} | " + " | ".join(cells) + " |")
        w("")
    # ---- odd sizes ----
    odd = {b: s["odd"] for b, s in summ.items() if s.get("odd")}
    if odd:
        w("## Odd sizes")
        w("")
        w("Each benchmark's first size with its first size symbol + 1 (`one`), and with every size symbol + 1 "
          "(`all`; symbols below 128, such as head counts, stay; + 2 where the program refuses + 1: GLU halves "
          "N, MaxPool pairs rows). `ratio` is the even size's fraction of the roofline over the odd one's "
          "(aim: at most 1.2x).")
        w("")
        w("| benchmark | even | fraction | one + 1 | fraction | ratio | all + 1 | fraction | ratio |")
        w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for b, o in odd.items():
            cells = []
            for k in ODD:
                x = o.get(k)
                if not x:
                    cells += ["", "", ""]
                elif x.get("error"):
                    cells += [x["dims"], "failed: " + x["error"][:80], ""]
                else:
                    cells += [x["dims"], f_(x["fraction"], "{:.1%}"), f_(x["ratio"], "{:.2f}x")]
            x0 = next(iter(o.values()))
            w(f"| {PAPER_NAMES.get(b, b)} | {x0['even_dims'] or '—'} | {f_(x0['even_fraction'], '{:.1%}')} | "
              + " | ".join(cells) + " |")
        w("")
    # ---- per size ----
    w("## Per benchmark and size (modelled, ms)")
    w("")
    w(f"`bottleneck` names the engine the model finds busiest, where the selected kernel is worse than "
      f"{ROOFLINE_NOTE}x the roofline; for the DMA engine, also its queues: how many a transfer was split over "
      f"on average (a tile of fewer partitions uses fewer), the share of their busy time that is the fixed "
      f"per-transfer gap (large: transfers too small), and the mean transfer's size.")
    for b, s in summ.items():
        w("")
        w(f"### {PAPER_NAMES.get(b, b)} (`examples/{b}.py`)")
        w("")
        syms = None
        rows = [r for r in recs if r["bench"] == b and r["config"] == "full"]
        if rows:
            syms = ",".join(rows[0]["size"].keys())
        w(f"| {syms or 'size'} | selected | naive | roofline | speedup vs naive | fraction of roofline | bottleneck |")
        w("| --- | --- | --- | --- | --- | --- | --- |")
        for r in rows:
            if r.get("error"):
                w(f"| {size_label(r['size'])} | failed: {r['error']} | | | | | |")
                continue
            frac = r["roofline_us"] / r["latency_us"] if r.get("roofline_us") and r.get("latency_us") else None
            w(f"| {size_label(r['size'])} | {fms(r['latency_us'])} | {fms(r.get('naive_latency_us'))} | "
              f"{fms(r.get('roofline_us'))} | {f_(r.get('speedup_vs_naive'), '{:.2f}x')} | {f_(frac, '{:.1%}')} | "
              f"{bottleneck_note(r)} |")
        w(f"| **geomean** | | | | {f_(s['geomean_speedup_vs_naive'], '{:.2f}x')} | "
          f"{f_(s['geomean_fraction_of_roofline'], '{:.1%}')} | |")
    w("")
    return "\n".join(L)


def render(data, out, paper, svg_name="speedup.svg"):
    for r in data["records"]:
        if r.get("speedup_vs_naive") is None and r.get("naive_latency_us") and r.get("latency_us"):
            r["speedup_vs_naive"] = r["naive_latency_us"] / r["latency_us"]
    data["summary"] = summarize(data)
    data["meta"]["svg"] = svg_name
    data["meta"]["names"] = {b: PAPER_NAMES.get(b, b) for b in data["summary"]}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")
    with open(os.path.join(out, "RESULTS.md"), "w") as f:
        f.write(render_md(data, paper))
    with open(os.path.join(out, svg_name), "w") as f:
        f.write(plot.svg(data))


# ---- main --------------------------------------------------------------------------------------
def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--axonc", default=os.path.join(ROOT, "build", "bench", "axonc"))
    ap.add_argument("--jobs", type=int, default=2, help="compiles at a time")
    ap.add_argument("--compile-jobs", type=int, default=1, help="compile --jobs of each compile")
    ap.add_argument("--budget", type=int, default=0, help="--budget of every compile (0: axonc's default)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--quick", action="store_true", help="the development subset: " + json.dumps(QUICK))
    ap.add_argument("--examples", help="comma-separated example names (default: every examples/*.py)")
    ap.add_argument("--pick-sizes", type=int, default=0, help="N sizes per example, evenly spread (default: all)")
    ap.add_argument("--odd", action=argparse.BooleanOptionalAction, default=None,
                    help="the odd sizes beside each benchmark's first size (default: on for the whole sweep, "
                         "off for a subset)")
    ap.add_argument("--ablation", help="benchmarks of the ablation, or 'none' (default: the paper's four)")
    ap.add_argument("--measure", metavar="CMD", help="compile --measure CMD: the selected kernels timed by CMD "
                    "(e.g. on a Trainium host) instead of the model")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per compile")
    ap.add_argument("--paper", default=os.path.join(ROOT, "..", "shared", "paper", "axon-paper.tex"))
    ap.add_argument("--render", metavar="RESULTS_JSON", help="only write the tables and plot from this file")
    ap.add_argument("--title")
    ap.add_argument("--extract-paper", action="store_true", help="write the paper's tables to bench/paper.json")
    a = ap.parse_args(argv)
    if a.extract_paper:
        p = read_paper(a.paper)
        p["source"] = "the paper (axon-paper.tex)"
        with open(os.path.join(HERE, "paper.json"), "w") as f:
            json.dump(p, f, indent=1)
            f.write("\n")
        return 0
    paper = load_paper(a.paper)
    if a.render:
        with open(a.render) as f:
            data = json.load(f)
        render(data, a.out, paper)
        return 0
    examples = a.examples.split(",") if a.examples else None
    ablation = a.ablation
    subset = None
    if a.quick:
        examples = examples or QUICK["examples"]
        a.pick_sizes = a.pick_sizes or QUICK["pick_sizes"]
        ablation = ablation or ",".join(QUICK["ablation"])
    if examples is None:
        examples = [b for b in ORDER if os.path.exists(os.path.join(ROOT, "examples", b + ".py"))]
        examples += sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "examples"))
                           if f.endswith(".py") and f[:-3] not in examples)
    abl = ABLATION_DEFAULT if ablation is None else ([] if ablation == "none" else ablation.split(","))
    if a.quick or a.examples or a.pick_sizes:
        subset = (f"{', '.join(examples)}; {a.pick_sizes or 'all'} size(s) each"
                  f"; ablation on {', '.join(abl) if abl else 'none'}")
    jobs = []
    for b in examples:
        path = os.path.join(ROOT, "examples", b + ".py")
        sizes = pick(parse_sizes(path), a.pick_sizes)
        for s in sizes:
            jobs.append((path, s, None))
            if b in abl:
                for k in ABLATIONS:
                    jobs.append((path, s, k))
        if (a.odd if a.odd is not None else subset is None) and sizes:
            for k in ODD:
                o = odd_size(sizes[0], k)
                if o and (k == "odd-one" or o != odd_size(sizes[0], "odd-one")):
                    jobs.append((path, sizes[0], k))   # run_one makes it odd
    # the biggest first, so that two workers finish together
    def cost(j):
        n = 1
        for v in j[1].values():
            n *= v
        return -n * (3 if "matmul" in j[0] or "mlp" in j[0] or "gqa" in j[0] or "qkv" in j[0] else 1)
    order = sorted(range(len(jobs)), key=lambda i: cost(jobs[i]))
    print(f"sweep: {len(jobs)} compiles of {len(examples)} examples, {a.jobs} at a time, "
          f"budget {a.budget or 'default'}", file=sys.stderr, flush=True)
    t0 = time.time()
    recs = [None] * len(jobs)
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = {ex.submit(run_one, a.axonc, *jobs[i], a.budget, a.timeout, a.measure,
                             a.compile_jobs): i for i in order}
        for fu in concurrent.futures.as_completed(futs):
            i = futs[fu]
            recs[i] = fu.result()
            done += 1
            r = recs[i]
            print(f"[{done}/{len(jobs)} {time.time() - t0:6.0f}s] {r['bench']} {r['dims']} {r['config']}: "
                  + (r["error"] if r.get("error") else
                     f"{fms(r['latency_us'])} ms ({r['wall_s']:.1f} s)"), file=sys.stderr, flush=True)
    wall = time.time() - t0
    cmd = "make bench-quick" if a.quick else ("make bench" if not (a.examples or a.pick_sizes) else
                                             "bench/sweep.py " + " ".join(argv))
    data = {"meta": {"title": a.title, "command": cmd, "argv": argv,
                     "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                     "cores": os.cpu_count(), "machine": platform.machine(), "jobs": a.jobs, "budget": a.budget,
                     "wall_s": wall, "compiles": len(jobs), "subset": subset,
                     "modelled": not a.measure, "measure_cmd": a.measure,
                     "measure": (f"selected kernels timed by {a.measure}; naive and roofline modelled" if a.measure
                                 else "model (one NeuronCore-v2, fp32), not measured on Trainium")},
            "records": recs}
    render(data, a.out, paper)
    print(f"sweep: {len(jobs)} compiles in {wall:.0f} s; wrote {a.out}/RESULTS.md, results.json, speedup.svg",
          file=sys.stderr)
    return 1 if any(r.get("error") for r in recs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
