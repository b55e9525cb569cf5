#!/usr/bin/env python3
"""Issue 46's table from bench/edit-kinds.sh's folders: line edits alone, plus transformations, plus
PTX edits, each a search of the same budget from the kernel's best parameters, measured outside the
tool by the kernel's own driver.

    python3 bench/edit-kinds-table.py DIR...      # the markdown table, from every folder given
    python3 bench/edit-kinds-table.py --self-test # checks this script on fixtures written here
    python3 bench/edit-kinds-table.py --summarise RUN_XML   # key=value lines (edit-kinds.sh)

Each finished search is a folder KERNEL/ARM holding result.txt (key=value lines, written last) and
measure.tsv (variant, run, median ms, spread ms, check: one driver run a line). DIRs are searched
for them at any depth, so the bring-backs of several calls and sessions merge: unpack each into its
own folder and give them all. When one kernel and arm finished more than once, the latest (by
result.txt's date) counts and the table says how many there were.

Gain of an arm = params-only ms / the arm's ms, both medians of the driver's training-size run over
the folder's rounds, timed side by side (interleaved) in that folder, so folders from different
sessions and GPUs are each fair on their own. Its range: the lowest and highest the rounds allow
(min params / max arm .. max params / min arm); with one round, the driver's own spread (1.4826 x
MAD) on both sides.
"""
import math
import os
import re
import statistics
import sys
import tempfile
import xml.etree.ElementTree as ET

ARMS = ["lines", "transforms", "ptx"]
ARM_TITLES = {
    "lines": "line edits alone",
    "transforms": "plus transformations",
    "ptx": "plus PTX edits",
}
TRANSFORM_PREFIXES = ("unroll_", "vec_", "coarsen_", "stage_", "hoist_", "shfl_", "unguard_")


# --- reading one folder ---------------------------------------------------------------------------

def read_result(path):
    values = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                key, value = line.split("=", 1)
                values[key] = value
    return values


def read_measure(path):
    """{variant: {run: [(ms, spread, check), ...]}} from measure.tsv."""
    table = {}
    if not os.path.exists(path):
        return table
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5 or parts[0] == "variant":
                continue
            variant, run, ms, spread, check = parts[:5]
            kind = re.sub(r"-\d+$", "", run)  # train-1, train-2 ... -> train
            table.setdefault(variant, {}).setdefault(kind, []).append((number(ms), number(spread), check))
    return table


def number(text):
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return value


def finite(values):
    return [v for v in values if not math.isnan(v)]


def timing(measure, variant):
    """(median, low, high, rounds) of a variant's training-size run, or None."""
    rounds = measure.get(variant, {}).get("train", [])
    medians = finite([r[0] for r in rounds])
    if not medians:
        return None
    median = statistics.median(medians)
    if len(medians) >= 2:
        return median, min(medians), max(medians), len(medians)
    spread = finite([r[1] for r in rounds])
    s = spread[0] if spread else 0.0
    return median, median - s, median + s, 1


def check_of(measure, variant):
    """PASS when every run of the variant passed its driver's check; FAIL names the runs that did not."""
    runs = measure.get(variant, {})
    if not runs:
        return "not measured"
    if any(r[2] == "NOBUILD" for rows in runs.values() for r in rows):
        return "driver build failed"
    failed = sorted({kind for kind, rows in runs.items() for r in rows if r[2] != "PASS"})
    return "PASS" if not failed else "FAIL (" + ", ".join(failed) + ")"


def gain(params, arm):
    """(gain, low, high) of arm over params from timing() tuples."""
    if params is None or arm is None or arm[0] <= 0:
        return None
    low = params[1] / arm[2] if arm[2] > 0 else math.nan
    high = params[2] / arm[1] if arm[1] > 0 else math.inf
    return params[0] / arm[0], low, high


# --- genomes --------------------------------------------------------------------------------------

def items(genome):
    return genome.split() if genome and genome != "(original)" else []


def setting(item):
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.]*)=(.*)", item)
    return (match.group(1), match.group(2)) if match else None


def kind_of(item):
    if item.startswith("ptx:"):
        return "PTX"
    named = setting(item)
    if named:
        return "transformation" if named[0].startswith(TRANSFORM_PREFIXES) else "gene"
    return "line"


