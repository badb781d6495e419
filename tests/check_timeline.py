"""check_timeline.py CSV REPORT: compile --timeline's schedule agrees with --report's figures.

Every instruction the model ran has its row; each engine's rows, summed, are its busy time; an
engine with one queue runs one instruction at a time, in the order of the rows; the last end is
the latency (less a transfer's latency after it at most).  Exit 1 with the first disagreement."""
import csv
import json
import sys
from collections import defaultdict

TRANSFERS = {"dma"}   # trainium's transferring engine: its 16 queues overlap


def main(path, report):
    r = json.load(open(report))["best"]
    rows = list(csv.DictReader(open(path)))
    if len(rows) != int(r["instructions"]):
        return f"{len(rows)} rows for {int(r['instructions'])} instructions"
    busy, last, end_max = defaultdict(float), {}, 0.0
    for x in rows:
        s, e, idle = float(x["start_us"]), float(x["end_us"]), float(x["idle_before_us"])
        if s < 0 or e < s or idle < 0:
            return f"statement {x['statement']}: start {s}, end {e}, idle {idle}"
        busy[x["engine"]] += e - s
        end_max = max(end_max, e)
        if x["engine"] not in TRANSFERS:
            if s < last.get(x["engine"], 0) - 1e-3:
                return f"statement {x['statement']} starts at {s} before its engine's last end {last[x['engine']]}"
            if abs(s - idle - last.get(x["engine"], 0)) > 1e-3:
                return f"statement {x['statement']}: idle {idle} is not its start less its engine's last end"
            last[x["engine"]] = e
    for eng, us in r["busy_us"].items():
        if eng not in TRANSFERS and abs(busy[eng] - us) > 1e-3 * us + 1e-2:
            return f"{eng}: rows sum to {busy[eng]:.3f} us, the report says {us:.3f}"
    lat = r["latency_us"]
    if end_max > lat + 1e-2 or end_max < 0.95 * lat - 5:
        return f"the last end {end_max:.3f} us for a latency of {lat:.3f}"
    return None


if __name__ == "__main__":
    why = main(sys.argv[1], sys.argv[2])
    if why:
        print(why)
        sys.exit(1)
