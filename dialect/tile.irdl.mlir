// The `tile` dialect: block-level array programs over tiles (see dialect/README.md).
//
// Tiles are builtin ranked tensors (`tensor<64x64xf16>`); after layout assignment they carry a
// `#tile.layout<"...">` encoding. Scalars are plain builtin scalars (`i32`, `f32`, `i1`, ...).
// Integer types are signless for signed integers and `ui8`..`ui64` for unsigned ones, so every
// value's type says exactly how it behaves. Arrays are `!tile.array<elem, strides, align>`.
// Control flow is upstream `scf` (for / if / while); constants are `tile.constant` because
// `arith.constant` rejects unsigned types.
//
// IRDL ties types through shared constraint values: an element-wise op whose operands and result
// use one constraint `%t` must have identical operand and result types (shape, element, layout).
// IRDL ops print in generic form only, have no folders and no side-effect information: cleanups
// are Python passes in tilelang/passes/.

irdl.dialect @tile {
  // ----- types and attributes ------------------------------------------------------------------

  // A global-memory array argument. `strides` holds, per dimension, 1 where the stride is known
  // to be 1 (unit stride) and -1 where it is dynamic; `align` is the byte alignment known for the
  // base pointer and for every dynamic stride in bytes (1, 2, 4, 8 or 16).
  irdl.type @array {
    %elem = irdl.any
    %strides = irdl.base "#builtin.dense_array"
    %align = irdl.base "#builtin.integer"
    irdl.parameters(elem: %elem, strides: %strides, align: %align)
  }

  // float8_e5m3fnu (`!tile.f8e5m3fnu`), which MLIR has no builtin type for: 5 exponent bits (bias 15), 3 mantissa
  // bits, no sign; 0x00 is zero, 0x01-0x07 subnormals (m * 2**-17), 0xFF NaN, no infinity; the
  // largest value 0xFE is 114688 (tilelang/dialect/restricted.py has its meaning).
  irdl.type @f8e5m3fnu {
    irdl.parameters()
  }

  // Thread layout of a tile: which (warp, lane, register) holds which element, as the text form
  // of a linear layout (tilelang/layout/text.py).
  irdl.attribute @layout {
    %text = irdl.base "#builtin.string"
    irdl.parameters(text: %text)
  }

  // ----- grid ----------------------------------------------------------------------------------

  irdl.operation @bid {
    %axis = irdl.base "#builtin.integer"
    %i32 = irdl.is i32
    irdl.attributes { "axis" = %axis }
    irdl.results(result: %i32)
  }

  irdl.operation @num_blocks {
    %axis = irdl.base "#builtin.integer"
    %i32 = irdl.is i32
    irdl.attributes { "axis" = %axis }
    irdl.results(result: %i32)
  }

  // ----- arrays --------------------------------------------------------------------------------

  irdl.operation @dim {
    %array = irdl.base @tile::@array
    %d = irdl.base "#builtin.integer"
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i = irdl.any_of(%i32, %i64)
    irdl.operands(array: %array)
    irdl.attributes { "dim" = %d }
    irdl.results(result: %i)
  }

  irdl.operation @stride {
    %array = irdl.base @tile::@array
    %d = irdl.base "#builtin.integer"
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i = irdl.any_of(%i32, %i64)
    irdl.operands(array: %array)
    irdl.attributes { "dim" = %d }
    irdl.results(result: %i)
  }

  // A 0-d array loads (and stores) a scalar.
  irdl.operation @load {
    %array = irdl.base @tile::@array
    %index = irdl.any
    %tile = irdl.any
    %order = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.string"
    irdl.operands(array: %array, index: variadic %index)
    irdl.attributes { "order" = %order, "padding_mode" = %padding }
    irdl.results(result: %tile)
  }

  irdl.operation @store {
    %array = irdl.base @tile::@array
    %index = irdl.any
    %tile = irdl.any
    %order = irdl.base "#builtin.dense_array"
    irdl.operands(array: %array, index: variadic %index, tile: %tile)
    irdl.attributes { "order" = %order }
    irdl.results()
  }

  // ----- creation ------------------------------------------------------------------------------

  irdl.operation @constant {
    %value = irdl.any
    %type = irdl.any
    irdl.attributes { "value" = %value }
    irdl.results(result: %type)
  }

  irdl.operation @splat {
    %scalar = irdl.any
    %tile = irdl.base "!builtin.tensor"
    irdl.operands(value: %scalar)
    irdl.results(result: %tile)
  }

  irdl.operation @arange {
    %tile = irdl.base "!builtin.tensor"
    irdl.results(result: %tile)
  }

  // ----- shape ---------------------------------------------------------------------------------

  irdl.operation @broadcast {
    %src = irdl.base "!builtin.tensor"
    %dst = irdl.base "!builtin.tensor"
    irdl.operands(source: %src)
    irdl.results(result: %dst)
  }

  // A one-element tile reshaped to () is a scalar.
  irdl.operation @reshape {
    %src = irdl.base "!builtin.tensor"
    %dst = irdl.any
    irdl.operands(source: %src)
    irdl.results(result: %dst)
  }

  irdl.operation @convert_layout {
    %src = irdl.base "!builtin.tensor"
    %dst = irdl.base "!builtin.tensor"
    irdl.operands(source: %src)
    irdl.results(result: %dst)
  }

  // ----- element-wise: binary, same type in and out --------------------------------------------

  irdl.operation @add { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @sub { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @mul { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @div { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @floordiv { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @mod { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @pow { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @minimum { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @maximum { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @and { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @or { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @xor { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @shl { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @shr { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }
  irdl.operation @atan2 { %t = irdl.any  irdl.operands(lhs: %t, rhs: %t)  irdl.results(result: %t) }

  // ----- element-wise: unary, same type in and out ---------------------------------------------

  irdl.operation @neg { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @invert { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @abs { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @exp { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @exp2 { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @log { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @log2 { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @sqrt { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @rsqrt { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @sin { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @cos { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @tan { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @sinh { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @cosh { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @tanh { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @floor { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }
  irdl.operation @ceil { %t = irdl.any  irdl.operands(x: %t)  irdl.results(result: %t) }

  // ----- element-wise: predicates, selection, conversion ---------------------------------------

  irdl.operation @isnan {
    %t = irdl.any
    %b = irdl.any
    irdl.operands(x: %t)
    irdl.results(result: %b)
  }

  irdl.operation @cmp {
    %t = irdl.any
    %b = irdl.any
    %pred = irdl.base "#builtin.string"
    irdl.operands(lhs: %t, rhs: %t)
    irdl.attributes { "predicate" = %pred }
    irdl.results(result: %b)
  }

  irdl.operation @select {
    %c = irdl.any
    %t = irdl.any
    irdl.operands(cond: %c, if_true: %t, if_false: %t)
    irdl.results(result: %t)
  }

  irdl.operation @cast {
    %src = irdl.any
    %dst = irdl.any
    irdl.operands(x: %src)
    irdl.results(result: %dst)
  }

  // ----- reductions and scans ------------------------------------------------------------------
  // Both take one to four tiles of one shape and a combiner region: one block whose 2N scalar
  // arguments are two groups of N values (the earlier group first), ending in `gpu.yield` of the
  // N combined scalars (IRDL ops cannot be terminators). `identities` holds one typed attribute
  // per input: the combiner's identity, which fills padding elements. The inputs are separate
  // optional operands (with `operandSegmentSizes` / `resultSegmentSizes`) because IRDL ties the
  // types of all values of one variadic group together, and the inputs may differ in dtype.

  // Combines the inputs along `axes` (sorted, distinct). Each result has the input shape with
  // the reduced axes set to 1 (keepdims form; the front end reshapes it further).
  irdl.operation @reduce {
    %a = irdl.any
    %b = irdl.any
    %c = irdl.any
    %d = irdl.any
    %ra = irdl.any
    %rb = irdl.any
    %rc = irdl.any
    %rd = irdl.any
    %axes = irdl.base "#builtin.dense_array"
    %ids = irdl.base "#builtin.array"
    %body = irdl.region with size 1
    irdl.operands(in0: %a, in1: optional %b, in2: optional %c, in3: optional %d)
    irdl.attributes { "axes" = %axes, "identities" = %ids }
    irdl.regions(combiner: %body)
    irdl.results(out0: %ra, out1: optional %rb, out2: optional %rc, out3: optional %rd)
  }

  // Inclusive prefix combination along `axis` (from the end when `reverse` is 1).
  irdl.operation @scan {
    %a = irdl.any
    %b = irdl.any
    %c = irdl.any
    %d = irdl.any
    %ra = irdl.any
    %rb = irdl.any
    %rc = irdl.any
    %rd = irdl.any
    %axis = irdl.base "#builtin.integer"
    %reverse = irdl.base "#builtin.integer"
    %ids = irdl.base "#builtin.array"
    %body = irdl.region with size 1
    irdl.operands(in0: %a, in1: optional %b, in2: optional %c, in3: optional %d)
    irdl.attributes { "axis" = %axis, "reverse" = %reverse, "identities" = %ids }
    irdl.regions(combiner: %body)
    irdl.results(out0: %ra, out1: optional %rb, out2: optional %rc, out3: optional %rd)
  }

  // ----- array views ---------------------------------------------------------------------------

  // A view of `array` restricted to [start, stop) along dimension `axis`: same strides, base
  // advanced by start * stride(axis), extent stop - start. The result type's alignment must hold
  // for the moved base pointer (the front end lowers it when `start` is not a known multiple).
  irdl.operation @slice {
    %array = irdl.base @tile::@array
    %bound = irdl.any
    %axis = irdl.base "#builtin.integer"
    %result = irdl.base @tile::@array
    irdl.operands(array: %array, start: %bound, stop: %bound)
    irdl.attributes { "axis" = %axis }
    irdl.results(result: %result)
  }

  // One of `arrays` (all of the result's type), chosen by the run-time `index` (0 picks the
  // first): `xs[i]` on a list-of-arrays parameter. An index outside the list is undefined.
  irdl.operation @array_select {
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i = irdl.any_of(%i32, %i64)
    %array = irdl.base @tile::@array
    irdl.operands(index: %i, arrays: variadic %array)
    irdl.results(result: %array)
  }

  // The array with its dimensions permuted: result dimension k is the array's dimension
  // order[k] (its extent, stride and unit-stride fact); the same memory and base pointer.
  irdl.operation @array_permute {
    %array = irdl.base @tile::@array
    %order = irdl.base "#builtin.dense_array"
    %result = irdl.base @tile::@array
    irdl.operands(array: %array)
    irdl.attributes { "order" = %order }
    irdl.results(result: %result)
  }

  // The array's memory as a 1-d array of unit stride starting at its base pointer, for accesses
  // by element offset (`Array.get_raw_memory`): every offset from 0 up is in bounds.
  irdl.operation @raw_view {
    %array = irdl.base @tile::@array
    %result = irdl.base @tile::@array
    irdl.operands(array: %array)
    irdl.results(result: %result)
  }

  // ----- gather, scatter and atomics -----------------------------------------------------------
  // Element-wise accesses at computed positions: `indices` holds one integer tile per array
  // dimension, all of one type and of the op's shape (the front end broadcasts them). An index
  // that is negative or not below the extent is out of bounds; with `check_bounds` true such
  // elements are never accessed (with false the front end promises there are none).

  // Reads `array[indices...]` where `mask` is true and the index is in bounds, else `padding`.
  irdl.operation @gather {
    %array = irdl.base @tile::@array
    %index = irdl.any
    %mask = irdl.any
    %t = irdl.any
    %check = irdl.base "#builtin.integer"
    irdl.operands(array: %array, indices: variadic %index, mask: %mask, padding: %t)
    irdl.attributes { "check_bounds" = %check }
    irdl.results(result: %t)
  }

  // Writes `value` to `array[indices...]` where `mask` is true and the index is in bounds.
  irdl.operation @scatter {
    %array = irdl.base @tile::@array
    %index = irdl.any
    %t = irdl.any
    %mask = irdl.any
    %check = irdl.base "#builtin.integer"
    irdl.operands(array: %array, indices: variadic %index, value: %t, mask: %mask)
    irdl.attributes { "check_bounds" = %check }
  }

  // Atomic read-modify-write (`kind`: xchg, add, max, min, and, or, xor) of each element;
  // returns the old values (0 where out of bounds).
  irdl.operation @atomic_rmw {
    %array = irdl.base @tile::@array
    %index = irdl.any
    %t = irdl.any
    %kind = irdl.base "#builtin.string"
    %order = irdl.base "#builtin.string"
    %scope = irdl.base "#builtin.string"
    %check = irdl.base "#builtin.integer"
    irdl.operands(array: %array, indices: variadic %index, update: %t)
    irdl.attributes { "kind" = %kind, "memory_order" = %order, "memory_scope" = %scope,
                      "check_bounds" = %check }
    irdl.results(result: %t)
  }

  // Atomic compare-and-swap of each element; returns the old values (`expected` where out of
  // bounds).
  irdl.operation @atomic_cas {
    %array = irdl.base @tile::@array
    %index = irdl.any
    %t = irdl.any
    %order = irdl.base "#builtin.string"
    %scope = irdl.base "#builtin.string"
    %check = irdl.base "#builtin.integer"
    irdl.operands(array: %array, indices: variadic %index, expected: %t, desired: %t)
    irdl.attributes { "memory_order" = %order, "memory_scope" = %scope, "check_bounds" = %check }
    irdl.results(result: %t)
  }

  // ----- tile shape ops: permute, cat, extract, insert, bitcast ----------------------------------

  // numpy.transpose(source, axes): result dim i is source dim axes[i].
  irdl.operation @permute {
    %src = irdl.base "!builtin.tensor"
    %dst = irdl.base "!builtin.tensor"
    %axes = irdl.base "#builtin.dense_array"
    irdl.operands(source: %src)
    irdl.attributes { "axes" = %axes }
    irdl.results(result: %dst)
  }

  // Two tiles of one shape and element type, concatenated along `axis`.
  irdl.operation @cat {
    %t = irdl.base "!builtin.tensor"
    %dst = irdl.base "!builtin.tensor"
    %axis = irdl.base "#builtin.integer"
    irdl.operands(lhs: %t, rhs: %t)
    irdl.attributes { "axis" = %axis }
    irdl.results(result: %dst)
  }

  // The sub-tile of the result's shape at `index` (one integer scalar per dim, in units of
  // sub-tiles): elements index[k] * shape[k] ... (index[k] + 1) * shape[k] - 1 along dim k.
  irdl.operation @extract {
    %src = irdl.base "!builtin.tensor"
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i = irdl.any_of(%i32, %i64)
    %dst = irdl.base "!builtin.tensor"
    irdl.operands(source: %src, index: variadic %i)
    irdl.results(result: %dst)
  }

  // `dest` with the sub-tile at `index` (as for tile.extract) replaced by `value`.
  irdl.operation @insert {
    %t = irdl.base "!builtin.tensor"
    %v = irdl.base "!builtin.tensor"
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i = irdl.any_of(%i32, %i64)
    irdl.operands(dest: %t, value: %v, index: variadic %i)
    irdl.results(result: %t)
  }

  // The same bits read as another element type of the same width (never i1).
  irdl.operation @bitcast {
    %src = irdl.any
    %dst = irdl.any
    irdl.operands(x: %src)
    irdl.results(result: %dst)
  }

  // ----- matrix products -----------------------------------------------------------------------

  // a @ b + acc in acc's type. 2-d: a MxK, b KxN, acc MxN; 3-d: a BxMxK, b BxKxN, acc BxMxN
  // (one batch size B: the front end broadcasts). The element types of a and b are equal (int8
  // and uint8 may be mixed); which accumulator each allows is in dialect/README.md. An optional
  // `use_fast_acc = true` (fp8 inputs only) permits a less precise accumulation.
  irdl.operation @mma {
    %a = irdl.base "!builtin.tensor"
    %b = irdl.base "!builtin.tensor"
    %t = irdl.base "!builtin.tensor"
    irdl.operands(a: %a, b: %b, acc: %t)
    irdl.results(result: %t)
  }

  // ----- hints and launch control --------------------------------------------------------------

  // `x` itself (an integer scalar), which the program asserts is a multiple of `divisor` (a
  // positive integer): alignment facts derive from it (an array slice starting there). A false
  // claim is undefined behaviour on the GPU; the interpreter checks it.
  irdl.operation @assume_div_by {
    %t = irdl.any
    %divisor = irdl.base "#builtin.integer"
    irdl.operands(x: %t)
    irdl.attributes { "divisor" = %divisor }
    irdl.results(result: %t)
  }

  // Programmatic dependent launch: wait until the grids this launch depends on have completed
  // and their writes are visible (PTX griddepcontrol.wait on sm_90; nothing before sm_90).
  irdl.operation @grid_dependency_control_wait {
  }

  // Programmatic dependent launch: let the dependent grid start before this one completes
  // (PTX griddepcontrol.launch_dependents on sm_90; nothing before sm_90).
  irdl.operation @grid_dependency_control_launch_dependents {
  }

  // ----- debugging -------------------------------------------------------------------------------

  // Prints `format` (C printf text; each conversion takes the next operand, a scalar or a tile
  // printed as a nested list, see tilelang/dialect/printing.py) once per block. Up to 16
  // operands, in slots v0..v15 filled in order (`operandSegmentSizes`); IRDL ties the types of
  // a variadic's values, so each slot has its own constraint.
  irdl.operation @print {
    %format = irdl.base "#builtin.string"
    %v0 = irdl.any  %v1 = irdl.any  %v2 = irdl.any  %v3 = irdl.any
    %v4 = irdl.any  %v5 = irdl.any  %v6 = irdl.any  %v7 = irdl.any
    %v8 = irdl.any  %v9 = irdl.any  %v10 = irdl.any  %v11 = irdl.any
    %v12 = irdl.any  %v13 = irdl.any  %v14 = irdl.any  %v15 = irdl.any
    irdl.operands(
      v0: optional %v0, v1: optional %v1, v2: optional %v2, v3: optional %v3,
      v4: optional %v4, v5: optional %v5, v6: optional %v6, v7: optional %v7,
      v8: optional %v8, v9: optional %v9, v10: optional %v10, v11: optional %v11,
      v12: optional %v12, v13: optional %v13, v14: optional %v14, v15: optional %v15)
    irdl.attributes { "format" = %format }
  }

  // Stops the kernel with `message` when `cond` is false (the front end reduces a bool tile to
  // this one scalar).
  irdl.operation @assert {
    %i1 = irdl.is i1
    %message = irdl.base "#builtin.string"
    irdl.operands(cond: %i1)
    irdl.attributes { "message" = %message }
  }
}
