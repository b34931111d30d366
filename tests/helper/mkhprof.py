"""mkhprof.py — writes small HPROF files byte by byte for the CLI tests.

The C writer (tests/helper/hpw.h) serves the unit tests; this one lets a
shell test describe a dump in a few lines of Python.  Ids are 4 bytes
(version 1.0.2) or, with android=True, 4 bytes in format 1.0.3.

    d = Dump(android=False)
    cls = d.load_class("java.lang.Object")           # names as Java writes them
    d.class_dump(cls, fields=[("next", OBJECT)])
    o = d.instance(cls, [OBJECT_NULL])
    d.root(o)
    d.write("x.hprof")

Strings are given as bytes when they must hold invalid UTF-8.
"""
import struct

OBJECT, BOOLEAN, CHAR, FLOAT, DOUBLE, BYTE, SHORT, INT, LONG = 2, 4, 5, 6, 7, 8, 9, 10, 11
SIZES = {OBJECT: 4, BOOLEAN: 1, CHAR: 2, FLOAT: 4, DOUBLE: 8, BYTE: 1, SHORT: 2, INT: 4, LONG: 8}


def _b(s):
    return s if isinstance(s, bytes) else s.encode()


class Dump:
    def __init__(self, android=False):
        self.android = android
        self.records = []          # top-level records before the heap dump
        self.sub = []              # heap dump sub-records
        self.next_id = 0x1000
        self.strings = {}
        self.serial = 0

    def new_id(self):
        self.next_id += 16
        return self.next_id

    def string(self, s):
        s = _b(s)
        if s in self.strings:
            return self.strings[s]
        sid = self.new_id()
        self.records.append(struct.pack(">BII", 0x01, 0, 4 + len(s)) + struct.pack(">I", sid) + s)
        self.strings[s] = sid
        return sid

    def load_class(self, name):
        """name in the dump's notation ("java/lang/String", "[B") or Java's (dots)"""
        name = _b(name).replace(b".", b"/")
        cid = self.new_id()
        self.serial += 1
        nid = self.string(name)
        self.records.append(struct.pack(">BIIIIII", 0x02, 0, 16, self.serial, cid, 0, nid))
        return cid

    def class_dump(self, cid, super_id=0, fields=(), statics=(), instance_size=None):
        """fields: (name, type); statics: (name, type, value)"""
        size = instance_size if instance_size is not None else sum(SIZES[t] for _, t in fields)
        b = struct.pack(">BIIIIIIIIIH", 0x20, cid, 0, super_id, 0, 0, 0, 0, 0, size, 0)
        b += struct.pack(">H", len(statics))
        for name, t, v in statics:
            b += struct.pack(">IB", self.string(name), t) + v.to_bytes(SIZES[t], "big")
        b += struct.pack(">H", len(fields))
        for name, t in fields:
            b += struct.pack(">IB", self.string(name), t)
        self.sub.append(b)
        self.field_types = getattr(self, "field_types", {})
        self.field_types[cid] = [t for _, t in fields]
        self.supers = getattr(self, "supers", {})
        self.supers[cid] = super_id

    def layout(self, cid):
        """the field types of an instance: the class's own, then its supers' (as HotSpot writes them)"""
        types = []
        seen = set()
        while cid and cid not in seen:
            seen.add(cid)
            types += getattr(self, "field_types", {}).get(cid, [])
            cid = getattr(self, "supers", {}).get(cid, 0)
        return types

    def instance(self, cid, values=()):
        """values: the class's own fields first, then its supers' (layout())"""
        oid = self.new_id()
        data = b"".join(v.to_bytes(SIZES[t], "big") for t, v in zip(self.layout(cid), values))
        self.sub.append(struct.pack(">BIIII", 0x21, oid, 0, cid, len(data)) + data)
        return oid

    def prim_array(self, t, data):
        oid = self.new_id()
        n = len(data) // SIZES[t]
        self.sub.append(struct.pack(">BIIIB", 0x23, oid, 0, n, t) + data)
        return oid

    def obj_array(self, cid, ids):
        oid = self.new_id()
        self.sub.append(struct.pack(">BIIII", 0x22, oid, 0, len(ids), cid) + b"".join(struct.pack(">I", i) for i in ids))
        return oid

    def root(self, oid, kind=0x01):
        """0x01 JNI global (a second id follows), 0xff unknown, 0x05 sticky class"""
        if kind == 0x01:
            self.sub.append(struct.pack(">BII", 0x01, oid, 0))
        else:
            self.sub.append(struct.pack(">BI", kind, oid))

    def heap_info(self, heap_id, name):
        """Android: the objects after it are in heap `name` (bytes allowed)"""
        self.sub.append(struct.pack(">BII", 0xFE, heap_id, self.string(name)))

    def write(self, path):
        fmt = b"JAVA PROFILE 1.0.3\0" if self.android else b"JAVA PROFILE 1.0.2\0"
        out = fmt + struct.pack(">IQ", 4, 0) + b"".join(self.records)
        body = b"".join(self.sub)
        out += struct.pack(">BII", 0x1C, 0, len(body)) + body + struct.pack(">BII", 0x2C, 0, 0)
        with open(path, "wb") as f:
            f.write(out)
