#!/usr/bin/env python3
"""Writes N blog posts three ways into DIR: posts.jsonl (Vein's JSON Lines, with header and "model"),
posts-plain.jsonl (the bare records, for sqlite-utils) and posts.csv (for the sqlcipher shell's .import).
Deterministic: the same N gives the same files."""
import json, random, sys

n, out = int(sys.argv[1]), sys.argv[2]
alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
words = "vein keeps data safe encrypted schema versioned object store swift linux records".split()
rng = random.Random(42)

def ulid(i):
    s = ""
    for _ in range(16):
        s = alphabet[i % 32] + s
        i //= 32
    return "01JDQ8ZK3M" + s

with open(f"{out}/posts.jsonl", "w") as vein, open(f"{out}/posts-plain.jsonl", "w") as plain, open(f"{out}/posts.csv", "w") as csv:
    vein.write('{"vein":1,"app":"bench.posts","schemaVersion":"1.0.0"}\n')
    for i in range(n):
        content = " ".join(rng.choice(words) for _ in range(45))
        seconds = 1_700_000_000 + i * 37
        micros = i % 1_000_000
        record = {"id": ulid(i), "title": f"Post number {i}", "content": content, "views": rng.randrange(100000),
                  "score": round(rng.random() * 100, 3), "published": i % 3 != 0}
        import datetime
        date = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{micros:06d}Z"
        record["publishedAt"] = date
        vein.write(json.dumps({"model": "Post", **record}, separators=(",", ":"), ensure_ascii=False) + "\n")
        plain.write(json.dumps({**record, "publishedAt": seconds + micros / 1e6}, separators=(",", ":")) + "\n")
        csv.write(f'{record["id"]},"{record["title"]}","{content}",{record["views"]},{record["score"]},{int(record["published"])},{seconds + micros / 1e6}\n')
