# bench/hashlife_cases.sh - sourced by the HashLife benchmarks: sets `cases` to the suite of
# issue #18 found under $PAT, one "FILE GENERATIONS" string each: the Turing machine and
# every .mc/.mc.gz of $PAT/hashlife to 2^40 (totalperiodic.mc to 2^20: to 2^30 both programs
# pass a minute and 4 GB), and every breeder of $PAT/breeders to 2^40.
G40=1099511627776
cases=()
[ -f "$PAT/circuitry/Turing-Machine-3-state.rle" ] &&
    cases+=("$PAT/circuitry/Turing-Machine-3-state.rle $G40")
for f in "$PAT"/hashlife/*.mc "$PAT"/hashlife/*.mc.gz "$PAT"/breeders/*; do
    [ -f "$f" ] || continue
    case $(basename "$f") in
    totalperiodic.mc) cases+=("$f 1048576") ;;
    *) cases+=("$f $G40") ;;
    esac
done
