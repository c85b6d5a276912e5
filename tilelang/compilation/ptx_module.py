"""Compilation: PTX modules of several specializations joined into one, each entry under its
symbol, so that one cubin (or one PTX file) holds every signature of an export.

Each module is one `.entry` with the kernel's name plus what it uses at module scope: external
declarations (`.extern`, the same in every module, kept as they are: PTX allows repeating them)
and definitions of its own (`.global` data such as printf formats, `.func` helpers), which are
renamed per module so that two modules never define one name.
"""

from __future__ import annotations

import re

from tilelang.errors import TileArgumentValueError, TileInternalError

_HEADER = re.compile(r"^\s*\.(version|target|address_size)\s+([^\n]*?)\s*$", re.M)
# a definition at module scope: `.global .align 1 .b8 name[7] = ...`, `.func (...) name(`
_DEFINED = re.compile(
    r"^(?:\.visible\s+|\.weak\s+)?(?:\.(?:global|const|shared)\b[^;\n=]*?\s(?P<data>[%$\w]+)"
    r"(?:\[\d*\])?\s*(?:=|;)|\.func\s+(?:\([^)]*\)\s*)?(?P<func>[$\w]+))", re.M)
SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def check_symbol(symbol: str) -> str:
    if not SYMBOL.fullmatch(symbol):
        raise TileArgumentValueError(
            f"symbol {symbol!r} is not a valid entry point name",
            hint="use letters, digits and _ (not starting with a digit)")
    return symbol


def rename_entry(ptx: str, entry: str, symbol: str) -> str:
    """`ptx` with its `.entry entry` named `symbol`."""
    renamed, count = re.subn(rf"(\.entry\s+){re.escape(entry)}(?=\s*\()", rf"\g<1>{symbol}", ptx)
    if count != 1:
        raise TileInternalError(f"the PTX has {count} entries named {entry}, expected one")
    return re.sub(rf"(//\s*\.globl\s+){re.escape(entry)}\b", rf"\g<1>{symbol}", renamed)


def join_modules(modules: list[str]) -> str:
    """One PTX module holding the entries of `modules` (each renamed already)."""
    if len(modules) == 1:
        return modules[0]
    headers = [_header(m) for m in modules]
    version = max((h["version"] for h in headers), key=lambda v: tuple(map(int, v.split("."))))
    target = _target([h["target"] for h in headers])
    sizes = {h["address_size"] for h in headers}
    if len(sizes) != 1:
        raise TileInternalError(f"PTX modules with different address sizes {sorted(sizes)}")
    bodies = [_own_names(_body(m), i) for i, m in enumerate(modules)]
    return (f"//\n// {len(modules)} kernels joined by tilelang.compilation\n//\n\n"
            f".version {version}\n.target {target}\n.address_size {sizes.pop()}\n"
            + "\n".join(bodies))


def _header(ptx: str) -> dict[str, str]:
    found = {m.group(1): m.group(2) for m in _HEADER.finditer(ptx)}
    if set(found) != {"version", "target", "address_size"}:
        raise TileInternalError("a PTX module without .version, .target or .address_size")
    return found


def _target(targets: list[str]) -> str:
    """The common target; `sm_90a` when some module needs the architecture's own features."""
    chips = {t.split(",")[0].strip() for t in targets}
    plain = {c.removesuffix("a") for c in chips}
    if len(plain) != 1:
        raise TileInternalError(f"PTX modules for different targets {sorted(chips)}")
    return max(chips, key=len)


def _body(ptx: str) -> str:
    """Everything after the module's header directives."""
    last = max(m.end() for m in _HEADER.finditer(ptx))
    return ptx[last:]


def _own_names(body: str, index: int) -> str:
    """`body` with each name it defines at module scope suffixed by its module's index."""
    if index == 0:
        return body
    for m in list(_DEFINED.finditer(body)):
        name = m.group("data") or m.group("func")
        body = re.sub(rf"(?<![\w$%.]){re.escape(name)}(?![\w$])", f"{name}_m{index}", body)
    return body