def edits_over(start, final):
    """The items of `final` that `start` lacks, each with its kind; a gene both set differently is `NAME a->b`."""
    start_settings = {}
    start_items = set(items(start))
    for item in items(start):
        named = setting(item)
        if named:
            start_settings[named[0]] = named[1]
    out = []
    final_settings = set()
    for item in items(final):
        named = setting(item)
        if named:
            final_settings.add(named[0])
        if item in start_items:
            continue
        if named and named[0] in start_settings:
            out.append((f"{named[0]} {start_settings[named[0]]}->{named[1]}", "gene"))
        else:
            out.append((item, kind_of(item)))
    for name, value in start_settings.items():
        if name not in final_settings:  # back to the source's default
            out.append((f"{name} {value}->default", "gene"))
    return out


def edits_text(start, final):
    edits = edits_over(start, final)
    if not edits:
        return "none (the params-only genome)"
    short = {"line": "L", "transformation": "T", "PTX": "P", "gene": "G"}
    return " ".join(f"`{text}` ({short[kind]})" for text, kind in edits)


# --- run.xml summary (called by bench/edit-kinds.sh) ---------------------------------------------

def summarise(run_xml):
    """key=value lines of what the table needs from a run record, one value a line, no newlines."""
    root = ET.parse(run_xml).getroot()

    def attr(path, name, default=""):
        element = root.find(path)
        return element.get(name, default) if element is not None else default

    generations = root.find("generations")
    count = len(generations.findall("generation")) if generations is not None else 0
    wall = root.find("wall")
    lines = {
        "search_best_genome": attr("best", "genome"),
        "search_best_speedup": attr("best", "speedup"),
        "search_best_found": attr("best", "found"),
        "minimised_genome": attr("minimise", "after"),
        "minimise_note": attr("minimise", "note"),
        "final_check_passed": attr("final-check", "passed"),
        "final_check_note": attr("final-check", "note"),
        "final_check_summary": attr("final-check", "summary"),
        "run_final_genome": attr("final", "genome"),
        "stop_reason": attr("final", "stop-reason"),
        "finished": attr("final", "finished"),
        "generations": str(count),
        "run_wall_s": wall.get("seconds", "") if wall is not None else "",
        "search_s": wall.get("search-seconds", "") if wall is not None else "",
    }
    return "".join(f"{key}={' | '.join(value.splitlines())}\n" for key, value in lines.items())


# --- what a search tried (its run.xml) ------------------------------------------------------------

KIND_TITLES = {"line": "line edits", "transformation": "transformations", "PTX": "PTX edits"}


def tried(run_xml, start):
    """Per edit kind (line, transformation, PTX): of the search's individuals carrying at least one
    edit of that kind over `start`, how many, how many were correct (status ok, error 0), how many
    accepted (correct and timed), and the best accepted speedup with and without that kind."""
    individuals = ET.parse(run_xml).getroot().iter("individual")
    stats = {kind: {"n": 0, "correct": 0, "accepted": 0, "best_with": 0.0, "best_without": 0.0, "status": {}}
             for kind in KIND_TITLES}
    for ind in individuals:
        kinds = {kind for _, kind in edits_over(start, ind.get("genome", ""))}
        accepted = ind.get("accepted") == "1"
        speed = number(ind.get("speedup", "")) or 0.0
        status = ind.get("status", "?")
        correct = status == "ok" and (number(ind.get("error", "")) or 0.0) == 0.0
        for kind, st in stats.items():
            if kind in kinds:
                st["n"] += 1
                st["correct"] += correct
                st["accepted"] += accepted
                st["status"][status] = st["status"].get(status, 0) + 1
                if accepted:
                    st["best_with"] = max(st["best_with"], speed)
            elif accepted:
                st["best_without"] = max(st["best_without"], speed)
    return stats


def tried_rows(kernel, arm, run_xml, start):
    out = []
    for kind, st in tried(run_xml, start).items():
        if st["n"] == 0:
            continue
        statuses = ", ".join(f"{name} {count}" for name, count in sorted(st["status"].items(), key=lambda kv: (-kv[1], kv[0])))
        best_with = f"{st['best_with']:.3f}x" if st["best_with"] else "-"
        best_without = f"{st['best_without']:.3f}x" if st["best_without"] else "-"
        out.append(f"| {kernel} | {arm} | {KIND_TITLES[kind]} | {st['n']} | {100 * st['correct'] / st['n']:.0f}% | "
                   f"{100 * st['accepted'] / st['n']:.0f}% | {statuses} | {best_with} | {best_without} |")
    return out


