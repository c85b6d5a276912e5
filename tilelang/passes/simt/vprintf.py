"""Passes (simt): calls of CUDA's device-side `vprintf(format, args)`.

The format is a global constant string; the arguments are stored, each at its natural alignment
(as C's variadic arguments), in a 256-byte local buffer allocated once per kernel at its entry,
so any number of calls share one buffer (a `gpu.printf` per call would allocate one each). CUDA's
printf takes at most 32 arguments (32 x 8 bytes): longer text is printed by several calls.
"""

from __future__ import annotations

import weakref

import mlir.ir as ir
from mlir.dialects import llvm

from tilelang.passes.simt.context import Lowering

MAX_ARGS = 32
BUFFER_BYTES = MAX_ARGS * 8
FORMAT_PREFIX = "__tile_printf_"

_buffers: weakref.WeakKeyDictionary[Lowering, ir.Value] = weakref.WeakKeyDictionary()


class Printer:
    """Collects format text and promoted arguments (i32, i64 or f64) of one output line."""

    def __init__(self, lw: Lowering):
        self.lw = lw
        self.format: list[str] = []
        self.args: list[ir.Value] = []

    def text(self, text: str) -> None:
        self.format.append(text.replace("%", "%%"))

    def argument(self, conversion: str, value: ir.Value) -> None:
        if len(self.args) == MAX_ARGS:
            self.flush()
        self.format.append(conversion)
        self.args.append(value)

    def flush(self) -> None:
        if self.format:
            call_vprintf(self.lw, "".join(self.format), self.args)
        self.format, self.args = [], []


def call_vprintf(lw: Lowering, fmt: str, args: list[ir.Value]) -> None:
    """Emit `vprintf(fmt, buffer)` with `args` stored in the kernel's buffer."""
    buffer = _buffer(lw)
    offset = 0
    for value in args:
        size = value.type.width // 8 if isinstance(value.type, ir.IntegerType) else 8
        offset = -(-offset // size) * size
        slot = llvm.GEPOp(buffer.type, buffer, [], ir.DenseI32ArrayAttr.get([offset]),
                          ir.IntegerType.get_signless(8), ir.IntegerAttr.get(
                              ir.IntegerType.get_signless(32), 0)).result
        llvm.store(value, slot)
        offset += size
    module = _gpu_module()
    _declare_vprintf(module)
    text = llvm.AddressOfOp(ir.Type.parse("!llvm.ptr"), _format_global(module, fmt)).result
    llvm.call(ir.IntegerType.get_signless(32), [text, buffer], [], ir.DenseI32ArrayAttr.get([]),
              callee=ir.FlatSymbolRefAttr.get("vprintf"))


def _buffer(lw: Lowering) -> ir.Value:
    """The kernel's argument buffer, allocated at its entry (a static stack slot)."""
    if lw not in _buffers:
        entry = _enclosing("gpu.func").regions[0].blocks[0]
        with ir.InsertionPoint.at_block_begin(entry), ir.Location.unknown():
            one = llvm.ConstantOp(ir.IntegerType.get_signless(64),
                                  ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)).result
            array = ir.Type.parse(f"!llvm.array<{BUFFER_BYTES} x i8>")
            _buffers[lw] = llvm.alloca(ir.Type.parse("!llvm.ptr"), one, ir.TypeAttr.get(array),
                                       alignment=8)
    return _buffers[lw]


def _enclosing(name: str) -> ir.Operation:
    op = ir.InsertionPoint.current.block.owner.operation
    while op.name != name:
        op = op.parent
    return op


def _gpu_module() -> ir.Block:
    return _enclosing("gpu.module").regions[0].blocks[0]


def _symbols(module: ir.Block) -> dict[str, ir.Operation]:
    found = {}
    for op in module.operations:
        if "sym_name" in op.attributes:
            found[ir.StringAttr(op.attributes["sym_name"]).value] = op.operation
    return found


def _declare_vprintf(module: ir.Block) -> None:
    if "vprintf" not in _symbols(module):
        _insert(module, "llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32")


def _format_global(module: ir.Block, fmt: str) -> str:
    """The name of a global holding `fmt` and a terminating NUL (one per distinct format)."""
    data = fmt.encode() + b"\0"
    symbols = _symbols(module)
    formats = [name for name in symbols if name.startswith(FORMAT_PREFIX)]
    for name in formats:
        if ir.StringAttr(symbols[name].attributes["value"]).value_bytes == data:
            return name
    name = f"{FORMAT_PREFIX}{len(formats)}"
    escaped = "".join(f"\\{b:02X}" for b in data)
    _insert(module, f'llvm.mlir.global internal constant @{name}("{escaped}") '
                    f"{{addr_space = 0 : i32}} : !llvm.array<{len(data)} x i8>")
    return name


def _insert(module: ir.Block, text: str) -> None:
    with ir.Location.unknown():
        op = ir.Operation.parse(text)
    ir.InsertionPoint.at_block_begin(module).insert(op)
