#!/usr/bin/env bash
# test_cli.sh - end-to-end checks of the `warplife` command: exit statuses, messages,
# results of `run`, exact generation counts, convert round trips, soups, info, --help.
#
# usage: bash tests/test_cli.sh path/to/warplife
# Each check is a real assertion; the script prints "test_cli: N passed, N failed" and
# exits 1 if any failed.  WL_TEST_QUICK=1 (sanitizer builds) skips the default job.
set -u
W=${1:?usage: test_cli.sh path/to/warplife}
case $W in /*) ;; *) W=$PWD/$W ;; esac # the checks run in a temporary directory
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*" >&2
    echo "  stdout: $(head -c 600 out)" >&2
    echo "  stderr: $(head -c 600 err)" >&2
}
# t STATUS CMD...: runs CMD with stdout in ./out and stderr in ./err; checks its status.
t() {
    local want=$1
    shift
    "$@" >out 2>err
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok; else bad "exit $rc, wanted $want: $*"; fi
}
# has FILE REGEX: checks that FILE has a line matching the extended regex.
has() { if grep -Eq -- "$2" "$1"; then ok; else bad "$1 has no line matching '$2'"; fi; }
hasnt() { if grep -Eq -- "$2" "$1"; then bad "$1 has a line matching '$2'"; else ok; fi; }
same() { if cmp -s "$1" "$2"; then ok; else bad "$1 and $2 differ"; fi; }
absent() { if [ -e "$1" ]; then bad "$1 exists"; else ok; fi; }

printf 'x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >glider.rle
printf '#N R-pentomino\nx = 3, y = 3, rule = B3/S23\nb2o$2o$bo!\n' >rpent.rle
printf 'x = 3, y = 3, rule = B3/S23\nbo$2bo$3Z!\n' >bad.rle

# ---- --help, --version, usage errors -------------------------------------------------
t 0 "$W" --help; has out '^usage: warplife'; has out 'exit status'
t 0 "$W" --version; has out '^warplife [0-9]+\.[0-9]+\.[0-9]+'
for sub in run convert info soup bench view; do
    t 0 "$W" "$sub" --help; has out "usage: warplife $sub"
done
t 1 "$W"
t 1 "$W" frobnicate; has err 'unknown subcommand'
t 1 "$W" run --no-such-option glider.rle -m 1; has err 'unknown option'
t 1 "$W" run glider.rle                         # no -m
t 1 "$W" run glider.rle -m                      # missing value
t 1 "$W" run glider.rle -m 10 --torus 0x5; has err 'torus'
t 1 "$W" run glider.rle -m 10 -e no-such-engine
t 1 "$W" convert glider.rle
t 1 "$W" convert glider.rle x.rle --format nonsense
t 1 "$W" soup
t 1 "$W" soup 10x10 --density 1.5

# ---- exact generation counts -----------------------------------------------------------
t 0 "$W" run glider.rle -m 18446744073709551615 --dry-run -q
has out '^generations 18446744073709551615$'
t 0 "$W" run glider.rle -m 2^63 --dry-run -q; has out '^generations 9223372036854775808$'
t 1 "$W" run glider.rle -m 18446744073709551616; has err '18446744073709551616'
t 1 "$W" run glider.rle -m 2^64
t 1 "$W" run glider.rle -m -1
t 1 "$W" run glider.rle -m 12x

# ---- bad input: rule, file, missing file (all exit 2) ----------------------------------
t 2 "$W" run glider.rle -m 1 --rule B3/S2Z; has err 'rule'
t 2 "$W" soup 8x8 --rule NotARule
t 2 "$W" run bad.rle -m 1; has err 'bad\.rle:[0-9]+:[0-9]+:'
t 2 "$W" info bad.rle; has err 'bad\.rle:[0-9]+:[0-9]+:'
t 2 "$W" convert bad.rle x.cells; absent x.cells
t 2 "$W" run no-such-file.rle -m 1; has err 'no-such-file\.rle'
t 2 "$W" info no-such-file.rle

# ---- hostile input: every fault of the file exits 2, memory (the reading limit) exits 3;
# nothing is written, nothing hangs (timeout), and reading stops at the first bad byte.
printf '99999999999999999999999o!\n' >ovf.rle
t 2 "$W" run ovf.rle -m 10 --popcount -q -o out.rle; has err 'ovf\.rle:1:1: run count too large'
absent out.rle
printf '#Life 1.06\n1 99999999999999999999\n' >ovf.lif
t 2 "$W" run ovf.lif -m 10 --popcount -q -o out.rle; has err 'ovf\.lif:2:[0-9]+: coordinate out of range'
printf '#Life 1.06\n4611686018427387904 0\n' >far.lif
t 2 "$W" run far.lif -m 10 -q -o out.rle; has err 'far\.lif:2:1: coordinate out of range'
printf 'x = 1, y = 1\n#CXRLE Pos=99999999999999999999,0\no!' >pos.rle
t 2 "$W" info pos.rle; has err 'pos\.rle:2:'
printf '\211PNG\r\n\032\n' >picture.rle
t 2 "$W" run picture.rle -m 1 -q; has err 'picture\.rle:1:1: not a pattern file: byte 0x89'
mkdir adir; t 2 "$W" run adir -m 1 -q; has err 'adir: is a directory'
t 2 timeout 20 "$W" run /dev/zero -m 10 --popcount -q -o out.rle
has err '/dev/zero:1:1: not a pattern file'; absent out.rle
t 2 timeout 20 bash -c "cat /dev/zero | '$W' run - -m 10 -q -o out.rle"; absent out.rle
# A gzip bomb: 256 MiB of zeros in about 256 kB (16 gzip members of 16 MiB).
if command -v gzip >/dev/null 2>&1; then
    head -c 16777216 /dev/zero | gzip -9 >z16.gz
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do cat z16.gz; done >bomb.rle.gz
    t 2 timeout 20 "$W" run bomb.rle.gz -m 10 --popcount -q -o out.rle
    has err 'bomb\.rle\.gz:1:1: not a pattern file'; absent out.rle
    t 2 timeout 20 "$W" convert bomb.rle.gz bomb.rle; absent bomb.rle
    # Valid cells without end, compressed and through a pipe: the reading limit stops them.
    yes 'o$' | head -c 16777216 | gzip -1 >cells.rle.gz
    t 3 timeout 20 "$W" run cells.rle.gz -m 1 -q --maxmemory 16 -o out.rle
    has err 'cells\.rle\.gz:[0-9]+:1: .*more than the reading limit of 16 MiB'; has err 'maxmemory'
    absent out.rle
    t 0 "$W" info cells.rle.gz; has out '^population 5592406$'
fi
t 3 timeout 20 bash -c "yes 'o\$' | '$W' run - -m 1 -q --maxmemory 16 -o out.rle"
has err '<stdin>:[0-9]+:1: .*reading limit of 16 MiB'; absent out.rle

# ---- run: results ------------------------------------------------------------------------
t 0 "$W" run glider.rle -m 100 --popcount -q
has out '^generation 100 population 5$'
t 0 "$W" run glider.rle -m 100 -i 25 --popcount -q
if [ "$(grep -c 'population 5$' out)" -eq 4 ]; then ok; else bad "--step 25 should report 4 times"; fi
t 0 "$W" run glider.rle -m 40 --hyper --popcount -q --torus 16x12
has out '^generation 1 population 5$'; has out '^generation 31 population 5$'
has out '^generation 40 population 5$'
# The R-pentomino's gliders stay within 266 cells of its origin up to generation 1103.
t 0 "$W" run rpent.rle -m 1103 --bounded 560x560 --popcount -q
has out '^generation 1103 population 116$'
# Without a topology: the plane (HashLife) or an automatic torus, with a note on stderr.
t 0 "$W" run rpent.rle -m 200 --popcount
has err 'plane|torus'; has out '^generation 200 population [0-9]+$'
has out 'cell updates/s|gens/s'
# A rule from the command line overrides the file's: B36/S23 (HighLife) leaves the glider
# a glider, B3/S1 does not keep it at 5.
t 0 "$W" run glider.rle -m 8 --rule B36/S23 --popcount -q --torus 32
has out 'population 5$'
t 0 "$W" run glider.rle -m 1 --rule B3/S --popcount -q --torus 32
hasnt out 'population 5$'
# Cells outside a bounded grid are dropped with a warning (4 of the glider's 5 on 4x4).
t 0 "$W" run glider.rle -m 1 --bounded 4x4 -q
has err 'warning: 4 live cells'
# -o writes the final pattern; the glider after 4 generations is the glider moved by (1,1).
t 0 "$W" run glider.rle -m 4 --torus 64 -q -o moved.rle
t 0 "$W" info moved.rle; has out '^population 5$'; has out 'x 1\.\.3, y 1\.\.3'
# -o into a directory that does not exist: exit 3, nothing written.
t 3 "$W" run glider.rle -m 4 --torus 64 -q -o no-such-dir/out.rle; absent no-such-dir
# Ctrl-C: a consistent stop, the generation reached on stderr, exit 3, no output file.
timeout --preserve-status -k 10 -s INT 1 "$W" run glider.rle -m 2^62 --torus 256 -q -o never.rle >out 2>err
rc=$?
if [ "$rc" -eq 3 ]; then ok; else bad "Ctrl-C: exit $rc, wanted 3"; fi
has err 'interrupted at generation [0-9]+'; absent never.rle

# On the unbounded plane (auto: sparse, handing over to HashLife): exact astronomically long
# runs.
t 0 "$W" info
if grep -Eq '^  hashlife ' out; then
    t 0 "$W" run rpent.rle -m 2^62 --plane --popcount -q -o rpent-far.mc
    has out '^generation 4611686018427387904 population 116$'
    t 0 "$W" info rpent-far.mc; has out '^population 116$'
    t 0 "$W" run rpent.rle -m 1103 --popcount -q --maxmemory 64
    has out '^generation 1103 population 116$'
    # A macrocell file goes to HashLife's own reader, rule line included (gzip too), and
    # ends where the pattern path ends.
    t 0 "$W" soup 40x30 --seed 3 --rule B36/S23 -o hl.rle
    t 0 "$W" convert hl.rle hl.mc.gz
    t 0 "$W" run -e hashlife hl.mc.gz -m 64 -q -o hl-native.rle
    t 0 "$W" run -e sparse hl.rle -m 64 -q -o hl-sparse.rle
    same hl-native.rle hl-sparse.rle; has hl-native.rle 'rule = B36/S23'
    # On the default engine a macrocell file too big to hold as cells in the sparse
    # engine's tiles (here a full 32768^2 square, 2^30 cells: 145 MB as a pattern) goes to
    # HashLife's own reader, and stderr says so (the sparse engine took seconds and GBs).
    { printf '[M2] (warplife test)\n#R B3/S23\n'
      for _ in 1 2 3 4 5 6 7 8; do printf '********$'; done; printf '\n'
      for k in $(seq 4 15); do printf '%d %d %d %d %d\n' "$k" $((k - 3)) $((k - 3)) $((k - 3)) $((k - 3)); done
    } >square15.mc
    t 0 "$W" run square15.mc -m 1 --popcount
    has out '^generation 1 population 131068$'; has err 'engine hashlife, which reads the macrocell'
    # Cells far apart cost what cells cost: a glider and a blinker 2^40 cells apart.
    printf '#Life 1.06\n1 0\n2 1\n0 2\n1 2\n2 2\n' >far.lif
    printf '%s 1099511627776\n' 1099511627775 1099511627776 1099511627777 >>far.lif
    t 0 "$W" run -e hashlife far.lif -m 4 --popcount -q; has out '^generation 4 population 8$'
fi
t 1 "$W" run rpent.rle -m 1 --maxmemory 0

# Golly's bounded-grid suffix: the file's torus is where it runs (a glider on an 8x8 torus,
# centred on it as Golly places a file without a position, is back after 32 generations),
# written back with the cells; --plane overrides it.
printf 'x = 3, y = 3, rule = B3/S23:T8,8\nbo$2bo$3o!\n' >torus8.rle
t 0 "$W" run torus8.rle -m 32 -o torus8-out.rle
has err 'asks for the torus 8 x 8'; has torus8-out.rle 'rule = B3/S23:T8,8'
t 0 "$W" info torus8-out.rle; grep -E '^(population|bounding)' out >t8b.info
t 0 "$W" info torus8.rle; grep -E '^(population|bounding)' out >t8a.info; same t8a.info t8b.info
t 0 "$W" run torus8.rle -m 32 --plane -q -o plane8-out.rle
hasnt plane8-out.rle ':T8,8'; has plane8-out.rle '^#CXRLE Pos=7,7'
# A tube (":T0,8": 8 rows around, unbounded across): the glider travels on, and the tube
# is written back as it was asked for.
printf 'x = 3, y = 3, rule = B3/S23:T0,8\nbo$2bo$3o!\n' >tube.rle
t 0 "$W" run tube.rle -m 64 -o tube-out.rle; has err 'asks for the torus unbounded x 8'
has tube-out.rle 'rule = B3/S23:T0,8'
t 0 "$W" info tube-out.rle; has out '^population 5$'; has out '^bounding box: x 15\.\.17, '


# ---- convert -----------------------------------------------------------------------------
t 0 "$W" soup 50x40 --seed 7 -o soup.rle
t 0 "$W" convert soup.rle soup.cells
t 0 "$W" convert soup.cells back.rle
grep -v '^#' soup.rle >a.body; grep -v '^#' back.rle >b.body; same a.body b.body
t 0 "$W" info soup.rle; grep -E '^(population|bounding)' out >a.info
t 0 "$W" info soup.cells; grep -E '^(population|bounding)' out >b.info; same a.info b.info
has soup.cells '^[.O]+$'
t 0 "$W" convert soup.rle soup.rle.gz
if [ "$(head -c 2 soup.rle.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]; then ok; else bad "soup.rle.gz is not gzip"; fi
t 0 "$W" info soup.rle.gz; grep -E '^(population|bounding)' out >c.info; same a.info c.info
for ext in lif mc mc.gz; do
    t 0 "$W" convert soup.rle "soup.$ext"
    t 0 "$W" info "soup.$ext"; grep -E '^(population|bounding)' out >d.info; same a.info d.info
done
t 0 "$W" convert soup.rle life105.txt --format life105
t 0 "$W" info life105.txt; has out '^format life105$'
grep -E '^(population|bounding)' out >e.info; same a.info e.info
t 0 "$W" convert glider.rle hl.rle --rule B36/S23
t 0 "$W" info hl.rle; has out '^rule B36/S23$'
t 0 "$W" convert glider.rle - --format cells
has out '^\.O\.?$'; has out '^\.\.O$'; has out '^OOO$'

# ---- soup: deterministic per seed --------------------------------------------------------
t 0 "$W" soup 64x64 --seed 42; cp out s42a
t 0 "$W" soup 64x64 --seed 42; cp out s42b; same s42a s42b
t 0 "$W" soup 64x64 --seed 43; cp out s43
if cmp -s s42a s43; then bad "seeds 42 and 43 gave the same soup"; else ok; fi
t 0 "$W" soup 64x64 --seed 42 -o s42.rle; same s42a s42.rle
t 0 "$W" soup 30x20 --density 0 --seed 1 -o empty.rle
t 0 "$W" info empty.rle; has out '^population 0$'
t 0 "$W" soup 30x20 --density 1 --seed 1 -o full.rle
t 0 "$W" info full.rle; has out '^population 600$'

# ---- info ------------------------------------------------------------------------------
t 0 "$W" info; has out '^  ref '; has out 'kernels:'; has out 'optional components'
t 0 "$W" info rpent.rle
has out '^format rle$'; has out '^rule B3/S23$'; has out '^population 5$'
has out 'R-pentomino'

# ---- the default job (what `make run` runs) ------------------------------------------
if [ -z "${WL_TEST_QUICK:-}" ]; then
    t 0 "$W" run
    has out '^soup 2048x2048 torus: generation [0-9]+ population [0-9]+'
    has out '^R-pentomino .*generation 1103 population 116,'
fi

# ---- mpirun: one report and one file from a 3-rank job (where mpirun and the mpi engine are)
if command -v mpirun >/dev/null 2>&1 && "$W" info 2>/dev/null | grep -q '^  mpi '; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    t 0 mpirun --oversubscribe -np 3 "$W" run rpent.rle --engine mpi:cpu --threads 1 \
        --torus 64x45 -m 200 -o mpi.rle
    n=$(grep -c '^generation 200 population' out)
    if [ "$n" -eq 1 ]; then ok; else bad "mpirun -np 3 printed $n reports, wanted 1"; fi
    t 0 "$W" run rpent.rle --engine ref --torus 64x45 -m 200 -o ref.rle
    same mpi.rle ref.rle
fi

echo "test_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
