"""Every rank's load on the machine, from `lbbench run --rank-loads FILE` (plot.py ranks).

The file is one brotli stream: a JSON header line, then int32 node and site per rank, then
float32 loads row by row (rank-major, components fastest); see benchmark/replay/rank_loads.hpp.

Ranks are laid out as the machine holds them:
  - a torus: its nodes' coordinates folded into 2-D (even dimensions across, odd ones down,
    the first fastest, as SimGrid numbers them), each node a tile of its ranks;
  - a fat tree, a crossbar or real hosts: nodes in rows, their ranks across;
  - several sites: one band per site, a blank row between bands.
"""
import json
import math

import numpy as np


def read(path):
    """(header, node per rank, site per rank, loads: rows x ranks x dims)."""
    import brotli  # Debian's python3-brotli; imported here so that plot.py runs without it

    data = brotli.decompress(open(path, "rb").read())
    end = data.index(b"\n")
    header = json.loads(data[:end])
    if header.get("format") != "lbbench.rank_loads/1":
        raise ValueError(f"{path}: not an lbbench rank-loads file (format {header.get('format')!r})")
    n, dims, rows = header["ranks"], header["dims"], len(header["rows"])
    body = data[end + 1:]
    node = np.frombuffer(body, dtype="<i4", count=n)
    site = np.frombuffer(body, dtype="<i4", count=n, offset=4 * n)
    loads = np.frombuffer(body, dtype="<f4", count=rows * n * dims, offset=8 * n).reshape(rows, n, dims)
    return header, node, site, loads


def tile_shape(ranks_per_node):
    """A node's ranks as a near-square tile (rows, columns)."""
    rows = int(math.sqrt(ranks_per_node))
    while ranks_per_node % rows:
        rows -= 1
    return rows, ranks_per_node // rows


def node_positions(machine, nodes):
    """Each node's (row, column) among the site's nodes, and the site's grid (rows, columns)."""
    shape = machine.get("torus_shape") or []
    if machine["topology"] == "torus" and shape:
        coords = np.stack(np.unravel_index(np.arange(nodes), shape, order="F"), axis=1)
        across, down = shape[0::2], shape[1::2]
        col = np.ravel_multi_index(tuple(coords[:, 0::2].T), across, order="F") if across else np.zeros(nodes, int)
        row = np.ravel_multi_index(tuple(coords[:, 1::2].T), down, order="F") if down else np.zeros(nodes, int)
        return row, col, (int(np.prod(down)) if down else 1, int(np.prod(across)))
    # Nodes in rows: one per row while they are few, else a near-square grid of them.
    columns = 1 if nodes <= 64 else math.ceil(math.sqrt(nodes))
    index = np.arange(nodes)
    return index // columns, index % columns, (math.ceil(nodes / columns), columns)


def layout(header, node, site):
    """Each rank's pixel (row, column), and the image's (rows, columns)."""
    machine = header["machine"]
    per_node = max(1, machine.get("ranks_per_node", 1))
    sites = max(1, machine.get("sites", 1))
    n = header["ranks"]
    # A rank's place in its node, in rank order.
    slot = np.zeros(n, dtype=int)
    seen = {}
    for r in range(n):
        key = int(node[r])
        slot[r] = seen.get(key, 0)
        seen[key] = slot[r] + 1
    per_node = max(per_node, int(slot.max()) + 1)
    tile_rows, tile_cols = tile_shape(per_node) if machine["topology"] == "torus" else (1, per_node)
    hosts = machine.get("hosts_per_site") or int(node.max()) + 1
    local = node % hosts if sites > 1 else node
    # A torus's picture holds all its nodes, where they sit; another network's, those in use.
    shown = hosts if machine["topology"] == "torus" else (machine.get("nodes_per_site") or int(local.max()) + 1)
    nrow, ncol, (grid_rows, grid_cols) = node_positions(machine, shown)
    band = grid_rows * tile_rows + 1  # a blank row between sites
    row = site * band + nrow[local] * tile_rows + slot // tile_cols
    col = ncol[local] * tile_cols + slot % tile_cols
    return row, col, (sites * band - 1, grid_cols * tile_cols)


def image(values, row, col, shape):
    out = np.full(shape, np.nan)
    out[row, col] = values
    return out


