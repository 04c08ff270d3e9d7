#!/usr/bin/env bash
# have-libfuzzer.sh - exit 0 when clang can build a libFuzzer target here (clang and its fuzzer
# runtime are installed), else 1 with the reason on stderr.
command -v clang >/dev/null 2>&1 || { echo "clang is not installed" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$d/t.c"
clang -fsanitize=fuzzer,address,undefined "$d/t.c" -o "$d/t" 2>"$d/err" ||
  { echo "clang cannot link a libFuzzer target: $(head -1 "$d/err")" >&2; exit 1; }
