#!/usr/bin/env python3
"""Plans PyPTO's DSA corpus (schema v1, read natively) with `pto-mem plan` and
prints it beside dsa-solver's published results.

    python3 bench/dsa_corpus.py [--tool build/bin/pto-mem] [--corpus DIR] [--jobs 2]

Each problem file is planned as it is, with the tool's default options
(`pto-mem plan FILE --solution OUT.json`); the figures come from the
schema-v1 solutions it writes (status, objective values, lower bound). The
published figures are read from the corpus's results/ folder:
dsa-rp-v1-paired-objectives.csv (the PyPTO-Lib hard/soft pairs) and
minimalloc-dsa-rp-v1-summary.csv (the A-K lifts). Prints Markdown tables.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


def default_corpus():
    shared = os.environ.get("PTO_MEM_SHARED_DIR", str(HERE.parent.parent / "shared"))
    return pathlib.Path(shared) / "data" / "dsa_corpus"


def run_one(tool, path, out_dir):
    sol = pathlib.Path(out_dir) / (str(abs(hash(str(path)))) + ".json")
    start = time.perf_counter()
    proc = subprocess.run([tool, "plan", str(path), "-q", "--solution", str(sol)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1) or not sol.exists():
        return {"path": path, "error": proc.stderr.strip()[:300], "seconds": seconds}
    meta = json.loads(sol.read_text())["metadata"]
    sol.unlink()
    return {"path": path, "meta": meta, "seconds": seconds}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default=str(HERE.parent / "build" / "bin" / "pto-mem"))
    ap.add_argument("--corpus", default=str(default_corpus()))
    ap.add_argument("--jobs", type=int, default=1, help="tool runs at once (times are per run)")
    args = ap.parse_args()
    corpus = pathlib.Path(args.corpus)
    files = sorted(corpus.glob("pypto-lib/**/*.json")) + sorted(corpus.glob("minimalloc-dsa-rp/*.json"))
    if not files:
        sys.exit(f"no problem files under {corpus}")
    docs = {f: json.loads(f.read_text()) for f in files}

    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda f: run_one(args.tool, f, tmp), files))
    errors = [r for r in results if "error" in r]
    for r in errors:
        print(f"error: {r['path']}: {r['error']}", file=sys.stderr)
    res = {r["path"]: r for r in results if "meta" in r}
    total_s = sum(r["seconds"] for r in results)
    fits = sum(1 for r in res.values() if r["meta"]["status"] == "feasible")
    statuses = {}
    for r in res.values():
        statuses[r["meta"]["status"]] = statuses.get(r["meta"]["status"], 0) + 1
    print(f"## All {len(files)} problems\n")
    print(f"read and planned: {len(res)} (refused: {len(errors)}); statuses: "
          + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
          + f"; tool time {total_s:.1f} s in all\n")

    # --- the 150 PyPTO-Lib DSA-RP pairs -------------------------------------
    published = {}
    with open(corpus / "results" / "dsa-rp-v1-paired-objectives.csv") as f:
        for row in csv.DictReader(f):
            if row["source"] == "PyPTO-Lib":
                published[row["source_fingerprint"]] = row
    pairs = {}
    for f in files:
        name = f.name
        if "-cross-pipe-" not in name:
            continue
        key = docs[f]["metadata"]["corpus_source_fingerprint_fnv1a64"]
        pairs.setdefault(key, {})["hard" if name.endswith("-hard.json") else "soft"] = f
    hard_fit = hard_inf = soft_fit = soft_opt = 0
    ours_cost = best_cost = 0
    better = equal = worse = 0
    below = []
    pub_fit = pub_proven = 0
    seconds = 0.0
    for key, pair in sorted(pairs.items()):
        pub = published.get(key)
        if pub is None or "hard" not in pair or "soft" not in pair:
            continue
        h, s = res.get(pair["hard"]), res.get(pair["soft"])
        if h is None or s is None:
            continue
        seconds += h["seconds"] + s["seconds"]
        hard_fit += h["meta"]["status"] == "feasible"
        hard_inf += h["meta"]["status"] == "infeasible_proven"
        pub_fit += pub["strict_fit_found"] == "true"
        pub_proven += pub["optimum_proven"] == "true"
        if s["meta"]["status"] != "feasible":
            continue
        soft_fit += 1
        # A fitting hard placement pays no cross-pipe edge: it bounds the soft cost too.
        cost = int(s["meta"]["reuse_cost"])
        if h["meta"]["status"] == "feasible":
            cost = min(cost, int(h["meta"].get("reuse_cost", cost)))
        # Proved: the soft optimum is known, or the hard twin fits at cost 0.
        soft_opt += s["meta"]["optimality_proven"] == "true" or cost == 0
        best = int(pub["best_known_cost"])
        ours_cost += cost
        best_cost += best
        better += cost < best
        if cost < best:
            below.append(f"{pair['soft'].name}: {cost} (best known {best})")
        equal += cost == best
        worse += cost > best
    n = len([k for k in pairs if k in published])
    print(f"## PyPTO-Lib DSA-RP pairs ({n} hard/soft pairs)\n")
    print("| | pto_mem | dsa-solver (published, best of its methods) |")
    print("|---|---:|---:|")
    print(f"| hard variant fits | {hard_fit} | {pub_fit} |")
    print(f"| hard variant proved infeasible | {hard_inf} | 0 |")
    print(f"| soft variant fits | {soft_fit} | {n} |")
    print(f"| soft reuse cost, summed | {ours_cost} | {best_cost} (best known) |")
    print(f"| pairs below / at / above the best known cost | {better} / {equal} / {worse} | |")
    print(f"| optimum proved | {soft_opt} | {pub_proven} |")
    print(f"| tool time, both variants | {seconds:.1f} s | |\n")
    for line in below:
        print(f"- below the best known cost: {line}")
    if below:
        print()

    # --- the A-K lifts -------------------------------------------------------
    best = {}
    first_fit = {}
    with open(corpus / "results" / "minimalloc-dsa-rp-v1-summary.csv") as f:
        for row in csv.DictReader(f):
            letter = row["corpus_source_path"].rsplit("/", 1)[-1][0]
            if row["best_reuse_cost"] == "" or row["best_capacity_overflow"] not in ("0", ""):
                continue
            cost = int(row["best_reuse_cost"])
            if row["method"] == "first_fit":
                first_fit[letter] = cost
            if row["method"] in ("local_search", "reuse_penalty_local_search", "tvm_hill_climb"):
                best[letter] = min(best.get(letter, cost), cost)
    print("## MiniMalloc A-K with reuse penalties (capacity = the first-fit peak)\n")
    print("| instance | buffers | penalty pairs | fits | peak | capacity | reuse cost | published best | first fit | time |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for f in sorted(corpus.glob("minimalloc-dsa-rp/*.json")):
        r = res.get(f)
        d = docs[f]["problem"]
        letter = f.stem
        cap = d["pools"][0]["capacity"]
        if r is None:
            print(f"| {letter} | {len(d['buffers'])} | | error | | {cap} | | {best.get(letter, '')} | | |")
            continue
        m = r["meta"]
        peak = m.get("total_peak", "-")
        print(f"| {letter} | {len(d['buffers'])} | {len(d.get('cost_model', {}).get('reuse_penalties', []))} | "
              f"{'yes' if m['status'] == 'feasible' else m['status']} | {peak} | {cap} | "
              f"{m.get('reuse_cost', '-')} | {best.get(letter, '')} | {first_fit.get(letter, '')} | "
              f"{r['seconds']:.1f} s |")
    print()

    # --- the other PyPTO-Lib problems (peak objective, or fit without costs) -
    peak_n = peak_fit = peak_opt = 0
    peak_sum = bound_sum = 0
    other_fit = other_n = 0
    for f in files:
        if "-cross-pipe-" in f.name or "minimalloc-dsa-rp" in str(f):
            continue
        r = res.get(f)
        terms = docs[f]["problem"]["objective"]["terms"]
        if r is None:
            continue
        m = r["meta"]
        if "total_peak" in terms:
            peak_n += 1
            if m["status"] == "feasible":
                peak_fit += 1
                peak_opt += m["optimality_proven"] == "true"
                peak_sum += int(m["total_peak"])
                bound_sum += int(m["lower_bound_total_peak"])
        else:
            other_n += 1
            other_fit += m["status"] == "feasible"
    print("## The other PyPTO-Lib captures\n")
    print(f"- peak objective (total_peak, max_peak): {peak_n} problems, {peak_fit} fit, {peak_opt} proved "
          f"optimal; summed peak {peak_sum} against the summed lower bound {bound_sum} "
          f"({(peak_sum / bound_sum - 1) * 100 if bound_sum else 0:.3f} % above)")
    if other_n:
        print(f"- fit objective without costs: {other_n} problems, {other_fit} fit")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
