#!/bin/sh
# The suite's compile cache (nvcc_cache.c) against a fake compiler that counts its runs:
# a hit needs the same arguments and the same content of the sources and of every header
# they include, wherever they lie; messages are replayed with the current folders.
set -eu
wrapper=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$t/fake" <<'FAKE'
#!/bin/sh
# counts runs; writes the concatenated sources (headers inlined by cat) to -o; a source
# that says ERROR fails with a message naming it; with -save-temps=obj it also leaves, as
# hipcc does, SOURCE_STEM-hip-amdgcn-amd-amdhsa-gfx906.s (naming the source and its folder)
# and a binary SOURCE_STEM-hip-amdgcn-amd-amdhsa-gfx906.o beside the output
echo x >> "$FAKE_COUNT"
out=; src=; temps=
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift ;; -save-temps=obj) temps=1 ;; -*) ;; *) src=$1 ;; esac; shift
done
if [ -n "$temps" ]; then
  stem=$(basename "$src"); stem=${stem%.*}
  t=$(dirname "$out")/$stem-hip-amdgcn-amd-amdhsa-gfx906
  printf '\t.file\t1 "%s" "%s"\n\ts_memtime s[0:1]\n' "$(dirname "$src")" "$(basename "$src")" > "$t.s"
  printf 'ELF\000%s\000' "$(dirname "$src")" > "$t.o"
fi
if grep -q ERROR "$src"; then echo "$src(1): error: ERROR here" >&2; exit 2; fi
echo "ptxas info: compiled $(basename "$src")" >&2
if [ "$out" = - ]; then cat "$src"; exit 0; fi
cat "$src" "$(dirname "$src")"/*.h > "$out" 2>/dev/null || cat "$src" > "$out"
FAKE
chmod +x "$t/fake"
export HK_REAL_NVCC="$t/fake" FAKE_COUNT="$t/count" HK_NVCC_CACHE="$t/cache"
: > "$t/count"
runs() { wc -l < "$t/count" | tr -d ' '; }

mkdir -p "$t/a" "$t/b" "$t/inc"
printf '#include "h.h"\n#include <lib.h>\nint k;\n' > "$t/a/k.cu"
printf 'int h;\n' > "$t/a/h.h"
printf 'int lib;\n' > "$t/inc/lib.h"
cp "$t/a/k.cu" "$t/a/h.h" "$t/b/"

"$wrapper" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2> "$t/a/err"
[ "$(runs)" = 1 ] || fail "first compile: $(runs) runs"
"$wrapper" -cubin -I "$t/inc" -o "$t/b/k.cubin" "$t/b/k.cu" 2> "$t/b/err"
[ "$(runs)" = 1 ] || fail "same content in another folder was compiled again"
cmp -s "$t/a/k.cubin" "$t/b/k.cubin" || fail "the hit's output differs"
grep -q "compiled k.cu" "$t/b/err" || fail "the hit did not replay stderr"
# a hit dates its entry by this use (.ci/run drops entries unused for 7 days)
for e in "$t/cache"/*/; do touch -d '2020-01-01' "$e"; done
"$wrapper" -cubin -I "$t/inc" -o "$t/b/k.cubin" "$t/b/k.cu" 2>/dev/null
[ "$(runs)" = 1 ] || fail "the third same compile was not a hit"
[ -n "$(find "$t/cache" -mindepth 1 -maxdepth 1 -type d -newermt '2021-01-01')" ] || fail "a hit did not date its entry"

