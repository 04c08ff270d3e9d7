#!/usr/bin/env bash
# deps.sh [build|test|bench|python] - make sure the Debian packages dfscope needs are installed.
# As root it installs what is missing with apt-get; otherwise it prints the exact command and fails.
set -euo pipefail

# MPI (docs/MPI.md): Open MPI's headers and library to build the distributed commands, its
# launcher (mpirun) to test and benchmark them; MPICH (libmpich-dev mpich) works as well.
need=(gcc make cmake pkg-config libisal-dev zlib1g-dev libpcre2-dev libyaml-dev libopenmpi-dev)
case "${1:-build}" in
  build) ;;
  # the report page's tests (tests/cli/report_html.sh): a headless browser, an HTML5 parser, PNGs;
  # the Python package (docs/PYTHON.md) is built for Debian's python3 with Debian's numpy and
  # pandas; its tests run pytest and the example notebooks (nbconvert, ipykernel, matplotlib).
  test)  need+=(libcmocka-dev clang python3 openmpi-bin chromium python3-html5lib python3-pil
                python3-dev python3-numpy python3-pandas python3-pytest
                python3-matplotlib python3-nbconvert jupyter-nbconvert python3-ipykernel) ;;
  python) need+=(python3 python3-dev python3-venv python3-numpy python3-pandas) ;;
  bench) need+=(isal time bc coreutils findutils openmpi-bin python3) ;;
  *) echo "usage: $0 [build|test|bench|python]" >&2; exit 2 ;;
esac

missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "dfscope needs these Debian packages: ${missing[*]}" >&2
  echo "install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
