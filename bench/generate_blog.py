#!/usr/bin/env python3
"""Writes a blog store's records as Vein JSON Lines for examples/blog.json5 (app com.example.blog, 0.0.1):
POSTS posts of 300 characters and ATTACHMENTS attachments (sizeMiB uniform in 0..500, so about 80% are over
100; no data), each on a random post, both sides of the relationship listed. Deterministic.

  bench/generate_blog.py 20000 24000 > blog.jsonl
  vein import blog.vein blog.jsonl --create --schema examples/blog.json5
"""
import json, random, sys

posts, attachments = int(sys.argv[1]), int(sys.argv[2])
alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

def ulid(i):
    s = ""
    for _ in range(16):
        s = alphabet[i % 32] + s
        i //= 32
    return "01JDQ8ZK3M" + s

rng = random.Random(7)
owner = [rng.randrange(posts) for _ in range(attachments)]
lists = {}
for j, p in enumerate(owner):
    lists.setdefault(p, []).append(ulid(posts + j))
out = sys.stdout
out.write('{"vein":1,"app":"com.example.blog","schemaVersion":"0.0.1"}\n')
for i in range(posts):
    out.write(json.dumps({"model": "Post", "id": ulid(i), "title": f"Post {i}", "content": "x" * 300, "views": i,
                          "publishedAt": None, "attachments": lists.get(i, [])}) + "\n")
for j in range(attachments):
    out.write(json.dumps({"model": "Attachment", "id": ulid(posts + j), "name": f"a{j}.png", "fileType": "png",
                          "sizeMiB": round(rng.random() * 500, 2), "data": None, "post": ulid(owner[j])}) + "\n")