def calls(header):
    """Per LB call: its number and the rows of its step before and after, where recorded."""
    found = {}
    for i, r in enumerate(header["rows"]):
        for label in r["labels"]:
            if label.startswith(("before LB ", "after LB ")):
                kind, number = label.rsplit(" ", 1)[0].split()[0], int(label.rsplit(" ", 1)[1])
                found.setdefault(number, {})[kind] = i
    return [(k, v["before"], v["after"]) for k, v in sorted(found.items()) if "before" in v and "after" in v]


def title_of(header):
    m = header["machine"]
    return f"{header['scenario']} · {header['ranks']} ranks on {m['preset']} ({header['engine']})"


def plot_machine(plt, header, node, site, loads, out, name, component, max_calls=3):
    """Loads before and after each call on the machine, with what each call changed."""
    shown = calls(header)[:max_calls]
    if not shown:
        return False
    row, col, shape = layout(header, node, site)
    values = loads[:, :, component] * 1e3 if component is not None else loads.sum(axis=2) * 1e3
    used = [i for _, b, a in shown for i in (b, a)]
    vmax = float(np.nanmax(values[used]))
    change = max(float(np.nanmax(np.abs(values[a] - values[b]))) for _, b, a in shown) or 1.0
    # A long strip (a few nodes of many cores) is stretched to a readable panel.
    aspect = shape[1] / max(1, shape[0])
    stretch = aspect > 4 or aspect < 0.25
    # Wider panels for large machines, so that a pixel stays about a rank.
    side = min(5.0, max(2.4, shape[1] / 90))
    panel = (2.6, 1.0) if stretch and aspect > 1 else (1.0, 2.6) if stretch else (side, side / aspect)
    fig, axes = plt.subplots(3, len(shown), figsize=(panel[0] * len(shown) + 1.4, 3 * panel[1] + 1.0), squeeze=False)
    images = [None, None, None]
    for j, (number, before, after) in enumerate(shown):
        for i, (data, cmap, lo, hi, label) in enumerate([
                (values[before], "viridis", 0.0, vmax, f"before LB {number} (step {header['rows'][before]['step']})"),
                (values[after], "viridis", 0.0, vmax, f"after LB {number}"),
                (values[after] - values[before], "RdBu_r", -change, change, "after − before")]):
            ax = axes[i][j]
            images[i] = ax.imshow(image(data, row, col, shape), cmap=cmap, vmin=lo, vmax=hi,
                                  interpolation="nearest", aspect="auto" if stretch else "equal")
            ax.set_title(label, fontsize=7)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.grid(False)
    fig.subplots_adjust(hspace=0.45)
    # Before and after share one scale; the change has its own, centred on zero.
    fig.colorbar(images[0], ax=[a for r in axes[:2] for a in r], shrink=0.9, label="compute per step (ms)")
    fig.colorbar(images[2], ax=axes[2].tolist(), shrink=0.9, label="change (ms)")
    fig.suptitle(title_of(header) + (f", {header['components'][component]}" if component is not None else ""),
                 fontsize=8)
    save(fig, out, name)
    return True


def plot_timeline(plt, header, loads, out, name, component):
    """Ranks down, steps across: where the load sits over the run, the LB calls marked."""
    strided = [i for i, r in enumerate(header["rows"]) if "stride" in r["labels"]]
    if len(strided) < 2:
        return False
    values = loads[strided][:, :, component] if component is not None else loads[strided].sum(axis=2)
    steps = [header["rows"][i]["step"] for i in strided]
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    shown = ax.imshow(values.T * 1e3, aspect="auto", interpolation="nearest", cmap="viridis",
                      extent=(steps[0] - 0.5, steps[-1] + 0.5, header["ranks"] - 0.5, -0.5))
    for number, before, _ in calls(header):
        ax.axvline(header["rows"][before]["step"] + 0.5, color="white", linewidth=0.8, linestyle="--")
    ax.set_xlabel("step (dashed: an LB call after it)")
    ax.set_ylabel("rank")
    ax.grid(False)
    fig.colorbar(shown, ax=ax, label="compute per step (ms)")
    ax.set_title(title_of(header), fontsize=8)
    save(fig, out, name)
    return True


def save(fig, out, name):
    for ext in ("pdf", "png"):
        fig.savefig(out / f"{name}.{ext}", dpi=200)
    import matplotlib.pyplot as plt

    plt.close(fig)
