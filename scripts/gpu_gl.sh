#!/usr/bin/env bash
# gpu_gl.sh - runs the CUDA-OpenGL interop test (tests/test_gl_interop.c) on the GPU
# machine, which has no display and no GL libraries: OpenGL comes through EGL from the
# NVIDIA driver, with the GLVND loaders unpacked from the .deb files in .gl/ (see
# docs/ARCHITECTURE.md and the device notes).  Writes its logs under $OUT (default
# ./gpu-out).
#
# usage: scripts/gpu_gl.sh [TEST_BINARY [WARPLIFE_BINARY LIBDIR]]
#   TEST_BINARY  a test_gl_interop built elsewhere (e.g. carried in .dev-gl/); default:
#                build it here (needs the EGL and GL headers, which the GPU machine lacks).
#   WARPLIFE_BINARY LIBDIR  a viewer-enabled warplife and the shared libraries it needs
#                beyond the base system (SDL2 and its dependencies): then the viewer itself
#                runs on SDL's EGL "offscreen" driver, with and without interop (the same
#                screenshots, cell for cell, and the frames per second of both paths).
# Run on the device:  carry [".gl", ".dev-gl"], command
#   "scripts/gpu_gl.sh .dev-gl/test_gl_interop .dev-gl/warplife .dev-gl/lib"
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TEST=${1:+$(readlink -f "$1")}

# GLVND loaders (libEGL, libOpenGL, ...) from .gl/*.deb, unpacked into / as the device
# notes say; the NVIDIA EGL vendor file if the loader finds none by itself.
if ! ldconfig -p | grep -q 'libEGL.so.1 '; then
  for f in "$ROOT"/.gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nv_egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$nv_egl" ] &&
   ! ls /usr/share/glvnd/egl_vendor.d/*nvidia* >/dev/null 2>&1; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nv_egl
fi

echo "device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)" |
  tee "$OUT/gl_summary.txt"

if [ -z "$TEST" ]; then
  BUILD=${WL_GPU_BUILD:-$ROOT/build-gpu-gl}
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWL_ENABLE_CUDA=ON \
    -DWL_ENABLE_OPENCL=OFF -DWL_ENABLE_MPI=OFF -DWL_ENABLE_VIEWER=OFF >"$OUT/gl_build.log" 2>&1 &&
    cmake --build "$BUILD" -j"${WL_GPU_JOBS:-16}" --target test_gl_interop >>"$OUT/gl_build.log" 2>&1 ||
    { tail -30 "$OUT/gl_build.log"; echo "BUILD FAILED" | tee -a "$OUT/gl_summary.txt"; exit 1; }
  TEST=$(find "$BUILD" -name test_gl_interop -type f -perm -u+x | head -1)
fi

(cd "$ROOT/tests" && timeout 300 "$TEST") >"$OUT/gl_test.log" 2>&1
rc=$?
grep -E '^(seed|OpenGL|bench|skipped|test_gl_interop)' "$OUT/gl_test.log" | tee -a "$OUT/gl_summary.txt"
grep -m 20 'check failed' "$OUT/gl_test.log" | tee -a "$OUT/gl_summary.txt"
echo "test_gl_interop exit status $rc" | tee -a "$OUT/gl_summary.txt"

# ---- the viewer on the GPU (optional) -------------------------------------------------------
WL=${2:+$(readlink -f "$2")}
LIBDIR=${3:+$(readlink -f "$3")}
if [ -n "$WL" ]; then
  export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} SDL_VIDEODRIVER=offscreen
  soup="--engine cuda --torus 4096x4096 --soup 0.3 --seed 7"
  # The same paused frame through interop and through uploads: every pixel above the status
  # line (whose text and panel differ) must match.
  for z in 2 0 -2; do
    for mode in interop upload; do
      env $([ $mode = upload ] && echo WL_VIEW_NO_INTEROP=1) timeout 60 "$WL" view $soup \
        --size 1280x720 --zoom $z --frames 3 --window --screenshot "$OUT/v_${mode}_$z.ppm" \
        >"$OUT/v_${mode}_$z.log" 2>&1 || { echo "viewer $mode zoom $z failed:"; tail -5 "$OUT/v_${mode}_$z.log"; rc=1; }
    done
    python3 - "$OUT/v_interop_$z.ppm" "$OUT/v_upload_$z.ppm" $z <<'PY' | tee -a "$OUT/gl_summary.txt" || rc=1
import re, sys
def ppm(p):
    d = open(p, 'rb').read()
    m = re.match(rb'P6\s+(\d+)\s+(\d+)\s+\d+\s', d)
    return int(m.group(1)), int(m.group(2)), d[m.end():]
(w, h, a), (w2, h2, b) = ppm(sys.argv[1]), ppm(sys.argv[2])
keep = h - 40  # the status line's panel is the bottom LINE_H (< 40) rows
bad = sum(1 for i in range(0, w * keep * 3, 3) if a[i:i+3] != b[i:i+3])
print("viewer zoom %s: interop vs upload, %d of %d pixels above the status line differ" % (sys.argv[3], bad, w * keep))
sys.exit(1 if bad or (w, h) != (w2, h2) else 0)
PY
  done
  rm -f "$OUT"/v_*.ppm
  # Frames per second of both paths while running (one generation per frame).
  for z in 0 -1; do
    for mode in interop upload; do
      env $([ $mode = upload ] && echo WL_VIEW_NO_INTEROP=1) timeout 120 "$WL" view $soup \
        --size 1920x1080 --zoom $z --run --frames 600 --window >"$OUT/v_bench_${mode}_$z.log" 2>&1
      echo "viewer bench $mode zoom $z: $(grep -E '^(frames|window|ms per)' "$OUT/v_bench_${mode}_$z.log" | tr '\n' ' ')" |
        tee -a "$OUT/gl_summary.txt"
    done
  done
fi
echo "gpu_gl.sh exit status $rc" | tee -a "$OUT/gl_summary.txt"
exit $rc
