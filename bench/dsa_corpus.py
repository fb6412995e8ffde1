#!/usr/bin/env python3
"""Plans PyPTO's DSA research corpus (schema v1, read natively) with
`pto-mem plan` and prints Markdown tables beside dsa-solver's published
results.

    python3 bench/dsa_corpus.py [--tool build/bin/pto-mem] [--corpus DIR] [--jobs 2]
                                [--pair-seconds 2] [--lift-seconds 10] [--other-seconds 2]
                                [--parts pairs,lifts,others] [--only TEXT] [--pairs N]

Every problem file is planned as it is, with the tool's default options and
a fixed wall-clock budget per problem (`--time-limit`, which is then the
whole budget: 2 s for the PyPTO-Lib problems, 10 s for the MiniMalloc A-K
lifts):

    pto-mem plan FILE -q --time-limit T --solution SOL.json --json REPORT.json -o PLACED.json

Each run is then checked three ways before a figure is counted:

1. `pto-mem validate PLACED.json` (the library's validator, which shares no
   code with the planners) must accept every placement;
2. an independent checker here, written from the schema-v1 rules and the
   raw problem document, re-checks the schema-v1 solution (each buffer
   placed once in an allowed pool, aligned, inside the capacity and outside
   reserved ranges; co-live buffers of a pool and separated buffers never
   share bytes; pins and colocations held) and recomputes the objective:
   the reuse cost is the sum of the penalty weights of the pairs whose byte
   ranges overlap in one pool, the peak of a pool its largest
   offset + size;
3. the recomputed objective must equal what the solution and the JSON report
   say, a proved penalty bound must not exceed the cost, and no result may
   contradict a published one (a fit below a published proved optimum, a
   proved bound above a published placement's cost, a hard variant proved
   infeasible that dsa-solver fitted).

Any failure is listed on standard error and makes the exit code 1.

Published figures come from the corpus's results/ folder:
dsa-rp-v1-paired-objectives.csv (per pair: best known cost, strict fit,
optimum proved, best of all dsa-solver's methods over both counterparts) and
minimalloc-dsa-rp-v1-summary.csv (per A-K lift and method: the reuse cost of
its best validated run at capacity). Only the 150 PyPTO-Lib pairs are in the
shared corpus; the published PyPTO rows (54 pairs) are left out of both
columns.

When the corpus folder is missing the script says so and exits 0 without a
table (a skip, not a failure).
"""

import argparse
import concurrent.futures
import csv
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


def default_corpus():
    shared = os.environ.get("PTO_MEM_SHARED_DIR", str(HERE.parent.parent / "shared"))
    return pathlib.Path(shared) / "data" / "dsa_corpus"


# --- the independent checker --------------------------------------------------

