// A store kept in one JSON file, read and written synchronously: what a worker process
// would use to survive being killed. (A real deployment would use a database or KV.)
import { readFileSync, writeFileSync, renameSync, existsSync } from "node:fs";

export function fileStore(path) {
  const read = () => (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {});
  const write = (data) => {
    writeFileSync(`${path}.tmp`, JSON.stringify(data));
    renameSync(`${path}.tmp`, path); // atomic: a kill mid-write leaves the old file whole
  };
  return {
    get: (key) => read()[key],
    set(key, value) {
      const data = read();
      data[key] = value;
      write(data);
    },
    delete(key) {
      const data = read();
      delete data[key];
      write(data);
    },
  };
}
