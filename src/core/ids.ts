import { randomBytes } from "node:crypto";

// ObjectId layout (4-byte seconds, 5-byte process random, 3-byte counter) keeps ids roughly
// time-ordered, which makes the default `ORDER BY id` paging follow creation order.
const processRandom = randomBytes(5).toString("hex");
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(): string {
  counter = (counter + 1) & 0xffffff;
  const seconds = Math.floor(Date.now() / 1000).toString(16).padStart(8, "0");
  return seconds + processRandom + counter.toString(16).padStart(6, "0");
}

const OBJECT_ID = /^[0-9a-f]{24}$/;

export function isObjectId(value: unknown): value is string {
  return typeof value === "string" && OBJECT_ID.test(value);
}