printf 'int h2;\n' > "$t/b/h.h"
"$wrapper" -cubin -I "$t/inc" -o "$t/b/k.cubin" "$t/b/k.cu" 2>/dev/null
[ "$(runs)" = 2 ] || fail "a changed quoted header was not compiled again"
printf 'int lib2;\n' > "$t/inc/lib.h"
"$wrapper" -cubin -I "$t/inc" -o "$t/b/k.cubin" "$t/b/k.cu" 2>/dev/null
[ "$(runs)" = 3 ] || fail "a changed -I header was not compiled again"
HK_TEST_NAME="my test" HK_NVCC_LOG="$t/log" "$wrapper" -cubin -O2 -I "$t/inc" -o "$t/b/k.cubin" "$t/b/k.cu" 2>/dev/null
[ "$(runs)" = 4 ] || fail "another flag was not compiled again"
HK_TEST_NAME="my test" HK_NVCC_LOG="$t/log" "$wrapper" -cubin -O2 -I "$t/inc" -o "$t/a/k.cubin" "$t/b/k.cu" 2>/dev/null
[ "$(runs)" = 4 ] || fail "the same compile was run again"
# HK_NVCC_LOG: one line per call: what it was, seconds, the key, the test, the command line
args="-cubin -O2 -I $t/inc -o $t/[ab]/k.cubin $t/b/k.cu"
[ "$(wc -l < "$t/log")" = 2 ] || fail "log: $(cat "$t/log")"
grep -q "^miss [0-9.]* [0-9.]* [0-9a-f]\{32\} my_test $args\$" "$t/log" || fail "no miss line: $(cat "$t/log")"
grep -q "^hit 0.00 0.00 [0-9a-f]\{32\} my_test $args\$" "$t/log" || fail "no hit line: $(cat "$t/log")"

printf 'ERROR\n' > "$t/a/bad.cu"; cp "$t/a/bad.cu" "$t/b/bad.cu"
rc=0; "$wrapper" -o "$t/a/bad.o" "$t/a/bad.cu" 2> "$t/a/err" || rc=$?
[ $rc = 2 ] || fail "first failing compile exited $rc"
rc=0; "$wrapper" -o "$t/b/bad.o" "$t/b/bad.cu" 2> "$t/b/err" || rc=$?
[ $rc = 2 ] || fail "replayed failing compile exited $rc"
[ "$(runs)" = 5 ] || fail "a failing compile was not answered from the cache"
grep -q "$t/b/bad.cu(1): error" "$t/b/err" || fail "the message does not name the current folder: $(cat "$t/b/err")"
if grep -q "$t/a/" "$t/b/err"; then fail "the message names the recorded folder"; fi

# a generated program that includes its candidate by absolute path, next to it (measure.c's
# module.cu): the same texts in another folder are the same compile; another candidate is not
mkdir -p "$t/w1" "$t/w2"
for w in w1 w2; do
  printf 'int cand;\n' > "$t/$w/kernel.cu"
  printf '#include "%s/kernel.cu"\n' "$t/$w" > "$t/$w/module.cu"
done
"$wrapper" -cubin -o "$t/w1/m.cubin" "$t/w1/module.cu" 2>/dev/null
"$wrapper" -cubin -o "$t/w2/m.cubin" "$t/w2/module.cu" 2>/dev/null
[ "$(runs)" = 6 ] || fail "the same program in another work folder was compiled again: $(runs) runs"
printf 'int other;\n' > "$t/w2/kernel.cu"
"$wrapper" -cubin -o "$t/w2/m.cubin" "$t/w2/module.cu" 2>/dev/null
[ "$(runs)" = 7 ] || fail "another candidate behind the same include was not compiled again"
# a work folder whose name is longer (the ASan pass's build-asan/test-XXXXXX beside the plain
# pass's build/test-XXXXXX): the same compile
mkdir -p "$t/build-asan/w1"
printf 'int cand;\n' > "$t/build-asan/w1/kernel.cu"
printf '#include "%s/kernel.cu"\n' "$t/build-asan/w1" > "$t/build-asan/w1/module.cu"
"$wrapper" -cubin -o "$t/build-asan/w1/m.cubin" "$t/build-asan/w1/module.cu" 2>/dev/null
[ "$(runs)" = 7 ] || fail "the same program in a work folder with a longer name was compiled again"

# "-o -": the output is stdout, kept and replayed as such (no file named "-" appears)
(cd "$t/a" && "$wrapper" -ptx -o - "$t/a/k.cu" > "$t/a/ptx" 2>/dev/null)
(cd "$t/b" && "$wrapper" -ptx -o - "$t/a/k.cu" > "$t/b/ptx" 2>/dev/null)
[ "$(runs)" = 8 ] || fail "-o - was not answered from the cache: $(runs) runs"
grep -q "int k;" "$t/b/ptx" || fail "the hit did not replay stdout"
[ ! -e "$t/a/-" ] && [ ! -e "$t/b/-" ] || fail "-o - wrote a file named -"

