#!/usr/bin/env bash
# gpu_gl.sh - runs the CUDA-OpenGL interop test (tests/test_gl_interop.c) on the GPU
# machine, which has no display and no GL libraries: OpenGL comes through EGL from the
# NVIDIA driver, with the GLVND loaders unpacked from the .deb files in .gl/ (see
# docs/ARCHITECTURE.md and the device notes).  Writes its logs under $OUT (default
# ./gpu-out).
#
# usage: scripts/gpu_gl.sh [TEST_BINARY]
#   TEST_BINARY  a test_gl_interop built elsewhere (e.g. carried in .dev-gl/); default:
#                build it here (needs the EGL and GL headers, which the GPU machine lacks).
# Run on the device:  carry [".gl", ".dev-gl"], command "scripts/gpu_gl.sh .dev-gl/test_gl_interop"
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
exit $rc
