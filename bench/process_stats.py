"""What a process tree costs, read from /proc: its processes, their CPU seconds and resident memory, and how busy the
whole machine was meanwhile (the load of others)."""

from __future__ import annotations

import os
from pathlib import Path


def tree_pids(root: int) -> list[int]:
    """`root` and every process under it (the pool's processes, stdio servers), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU of the process tree so far, with that of its children already waited for."""
    ticks = 0
    for pid in tree_pids(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # utime, stime, cutime, cstime: fields 14-17 of proc(5), 12-15 after the command name.
        ticks += sum(int(value) for value in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat): with the worker's own, the load of others."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def rss_kib(root: int) -> int:
    """Resident memory of the worker's process tree."""
    total = 0
    for pid in tree_pids(root):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total
