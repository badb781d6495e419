#!/usr/bin/python3
"""tests/bench/check.py — checks what bench/sweep.py wrote (run by tests/run.sh).

  check.py sweep DIR      a real sweep of examples/multiply.py at two sizes (1K x 1K, 16K x 16K)
  check.py sample DIR     the tables and plot rendered from tests/bench/sample_results.json

Prints one line per failed check; exit 1 if any failed.
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

fails = []


def want(cond, what):
    if not cond:
        fails.append(what)


def rows(md, head):
    """the table rows of the section whose heading starts with head"""
    out, on = [], False
    for line in md.splitlines():
        if line.startswith("#"):
            on = line.lstrip("#").strip().startswith(head)
        elif on and line.startswith("| ---"):
            out.pop()   # the header row
        elif on and line.startswith("| "):
            out.append([c.strip() for c in line.strip().strip("|").split("|")])
    return out


def svg_panels(path):
    root = ET.parse(path).getroot()   # well-formed XML, or the test fails here
    ns = "{http://www.w3.org/2000/svg}"
    return {g.get("id"): g for g in root.iter(ns + "g") if g.get("class") == "panel"}, ns


def sweep(d):
    md = open(os.path.join(d, "RESULTS.md")).read()
    data = json.load(open(os.path.join(d, "results.json")))
    want("modelled, not measured on Trainium" in md, "RESULTS.md does not say the figures are modelled")
    recs = data["records"]
    want(len(recs) == 2, f"results.json: {len(recs)} records, want 2")
    want(sorted(r["dims"] for r in recs) == ["M=1024,N=1024", "M=16384,N=16384"],
         f"results.json: sizes {[r['dims'] for r in recs]}")
    for r in recs:
        want(not r.get("error"), f"{r['dims']}: {r.get('error')}")
        if r.get("error"):
            continue
        lat, nv, rf = r["latency_us"], r["naive_latency_us"], r["roofline_us"]
        want(0 < rf <= lat * (1 + 1e-9) and lat <= nv * (1 + 1e-9), f"{r['dims']}: not roofline <= selected <= naive")
        want(abs(r["speedup_vs_naive"] - nv / lat) < 1e-3 * r["speedup_vs_naive"], f"{r['dims']}: speedup")
        for k in ("phase1_s", "phase2_s", "variants", "emitted", "feasible"):
            want(r.get(k) is not None, f"{r['dims']}: no {k}")
    size_rows = rows(md, "Tensor Multiply")
    want([x[0] for x in size_rows] == ["1K×1K", "16K×16K", "**geomean**"], f"per-size rows {[x[0] for x in size_rows]}")
    for x, r in zip(size_rows, sorted(recs, key=lambda r: r["size"]["M"])):
        if not r.get("error"):
            want(x[1] == f"{r['latency_us'] / 1e3:.3f}", f"{x[0]}: selected {x[1]}")
            want(x[4] == f"{r['speedup_vs_naive']:.2f}x", f"{x[0]}: speedup {x[4]}")
            slow = r["latency_us"] > 1.3 * r["roofline_us"]
            want(bool(x[6]) == slow and (not slow or x[6].startswith(r["bottleneck"])), f"{x[0]}: bottleneck '{x[6]}'")
    summ = rows(md, "Summary")
    want(any(x[0] == "Tensor Multiply" and x[1] == "2" for x in summ), "summary row of Tensor Multiply")
    ct = rows(md, "Compile time")
    want(len(ct) == 1 and ct[0][0] == "Tensor Multiply", "compile-time table: one row, Tensor Multiply")
    if ct:
        want(ct[0][8:12] == ["8.2", "288.5", "625", "456"], f"paper's figures beside ours: {ct[0][8:12]}")
    want(not rows(md, "Ablation"), "an ablation table without ablation runs")
    panels, ns = svg_panels(os.path.join(d, "speedup.svg"))
    want(list(panels) == ["panel-multiply"], f"SVG panels {list(panels)}")
    for g in panels.values():
        want(len(g.findall(ns + "polyline")) == 2, "SVG: want 2 lines (selected, roofline bound)")
        want(len(g.findall(ns + "circle")) == 4, "SVG: want 4 points")


def sample(d):
    md = open(os.path.join(d, "RESULTS.md")).read()
    r = rows(md, "RMSNorm+MatMul")
    want([x[0] for x in r] == ["2K×2K×2K", "4K×4K×4K", "**geomean**"], f"per-size rows {[x[0] for x in r]}")
    if len(r) == 3:
        want(r[0][1:7] == ["4.000", "6.000", "1.000", "1.50x", "25.0%", "dma (3.900 ms busy)"], f"row 1: {r[0]}")
        want(r[1][1:7] == ["1.200", "6.000", "1.000", "5.00x", "83.3%", ""], f"row 2 (within 1.3x): {r[1]}")
        want(r[2][4:6] == ["2.74x", "45.6%"], f"geomean row: {r[2]}")
    a = rows(md, "Ablation")
    want(len(a) == 1, f"ablation rows: {len(a)}")
    if a:
        want(a[0][:8] == ["RMSNorm+MatMul", "2", "0.80x", "1.00x", "0.89x", "0.50x", "0.90x", "0.65x"],
             f"ablation, no algebraic: {a[0][:8]}")
        want(a[0][8:] == ["0.50x", "0.50x", "0.50x", "0.33x", "0.80x", "0.53x"], f"ablation, no fusion: {a[0][8:]}")
    ct = rows(md, "Compile time")
    want(ct and ct[0][:8] == ["RMSNorm+MatMul", "0.60", "4.00", "8.0", "2", "1,100", "450", "1"], f"compile row {ct}")
    want(ct and ct[0][8:] == ["37.1", "3,246.4", "17,500", "12,750"], f"paper's compile figures {ct}")
    panels, ns = svg_panels(os.path.join(d, "speedup.svg"))
    want(list(panels) == ["panel-rmsnorm_matmul"], f"SVG panels {list(panels)}")
    data = json.load(open(os.path.join(d, "results.json")))
    s = data["summary"]["rmsnorm_matmul"]
    want(abs(s["ablation"]["no-algebraic"]["geomean"] - 0.8 ** 0.5) < 1e-9, "summary: ablation geomean")


if __name__ == "__main__":
    {"sweep": sweep, "sample": sample}[sys.argv[1]](sys.argv[2])
    for f in fails:
        print(f)
    sys.exit(1 if fails else 0)
