#!/usr/bin/env bash
# Installs what the tests need beyond node_modules (run by `npm test` through the `pretest` hook):
# Debian's Chromium (browser end-to-end tests; WebGPU runs on its SwiftShader) and the Vulkan loader
# libvulkan1 (the `webgpu` npm package's Dawn loads SwiftShader's Vulkan driver through it in Node).
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' || need+=(libvulkan1)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
  echo "tests need the Debian packages: ${need[*]} — install them as root: apt-get install -y ${need[*]}" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
echo "installing ${need[*]} (Debian packages the tests need)..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