def check_solution(problem, placements):
    """Checks a schema-v1 placement against the raw problem document.

    Returns (errors, objective): a list of broken rules (empty when the
    placement is valid) and the recomputed objective {reuse_cost,
    total_peak, max_peak, peak_by_pool}.
    """
    errors = []
    pools = {p["id"]: p for p in problem["pools"]}
    buffers = {b["id"]: b for b in problem["buffers"]}
    where = {}
    for p in placements:
        bid = p["buffer"]
        if bid not in buffers:
            errors.append(f"placement of unknown buffer {bid}")
        elif bid in where:
            errors.append(f"buffer {bid} placed twice")
        else:
            where[bid] = (p["pool"], p["offset"])
    for bid in buffers:
        if bid not in where:
            errors.append(f"buffer {bid} not placed")
    if errors:
        return errors, None

    for bid, b in buffers.items():
        pool, off = where[bid]
        if pool not in pools:
            errors.append(f"buffer {bid} in unknown pool {pool}")
            continue
        if pool not in b["allowed_pools"]:
            errors.append(f"buffer {bid} in pool {pool}, not one of {b['allowed_pools']}")
        if b["alignment"] > 1 and off % b["alignment"]:
            errors.append(f"buffer {bid} at offset {off}, not a multiple of {b['alignment']}")
        cap = pools[pool]["capacity"]
        if cap is not None and off + b["size"] > cap:
            errors.append(f"buffer {bid} ends at {off + b['size']} past the capacity {cap} of pool {pool}")
        if b["size"]:
            for r in pools[pool]["reserved_ranges"]:
                if off < r["end"] and r["begin"] < off + b["size"]:
                    errors.append(f"buffer {bid} [{off}, {off + b['size']}) overlaps reserved [{r['begin']}, {r['end']})")

    cons = problem["constraints"]
    for pin in cons.get("pinned_allocations", []):
        if where[pin["buffer"]] != (pin["pool"], pin["offset"]):
            errors.append(f"buffer {pin['buffer']} pinned at {pin['pool']}:{pin['offset']}, placed at {where[pin['buffer']]}")
    key = lambda a, b: (min(a, b), max(a, b))
    coloc = set()
    for c in cons.get("colocations", []):
        coloc.add(key(c["first"], c["second"]))
        if where[c["first"]] != where[c["second"]]:
            errors.append(f"colocated buffers {c['first']} and {c['second']} at {where[c['first']]} and {where[c['second']]}")
    excl = {key(e["first"], e["second"]) for e in cons.get("temporal_exclusions", [])}

    def share_bytes(a, c):
        (pa, oa), (pc, oc) = where[a], where[c]
        sa, sc = buffers[a]["size"], buffers[c]["size"]
        return pa == pc and sa and sc and oa < oc + sc and oc < oa + sa

    ids = sorted(buffers)
    for i, a in enumerate(ids):
        ia = buffers[a]["live_intervals"]
        for c in ids[i + 1:]:
            if not share_bytes(a, c) or (a, c) in coloc or (a, c) in excl:
                continue
            ic = buffers[c]["live_intervals"]
            if any(x["lower"] < y["upper"] and y["lower"] < x["upper"] for x in ia for y in ic):
                errors.append(f"co-live buffers {a} and {c} share bytes in pool {where[a][0]}")
    for s in cons.get("separations", []):
        if share_bytes(s["first"], s["second"]):
            errors.append(f"separated buffers {s['first']} and {s['second']} share bytes")

    reuse = sum(p["cost"] for p in problem.get("cost_model", {}).get("reuse_penalties", [])
                if share_bytes(p["first"], p["second"]))
    peaks = {pid: 0 for pid in pools}
    for bid, b in buffers.items():
        pool, off = where[bid]
        if b["size"]:
            peaks[pool] = max(peaks[pool], off + b["size"])
    return errors, {"reuse_cost": reuse, "total_peak": sum(peaks.values()),
                    "max_peak": max(peaks.values()), "peak_by_pool": peaks}


# --- running the tool -----------------------------------------------------------