"$wrapper" -M -o "$t/a/k.d" "$t/a/k.cu" 2>/dev/null
"$wrapper" -M -o "$t/a/k.d" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 10 ] || fail "-M was cached"
HK_NVCC_CACHE= "$wrapper" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 11 ] || fail "without HK_NVCC_CACHE it did not run the compiler"
# another host compiler (a gcc upgrade between runs that keep the cache) is another compile
mkdir -p "$t/gcc2"
printf '#!/bin/sh\nexit 0\n' > "$t/gcc2/g++"; chmod +x "$t/gcc2/g++"
"$wrapper" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
"$wrapper" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 12 ] || fail "a compile kept was not a hit: $(runs) runs"
PATH="$t/gcc2:$PATH" "$wrapper" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 13 ] || fail "another g++ on PATH was answered from the cache"
ln -s "$wrapper" "$t/hipcc"
HK_REAL_HIPCC="$t/fake" "$t/hipcc" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 14 ] || fail "hipcc shared nvcc's entries"
# a temporary output named by a process id (measure.c's launcher: bench.tmp.$$) is the same
# compile whatever the id; another extension is another compile
"$wrapper" -cubin -I "$t/inc" -o "$t/a/k.tmp.4436" "$t/a/k.cu" 2>/dev/null
"$wrapper" -cubin -I "$t/inc" -o "$t/b/k.tmp.18490" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 15 ] || fail "the same compile to another process id's temporary was run again: $(runs) runs"
cmp -s "$t/a/k.tmp.4436" "$t/b/k.tmp.18490" || fail "the hit's temporary output differs"
"$wrapper" -cubin -I "$t/inc" -o "$t/b/k.tmp2.18490" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 16 ] || fail "another extension was answered from the cache"
# a temporary written before its rename (measure.c's hk_launcher_rt.o.tmp.$$) is the same
# compile as the final name (test_engine_harness's hk_launcher_rt.o, the same argv); a
# name that only begins alike is not
"$wrapper" -c -I "$t/inc" -o "$t/a/rt.o.tmp.4436" "$t/a/k.cu" 2>/dev/null
"$wrapper" -c -I "$t/inc" -o "$t/b/rt.o" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 17 ] || fail "the same compile to the final name of a temporary was run again: $(runs) runs"
cmp -s "$t/a/rt.o.tmp.4436" "$t/b/rt.o" || fail "the hit's output under the final name differs"
"$wrapper" -c -I "$t/inc" -o "$t/b/rt.obj" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 18 ] || fail "another extension (.obj after .o) was answered from the cache"
# a cache folder whose parents do not exist yet (./hk test's build/hk-test-cache/nvcc in a
# fresh clone, before anything made build/hk-test-cache) is made, and the compile kept
HK_NVCC_CACHE="$t/fresh/run/nvcc" "$wrapper" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
HK_NVCC_CACHE="$t/fresh/run/nvcc" "$wrapper" -cubin -I "$t/inc" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 19 ] || fail "a cache folder under folders not made yet kept nothing: $(runs) runs"
# -DNAME="FILE" naming a file that the source includes through the macro
# (test_engine_rewrite_hist's HK_KERNEL_FILE): keyed by FILE's content, not its folder
printf 'int main_part;\n' > "$t/inc/main.cu"
for w in w1 w2; do printf 'int rewritten;\n' > "$t/$w/rw.cu"; done
"$wrapper" -O3 "-DKF=\"$t/w1/rw.cu\"" -o "$t/w1/chk" "$t/inc/main.cu" 2>/dev/null
"$wrapper" -O3 "-DKF=\"$t/w2/rw.cu\"" -o "$t/w2/chk" "$t/inc/main.cu" 2>/dev/null
[ "$(runs)" = 20 ] || fail "the same -D file in another work folder was compiled again: $(runs) runs"
printf 'int rewritten_otherwise;\n' > "$t/w2/rw.cu"
"$wrapper" -O3 "-DKF=\"$t/w2/rw.cu\"" -o "$t/w2/chk" "$t/inc/main.cu" 2>/dev/null
[ "$(runs)" = 21 ] || fail "another text behind the same -D file was answered from the cache"
# named g++ (test-tools/cxx/g++: the block emulator's programs) it stands for g++
# (HK_REAL_CXX), in entries of its own
mkdir -p "$t/cxx"
ln -s "$wrapper" "$t/cxx/g++"
HK_REAL_CXX="$t/fake" "$t/cxx/g++" -O1 -I "$t/inc" -o "$t/a/emu" "$t/a/k.cu" 2>/dev/null
HK_REAL_CXX="$t/fake" "$t/cxx/g++" -O1 -I "$t/inc" -o "$t/b/emu" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 22 ] || fail "g++: the same program was built again, or not at all: $(runs) runs"
cmp -s "$t/a/emu" "$t/b/emu" || fail "g++: the hit's output differs"
# a joined -IDIR is a folder too, as "-I" "DIR" is: the same headers in another build folder's
# -I folder (build-asan beside build) are the same compile; another header there is not
mkdir -p "$t/build/pch" "$t/build-asan/pch"
printf 'int lib3;\n' > "$t/build/pch/lib.h"
printf 'int lib3;\n' > "$t/build-asan/pch/lib.h"
"$wrapper" -cubin "-I$t/build/pch" -o "$t/a/k.cubin" "$t/a/k.cu" 2>/dev/null
"$wrapper" -cubin "-I$t/build-asan/pch" -o "$t/b/k.cubin" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 23 ] || fail "the same -IDIR headers in another build folder were compiled again: $(runs) runs"
printf 'int lib4;\n' > "$t/build-asan/pch/lib.h"
"$wrapper" -cubin "-I$t/build-asan/pch" -o "$t/b/k.cubin" "$t/a/k.cu" 2>/dev/null
[ "$(runs)" = 24 ] || fail "another header behind a joined -IDIR was answered from the cache"
# -save-temps=obj (measure.c's DCU image build: clang's assembly beside the code object, read
# for clock reads): the same compile in another folder is a hit that writes the temporaries
# back beside its output, the text one naming the current folder, the binary one as kept
mkdir -p "$t/st1/o" "$t/st2/o"
for w in st1 st2; do printf 'int dcu;\n' > "$t/$w/module.cu"; done
"$wrapper" -save-temps=obj --genco -o "$t/st1/o/k.co" "$t/st1/module.cu" 2>/dev/null
"$wrapper" -save-temps=obj --genco -o "$t/st2/o/k.co" "$t/st2/module.cu" 2>/dev/null
[ "$(runs)" = 25 ] || fail "-save-temps=obj: the same compile in another folder was run again: $(runs) runs"
s2=$t/st2/o/module-hip-amdgcn-amd-amdhsa-gfx906
[ -f "$s2.s" ] && [ -f "$s2.o" ] || fail "-save-temps=obj: the hit did not write the temporaries: $(ls "$t/st2/o")"
grep -q "^	.file	1 \"$t/st2\" \"module.cu\"\$" "$s2.s" || fail "-save-temps=obj: the hit's assembly: $(cat "$s2.s")"
if grep -q "$t/st1" "$s2.s"; then fail "-save-temps=obj: the hit's assembly names the recorded folder"; fi
cmp -s "$t/st1/o/module-hip-amdgcn-amd-amdhsa-gfx906.o" "$s2.o" || fail "-save-temps=obj: the binary temporary differs"
cmp -s "$t/st1/o/k.co" "$t/st2/o/k.co" || fail "-save-temps=obj: the hit's output differs"
# other -save-temps forms (into the working folder) still go to the compiler every time
(cd "$t/st1" && "$wrapper" -save-temps --genco -o "$t/st1/o/k.co" "$t/st1/module.cu" 2>/dev/null)
(cd "$t/st1" && "$wrapper" -save-temps --genco -o "$t/st1/o/k.co" "$t/st1/module.cu" 2>/dev/null)
[ "$(runs)" = 27 ] || fail "-save-temps was cached: $(runs) runs"
# two stand-ins on PATH (two builds' test-tools folders): each finds the other first; the
# chain must end at the compiler's own place, not call back and forth until killed
mkdir -p "$t/s1" "$t/s2"
cp "$wrapper" "$t/s1/nvcc"
cp "$wrapper" "$t/s2/nvcc"
rc=0
(unset HK_REAL_NVCC HK_NVCC_CACHE HK_STANDIN_CHAIN; PATH="$t/s1:$t/s2:$PATH" \
  timeout "${HK_CHAIN_TIMEOUT:-60}" "$t/s1/nvcc" --version > "$t/chain.out" 2>&1) || rc=$?
[ "$rc" -ne 124 ] || fail "two stand-ins on PATH called each other until the time limit"
echo "nvcc_cache: ok"
