#!/usr/bin/python3
"""bench/plot.py — the sweep's plot as SVG, no dependency: one panel per benchmark, the modelled
speedup of the selected kernel over the naive lowering at each size (solid), and the most the
roofline allows, naive / roofline (dashed), on a log scale.

  plot.py RESULTS_JSON OUT.svg      (sweep.py calls svg(data) itself)
"""
import json
import math
import sys
from xml.sax.saxutils import escape

COLS = 4
PW, PH = 260, 170           # panel size
ML, MR, MT, MB = 44, 10, 26, 40   # margins inside a panel
HEAD = 58


def _label(size):
    return "×".join(f"{v // 1024}K" if v >= 1024 and v % 1024 == 0 else str(v) for v in size.values())


def _ticks(lo, hi):
    """log-scale ticks between lo and hi: 1, 2, 5 x powers of ten"""
    out = []
    e = math.floor(math.log10(lo))
    ms = (1, 2, 5) if hi / lo < 200 else (1,)
    while 10 ** e <= hi * 1.0001:
        for m in ms:
            v = m * 10 ** e
            if lo * 0.9999 <= v <= hi * 1.0001:
                out.append(v)
        e += 1
    return out


def _fmt(v):
    return f"{v:g}x"


def svg(data):
    names = data.get("meta", {}).get("names") or {}
    recs = [r for r in data["records"] if r and r.get("config") == "full"]
    benches = list(data.get("summary") or dict.fromkeys(r["bench"] for r in recs))
    benches = [b for b in benches if any(r["bench"] == b for r in recs)]
    rows = max(1, math.ceil(len(benches) / COLS))
    W, H = COLS * PW + 20, HEAD + rows * PH + 10
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
         'font-family="sans-serif" font-size="10">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="10" y="18" font-size="14" font-weight="bold">Modelled speedup over the naive lowering, per size '
         f'(performance model of one NeuronCore-v2, fp32; not measured on Trainium)</text>',
         '<line x1="12" y1="36" x2="36" y2="36" stroke="#1f77b4" stroke-width="2"/>'
         '<text x="40" y="39">selected kernel: naive / selected</text>'
         '<line x1="230" y1="36" x2="254" y2="36" stroke="#d62728" stroke-width="1.5" stroke-dasharray="4,3"/>'
         '<text x="258" y="39">roofline bound: naive / roofline</text>'
         '<line x1="450" y1="36" x2="474" y2="36" stroke="#888" stroke-width="1"/>'
         '<text x="478" y="39">1x (the naive lowering)</text>']
    for n, b in enumerate(benches):
        rs = [r for r in recs if r["bench"] == b]
        x0 = 10 + (n % COLS) * PW
        y0 = HEAD + (n // COLS) * PH
        pw, ph = PW - ML - MR, PH - MT - MB
        sp = [r.get("speedup_vs_naive") if not r.get("error") else None for r in rs]
        rb = [(r["naive_latency_us"] / r["roofline_us"]) if not r.get("error") and r.get("naive_latency_us")
              and r.get("roofline_us") else None for r in rs]
        vals = [v for v in sp + rb if v and v > 0] + [1.0]
        lo, hi = min(vals) / 1.15, max(vals) * 1.15
        if hi / lo < 4:
            lo, hi = lo / 1.5, hi * 1.5
        ly0, ly1 = math.log(lo), math.log(hi)

        def X(i):
            return x0 + ML + (pw * (i + 0.5) / len(rs))

        def Y(v):
            return y0 + MT + ph * (1 - (math.log(v) - ly0) / (ly1 - ly0))

        o.append(f'<g class="panel" id="panel-{escape(b)}">')
        o.append(f'<text x="{x0 + ML}" y="{y0 + 16}" font-size="12" font-weight="bold">'
                 f'{escape(names.get(b, b))}</text>')
        o.append(f'<rect x="{x0 + ML}" y="{y0 + MT}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
        for t in _ticks(lo, hi):
            y = Y(t)
            o.append(f'<line x1="{x0 + ML}" y1="{y:.1f}" x2="{x0 + ML + pw}" y2="{y:.1f}" stroke="#ddd"/>')
            o.append(f'<text x="{x0 + ML - 3}" y="{y + 3:.1f}" text-anchor="end">{_fmt(t)}</text>')
        y1 = Y(1.0)
        o.append(f'<line x1="{x0 + ML}" y1="{y1:.1f}" x2="{x0 + ML + pw}" y2="{y1:.1f}" stroke="#888"/>')
        # the symbols that vary; few sizes: each labelled; many: a tick where the outermost one changes
        keys = list(rs[0]["size"]) if rs else []
        vary = [k for k in keys if len({r["size"][k] for r in rs}) > 1] or keys[:1]
        for i, r in enumerate(rs):
            if len(rs) <= 5:
                text = " ".join(f"{k}={_label({k: r['size'][k]})}" for k in vary)
            elif i == 0 or r["size"][vary[0]] != rs[i - 1]["size"][vary[0]]:
                text = f"{vary[0]}={_label({vary[0]: r['size'][vary[0]]})}"
                o.append(f'<line x1="{X(i):.1f}" y1="{y0 + MT + ph}" x2="{X(i):.1f}" y2="{y0 + MT + ph + 3}" '
                         'stroke="#444"/>')
            else:
                continue
            o.append(f'<text x="{X(i):.1f}" y="{y0 + MT + ph + 12}" text-anchor="{"middle" if len(rs) <= 5 else "start"}" '
                     f'font-size="8">{escape(text)}</text>')
        cap = (f"{', '.join(vary)} ({len(rs)} sizes)" if len(rs) <= 5 else
               f"{' x '.join(vary)}: {len(rs)} sizes, {vary[0]} outermost")
        o.append(f'<text x="{x0 + ML + pw / 2}" y="{y0 + MT + ph + 26}" text-anchor="middle" fill="#555">'
                 f'{escape(cap)}</text>')
        for series, colour, extra in ((rb, "#d62728", ' stroke-width="1.5" stroke-dasharray="4,3"'),
                                      (sp, "#1f77b4", ' stroke-width="2"')):
            pts = [(X(i), Y(v)) for i, v in enumerate(series) if v and v > 0]
            if len(pts) > 1:
                o.append(f'<polyline fill="none" stroke="{colour}"{extra} points="'
                         + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
            for x, y in pts:
                o.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2" fill="{colour}"/>')
        o.append('</g>')
    o.append('</svg>')
    return "\n".join(o) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        d = json.load(f)
    with open(sys.argv[2], "w") as f:
        f.write(svg(d))
