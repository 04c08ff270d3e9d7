#!/usr/bin/env bash
# report-screenshots.sh DFSCOPE TRACES - the screenshots of docs/img/report-*.png: the report page of
# one corpus trace per source kind, rendered by headless Chromium (scripts/deps.sh test installs it)
# at 1000 px wide, the top 1500 px, stored with an adaptive 256-colour palette (the chart colours
# stay apart). Run it after a change to the page; the tests do not compare the images.
set -euo pipefail
DFSCOPE=$(realpath "$1")
TRACES=$2
OUT=$(cd "$(dirname "$0")/.." && pwd)/docs/img
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
shot() { # NAME PATH...
  local name=$1; shift
  "$DFSCOPE" report -q -o "$T/$name.html" "$@" 2>/dev/null || [ -s "$T/$name.html" ]
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1500 \
    --screenshot="$T/$name.png" "file://$T/$name.html" >/dev/null 2>&1
  "$PY" -c 'import sys; from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
im.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(sys.argv[2], optimize=True)' "$T/$name.png" "$OUT/report-$name.png"
  echo "docs/img/report-$name.png"
}
cd "$TRACES" # the page names its inputs as given: relative to the corpus
shot dlio "dftracer/dlio-unet3d-hdf5-8rank"
shot kineto "kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
shot composer "composer/ep0-ba5-rank0.synthetic.json" "composer/ep0-ba5-rank1.synthetic.json"
shot smdebug "smdebug/tests/profiler/resources/merge_traces"
shot dasf "dasf/Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack"
