#!/bin/bash -eu
# ClusterFuzzLite build: every cargo-fuzz target of fuzz/, built as spec/security.md §9 builds
# them (`cargo fuzz build -a`: release, debug assertions and overflow checks, AddressSanitizer;
# the image's cargo wrapper turns it into a coverage build when SANITIZER=coverage). For each
# target T it puts into $OUT:
#   T                    the fuzzer
#   T_seed_corpus.zip    the committed seeds (fuzz/seeds/T/) and regressions (fuzz/regressions/T/)
#   T.dict               its dictionary (fuzz/dict/T.dict)
#   T.options            the libFuzzer options of spec/security.md §9 (-timeout=10 -rss_limit_mb=2048)
# Runs in the repository root: the Dockerfile's WORKDIR in the image, and the current folder
# outside it, where only OUT is needed (SRC and WORK are not read):
#   OUT=$(mktemp -d) bash .clusterfuzzlite/build.sh
# Outside the image a toolchain that is not nightly is swapped for nightly (cargo-fuzz needs it).
set -euo pipefail
: "${OUT:?OUT must name the folder that receives the fuzzers}"
if [ ! -f fuzz/Cargo.toml ]; then
  echo "build.sh: run it in the repository root (no fuzz/Cargo.toml in $PWD)" >&2
  exit 1
fi
case "${SANITIZER:-address}" in
  address | coverage) ;;
  *)
    echo "build.sh: Rust fuzz targets build with the address or coverage sanitizer, not $SANITIZER" >&2
    exit 1
    ;;
esac
rustc --version | grep -q nightly || export RUSTUP_TOOLCHAIN=nightly
mkdir -p "$OUT"

cargo fuzz build -a
targets=$(cargo fuzz list)
triple=$(rustc -vV | sed -n 's/^host: //p')
target_dir=$(cargo metadata --manifest-path fuzz/Cargo.toml --format-version 1 --no-deps | jq -r .target_directory)
bin_dir="$target_dir/$triple/release"

count=0
for t in $targets; do
  cp "$bin_dir/$t" "$OUT/$t"
  corpus=(fuzz/seeds/"$t"/*)
  if [ -d "fuzz/regressions/$t" ]; then corpus+=(fuzz/regressions/"$t"/*); fi
  rm -f "$OUT/${t}_seed_corpus.zip"
  zip -q -j "$OUT/${t}_seed_corpus.zip" "${corpus[@]}"
  cp "fuzz/dict/$t.dict" "$OUT/$t.dict"
  printf '[libfuzzer]\ndict = %s.dict\ntimeout = 10\nrss_limit_mb = 2048\n' "$t" >"$OUT/$t.options"
  echo "build.sh: $t: fuzzer, ${#corpus[@]} seed inputs, dictionary, options"
  count=$((count + 1))
done
if [ "$count" -eq 0 ]; then
  echo "build.sh: cargo fuzz list named no target" >&2
  exit 1
fi
