#!/usr/bin/env bash
# Object ids that do not narrow (model/heap.h): a dump of 8-byte ids, some
# 2^40 bytes above the others (past 2^32 steps of their 16-byte alignment),
# keeps them 8 bytes each; the answers from the index it writes (section
# 30, not 72: docs/index-format.md) are the answers without one, the far
# objects found by their ids; and a dump of the same shape with every id
# near keeps 4 (info's model size: 22 and 18 bytes an object, plus the
# bucket index's share).
. "$(dirname "$0")/../lib.sh"

# mk PATH FAR: java.lang.Object, Node { Node next }, six Nodes in a chain
# from a root (0x1000, 0x1010, ...), the odd ones FAR bytes up
mk() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
path, far = sys.argv[1], int(sys.argv[2])
recs, sub, sid = [], [], [0x100]
def string(s):
    sid[0] += 8
    recs.append(struct.pack(">BII", 1, 0, 8 + len(s)) + struct.pack(">Q", sid[0]) + s)
    return sid[0]
def load(serial, cid, name):
    recs.append(struct.pack(">BIIIQIQ", 2, 0, 24, serial, cid, 0, string(name)))
OBJ, NODE = 0x800, 0x810
load(1, OBJ, b"java/lang/Object")
load(2, NODE, b"Node")
nxt = string(b"next")
def class_dump(cid, sup, fields):
    b = struct.pack(">BQIQQQQQQIH", 0x20, cid, 0, sup, 0, 0, 0, 0, 0, 8 * len(fields), 0)
    b += struct.pack(">H", 0) + struct.pack(">H", len(fields))
    for f in fields:
        b += struct.pack(">QB", f, 2)
    sub.append(b)
class_dump(OBJ, 0, [])
class_dump(NODE, OBJ, [nxt])
ids = [0x1000 + 16 * k + (far if k % 2 else 0) for k in range(6)]
for k, i in enumerate(ids):
    n = ids[k + 1] if k + 1 < len(ids) else 0
    sub.append(struct.pack(">BQIQI", 0x21, i, 0, NODE, 8) + struct.pack(">Q", n))
sub.append(struct.pack(">BQ", 0xFF, ids[0]))
for c in (OBJ, NODE):
    sub.append(struct.pack(">BQ", 0x05, c))
body = b"".join(sub)
with open(path, "wb") as f:
    f.write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0) + b"".join(recs))
    f.write(struct.pack(">BII", 0x1C, 0, len(body)) + body + struct.pack(">BII", 0x2C, 0, 0))
print(" ".join(hex(i) for i in ids))
PY
}
W=$TMPD/wide.hprof N=$TMPD/near.hprof
read -r -a WIDS < <(mk "$W" $((1 << 40))) || { fail wide_ids "cannot write the dump"; exit 0; }
mk "$N" 0 >/dev/null || { fail wide_ids "cannot write the dump"; exit 0; }
FAR=${WIDS[3]}

# the model's size: 8 objects (two class objects, six nodes)
model_bpo() { "$HPROFAN" info "$1" --json --no-index 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["model"]["bytes_per_object"])'; }
w=$(model_bpo "$W") n=$(model_bpo "$N")
# (eight objects: the bucket index's 8 bytes are one more an object, the same in both)
if awk -v w="$w" -v n="$n" 'BEGIN { exit !(w == 23 && n == 19) }'
then ok "wide_ids: 8-byte ids where they span 2^40, 4 where near ($w and $n bytes an object)"
else fail wide_ids "model bytes per object: wide $w, near $n (want 22 and 18, and the buckets' 1)"; fi

export HPROFAN_INDEX_DIR=$TMPD/ix
for c in "top|top $W --top 0 --json" "object|object $W $FAR --json" "path|path $W $FAR --json" \
         "sql|sql $W SELECT_printf('%x',id),class,shallow,retained_FROM_objects_ORDER_BY_id" "dominators|dominators $W --json"; do
  name=${c%%|*}
  read -r -a args <<<"${c#*|}"
  args=("${args[@]//_/ }")
  "$HPROFAN" "${args[@]}" --no-index >"$TMPD/$name.want" 2>"$TMPD/err" || fail "wide_ids/$name" "no answer without an index: $(head -c 200 "$TMPD/err")"
done
# the first run writes the index, the next ones read it
"$HPROFAN" top "$W" --top 0 --json >"$TMPD/top.first" 2>"$TMPD/err"
if cmp -s "$TMPD/top.want" "$TMPD/top.first" && [ -n "$(ls "$HPROFAN_INDEX_DIR" 2>/dev/null)" ]
then ok "wide_ids: the first run's answer, its index written"
else fail wide_ids "first run: $(head -c 300 "$TMPD/err")"; fi
"$HPROFAN" path "$W" "$FAR" >/dev/null 2>&1   # (the path search goes in too)
for c in "top|top $W --top 0 --json" "object|object $W $FAR --json" "path|path $W $FAR --json" \
         "sql|sql $W SELECT_printf('%x',id),class,shallow,retained_FROM_objects_ORDER_BY_id" "dominators|dominators $W --json"; do
  name=${c%%|*}
  read -r -a args <<<"${c#*|}"
  args=("${args[@]//_/ }")
  "$HPROFAN" "${args[@]}" --stats >"$TMPD/$name.got" 2>"$TMPD/err"
  if cmp -s "$TMPD/$name.want" "$TMPD/$name.got" && grep -q "^phase_peaks: parse=[0-9]*$" "$TMPD/err"
  then ok "wide_ids/$name: from the index, the answer without one"
  else fail "wide_ids/$name" "$(diff "$TMPD/$name.want" "$TMPD/$name.got" | head -5) $(grep -v '^stats\|^phase\|^spill\|^io' "$TMPD/err" | head -c 200)"; fi
done
if grep -q "^${FAR#0x} *Node" "$TMPD/sql.got" && grep -q "$FAR" "$TMPD/object.got"
then ok "wide_ids: the far object, by its id, from the index"
else fail wide_ids "the far object $FAR not in the answers: $(head -c 300 "$TMPD/object.got")"; fi
