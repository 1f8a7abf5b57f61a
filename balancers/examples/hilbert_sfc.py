"""A Hilbert space-filling-curve partition, as a user writes a strategy in Python for
lbbench's `python` balancer:

    balancer: {name: python, params: {module: hilbert_sfc.py, function: solve}}

The objects are ordered along the Hilbert curve through their coordinates (Skilling's
transpose algorithm, "Programming the Hilbert curve", AIP Conf. Proc. 707, 2004), and the
curve is cut into one contiguous piece per rank, each with the load its rank's speed asks
for. Load that never moves (a recorded run's pinned objects) is left out of the cut.
"""
import numpy as np


def hilbert_index(coords, bits=16):
    """Each point's position along the Hilbert curve of a 2**bits grid over their bounding box."""
    coords = np.asarray(coords, dtype=np.float64)
    n, d = coords.shape
    if bits * d > 64:
        raise ValueError(f"{bits} bits in {d} dimensions do not fit a 64-bit index")
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    top = (1 << bits) - 1
    x = np.rint((coords - lo) / span * top).astype(np.uint64)
    one = np.uint64(1)
    # Axes to transpose: undo the curve's rotations from the coarsest bit down.
    q = one << np.uint64(bits - 1)
    while q > one:
        p = q - one
        for i in range(d):
            high = (x[:, i] & q) != 0
            x[high, 0] ^= p
            low = ~high
            t = (x[low, 0] ^ x[low, i]) & p
            x[low, 0] ^= t
            x[low, i] ^= t
        q >>= one
    # Gray encode.
    for i in range(1, d):
        x[:, i] ^= x[:, i - 1]
    t = np.zeros(n, dtype=np.uint64)
    q = one << np.uint64(bits - 1)
    while q > one:
        t[(x[:, d - 1] & q) != 0] ^= q - one
        q >>= one
    x ^= t[:, None]
    # The transpose's bits, interleaved most significant first, are the index.
    index = np.zeros(n, dtype=np.uint64)
    for b in range(bits - 1, -1, -1):
        for i in range(d):
            index = (index << one) | ((x[:, i] >> np.uint64(b)) & one)
    return index


def solve(problem, bits=16):
    """The new owner of every object: the rank whose piece of the curve holds it."""
    if "coords" not in problem:
        raise ValueError("hilbert_sfc orders objects by their coordinates, and the mesh has none")
    order = np.argsort(hilbert_index(problem["coords"], bits), kind="stable")
    load = problem["load"][order]
    speed = problem["rank_speed"]
    # Each rank's piece ends where the load along the curve reaches its share of the total;
    # an object belongs to the piece its middle falls in.
    ends = np.cumsum(speed) / speed.sum() * load.sum()
    middles = np.cumsum(load) - load / 2
    piece = np.minimum(np.searchsorted(ends, middles, side="right"), problem["nranks"] - 1)
    owners = np.empty(len(order), dtype=np.int64)
    owners[order] = piece
    return owners