# --- the table ------------------------------------------------------------------------------------

def find_results(dirs):
    found = {}
    for top in dirs:
        for here, _, files in os.walk(top):
            if "result.txt" not in files:
                continue
            result = read_result(os.path.join(here, "result.txt"))
            kernel, arm = result.get("kernel"), result.get("arm")
            if not kernel or not arm:
                continue
            result["_dir"] = here
            result["_measure"] = read_measure(os.path.join(here, "measure.tsv"))
            found.setdefault((kernel, arm), []).append(result)
    return found


def fmt_ms(t):
    return "?" if t is None else f"{t[0]:.4f}"


def fmt_gain(g):
    if g is None:
        return "?"
    high = "inf" if math.isinf(g[2]) else f"{g[2]:.2f}"
    return f"**{g[0]:.3f}x** ({g[1]:.2f}-{high})"


def cell(result):
    """The arm's cell of the main table, and its gain when it counts for the geometric mean."""
    if result is None:
        return "not run", None
    status = result.get("status", "?")
    if status != "ok":
        why = result.get("failure", "")
        return f"{status}{': ' + why.replace('|', chr(92) + '|') if why else ''} (see {os.path.relpath(result['_dir'])})", None
    measure = result["_measure"]
    params, arm = timing(measure, "params"), timing(measure, "arm")
    g = gain(params, arm)
    check = check_of(measure, "arm")
    sanitizer = result.get("sanitizer", "")
    text = f"{fmt_gain(g)}, {fmt_ms(arm)} ms, {check}"
    if sanitizer and sanitizer != "clean":
        text += f", sanitizer {sanitizer}"
    if "ptx:" in result.get("final_genome", ""):
        text += ", PTX edits not in the driver's build"
    counted = g[0] if g is not None and check == "PASS" and sanitizer in ("", "clean", "not run") else None
    return text, counted


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def table(dirs):
    found = find_results(dirs)
    if not found:
        return "no result.txt under " + " ".join(dirs) + ": nothing finished yet\n"
    latest = {key: max(results, key=lambda r: r.get("date", "")) for key, results in found.items()}
    order = []
    for kernel, _ in sorted(latest, key=lambda key: min(int(r.get("order", "999")) for r in found[key])):
        if kernel not in order:
            order.append(kernel)
    # The three arms always (a missing one reads "not run"), then any other arm the folders hold.
    arms = ARMS + sorted({arm for _, arm in latest} - set(ARMS))
    out = []
    finished = [r for r in latest.values() if r.get("status") == "ok"] or list(latest.values())
    first = finished[0]
    gpus = sorted({r.get("gpu_name", "?") for r in finished})
    commits = sorted({r.get("commit", "?") for r in finished})
    dates = sorted(r.get("date", "?") for r in finished)
    out.append("# Edit kinds over the best parameters (issue 46)")
    out.append("")
    out.append(f"- GPU: {', '.join(gpus)}; commits: {', '.join(commits)}; {dates[0]} to {dates[-1]}")
    out.append(f"- each search: `gi-tool evolve --time-limit {first.get('seconds', '?')}` (the whole run: search, "
               f"minimisation, post-tuning, final checks), seed {first.get('seed', '?')}, population "
               f"{first.get('population', '?')}, from the kernel's best-parameters genome without pre-tuning; arms: "
               + "; ".join(f"{a}: `{next((r.get('arm_options') for (k, x), r in latest.items() if x == a), '') or '(defaults)'}`"
                           for a in arms if any(x == a for _, x in latest)))
    out.append("- ms: the kernel's own driver at the training size, median of the rounds' medians (CUDA events, "
               "each round the params-only build and the arm's build timed one after the other); gain: params-only "
               "ms / arm ms in the same folder, (low-high) over the rounds; check: the driver's CPU-reference "
               "check on the training size and held-out inputs, and compute-sanitizer memcheck+racecheck "
               "on a small input")
    out.append("")
    out.append("| kernel | params-only ms | " + " | ".join(ARM_TITLES.get(a, a) for a in arms) + " |")
    out.append("|---|---|" + "---|" * len(arms))
    gains = {a: {} for a in arms}
    for kernel in order:
        params_ms = []
        for arm in arms:
            r = latest.get((kernel, arm))
            if r is not None and r.get("status") == "ok":
                t = timing(r["_measure"], "params")
                if t:
                    params_ms.append(t[0])
        row = [kernel, f"{statistics.median(params_ms):.4f}" if params_ms else "?"]
        for arm in arms:
            text, counted = cell(latest.get((kernel, arm)))
            runs = len(found.get((kernel, arm), []))
            if runs > 1:
                text += f" (latest of {runs})"
            row.append(text)
            if counted is not None:
                gains[arm][kernel] = counted
        out.append("| " + " | ".join(row) + " |")
    every = [k for k in order if all(k in gains[a] for a in arms)]
    row = ["geometric mean", "(kernels with a passing result)"]
    for arm in arms:
        g = geomean(list(gains[arm].values()))
        row.append(f"{g:.3f}x over {len(gains[arm])} kernel(s)" if g else "-")
    out.append("| " + " | ".join(row) + " |")
    if every and any(len(gains[a]) != len(every) for a in arms):
        row = ["geometric mean", "(kernels every arm passed: " + ", ".join(every) + ")"]
        for arm in arms:
            row.append(f"{geomean([gains[arm][k] for k in every]):.3f}x")
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append("Edits: L a line edit, T a transformation gene, P a PTX edit, G a parameter or grammar gene "
               "set otherwise than in the params-only genome. Search's best: gi-tool's own figure (speedup "
               "over the original on one training case) before minimisation and the final checks. The driver's "
               "build applies a genome's source edits only: a shipped genome with PTX edits is measured without "
               "them, and its cell says so.")
    out.append("")
    out.append("| kernel | arm | params-only genome | shipped edits (measured) | search's best (gi-tool) | run |")
    out.append("|---|---|---|---|---|---|")
    for kernel in order:
        for arm in arms:
            r = latest.get((kernel, arm))
            if r is None:
                continue
            if r.get("status") != "ok":
                out.append(f"| {kernel} | {arm} | | {r.get('status', '?')} | | see {os.path.relpath(r['_dir'])} |")
                continue
            start = r.get("start_genome", "")
            best = r.get("search_best_genome", "")
            best_text = "-"
            if best:
                try:
                    best_text = f"{float(r.get('search_best_speedup', 'nan')):.3f}x: " + edits_text(start, best)
                except ValueError:
                    best_text = edits_text(start, best)
            notes = r.get("final_check_note", "")
            run = (f"{r.get('generations', '?')} generations, {r.get('evolve_wall_s', '?')} s, exit "
                   f"{r.get('evolve_exit', '?')}, GPU {r.get('gpu', '?')} of {r.get('gpus', '?')}")
            if notes:
                run += "; final checks: " + (notes if len(notes) <= 240 else notes[:237] + "...").replace("|", "\\|")
            out.append(f"| {kernel} | {arm} | `{start or '(original)'}` | {edits_text(start, r.get('final_genome', ''))} "
                       f"| {best_text} | {run} |")
    rows = []
    for kernel in order:
        for arm in arms:
            r = latest.get((kernel, arm))
            xml = os.path.join(r["_dir"], "run", "run.xml") if r is not None else ""
            if r is not None and r.get("status") == "ok" and os.path.isfile(xml):
                rows += tried_rows(kernel, arm, xml, r.get("start_genome", ""))
    if rows:
        out.append("")
        out.append("What each search tried (its run.xml): of the individuals carrying at least one edit of a kind over "
                   "the params-only genome, the share correct (every output within tolerance), the share accepted "
                   "(correct and timed), their outcomes, and the best accepted speedup (over the original, one training "
                   "case) with and without that kind. Equal bests: that kind neither helped nor hurt.")
        out.append("")
        out.append("| kernel | arm | edit kind | individuals | correct | accepted | outcomes | best with | best without |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        out += rows
    return "\n".join(out) + "\n"


# --- self-test ------------------------------------------------------------------------------------

def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


_FIXTURE_OPTIONS = {"lines": "--no-transforms", "transforms": "", "ptx": "--ptx-edits 1"}


def _fixture_folder(top, kernel, arm, params_ms, arm_ms, check="PASS", status="ok", final="", start="", date="2026-11-29T10:00Z",
                    order=1):
    folder = os.path.join(top, kernel, arm)
    _write(os.path.join(folder, "result.txt"),
           f"status={status}\nkernel={kernel}\narm={arm}\norder={order}\narm_options={_FIXTURE_OPTIONS[arm]}\nseconds=600\nseed=1\n"
           f"population=100\ngpu=0\ngpus=1\ngpu_name=NVIDIA H200\ncommit=abc1234\ndate={date}\nevolve_exit=0\n"
           f"evolve_wall_s=640\nstart_genome={start}\nfinal_genome={final}\nsanitizer=clean\n"
           f"search_best_genome={final} ptx:del(3)\nsearch_best_speedup=2.5\ngenerations=12\n"
           f"final_check_note=gave up 'X ptx:del(3)': its PTX edits cannot be shipped yet\n")
    rows = ["variant\trun\tmedian_ms\tspread_ms\tcheck"]
    for i, (p, a) in enumerate(zip(params_ms, arm_ms), start=1):
        rows.append(f"original\ttrain-{i}\t1.0\t0.01\tPASS")
        rows.append(f"params\ttrain-{i}\t{p}\t0.001\tPASS")
        rows.append(f"arm\ttrain-{i}\t{a}\t0.001\t{check}")
    rows.append("arm\theld-1\t0.5\t0.01\tPASS")
    _write(os.path.join(folder, "measure.tsv"), "\n".join(rows) + "\n")


def self_test():
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    # Edits relative to the start genome.
    e = edits_over("A=1 B=2", "A=1 B=3 <_k.cu_5> unroll_k.cu_9=4 ptx:del(7) restrict=1")
    expect(("B 2->3", "gene") in e, f"a changed parameter reads B 2->3: {e}")
    expect(("<_k.cu_5>", "line") in e and ("unroll_k.cu_9=4", "transformation") in e and ("ptx:del(7)", "PTX") in e
           and ("restrict=1", "gene") in e, f"each kind is told apart: {e}")
    expect(("A=1", "gene") not in e, f"an unchanged parameter is not an edit: {e}")
    expect(edits_over("A=1", "") == [("A 1->default", "gene")], "a parameter dropped reads as back to the default")
    expect(edits_text("A=1", "A=1") == "none (the params-only genome)", "no edits says so")

    # Gains and their ranges.
    g = gain((2.0, 1.9, 2.1, 3), (1.0, 0.95, 1.05, 3))
    expect(abs(g[0] - 2.0) < 1e-12 and abs(g[1] - 1.9 / 1.05) < 1e-12 and abs(g[2] - 2.1 / 0.95) < 1e-12,
           f"gain and its range: {g}")

    with tempfile.TemporaryDirectory() as tmp:
        call1, call2 = os.path.join(tmp, "call1"), os.path.join(tmp, "call2")
        # Kernel a: all three arms, lines 1.0x, transforms 1.25x, ptx 1.0x; its transforms arm ran twice
        # (an older one at 2x in call 1 that the later one replaces).
        _fixture_folder(call1, "a", "lines", [0.02, 0.021, 0.019], [0.02, 0.021, 0.019], start="P=1", final="P=1")
        _fixture_folder(call1, "a", "transforms", [0.02] * 3, [0.01] * 3, start="P=1", final="P=1 unroll_a.cu_3=4",
                        date="2026-11-28T10:00Z")
        _fixture_folder(call2, "a", "transforms", [0.02, 0.02, 0.02], [0.016, 0.016, 0.016], start="P=1",
                        final="P=1 unroll_a.cu_3=4")
        _fixture_folder(call2, "a", "ptx", [0.02] * 3, [0.02] * 3, start="P=1", final="P=1")
        # Kernel b: lines at 1.44x, transforms FAIL by its driver, ptx not run.
        _fixture_folder(call2, "b", "lines", [0.036] * 3, [0.025] * 3, final="<_b.cu_4>", order=2)
        _fixture_folder(call2, "b", "transforms", [0.036] * 3, [0.018] * 3, check="FAIL", final="vec_b.cu_2=4", order=2)
        # A search that failed still reads, and does not count.
        _write(os.path.join(call2, "c", "lines", "result.txt"), "status=evolve-failed\nkernel=c\narm=lines\norder=3\nfailure=gi-tool evolve: error: a|b\n")
        text = table([call1, call2])
        main_table = text.split("\n\n")[2].splitlines()  # the header, the notes, then this table
        rows = {line.split(" | ")[0].lstrip("| "): line for line in main_table}
        expect("**1.250x**" in rows.get("a", ""), "a's transforms gain is the later folder's 1.25x:\n" + text)
        expect("(latest of 2)" in rows.get("a", ""), "the table says a result was replaced:\n" + text)
        expect("**1.000x** (0.90-1.11)" in rows.get("a", ""), "a's lines range comes from the rounds:\n" + text)
        expect(rows.get("b", "").count("not run") == 1 and "FAIL (train)" in rows.get("b", ""),
               "b: ptx not run, transforms FAIL:\n" + text)
        expect("evolve-failed: gi-tool evolve: error: a\\|b (see " in rows.get("c", ""),
               "a failed search shows its status and why, its | escaped:\n" + text)
        expect(rows.get("a", "").split(" | ")[1] == "0.0200", "params-only ms is the median of the folders':\n" + text)
        means = [line for line in text.splitlines() if line.startswith("| geometric mean")]
        expect(len(means) == 2, "two geometric-mean rows when the arms ran on different kernels:\n" + text)
        expect(means and f"{math.sqrt(1.44):.3f}x over 2 kernel(s)" in means[0], "lines: geomean of 1.0 and 1.44:\n" + text)
        expect(means and "1.250x over 1 kernel(s)" in means[0], "transforms: b's FAIL does not count:\n" + text)
        expect(len(means) > 1 and "kernels every arm passed: a" in means[1], "the common set is a alone:\n" + text)
        expect("`unroll_a.cu_3=4` (T)" in text and "`<_b.cu_4>` (L)" in text, "edits are listed with kinds:\n" + text)
        expect("2.500x: `ptx:del(3)` (P)" in text, "the search's best with its PTX edit:\n" + text)
        order = [line.split(" | ")[0].lstrip("| ") for line in main_table][2:5]
        expect(order == ["a", "b", "c"], f"kernels in the script's order: {order}")

        # What a search tried: kernel a's ptx arm with a run record of four individuals.
        _write(os.path.join(call2, "a", "ptx", "run", "run.xml"),
               '<?xml version="1.0"?><gi-run format="1"><individuals>'
               '<individual genome="P=1 ptx:del(3)" status="ok" error="0" accepted="1" speedup="1.5"/>'
               '<individual genome="P=1 ptx:copy(1,2) &lt;_a.cu_4&gt;" status="timeout" error="0" accepted="0" speedup="0"/>'
               '<individual genome="P=1 &lt;_a.cu_4&gt;" status="ok" error="0" accepted="1" speedup="1.6"/>'
               '<individual genome="P=2 ptx:swap(5,6)" status="ok" error="3" accepted="0" speedup="2"/>'
               '</individuals></gi-run>')
        text = table([call1, call2])
        rows = [line for line in text.splitlines() if line.startswith("| a | ptx | ")]
        expect("| a | ptx | PTX edits | 3 | 33% | 33% | ok 2, timeout 1 | 1.500x | 1.600x |" in rows, f"the PTX row: {rows}")
        expect("| a | ptx | line edits | 2 | 50% | 50% | ok 1, timeout 1 | 1.600x | 1.500x |" in rows, f"the line row: {rows}")
        expect(not any("transformations" in r for r in rows), f"a kind never tried has no row: {rows}")

        # --summarise on a small run record.
        xml = os.path.join(tmp, "run.xml")
        _write(xml, '<?xml version="1.0"?><gi-run format="1"><generations><generation index="0"/><generation index="1"/>'
                    '</generations><best found="1" genome="P=1 ptx:del(3)" speedup="2.5"/><minimise after="P=1 ptx:del(3)" note=""/>'
                    '<final-check passed="1" note="gave up &apos;P=1 ptx:del(3)&apos;: no&#10;two lines" summary="ok"/>'
                    '<final genome="P=1" stop-reason="time limit" finished="1"/><wall seconds="612.5" search-seconds="500"/></gi-run>')
        s = summarise(xml)
        expect("generations=2\n" in s and "search_best_genome=P=1 ptx:del(3)\n" in s and "run_final_genome=P=1\n" in s
               and "final_check_note=gave up 'P=1 ptx:del(3)': no | two lines\n" in s and "run_wall_s=612.5\n" in s,
               "summarise:\n" + s)
        expect(table([os.path.join(tmp, "none")]).startswith("no result.txt"), "no results says so")
    if failures:
        for f in failures:
            print("FAILED:", f)
        return 1
    print("self-test passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--summarise":
        sys.stdout.write(summarise(argv[2]))
        return 0
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.write(table(argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
