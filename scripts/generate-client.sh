#!/usr/bin/env bash
# A client of a2a-hub in another language, generated from proto/ with buf.
# Usage: scripts/generate-client.sh python|go [BASE_DIR]   (writes BASE_DIR/<lang>, default clients/<lang>)
# Plugins come from Debian (apt-get install protobuf-compiler protobuf-compiler-grpc
# for Python; golang-go golang-google-protobuf-dev protoc-gen-go-grpc for Go).
set -euo pipefail
lang=${1:?usage: generate-client.sh python|go [BASE_DIR]}
base=${2:-clients}
root=$(cd "$(dirname "$0")/.." && pwd)
need() { command -v "$1" >/dev/null || { echo "generate-client: $1 not found: $2" >&2; exit 1; }; }
case "$lang" in
  python)
    need protoc "apt-get install protobuf-compiler"
    need grpc_python_plugin "apt-get install protobuf-compiler-grpc"
    ;;
  go)
    need protoc-gen-go-grpc "apt-get install protoc-gen-go-grpc"
    if ! command -v protoc-gen-go >/dev/null; then
      # Debian ships protoc-gen-go only as source (golang-google-protobuf-dev): build it once, offline.
      bin="$root/node_modules/.cache/a2a-hub/bin"
      if [ ! -x "$bin/protoc-gen-go" ]; then
        need go "apt-get install golang-go golang-google-protobuf-dev"
        [ -d /usr/share/gocode/src/google.golang.org/protobuf/cmd/protoc-gen-go ] ||
          { echo "generate-client: protoc-gen-go not found: apt-get install golang-google-protobuf-dev, or go install google.golang.org/protobuf/cmd/protoc-gen-go" >&2; exit 1; }
        mkdir -p "$bin"
        GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE="${GOCACHE:-$root/node_modules/.cache/a2a-hub/go-build}" \
          go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
      fi
      export PATH="$bin:$PATH"
    fi
    ;;
  *) echo "generate-client: unknown language '$lang' (python or go)" >&2; exit 2 ;;
esac
mkdir -p "$base"
base=$(cd "$base" && pwd)
cd "$root"
"$root/node_modules/.bin/buf" generate --template "buf.gen.$lang.yaml" -o "$base"
echo "generate-client: $lang client in $base/$lang"
