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

Records too big to hold in memory (gzip bombs): a piece of a record may be
an int, that many zero bytes, written (and gzipped, write(path, gz=True))
as a stream:

    d.huge_string(1 << 30)                    # a 1 GiB STRING record
    d.huge_instance(cls, 1 << 30)             # an INSTANCE of 1 GiB of field bytes
    d.huge_prim_array(BYTE, 1 << 30)          # a byte[] of 1 GiB
    d.huge_obj_array(cls, 1 << 30)            # an Object[] of 2^28 nulls
    d.huge_trace(7, 1 << 28)                  # a STACK TRACE of 2^28 frames

Stacks and threads (top-level records, written before the heap dump):

    f = d.stack_frame("run", "()V", "Foo.java", cls, 42)   # line -1 unknown, -2 compiled, -3 native
    d.stack_trace(1, 1, [f])                  # trace serial 1 of thread serial 1, top frame first
    d.start_thread(1, tobj, 1, "main")        # thread serial, Thread object, trace serial, name
    d.thread_root(tobj, 1, trace=1)           # ROOT THREAD OBJECT naming the trace
    d.instance(cls, [...], trace=1)           # an allocation site: the record's trace serial
"""
import struct
import zlib

OBJECT, BOOLEAN, CHAR, FLOAT, DOUBLE, BYTE, SHORT, INT, LONG = 2, 4, 5, 6, 7, 8, 9, 10, 11
SIZES = {OBJECT: 4, BOOLEAN: 1, CHAR: 2, FLOAT: 4, DOUBLE: 8, BYTE: 1, SHORT: 2, INT: 4, LONG: 8}


def _b(s):
    return s if isinstance(s, bytes) else s.encode()


class Dump:
    def __init__(self, android=False, timestamp_ms=0, first_id=0x1000):
        self.android = android
        self.timestamp_ms = timestamp_ms
        self.records = []          # top-level records before the heap dump
        self.sub = []              # heap dump sub-records
        self.next_id = first_id         # ids: first_id + 16, + 32, ...
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
        self.class_serials = getattr(self, "class_serials", {})
        self.class_serials[cid] = self.serial
        return cid

    def stack_frame(self, method, signature, source, cid, line):
        """a STACK FRAME of class cid (a load_class() id, 0: none); source None: no file"""
        fid = self.new_id()
        src = self.string(source) if source is not None else 0
        serial = getattr(self, "class_serials", {}).get(cid, 0)
        self.records.append(struct.pack(">BIIIIIIIi", 0x04, 0, 24, fid, self.string(method), self.string(signature),
                                        src, serial, line))
        return fid

    def stack_trace(self, serial, thread_serial, frames):
        """a STACK TRACE: frames (stack_frame() ids), the top frame first"""
        self.records.append(struct.pack(">BIIIII", 0x05, 0, 12 + 4 * len(frames), serial, thread_serial, len(frames)) +
                            b"".join(struct.pack(">I", f) for f in frames))

    def start_thread(self, serial, oid, trace, name, group="main", parent=""):
        """a START THREAD record (the JDK hprof agent and Android write them)"""
        ids = [self.string(x) if x else 0 for x in (name, group, parent)]
        self.records.append(struct.pack(">BIIIIIIII", 0x0A, 0, 24, serial, oid, trace, *ids))

    def class_dump(self, cid, super_id=0, fields=(), statics=(), instance_size=None, loader=0):
        """fields: (name, type); statics: (name, type, value); loader: the class loader's id"""
        size = instance_size if instance_size is not None else sum(SIZES[t] for _, t in fields)
        b = struct.pack(">BIIIIIIIIIH", 0x20, cid, 0, super_id, loader, 0, 0, 0, 0, size, 0)
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

    def instance(self, cid, values=(), types=None, trace=0):
        """values: the class's own fields first, then its supers' (layout()),
        or of `types`; trace: the allocation site's stack trace serial"""
        oid = self.new_id()
        if types is None:
            # own fields come first: the chain's layout only when the values
            # go past them (a chain 100,000 classes deep stays linear)
            own = self.field_types.get(cid, [])
            types = own if len(values) <= len(own) else self.layout(cid)
        data = b"".join(v.to_bytes(SIZES[t], "big") for t, v in zip(types, values))
        self.sub.append(struct.pack(">BIIII", 0x21, oid, trace, cid, len(data)) + data)
        return oid

    def prim_array(self, t, data, trace=0):
        oid = self.new_id()
        n = len(data) // SIZES[t]
        self.sub.append(struct.pack(">BIIIB", 0x23, oid, trace, n, t) + data)
        return oid

    def obj_array(self, cid, ids, trace=0):
        oid = self.new_id()
        self.sub.append(struct.pack(">BIIII", 0x22, oid, trace, len(ids), cid) + b"".join(struct.pack(">I", i) for i in ids))
        return oid

    def root(self, oid, kind=0x01):
        """0x01 JNI global (a second id follows), 0xff unknown, 0x05 sticky class"""
        if kind == 0x01:
            self.sub.append(struct.pack(">BII", 0x01, oid, 0))
        else:
            self.sub.append(struct.pack(">BI", kind, oid))

    def thread_root(self, oid, serial, trace=0):
        """ROOT THREAD OBJECT: oid is the java.lang.Thread of thread `serial`, its stack trace `trace`"""
        self.sub.append(struct.pack(">BIII", 0x08, oid, serial, trace))

    def jni_local_root(self, oid, serial, frame=0):
        """ROOT JNI LOCAL: oid is held by frame `frame` of thread `serial`"""
        self.sub.append(struct.pack(">BIII", 0x02, oid, serial, frame))

    def native_stack_root(self, oid, serial):
        """ROOT NATIVE STACK: oid is held by thread `serial`'s native stack"""
        self.sub.append(struct.pack(">BII", 0x04, oid, serial))

    def frame_root(self, oid, serial, frame=0):
        """ROOT JAVA FRAME: oid is a local of thread `serial`'s stack"""
        self.sub.append(struct.pack(">BIII", 0x03, oid, serial, frame))

    def huge_string(self, n):
        """a STRING record of n zero bytes (not interned: a fresh id)"""
        sid = self.new_id()
        self.records.append([struct.pack(">BII", 0x01, 0, 4 + n) + struct.pack(">I", sid), n])
        return sid

    def huge_trace(self, serial, nframes):
        """a STACK TRACE of nframes frame ids 0"""
        self.records.append([struct.pack(">BIIIII", 0x05, 0, 12 + 4 * nframes, serial, 0, nframes), 4 * nframes])

    def huge_instance(self, cid, n):
        oid = self.new_id()
        self.sub.append([struct.pack(">BIIII", 0x21, oid, 0, cid, n), n])
        return oid

    def huge_obj_array(self, cid, n):
        """n zero bytes of elements: n // 4 nulls"""
        oid = self.new_id()
        self.sub.append([struct.pack(">BIIII", 0x22, oid, 0, n // 4, cid), n // 4 * 4])
        return oid

    def huge_prim_array(self, t, n):
        """n zero bytes of elements of type t"""
        oid = self.new_id()
        self.sub.append([struct.pack(">BIIIB", 0x23, oid, 0, n // SIZES[t], t), n // SIZES[t] * SIZES[t]])
        return oid

    def next_dump(self):
        """the sub-records after it go into a second HEAP DUMP (its own
        segment and HEAP DUMP END), as the hprof agent writes one a dump"""
        self.dumps = getattr(self, "dumps", []) + [self.sub]
        self.sub = []

    def heap_info(self, heap_id, name):
        """Android: the objects after it are in heap `name` (bytes allowed)"""
        self.sub.append(struct.pack(">BII", 0xFE, heap_id, self.string(name)))

    @staticmethod
    def _len(piece):
        if isinstance(piece, int):
            return piece
        if isinstance(piece, list):
            return sum(Dump._len(x) for x in piece)
        return len(piece)

    @staticmethod
    def _chunks(piece):
        if isinstance(piece, int):
            zero = bytes(1 << 20)
            while piece > 0:
                k = min(piece, len(zero))
                yield zero[:k]
                piece -= k
        elif isinstance(piece, list):
            for x in piece:
                yield from Dump._chunks(x)
        else:
            yield piece

    def write(self, path, gz=False):
        fmt = b"JAVA PROFILE 1.0.3\0" if self.android else b"JAVA PROFILE 1.0.2\0"
        pieces = [fmt + struct.pack(">IQ", 4, self.timestamp_ms)] + self.records
        for sub in getattr(self, "dumps", []) + [self.sub]:
            body_len = sum(self._len(x) for x in sub)
            pieces += [struct.pack(">BII", 0x1C, 0, body_len)] + sub + [struct.pack(">BII", 0x2C, 0, 0)]
        with open(path, "wb") as f:
            z = zlib.compressobj(1, zlib.DEFLATED, 31) if gz else None
            for piece in pieces:
                for c in self._chunks(piece):
                    f.write(z.compress(c) if z else c)
            if z:
                f.write(z.flush())