def run_one(tool, path, seconds, out_dir, index, explain=False):
    base = pathlib.Path(out_dir) / f"p{index}"
    sol, rep, placed = (base.with_suffix(s) for s in (".sol.json", ".rep.json", ".placed.json"))
    cmd = [tool, "plan", str(path), "-q", "--time-limit", str(seconds),
           "--solution", str(sol), "--json", str(rep), "-o", str(placed)]
    if explain:  # a no-fit is explained within the same time limit (the tool's --explain)
        cmd.append("--explain")
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    r = {"path": path, "seconds": wall, "exit": proc.returncode, "problems": []}
    if proc.returncode not in (0, 1) or not sol.exists() or not rep.exists():
        r["problems"].append(f"pto-mem plan exit {proc.returncode}: {proc.stderr.strip()[:400]}")
        return r
    r["solution"] = json.loads(sol.read_text())
    r["report"] = json.loads(rep.read_text())
    r["solve_seconds"] = float(r["report"].get("time_s", 0.0))
    if r["solution"]["metadata"]["status"] == "feasible":
        if not placed.exists():
            r["problems"].append("feasible but no placed problem written")
        else:
            v = subprocess.run([tool, "validate", str(placed)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            r["validate_ok"] = v.returncode == 0
            if v.returncode != 0:
                r["problems"].append(f"pto-mem validate exit {v.returncode}: {v.stdout.strip()[-400:]}")
    for f in (sol, rep, placed):
        if f.exists():
            f.unlink()
    return r


def cross_check(r, doc):
    """The independent check of one run; fills r['cost'], r['bound'], r['proved']."""
    sol, rep = r["solution"], r["report"]
    meta = sol["metadata"]
    status = meta["status"]
    r["status"] = status
    r["pto_status"] = rep["status"]
    fits = status == "feasible"
    if fits != (rep["status"] in ("feasible", "optimal")):
        r["problems"].append(f"solution status {status} but report status {rep['status']}")
    if status == "infeasible_proven" and rep["status"] != "infeasible":
        r["problems"].append(f"infeasible_proven but report status {rep['status']}")
    if not fits:
        if sol["placements"]:
            r["problems"].append(f"status {status} with {len(sol['placements'])} placements")
        return
    errors, obj = check_solution(doc["problem"], sol["placements"])
    for e in errors[:5]:
        r["problems"].append("independent check: " + e)
    if obj is None:
        return
    r["objective"] = obj
    terms = doc["problem"]["objective"]["terms"]
    proved = rep["proved"]
    if "reuse_cost" in terms:
        cost = int(meta["reuse_cost"])
        if cost != obj["reuse_cost"] or rep["objective"]["penalty"] != obj["reuse_cost"]:
            r["problems"].append(f"reuse cost: solution {cost}, report {rep['objective']['penalty']}, "
                                 f"recomputed {obj['reuse_cost']}")
        r["cost"] = obj["reuse_cost"]
        r["proved"] = bool(proved["penalty"])
        r["bound"] = max(int(proved["penalty_bound"]), int(meta.get("reuse_cost_lower_bound", 0)))
        if r["bound"] > r["cost"]:
            r["problems"].append(f"penalty bound {r['bound']} above the cost {r['cost']}")
        if r["proved"] and int(proved["penalty_bound"]) != r["cost"]:
            r["problems"].append(f"penalty proved but penalty_bound {proved['penalty_bound']} != cost {r['cost']}")
        if (meta["optimality_proven"] == "true") != r["proved"]:
            r["problems"].append(f"optimality_proven {meta['optimality_proven']} but proved.penalty {r['proved']}")
    if "total_peak" in meta and int(meta["total_peak"]) != obj["total_peak"]:
        r["problems"].append(f"total peak: solution {meta['total_peak']}, recomputed {obj['total_peak']}")
    if "max_peak" in meta and int(meta["max_peak"]) != obj["max_peak"]:
        r["problems"].append(f"max peak: solution {meta['max_peak']}, recomputed {obj['max_peak']}")
    if "total_peak" in terms:
        r["proved"] = bool(proved["peak"])
        r["peak"] = obj["total_peak"]
        r["peak_bound"] = int(meta["lower_bound_total_peak"])
        if r["peak_bound"] > r["peak"]:
            r["problems"].append(f"peak bound {r['peak_bound']} above the peak {r['peak']}")


# --- published figures ----------------------------------------------------------

def published_pairs(corpus):
    out = {}
    with open(corpus / "results" / "dsa-rp-v1-paired-objectives.csv") as f:
        for row in csv.DictReader(f):
            if row["source"] == "PyPTO-Lib":
                out[row["source_fingerprint"]] = row
    return out


def published_lifts(corpus):
    """Per letter: best reuse cost at capacity over every method (and who),
    dsa-solver's first fit and canonical greedy, and any certified optimum."""
    out = {}
    with open(corpus / "results" / "minimalloc-dsa-rp-v1-summary.csv") as f:
        for row in csv.DictReader(f):
            letter = pathlib.Path(row["corpus_source_path"]).name[0]
            if row["best_reuse_cost"] == "" or row["best_capacity_overflow"] != "0":
                continue
            cost = int(row["best_reuse_cost"])
            e = out.setdefault(letter, {"best": None, "by": [], "certified": None})
            if e["best"] is None or cost < e["best"]:
                e["best"], e["by"] = cost, [row["method"]]
            elif cost == e["best"]:
                e["by"].append(row["method"])
            e[row["method"]] = cost
            if row["certified_optimal"] == "true":
                e["certified"] = cost
    return out


# --- the tables --------------------------------------------------------------------

def secs(rs):
    return sum(r["seconds"] for r in rs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default=str(HERE.parent / "build" / "bin" / "pto-mem"))
    ap.add_argument("--corpus", default=str(default_corpus()))
    ap.add_argument("--jobs", type=int, default=2, help="tool runs at once, at most 2 (times are per run)")
    ap.add_argument("--pair-seconds", type=float, default=2.0, help="time limit of each PyPTO-Lib pair problem")
    ap.add_argument("--lift-seconds", type=float, default=10.0, help="time limit of each A-K lift")
    ap.add_argument("--other-seconds", type=float, default=2.0, help="time limit of each other PyPTO-Lib capture")
    ap.add_argument("--parts", default="pairs,lifts,others",
                    help="which parts to plan: pairs (the DSA-RP hard/soft pairs), lifts (A-K), "
                         "others (the PyPTO-Lib captures that are not pairs)")
    ap.add_argument("--only", default="", help="plan only files whose path contains this text (debugging)")
    ap.add_argument("--pairs", type=int, default=0, help="plan only the first N pairs (debugging; 0 = all)")
    ap.add_argument("--explain", action="store_true",
                    help="plan the hard counterparts with --explain and tabulate the explanations of those that do not fit")
    args = ap.parse_args()
    corpus = pathlib.Path(args.corpus)
    if not (corpus / "results").is_dir() or not (corpus / "pypto-lib").is_dir():
        print(f"skipped: no DSA corpus at {corpus} (set PTO_MEM_SHARED_DIR or --corpus)", file=sys.stderr)
        return 0
    if not os.access(args.tool, os.X_OK):
        sys.exit(f"error: {args.tool} is not an executable pto-mem; build it "
                 "(cmake --preset release && cmake --build build --target pto-mem) or pass --tool")
    jobs = max(1, min(args.jobs, 2))

    lib = sorted(corpus.glob("pypto-lib/**/*.json"))
    lifts = sorted(corpus.glob("minimalloc-dsa-rp/*.json"))
    docs = {f: json.loads(f.read_text()) for f in lib + lifts}
    pub_pairs = published_pairs(corpus)
    pairs = {}
    for f in lib:
        m = re.search(r"-cross-pipe-(hard|soft)\.json$", f.name)
        if m:
            key = docs[f]["metadata"]["corpus_source_fingerprint_fnv1a64"]
            pairs.setdefault(key, {})[m.group(1)] = f
    keys = sorted(k for k, p in pairs.items() if "hard" in p and "soft" in p)
    if args.pairs:
        keys = keys[:args.pairs]
    paired = {p[v] for k in keys for p in [pairs[k]] for v in ("hard", "soft")}
    all_paired = {f for p in pairs.values() for f in p.values()}
    parts = set(args.parts.split(","))
    if parts - {"pairs", "lifts", "others"}:
        sys.exit(f"error: --parts {args.parts}: each part is one of pairs, lifts, others")
    others = [f for f in lib if f not in all_paired] if "others" in parts and not args.pairs else []
    lifts = lifts if "lifts" in parts else []
    paired = paired if "pairs" in parts else set()
    jobs_list = [(f, args.lift_seconds) for f in lifts] + \
                [(f, args.pair_seconds) for f in sorted(paired)] + [(f, args.other_seconds) for f in others]
    if args.only:
        jobs_list = [j for j in jobs_list if args.only in str(j[0])]
    if not jobs_list:
        sys.exit("error: no problem file selected")

    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run_one, args.tool, f, s, tmp, i, args.explain and f.name.endswith("-hard.json"))
                   for i, (f, s) in enumerate(jobs_list)]
        results = [fu.result() for fu in futures]
    wall = time.perf_counter() - start
    res = {}
    for r in results:
        if "solution" in r:
            cross_check(r, docs[r["path"]])
        res[r["path"]] = r

    rel = lambda f: str(f.relative_to(corpus))
    contradictions = []
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit or 'unknown'}; "
          f"corpus `{corpus}`; tool `{args.tool}`; {len(results)} problems planned, {jobs} at a time, "
          f"{wall:.0f} s wall in all; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after.\n")

    # --- the PyPTO-Lib hard/soft pairs ----------------------------------------------
    done = [k for k in keys if pairs[k]["soft"] in res and pairs[k]["hard"] in res and k in pub_pairs]
    if done:
        n = len(done)
        soft = [res[pairs[k]["soft"]] for k in done]
        hard = [res[pairs[k]["hard"]] for k in done]
        pub = [pub_pairs[k] for k in done]
        soft_fit = sum(r.get("status") == "feasible" for r in soft)
        pub_soft_fit = sum(p["best_soft_solver_cost"] != "" for p in pub)
        at_best = below = above = 0
        cost_sum = best_sum = 0
        twin_sum = 0
        lines_above, lines_below = [], []
        proved = sum(bool(r.get("proved")) for r in soft)
        pub_proved = sum(p["optimum_proven"] == "true" for p in pub)
        both_fit = 0
        for k, s, h, p in zip(done, soft, hard, pub):
            best = int(p["best_known_cost"]) if p["best_known_cost"] != "" else None
            name = rel(pairs[k]["soft"])
            if h.get("status") == "infeasible_proven" and p["strict_fit_found"] == "true":
                contradictions.append(f"{rel(pairs[k]['hard'])}: proved infeasible, but dsa-solver fitted it")
            if "cost" not in s:
                continue
            cost = s["cost"]
            # A fitting hard placement is a placement of the soft problem too (it
            # keeps every soft constraint); checked and costed under the soft rules.
            twin = cost
            if h.get("status") == "feasible":
                errs, obj = check_solution(docs[pairs[k]["soft"]]["problem"], h["solution"]["placements"])
                if errs:
                    s["problems"].append("hard placement under the soft rules: " + errs[0])
                else:
                    twin = min(cost, obj["reuse_cost"])
            if best is None:
                continue
            both_fit += 1
            cost_sum += cost
            twin_sum += twin
            best_sum += best
            at_best += cost == best
            if cost < best:
                below += 1
                lines_below.append(f"`{name}`: {cost} (best known {best})")
                if p["optimum_proven"] == "true":
                    contradictions.append(f"{name}: cost {cost} below dsa-solver's proved optimum {best}")
            if cost > best:
                above += 1
                lines_above.append(f"`{name}`: {cost} (best known {best}, bound {s['bound']})")
            if s["bound"] > best:
                contradictions.append(f"{name}: proved bound {s['bound']} above dsa-solver's placement at {best}")
        hard_fit = sum(r.get("status") == "feasible" for r in hard)
        hard_inf = sum(r.get("status") == "infeasible_proven" for r in hard)
        pub_hard_fit = sum(p["strict_fit_found"] == "true" for p in pub)
        pub_best_sum = sum(int(p["best_known_cost"]) for p in pub if p["best_known_cost"] != "")
        st = lambda rs: f"{secs(rs):.1f} s (longest {max(r['seconds'] for r in rs):.2f} s)"
        print(f"### PyPTO-Lib DSA-RP pairs ({n} hard/soft pairs, {args.pair_seconds:g} s each)\n")
        print("| measure | dsa-solver (best of 15+ methods, published) | pto_mem |")
        print("|---|---:|---:|")
        print(f"| soft pairs: a fitting placement | {pub_soft_fit}/{n} | {soft_fit}/{n} |")
        print(f"| soft pairs: reuse cost at or below the best known | {both_fit}/{both_fit} (sum {pub_best_sum}) | "
              f"{at_best + below}/{both_fit} ({at_best} equal, {below} below, {above} above; sum {cost_sum}) |")
        if twin_sum != cost_sum:
            print(f"| ... the lower of the soft placement and a fitting hard one, summed | {pub_best_sum} | {twin_sum} |")
        print(f"| soft pairs: reuse-cost optimum proved (report `proved.penalty`) | {pub_proved}/{n} | {proved}/{n} |")
        print(f"| hard counterparts: fit | {pub_hard_fit} | {hard_fit} |")
        print(f"| hard counterparts: proved infeasible | 0 | {hard_inf} |")
        print(f"| hard counterparts: undecided | {n - pub_hard_fit} | {n - hard_fit - hard_inf} |")
        proved_rs = [r for r in soft if r.get("proved")]
        bound_sum = sum(r.get("bound", 0) for r in soft if "cost" in r)
        print(f"| soft pairs: proved penalty bounds, summed (`proved.penalty_bound`) | — | {bound_sum} "
              f"(costs sum {sum(r['cost'] for r in soft if 'cost' in r)}) |")
        if proved_rs:
            print(f"| soft pairs proved: slowest run / proved within 1 s | — | "
                  f"{max(r['solve_seconds'] for r in proved_rs):.2f} s / "
                  f"{sum(r['solve_seconds'] <= 1.0 for r in proved_rs)}/{len(proved_rs)} |")
        print(f"| tool time, soft variants | — | {st(soft)} |")
        print(f"| tool time, hard variants | — | {st(hard)} |")
        whys = [r for r in hard if r.get("status") == "infeasible_proven" and "explanation" in r.get("report", {})]
        if whys:
            ex = [r["report"]["explanation"] for r in whys]
            sizes = sorted(len(e["members"]) for e in ex)
            print(f"| hard counterparts proved infeasible: explained / minimal | — | "
                  f"{sum(e['explained'] for e in ex)}/{len(ex)} / {sum(e['minimal'] for e in ex)}/{len(ex)} |")
            print(f"| ... explanation members (min / median / max) | — | "
                  f"{sizes[0]} / {sizes[len(sizes) // 2]} / {sizes[-1]} |")
            slowest = max(e["time_s"] for e in ex)
            ratio = max(e["time_s"] / max(r["solve_seconds"], 1e-3) for e, r in zip(ex, whys))
            print(f"| ... explanation time (sum / slowest / worst ratio to the solve time) | — | "
                  f"{sum(e['time_s'] for e in ex):.2f} s / {slowest:.2f} s / {ratio:.0f}x |")
        print()
        for line in lines_below:
            print(f"- below the best known: {line}")
        for line in lines_above:
            print(f"- above the best known: {line}")
        unproved = [rel(pairs[k]["soft"]) for k, s in zip(done, soft) if "cost" in s and not s["proved"]]
        if unproved:
            print(f"- not proved ({len(unproved)}): " + ", ".join(
                f"`{u}` ({res[corpus / u]['cost']}, bound {res[corpus / u]['bound']})" for u in unproved))
        undecided = [rel(pairs[k]["hard"]) for k, h in zip(done, hard)
                     if h.get("status") not in ("feasible", "infeasible_proven")]
        if undecided:
            print(f"- hard counterparts undecided: " + ", ".join(f"`{u}` ({res[corpus / u].get('status')})" for u in undecided))
        print()

    # --- the A-K lifts -----------------------------------------------------------------
    lift_runs = [f for f in lifts if f in res]
    if lift_runs:
        pub = published_lifts(corpus)
        print(f"### MiniMalloc A–K lifted with reuse penalties ({args.lift_seconds:g} s each)\n")
        print("Capacity: dsa-solver's first-fit peak; objective: fit, then least reuse cost. "
              "Best known: the lowest reuse cost at capacity over all of dsa-solver's methods.\n")
        print("| lift | buffers | penalty pairs | pto_mem reuse cost | proved bound | best known (method) | "
              "pto_mem / best | dsa-solver first fit | canonical greedy | stopped by | time |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
        tot = {"ours": 0, "best": 0, "lead": 0, "lag": 0, "tie": 0, "logs": []}
        for f in lift_runs:
            r, d = res[f], docs[f]["problem"]
            letter = f.stem
            e = pub.get(letter, {})
            best = e.get("best")
            npen = len(d.get("cost_model", {}).get("reuse_penalties", []))
            if "cost" not in r:
                print(f"| {letter} | {len(d['buffers'])} | {npen} | {r.get('status', 'error')} | | {best} | | | | | {r['seconds']:.1f} s |")
                continue
            cost = r["cost"]
            bound = f"**{r['bound']}** (proved optimal)" if r["proved"] else (str(r["bound"]) if r["bound"] else "—")
            ratio = f"{cost / best:.3f}" if best else ("—" if best is None else ("1.000" if cost == 0 else "∞"))
            cell = f"**{cost}**" if best is not None and cost < best else str(cost)
            by = ", ".join(m.replace("_", " ") for m in e.get("by", []))
            if best is not None:
                tot["ours"] += cost
                tot["best"] += best
                tot["lead" if cost < best else "lag" if cost > best else "tie"] += 1
                tot["logs"].append(math.log((cost + 1) / (best + 1)))
                if r["bound"] > best:
                    contradictions.append(f"{rel(f)}: proved bound {r['bound']} above dsa-solver's placement at {best}")
                if e.get("certified") is not None and cost < e["certified"]:
                    contradictions.append(f"{rel(f)}: cost {cost} below dsa-solver's certified optimum {e['certified']}")
            print(f"| {letter} | {len(d['buffers'])} | {npen} | {cell} | {bound} | {best} ({by}) | {ratio} | "
                  f"{e.get('first_fit', '')} | {e.get('canonical_greedy', '')} | {r['report']['stopped_by']} | "
                  f"{r['seconds']:.1f} s |")
        if tot["logs"]:
            print(f"| all | | | {tot['ours']} | | {tot['best']} | | | | | {secs([res[f] for f in lift_runs]):.1f} s |")
            print(f"\npto_mem below the best known on {tot['lead']}, equal on {tot['tie']}, above on {tot['lag']}; "
                  f"geometric mean of (cost + 1) / (best known + 1), dsa-solver's quality measure: "
                  f"{math.exp(sum(tot['logs']) / len(tot['logs'])):.3f}.\n")

    # --- the other captures -------------------------------------------------------------
    oth = [res[f] for f in others if f in res]
    if oth:
        peak = [r for r in oth if "peak" in r]
        other_terms = [r for r in oth if "peak" not in r]
        print(f"### The other PyPTO-Lib captures ({len(oth)}, {args.other_seconds:g} s each)\n")
        fit = sum(r.get("status") == "feasible" for r in oth)
        inf = sum(r.get("status") == "infeasible_proven" for r in oth)
        print(f"- {fit} fit, {inf} proved infeasible, {len(oth) - fit - inf} undecided; "
              f"tool time {secs(oth):.1f} s (longest {max(r['seconds'] for r in oth):.2f} s)")
        if peak:
            ps, bs = sum(r["peak"] for r in peak), sum(r["peak_bound"] for r in peak)
            print(f"- objective `total_peak, max_peak`: {len(peak)} fit, {sum(r['proved'] for r in peak)} proved "
                  f"optimal; summed peak {ps} against the summed proved bound {bs} "
                  f"({(ps / bs - 1) * 100 if bs else 0:.3f} % above)")
        if other_terms:
            print(f"- other objectives: {len(other_terms)}")
        print()

    # --- runs that overran their time limit ----------------------------------------------
    limit = {f: t for f, t in jobs_list}
    over = sorted((r for r in results if r["seconds"] > limit[r["path"]] + 0.5),
                  key=lambda r: -r["seconds"])
    if over:
        print(f"Over the time limit by more than 0.5 s (wall time of the whole process, which the load "
              f"inflates): " + ", ".join(f"`{rel(r['path'])}` {r['seconds']:.2f} s (limit {limit[r['path']]:g} s, "
                                       f"report `time_s` {r.get('report', {}).get('time_s', float('nan')):.2f} s)"
                                       for r in over[:10]) + "\n")

    # --- the checks ----------------------------------------------------------------------
    fits = [r for r in results if r.get("status") == "feasible"]
    validated = sum(bool(r.get("validate_ok")) for r in fits)
    checked = sum("objective" in r for r in fits)
    problems = [(rel(r["path"]), p) for r in results for p in r["problems"]]
    print(f"Checks: {len(fits)} placements; {validated} accepted by `pto-mem validate`; {checked} re-checked "
          f"and their objective recomputed independently; {len(problems)} disagreements; "
          f"{len(contradictions)} contradictions with the published results.")
    for path, p in problems:
        print(f"error: {path}: {p}", file=sys.stderr)
    for c in contradictions:
        print(f"contradiction: {c}", file=sys.stderr)
    return 1 if problems or contradictions else 0


if __name__ == "__main__":
    sys.exit(main())
