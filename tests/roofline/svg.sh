#!/usr/bin/env bash
# Renders roofline plots with --svg and checks each parses as SVG with the elements the plot promises:
# a roof per distinct peak, the chosen roof, the ridge, the kernel's point and (timed) its achieved point,
# each labelled. Usage: svg.sh NEXTSTEP_BINARY
set -u
bin=$1
if ! command -v python3 >/dev/null 2>&1; then
	echo "skipped: python3 not found"
	exit 77
fi
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

check() {
	local name=$1 timed=$2 roofs=$3
	shift 3
	if ! "$bin" roofline "$@" --svg "$tmp/$name.svg" >/dev/null; then
		echo "FAIL: $name: nextstep roofline $* exited $?"
		fail=1
		return
	fi
	if ! python3 - "$tmp/$name.svg" "$timed" "$roofs" <<'PY'; then
import sys
import xml.etree.ElementTree as E

path, timed, roofs = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
ns = "{http://www.w3.org/2000/svg}"
root = E.parse(path).getroot()
assert root.tag == ns + "svg", root.tag
def cls(tag, name):
    return [e for e in root.iter(ns + tag) if name in e.get("class", "").split()]
texts = [t.text or "" for t in root.iter(ns + "text")]
assert len(cls("polyline", "roof")) == roofs, ("roofs", len(cls("polyline", "roof")))
assert len(cls("polyline", "chosen")) == 1, "one chosen roof"
assert cls("circle", "ridge") and any(t.startswith("ridge ") for t in texts), "ridge point and label"
assert len(cls("circle", "kernel")) == 1 and cls("text", "kernel-label"), "kernel point and label"
assert bool(cls("circle", "achieved")) == timed, "achieved point only when timed"
assert bool(cls("text", "achieved-label")) == timed
assert any(t.startswith("memory ") for t in texts), "memory roof label"
assert len(cls("text", "roof-label")) == roofs + 1, "a label per roof plus the memory slope"
for e in root.iter():
    for k in ("x", "y", "cx", "cy", "x1", "y1", "x2", "y2"):
        v = e.get(k)
        if v is not None:
            float(v)  # no nan/inf coordinates
PY
		echo "FAIL: $name: $tmp/$name.svg is not the expected SVG"
		fail=1
	fi
}

# H100 SXM has four distinct peaks (fp64=fp32, tf32, bf16=fp16, fp8=int8): four roofs; B200 six.
check h100_matmul_timed 1 4 --matmul 8192,8192,8192 --device h100 --time 1.5ms
check h100_decode 0 4 --decode --params 7B --device h100
check l4_vector_add_overhead 1 4 --elementwise 1024 --inputs 2 --device l4 --dtype fp32 --time 50us
check b200_fp4 0 6 --matmul 4096,4096,4096 --device b200 --dtype fp4
check label_is_escaped 0 4 --matmul 64,64,64 --device h100 --label "a<b & c>\"d\""

if "$bin" roofline --matmul 8,8,8 --device h100 --svg /nonexistent-dir/x.svg >/dev/null 2>"$tmp/err"; then
	echo "FAIL: an unwritable --svg path succeeded"
	fail=1
fi
grep -q "nextstep: --svg /nonexistent-dir/x.svg: cannot create a file beside it: No such file" "$tmp/err" || { echo "FAIL: no message for an unwritable --svg"; fail=1; }

[ $fail = 0 ] && echo "roofline svg: ok"
exit $fail
