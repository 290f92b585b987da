-- The table vein create makes for bench/posts.json5 (the same DDL for the shell's CSV import).
CREATE TABLE "Post" (
  "_id" TEXT PRIMARY KEY NOT NULL,
  "title" TEXT NOT NULL,
  "content" TEXT NOT NULL,
  "views" INTEGER NOT NULL,
  "score" REAL NOT NULL,
  "published" INTEGER NOT NULL CHECK ("published" IN (0, 1)),
  "publishedAt" REAL NOT NULL
);
