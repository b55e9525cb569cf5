#!/usr/bin/env bash
# Raw benchmark data stays out of the tree (issue 43): fails when `git ls-files bench/results` holds
# raw data that bench/results/raw-files.txt (what was committed before the rule) does not list.
# Raw data: a log (.log, .console, .out), an archive (.tgz, .gz, .tar, .zip, .xz, .bz2, .zst, .7z),
# an image (.png, .jpg, .jpeg, .gif, .svg, .webp, .pdf), or any file under bench/results/data/.
# Summaries (.md) stay in bench/results/; raw data goes to bench/data/ (git-ignored) or a release's
# assets, as bench/README.md says. Usage: scripts/check-bench-data.sh [REPO_ROOT]
# Exit status: 0 clean, 1 new raw data, 77 not a git checkout (nothing to check).
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
list="$root/bench/results/raw-files.txt"

if ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    echo "check-bench-data: $root is not a git checkout: nothing to check"
    exit 77
fi
if [[ ! -f "$list" ]]; then
    echo "check-bench-data: $list is missing: it lists the raw files committed before the rule" >&2
    exit 1
fi

declare -A grandfathered=()
while IFS= read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    grandfathered["$line"]=1
done <"$list"

raw='\.(log|console|out|tgz|gz|tar|zip|xz|bz2|zst|7z|png|jpg|jpeg|gif|svg|webp|pdf)$'
new=()
while IFS= read -r -d '' path; do
    lower="${path,,}"
    if [[ "$path" == bench/results/data/* || "$lower" =~ $raw ]] && [[ -z "${grandfathered[$path]:-}" ]]; then
        new+=("$path")
    fi
done < <(git -C "$root" ls-files -z -- bench/results)

if ((${#new[@]} == 0)); then
    echo "check-bench-data: OK: no raw benchmark data in bench/results/ beyond the ${#grandfathered[@]} files committed before the rule"
    exit 0
fi
echo "check-bench-data: raw benchmark data is not committed to bench/results/ (issue 43):" >&2
for path in "${new[@]}"; do echo "  $path" >&2; done
echo "Keep it in bench/data/ (git-ignored) or attach it to a release, and commit a summary (.md) that says" >&2
echo "where it is (bench/README.md). To unstage: git rm --cached <file>" >&2
exit 1
