"""histo.py — reads `jcmd PID GC.class_histogram` output for the JDK tests.

    from histo import read_histo
    h = read_histo("run.histo")        # {"java.lang.String": (instances, bytes), ...}

Class names come as Java writes them in the histogram's descriptors
("[B", "[Ljava.lang.Object;") and are given as hprofan prints them
("byte[]", "java.lang.Object[]").
"""
import re

_PRIM = {"B": "byte", "C": "char", "I": "int", "J": "long", "S": "short", "Z": "boolean", "F": "float", "D": "double"}


def jname(n):
    dims = 0
    while n.startswith("["):
        dims += 1
        n = n[1:]
    if dims:
        n = _PRIM[n] if n in _PRIM else n[1:-1]
    return n + "[]" * dims


def read_histo(path):
    h = {}
    for line in open(path):
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m:
            h[jname(m.group(3))] = (int(m.group(1)), int(m.group(2)))
    return h
