// A node --test reporter: how long each test file's tests ran (the sum of its top-level tests),
// longest first, and which failed — what scripts/test.mjs orders its pool by.
export default async function* fileTimes(source) {
  const files = new Map();
  for await (const { type, data } of source) {
    if ((type !== "test:pass" && type !== "test:fail") || data.nesting !== 0 || !data.file) continue;
    const file = files.get(data.file) ?? { ms: 0, failed: 0 };
    file.ms += data.details?.duration_ms ?? 0;
    if (type === "test:fail") file.failed += 1;
    files.set(data.file, file);
  }
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  for (const [path, { ms, failed }] of rows) {
    yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${path.replace(process.cwd() + "/", "")}${failed ? `  (${failed} failed)` : ""}\n`;
  }
}
