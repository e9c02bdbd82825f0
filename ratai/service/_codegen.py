"""Regenerate the committed protobuf modules from ``proto/ratai/v1/ratai.proto``.

``python -m ratai.service._codegen`` writes ``ratai_pb2.py``, ``ratai_pb2.pyi`` and
``ratai_pb2_grpc.py`` next to this file. The generated stub imports ``ratai.v1.ratai_pb2``
(the proto's package path), which is rewritten to a relative import, and the messages'
module name to ``ratai.service.ratai_pb2``, so the modules live in ``ratai.service`` and nothing
refers to a ``ratai.v1`` module (which a regular install of ``ratai`` would shadow).
``tests/service/test_svc_codegen.py`` checks that the committed modules are current (same
descriptor as a fresh compile of the ``.proto``).
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PROTO_DIR = ROOT / "proto"
PROTO = "ratai/v1/ratai.proto"


def _protoc(args: list[str]) -> None:
    import grpc_tools
    from grpc_tools import protoc

    include = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    code = protoc.main(["grpc_tools.protoc", f"-I{PROTO_DIR}", f"-I{include}", *args, PROTO])
    if code != 0:
        raise RuntimeError(f"protoc failed with exit code {code}")


def descriptor_set() -> bytes:
    """The ``FileDescriptorProto`` bytes of a fresh compile of the ``.proto``."""
    from google.protobuf import descriptor_pb2

    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "set.pb"
        _protoc([f"--descriptor_set_out={out}"])
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return normalized(fds.file[0].SerializeToString())


def normalized(serialized: bytes) -> bytes:
    """A FileDescriptorProto without ``json_name`` (``--python_out`` omits it)."""
    from google.protobuf import descriptor_pb2

    fd = descriptor_pb2.FileDescriptorProto.FromString(serialized)

    def strip(messages) -> None:
        for m in messages:
            for f in m.field:
                f.ClearField("json_name")
            strip(m.nested_type)

    strip(fd.message_type)
    return fd.SerializeToString(deterministic=True)


def generate(out_dir: pathlib.Path = HERE) -> None:
    """Compile the ``.proto`` into ``out_dir`` (the package directory by default)."""
    with tempfile.TemporaryDirectory() as tmp:
        _protoc([f"--python_out={tmp}", f"--pyi_out={tmp}", f"--grpc_python_out={tmp}"])
        gen = pathlib.Path(tmp) / "ratai" / "v1"
        for name in ("ratai_pb2.py", "ratai_pb2.pyi", "ratai_pb2_grpc.py"):
            text = (gen / name).read_text()
            text = text.replace("from ratai.v1 import ratai_pb2 as", "from . import ratai_pb2 as")
            # the messages' __module__ (pickling, repr) names the real module, not ratai.v1
            text = text.replace("'ratai.v1.ratai_pb2'", "'ratai.service.ratai_pb2'")
            text = text.replace("ratai/v1/ratai_pb2_grpc.py", "ratai/service/ratai_pb2_grpc.py")
            (out_dir / name).write_text("# ruff: noqa\n" + text)


if __name__ == "__main__":
    generate(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
