#!/usr/bin/env bash
# Router output check (not a benchmark, not a test: it needs a second binary): two builds of nextstep, e.g.
# this one and main's before a change, must give the same standard output, standard error and exit status, byte
# for byte, on every router input of the tree and on generated hostile records. Ten option sets (text, JSON,
# -v, quiet, --normalize, --strict, --label, --tie), each on one input and on the same input twice (labelled
# results), and stdin through a pipe. The hostile file has shares at the ends of the double range and in every
# notation, labels needing escapes or not UTF-8, missing and aliased buckets, CR LF, and bad records in the
# middle of the stream. Prints the runs that differ; exits 1 when any does.
# Usage: bench/router-same-output.sh NEW BASE [FILE...]       (default files: the tree's router inputs)
set -u
new=$1 base=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh"
bench_scratch
export NEXTSTEP_DOCDIR=/usr/local/share/doc/nextstep LC_ALL=C # -v names the fixes page by its folder

python3 - "$scratch" <<'PY'
import json, random, sys
random.seed(27)
out_dir = sys.argv[1]
keys = {"compute": ["compute", "compute_pct"], "memory": ["memory", "memory_pct"], "comm": ["comm", "comm_pct"],
        "dataloader": ["dataloader", "dataloader_pct"], "overhead": ["overhead", "overhead_pct"],
        "idle": ["idle", "idle_pct"]}
numbers = ["0", "0.0", "-0.0", "-0", "1", "1.0", "1e-300", "1e-320", "4.9e-324", "2.2250738585072014e-308",
           "0.1", "0.30000000000000004", "0.333333333333333314829616256247390992939472198486328125",
           "0.99999999999999989", "0.5e0", "5E-1", "0.000099", "0.0001", "0.00010000000000000001",
           "0.123456789012345678901234567890", "1e-5", "1e-7", "0.9999999", "0.12345", "0.1234567", "1.5", "2",
           "100", "1e300", "1.7976931348623157e308", "0.20000000000000001", "0.7", "0.07", "0.007", "6.02e-23",
           "123456789.123456", "0.999999", "0.0000001", "\"72%\"", "\"0.5\""]
labels = ["step1", "", "tab\there", "nl\nx", "quote\"back\\slash", "caf\u00e9", "\u2028sep", "emoji \U0001F600",
          "\u0000nul", "esc\u001b[31m", "x" * 300, "ctl\u0001\u001f", "slash/ok", "\ud7ff"]
bad = ["{", "not json", "[1,2]", "{\"compute\": \"x\"}", "{\"compute\": 2}", "{\"compute\": -0.1}",
       "{\"compute\": 1e999}", "{}", "null", "", "{\"compute\":0.5,\"compute\":0.2}", "{\"label\":5,\"compute\":0.3}",
       "{\"compute\":0.5,}", "{\"compute\":0.5} trailing", "\"str\"", "{\"compute\":NaN}",
       "{\"compute\":0.2,\"memory\":0.9}", "{\"compute\":0.5,\"unknown\":1}", "{\"compute\":.5}", "{\"compute\":05}"]
lines = []
for i in range(20000):
    if random.random() < 0.03:
        lines.append(random.choice(bad))
        continue
    fields = []
    if random.random() < 0.8:
        label = random.choice(labels) if random.random() < 0.5 else "step%d" % i
        fields.append('"label":' + json.dumps(label, ensure_ascii=random.random() < 0.5))
    for b in [b for b in keys if random.random() < 0.7] or ["idle"]:
        r = random.random()
        if r < 0.4:
            v = random.choice(numbers)
        elif r < 0.7:
            v = "%.*f" % (random.randint(0, 17), random.random() / 3)
        elif r < 0.85:
            v = repr(random.random() / 3)
        else:
            v = "%.3e" % (random.random() * 10 ** random.randint(-30, 0))
        fields.append('"%s":%s' % (random.choice(keys[b]), v))
    random.shuffle(fields)
    line = "{" + random.choice([",", ", ", " ,\t"]).join(fields) + "}"
    lines.append(line + "\r" if random.random() < 0.02 else line)
with open(out_dir + "/hostile.ndjson", "w", encoding="utf-8", errors="surrogatepass") as f:
    f.write("\n".join(lines) + "\n")
with open(out_dir + "/bad-utf8.ndjson", "wb") as f:
    for i in range(500):
        label = bytes(random.randint(0x80, 0xff) for _ in range(random.randint(1, 6)))
        f.write(b'{"label":"a' + label + b'z","compute":0.%d,"memory":0.1}\n' % random.randint(0, 8999))
PY

if [ $# -eq 0 ]; then
	set -- "$src"/tests/cli/cases/*.in "$src"/fuzz/corpus/profile/* "$src"/examples/*.ndjson \
		"$src"/tests/data/pretty-profile.json "$src"/tests/data/diff/*profile*
fi
set -- "$scratch/hostile.ndjson" "$scratch/bad-utf8.ndjson" "$@"
sets=("" "--format json" "-v" "--format quiet" "--normalize --format json" "--normalize" "--strict --format json"
	"--label 'L\"x\\y' --format json" "--format json --tie 0.05" "--format json --normalize --strict")
runs=0 differ=0 opts=()

# same WHAT COMMAND-ARGS...: runs both binaries (stdin from $stdin) and compares what they gave.
same() {
	local what=$1 nrc brc
	shift
	"$new" "$@" <"$stdin" >"$scratch/n.out" 2>"$scratch/n.err"
	nrc=$?
	"$base" "$@" <"$stdin" >"$scratch/b.out" 2>"$scratch/b.err"
	brc=$?
	runs=$((runs + 1))
	if ! cmp -s "$scratch/n.out" "$scratch/b.out" || ! cmp -s "$scratch/n.err" "$scratch/b.err" ||
		[ "$nrc" != "$brc" ]; then
		echo "differs: $what (exit $nrc, base $brc)"
		differ=$((differ + 1))
	fi
}

for f in "$@"; do
	for s in "${sets[@]}"; do
		eval "opts=($s)"
		stdin=/dev/null
		same "$f [$s]" "${opts[@]}" "$f"
		same "$f twice [$s]" "${opts[@]}" "$f" "$f"
		stdin=$f
		same "stdin $f [$s]" "${opts[@]}"
	done
done
echo "router-same-output: $runs runs over $# inputs, $differ differ"
[ "$differ" = 0 ]
