# Writes N records of examples/blog.json5 (app com.example.blog, 0.0.1) as Vein JSON Lines on standard output,
# as fast as awk goes and in constant memory, to be piped into `vein import STORE - --format jsonl`: a third
# are posts with about 300 characters of content, each listing two attachments (the last fewer, to make N), which follow it and name it
# back (both sides of the relationship, as `vein export` writes them). Ids count up, so the file is in id
# order as an export is. Deterministic. Used by bench/import-scale and by the import memory test.
#
#   awk -v N=1000000 -f bench/blog_stream.awk | vein import blog.vein - --format jsonl
BEGIN {
  content = ""
  for (k = 0; k < 14; k++) content = content "Vein keeps data safe. "
  print "{\"vein\":1,\"app\":\"com.example.blog\",\"schemaVersion\":\"0.0.1\"}"
  for (i = 0; 3 * i < N; i++) {
    p = sprintf("01JDQ8ZK3M%016d", 3 * i)
    a = sprintf("01JDQ8ZK3M%016d", 3 * i + 1)
    b = sprintf("01JDQ8ZK3M%016d", 3 * i + 2)
    list = (3 * i + 2 < N) ? "\"" a "\",\"" b "\"" : (3 * i + 1 < N) ? "\"" a "\"" : ""
    printf "{\"model\":\"Post\",\"id\":\"%s\",\"title\":\"Post %d\",\"content\":\"%s\",\"views\":%d,\"publishedAt\":\"2026-01-31T12:00:00.000000Z\",\"attachments\":[%s]}\n", p, i, content, i, list
    if (3 * i + 1 < N) printf "{\"model\":\"Attachment\",\"id\":\"%s\",\"name\":\"photo %d.png\",\"fileType\":\"png\",\"sizeMiB\":1.5,\"data\":null,\"post\":\"%s\"}\n", a, i, p
    if (3 * i + 2 < N) printf "{\"model\":\"Attachment\",\"id\":\"%s\",\"name\":\"notes %d.swift\",\"fileType\":\"swift\",\"sizeMiB\":0.25,\"data\":null,\"post\":\"%s\"}\n", b, i, p
  }
}
