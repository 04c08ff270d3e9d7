#!/usr/bin/env bash
# report_html.sh DFSCOPE [TRACES] - `dfscope report -o report.html` (docs/REPORT.md, "The page"):
# the page of a generated DLIO-like job whose I/O call names hold markup, quotes, a newline and an
# invalid UTF-8 byte, and of each corpus source kind (DLIO 8 ranks, ResNet-50 Kineto, Composer,
# smdebug, DASF), rendered in headless Chromium, one launch per page: valid HTML (html5lib), nothing
# loaded from outside the file, no console message, the expected sections and charts in the DOM, no
# script of the trace run (the DOM, not the bytes), a screenshot that is not blank
# (report_html_check.py). Without Chromium or Debian's python3-html5lib and python3-pil
# (scripts/deps.sh test) the browser checks are skipped with a message; without the corpus its cases.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"
CHECK=$(dirname "$0")/report_html_check.py
PY=/usr/bin/python3 # Debian's interpreter: its html5lib and PIL
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)

# --- the command line ---------------------------------------------------------------------------
"$DFSCOPE" gen -q -o "$T/gen" --ranks 2 --size 2M >/dev/null 2>&1
code 0 "-o FILE.html writes the page" "$DFSCOPE" report -q -o "$T/a.html" "$T/gen"
check "-o FILE.html: nothing on stdout" [ ! -s "$T/out" ]
check "-o FILE.html: a page" grep -q '^<!DOCTYPE html>' "$T/a.html"
code 0 "--format html on stdout" "$DFSCOPE" report -q --format html "$T/gen"
check "--format html: the same page" cmp -s "$T/out" "$T/a.html"
code 0 "--format json wins over .html" "$DFSCOPE" report -q --format json -o "$T/b.html" "$T/gen"
check "--format json: JSON" grep -q '"schema": *"dfscope-report/1"' "$T/b.html"
code 2 "--format svg" "$DFSCOPE" report --format svg "$T/gen"
check "--format svg: the choices named" grep -q "table, json or html" "$T/err"
code 0 "the terminal page is unchanged by the page's views" "$DFSCOPE" report -q "$T/gen"
check "the terminal page: the verdict" grep -q "^verdict: INPUT-BOUND, STORAGE-BOUND" "$T/out"
# an output directory that does not exist: exit 4, nothing left behind
code 4 "an unwritable output" "$DFSCOPE" report -q -o "$T/none/r.html" "$T/gen"

# under an MPI launcher rank 0 writes the page of one process, its other reads included
if command -v mpirun >/dev/null; then
  MPIRUN=(mpirun)
  if mpirun --version 2>&1 | grep -q "Open MPI"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    MPIRUN+=(--oversubscribe)
  fi
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" code 0 "2 MPI ranks" timeout 120 "${MPIRUN[@]}" -np 2 "$DFSCOPE" report -q -o "$T/mpi.html" "$T/gen"
  check "2 MPI ranks: the page of one process" cmp -s "$T/mpi.html" "$T/a.html"
else
  echo "report_html.sh: mpirun not found: the MPI case skipped"
fi

# --- the hostile trace: call names holding markup, quotes, a newline, invalid UTF-8 -------------
HOSTILE_JSON='<\/script><script>document.documentElement.dataset.pwned=1<\/script><img src=x onerror=\"document.documentElement.dataset.pwned=2\"> '"'"'q'"'"'\n<!--x'
$PY - "$T/gen" "$HOSTILE_JSON" <<'EOF'
import glob, sys
name = sys.argv[2].encode() + b"\xff"
for f in glob.glob(sys.argv[1] + "/*.pfw"):
    data = open(f, "rb").read().replace(b'"name":"read","cat":"POSIX"', b'"name":"' + name + b'","cat":"POSIX"')
    open(f, "wb").write(data)
EOF
HOSTILE=$'</script><script>document.documentElement.dataset.pwned=1</script><img src=x onerror="document.documentElement.dataset.pwned=2"> \'q\'\n<!--x\xef\xbf\xbd'
# exit 1: the invalid UTF-8 is damage, skipped and said, and the page written all the same
code 1 "hostile names" "$DFSCOPE" report -q -o "$T/hostile.html" "$T/gen"
check "hostile names: no raw markup from the trace" sh -c "! grep -q 'pwned=1</script>\|<img src=x' '$T/hostile.html'"
check "hostile names: no invalid UTF-8" iconv -f UTF-8 -t UTF-8 "$T/hostile.html" -o /dev/null

# --- the browser --------------------------------------------------------------------------------
render_ok() { # NAME PAGE [check options...]: one Chromium launch, then report_html_check.py
  local name=$1 page=$2; shift 2
  rm -rf "$T/prof"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --disable-background-networking --disable-component-update --user-data-dir="$T/prof" \
    --enable-logging=stderr --v=0 --proxy-server=http://127.0.0.1:9 --log-net-log="$T/$name.net.json" \
    --window-size=1000,2400 --screenshot="$T/$name.png" --dump-dom "file://$page" >"$T/$name.dom" 2>"$T/$name.err"
  "$PY" "$CHECK" "$page" "$T/$name.dom" "$T/$name.err" "$T/$name.net.json" "$T/$name.png" "$@"
}
DFT_SECTIONS=verdict,breakdown,insights,ranks,time,steps,timeline,io,health,commands
DFT_CHARTS=chart-breakdown,chart-ranks,chart-layers,chart-bandwidth,chart-ops,chart-steps,chart-timeline,chart-rw,chart-sizes
if [ -z "$CHROMIUM" ] || ! "$PY" -c 'import html5lib, PIL' 2>/dev/null; then
  echo "report_html.sh: chromium or Debian's python3-html5lib / python3-pil missing (scripts/deps.sh test): browser checks skipped"
else
  check "generated, hostile: renders as text, no script of the trace runs" \
    render_ok gen "$T/hostile.html" --sections "$DFT_SECTIONS" --charts "$DFT_CHARTS" --hostile "$HOSTILE"
  if [ -z "$TRACES" ] || [ ! -d "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" ]; then
    echo "report_html.sh: the trace corpus is absent (${TRACES:-no path given}): corpus cases skipped"
  else
    K=$TRACES/kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz
    while read -r name sections charts path; do
      # shellcheck disable=SC2086 # the paths of a case are words
      code 0 "$name: the page" "$DFSCOPE" report -q -o "$T/$name.html" $path
      check "$name: renders" render_ok "$name" "$T/$name.html" --sections "$sections" --charts "$charts"
    done <<EOF
dlio $DFT_SECTIONS $DFT_CHARTS $TRACES/dftracer/dlio-unet3d-hdf5-8rank
kineto verdict,breakdown,insights,steps,timeline,gpu,health chart-breakdown,chart-steps,chart-timeline,chart-gpu-temporal,chart-gpu-kernels,chart-gpu-idle $K
composer verdict,breakdown,insights,ranks,steps chart-breakdown,chart-ranks,chart-steps $TRACES/composer/ep0-ba5-rank0.synthetic.json $TRACES/composer/ep0-ba5-rank1.synthetic.json
smdebug verdict,breakdown,insights,steps chart-breakdown,chart-steps $TRACES/smdebug/tests/profiler/resources/merge_traces
dasf verdict,breakdown,insights,dasf chart-breakdown,chart-functions,chart-workers $TRACES/dasf/Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack
EOF
  fi
fi

echo "report_html.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
