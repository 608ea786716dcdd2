#!/usr/bin/env node
// `npx retryline worksheet <module>` / `npx retryline verify <module>` (js/cli/main.mjs).
import { main } from "../js/cli/main.mjs";

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`retryline: ${error?.message ?? error}\n`);
    process.exitCode = 2;
  },
);
