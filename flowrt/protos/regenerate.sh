#!/bin/sh
# Regenerates the checked-in *_pb2.py from the .proto files beside this script.
# Needs grpcio-tools (pip install -e '.[dev]'); its bundled protoc sets the minimum
# protobuf runtime (see the protobuf pin in pyproject.toml; raise both together).
set -e
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. flowrt/protos/*.proto
