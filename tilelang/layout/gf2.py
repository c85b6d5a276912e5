"""Linear algebra over GF(2) on bit vectors stored as Python ints (bit i is row i)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class Echelon:
    """Incremental echelon basis that remembers which inputs each row is built from.

    Rows are keyed by their leading (highest) bit, so a vector is reduced by
    repeatedly cancelling its leading bit; it lies in the span iff it reduces to 0.
    """

    __slots__ = ("_rows",)

    def __init__(self) -> None:
        # leading bit -> (row vector, mask of the input indices XORed into it)
        self._rows: dict[int, tuple[int, int]] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def reduce(self, vector: int) -> tuple[int, int]:
        """Return (rest, combo) with vector == rest ^ XOR of the inputs selected by combo."""
        combo = 0
        while vector:
            row = self._rows.get(vector.bit_length() - 1)
            if row is None:
                break
            vector ^= row[0]
            combo ^= row[1]
        return vector, combo

    def add(self, vector: int, index: int) -> bool:
        """Add input number `index`; return False if it is already in the span."""
        rest, combo = self.reduce(vector)
        if rest == 0:
            return False
        self._rows[rest.bit_length() - 1] = (rest, combo ^ (1 << index))
        return True


def dependent_flags(vectors: Sequence[int]) -> tuple[bool, ...]:
    """For each vector, whether it lies in the span of the vectors before it."""
    echelon = Echelon()
    return tuple(not echelon.add(v, i) for i, v in enumerate(vectors))


def rank(vectors: Iterable[int]) -> int:
    """Dimension of the span of the vectors."""
    echelon = Echelon()
    for i, v in enumerate(vectors):
        echelon.add(v, i)
    return len(echelon)


def _echelon_of(vectors: Sequence[int]) -> Echelon:
    echelon = Echelon()
    for i, v in enumerate(vectors):
        echelon.add(v, i)
    return echelon


def solve(vectors: Sequence[int], target: int) -> int | None:
    """Mask of vectors whose XOR is target, or None if target is outside the span.

    Only vectors independent of their predecessors are used, which makes the
    answer unique (the canonical solution).
    """
    rest, combo = _echelon_of(vectors).reduce(target)
    return combo if rest == 0 else None


def matvec(columns: Sequence[int], x: int) -> int:
    """XOR of the columns selected by the set bits of x."""
    out = 0
    k = 0
    while x:
        if x & 1:
            out ^= columns[k]
        x >>= 1
        k += 1
    return out


def matmul(outer: Sequence[int], inner: Sequence[int]) -> tuple[int, ...]:
    """Columns of the composition outer . inner (apply inner first)."""
    return tuple(matvec(outer, c) for c in inner)


def pseudo_inverse(columns: Sequence[int], out_bits: int) -> tuple[int, ...]:
    """Right inverse R of a surjective matrix M (M . R == identity on out_bits bits).

    Column i of R is the canonical solution of M x == e_i. Raises ValueError when
    M is not surjective.
    """
    echelon = _echelon_of(columns)
    result = []
    for i in range(out_bits):
        rest, combo = echelon.reduce(1 << i)
        if rest:
            raise ValueError(f"matrix is not surjective: bit {i} is not reachable")
        result.append(combo)
    return tuple(result)


def inverse(columns: Sequence[int], bits: int) -> tuple[int, ...]:
    """Inverse of a square bits x bits matrix; ValueError if it is singular."""
    if len(columns) != bits or any(c >> bits for c in columns):
        raise ValueError(f"matrix is not {bits}x{bits}")
    if rank(columns) != bits:
        raise ValueError("matrix is singular")
    return pseudo_inverse(columns, bits)
